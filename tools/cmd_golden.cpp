// `kda-harness golden regen`: rewrites the golden set from the generator (golden/) and says
// what moved. `kda-harness golden verify`: checks the files' hashes, then every case on the
// CPU reference and, where a GPU can be used, on the CUDA kernel (skipped with the reason
// otherwise; --backend cuda makes a missing GPU a failure).
#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "golden/atomic_file.hpp"
#include "golden/golden_generate.hpp"
#include "golden/golden_regen.hpp"
#include "golden/golden_set.hpp"
#include "reference/rounding.hpp"
#include "engine/backends/backend.hpp"
#include "engine/backends/reference_backend.hpp"
#include "golden/golden_verify.hpp"
#include "engine/description/operator.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {
namespace fs = std::filesystem;

struct GoldenArgs {
  std::string dir, manifest, backend = "all", op = std::string(engine::default_operator().name);
  int gpu = -1;
  bool dry_run = false, verbose = false;
  const CLI::Option* op_option = nullptr;  // whether --op was given (else a plugin's own operator)
};

// --dir as given, without trailing separators: "cases/" is the folder "cases", whose manifest
// is beside it, not inside.
fs::path dir_of(const GoldenArgs& a) {
  fs::path d(a.dir);
  while (!d.has_filename() && d.has_relative_path()) d = d.parent_path();
  return d;
}

fs::path manifest_for(const GoldenArgs& a) {
  if (!a.manifest.empty()) return a.manifest;
  if (!a.dir.empty()) return dir_of(a).parent_path() / "manifest.json";
  return golden::default_manifest_path();
}

int run_regen(const GoldenArgs& a) {
  golden::RegenOptions o;
  o.manifest = manifest_for(a);
  o.dir = a.dir.empty() ? o.manifest.parent_path() / "cases" : dir_of(a);
  o.dry_run = a.dry_run;
  try {
    if (a.dir.empty() && golden::resolve_output_target(o.manifest).write_through) {
      std::cerr << "kda-harness golden regen: --manifest " << o.manifest.string()
                << " is no file to put cases/ beside: give --dir\n";
      return kUsage;
    }
    const golden::RegenReport r = golden::regen(o);
    std::cout << r.summary();
    if (a.dry_run && r.changed()) std::cout << "(dry run: nothing written)\n";
    return a.dry_run && r.changed() ? kFail : kPass;
  } catch (const golden::AtomicWriteError& e) {
    std::cerr << "kda-harness golden regen: " << e.what() << " (nothing was replaced)\n";
    return kUsage;
  } catch (const golden::GenerationError& e) {  // the generator's own check of a spec: a check failed
    std::cerr << "kda-harness golden regen: " << e.what() << "\n";
    return kFail;
  } catch (const std::exception& e) {  // a folder or file regen may not use, no memory, ...
    std::cerr << "kda-harness golden regen: " << e.what() << "\n";
    return kUsage;
  }
}

// What one backend's verification came to: its failures, and whether it judged any case.
struct Verified {
  int failures = 0;
  bool judged = false;
};

// Verifies every case on one backend. A case whose file is missing or broken (reported with
// the set) fails on every backend.
Verified verify_on(const golden::LoadedSet& set, engine::Backend& backend, bool verbose) {
  const std::string op(backend.op().name);
  int failures = 0, passed = 0, bit_exact = 0, compared = 0;
  double worst = 0;
  std::string worst_name;
  for (const golden::LoadedCase& lc : set.cases) {
    if (!lc.problem.empty()) {
      ++failures;
      continue;
    }
    if (lc.entry.op != op) continue;  // another operator's case
    const engine::CaseReport v = golden::verify_case(lc.c, backend);
    const reference::Comparison* w = v.worst();
    const double ratio = w ? w->ratio() : 0.0;
    if (v.pass()) ++passed;
    else ++failures;
    bit_exact += v.tensors_bit_exact;
    compared += v.tensors_compared;
    if (ratio > worst || std::isnan(ratio)) worst = ratio, worst_name = v.name;
    if (verbose || !v.pass()) std::cout << v.summary() << "\n";
  }
  std::cout << fmt::format("golden verify on {}: {} passed, {} failed; worst error/tolerance {:.3f} ({}); tensors "
                           "reproduced bit for bit {}/{}\n",
                           backend.name(), passed, failures, worst, worst_name.empty() ? "-" : worst_name, bit_exact,
                           compared);
  if (passed + failures == 0 && backend.op().golden_cases == nullptr) {
    std::cout << "golden verify on " << backend.name() << ": skipped: " << op << " declares no golden cases\n";
    return {};
  }
  if (passed + failures == 0) {
    std::cout << "golden verify on " << backend.name() << ": nothing verified: the manifest lists no case of " << op
              << " (a verification of nothing is not a pass)\n";
    return {1, false};
  }
  return {failures, passed + failures > 0};
}

int run_verify(const GoldenArgs& a) {
  const golden::LoadedSet set = golden::load_set(manifest_for(a));
  if (set.manifest_unreadable) {
    std::cerr << "kda-harness golden verify: " << set.problems.front() << "\n";
    return kUsage;
  }
  int failures = 0;
  bool judged = false;
  const auto add = [&](const Verified& v) { failures += v.failures, judged = judged || v.judged; };
  for (const auto& p : set.problems) std::cout << "golden set: " << p << "\n", ++failures;
  bool malformed = false;
  for (const auto& lc : set.cases) {
    if (!lc.problem.empty()) std::cout << "golden case " << lc.entry.name << ": " << lc.problem << "\n";
    malformed = malformed || lc.malformed;
  }
  std::cout << fmt::format("golden set: {} cases listed in {}\n", set.cases.size(), manifest_for(a).string());
  if (malformed) {
    std::cerr << "kda-harness golden verify: the manifest lists a file with its hash that is not a readable case\n";
    return kUsage;
  }
  if (a.backend == "all" || a.backend == "reference") {
    const auto ref = engine::make_reference_backend(reference::Rounding::Kernel, judged_operator(a.op_option, a.op, a.backend));
    add(verify_on(set, *ref, a.verbose));
  }
  if (a.backend != "reference") {
    // "all": the GPU where there is one; "cuda" or any other backend: explicitly requested.
    const std::string spec = a.backend == "all" || a.backend == "cuda"
                                 ? (a.gpu >= 0 ? fmt::format("cuda:{}", a.gpu) : std::string("cuda"))
                                 : a.backend;
    std::unique_ptr<engine::Backend> b;
    try {
      b = engine::make_backend(spec, judged_operator(a.op_option, a.op, spec));
    } catch (const std::exception& e) {
      // "all" skips a missing GPU; an explicit cuda without one fails; a backend that does not
      // exist or load (a name, a plugin path) is a usage error.
      if (a.backend != "all" && a.backend != "cuda") {
        std::cerr << "kda-harness golden verify: --backend " << spec << ": " << e.what() << "\n";
        return kUsage;
      }
      std::cout << "golden verify on " << spec << ": skipped: " << e.what() << "\n";
      if (a.backend != "all") ++failures;
    }
    if (b) add(verify_on(set, *b, a.verbose));
  }
  // Nothing verified anywhere (an operator without golden cases, its GPU skipped) is no pass.
  if (failures == 0 && !judged) {
    std::cout << "golden verify: NOTHING JUDGED\n";
    return kNothingJudged;
  }
  return failures == 0 ? kPass : kFail;
}

}  // namespace

void register_golden(CLI::App& app) {
  auto* cmd = app.add_subcommand("golden", "Regenerate or verify the golden outputs");
  cmd->require_subcommand(1);
  auto a = std::make_shared<GoldenArgs>();
  auto* regen = cmd->add_subcommand("regen", "Rewrite the golden set from the generator and summarize what moved");
  regen->add_option("--dir", a->dir, "Folder of the case files (default: cases/ beside the default manifest)");
  regen->add_option("--manifest", a->manifest, "Manifest to write (default: manifest.json beside the case folder)");
  regen->add_flag("--dry-run", a->dry_run, "Report what would move, write nothing (exit 1 if anything would)");
  regen->callback([a] { set_exit_code(run_regen(*a)); });
  auto* verify = cmd->add_subcommand("verify", "Check the golden set on the reference and, with a GPU, the kernel");
  verify->add_option("--dir", a->dir, "Folder of the case files (the manifest beside it is read)");
  verify->add_option("--manifest", a->manifest, "Manifest of the set (default: $KDA_GOLDEN_MANIFEST, ./golden/manifest.json, or the golden/ "
                  "beside the build folder)");
  verify->add_option("--backend", a->backend,
                     "reference, cuda, all (default: all that this machine has), or any backend kda-harness case "
                     "takes (plugin:PATH, reference-double)");
  verify->add_option("--gpu", a->gpu, "GPU to use (default: the first usable one)");
  a->op_option = add_op_option(verify, a->op);
  verify->add_flag("--verbose,-v", a->verbose, "Print every case's comparison, not only failures");
  verify->callback([a] { set_exit_code(run_verify(*a)); });
}

}  // namespace kda::cli
