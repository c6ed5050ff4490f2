// `kda-harness sensitivity [--op OP] [--backend B] [--tensor T]... [--dtype D]... [--suite S]...`:
// how small a deviation each suite notices (engine/driver/sensitivity.hpp). For every tensor the
// operator writes (out, state; with rings d, k, g), every dtype of it and every suite, the
// smallest k (1, 2, 4, ...) at which backend B with what it writes to that tensor moved by k
// units of the dtype's roundoff fails within --cases cases of well-conditioned values.
// Exit 0 unless --max-k is given and some cell exceeds it.
#include <fmt/format.h>

#include <memory>

#include "engine/driver/sensitivity.hpp"
#include "tools/exit_code.hpp"
#include "engine/description/operator.hpp"
#include "tools/subcommands.hpp"

namespace kda::cli {
namespace {

struct SensitivityArgs {
  std::string op = std::string(engine::default_operator().name), backend = "reference", how = "scale";
  std::vector<std::string> tensors, dtypes = {"f32", "bf16", "f16"}, suites = {"kernel", "kernel-truth"};
  int64_t cases = 100;
  uint64_t seed = 1;
  double ceiling = 0;  // --max-k: 0 none
  const CLI::Option* op_option = nullptr;  // whether --op was given (else a plugin's own operator)
};

int run_sensitivity(const SensitivityArgs& a) {
  engine::SensitivityProbe p;
  p.op = &judged_operator(a.op_option, a.op, a.backend);
  p.backend = a.backend;
  p.how = a.how;
  p.cases = a.cases;
  p.seed = a.seed;
  std::vector<std::string> tensors = a.tensors;
  if (tensors.empty()) {
    tensors = {"out", "state"};
    if (engine::takes(*p.op, "d_cache")) tensors.insert(tensors.end(), {"d", "k", "g"});
  }
  fmt::print("smallest k caught within {} cases ({} by k units of roundoff of the tensor's dtype; backend {}, "
             "operator {}, values=well)\n",
             a.cases, a.how, a.backend, p.op->name);
  fmt::print("{:<7} {:<6}", "tensor", "dtype");
  for (const std::string& s : a.suites) fmt::print(" {:>12}", s);
  fmt::print("\n");
  bool within = true;
  for (const std::string& t : tensors)
    for (const std::string& d : a.dtypes) {
      const ScalarType dtype = *parse_scalar_type(d);
      if (t == "g" && dtype != ScalarType::Float32) continue;  // the g ring is float32
      p.tensor = t;
      p.dtype = dtype;
      fmt::print("{:<7} {:<6}", t, name_of(dtype));
      for (const std::string& s : a.suites) {
        p.suite = s;
        p.max_k = a.ceiling > 0 ? a.ceiling : 1 << 20;
        const engine::SensitivityResult r = engine::measure_sensitivity(p);
        fmt::print(" {:>12}", r.smallest_k ? fmt::format("{:g}", *r.smallest_k) : fmt::format(">{:g}", p.max_k));
        std::fflush(stdout);
        if (!r.smallest_k && a.ceiling > 0) within = false;
      }
      fmt::print("\n");
    }
  return within ? kPass : kFail;
}

}  // namespace

void register_sensitivity(CLI::App& app) {
  auto a = std::make_shared<SensitivityArgs>();
  CLI::App* cmd = app.add_subcommand("sensitivity", "How small a deviation of each written tensor each suite notices: "
                                                    "the smallest k units of roundoff caught, per tensor, dtype, suite");
  a->op_option = add_op_option(cmd, a->op);
  cmd->add_option("--backend", a->backend, "The backend perturbed (default: reference)");
  cmd->add_option("--tensor", a->tensors, "out, state, d, k, g (repeatable; default: every tensor the operator writes)")
      ->check(CLI::IsMember({"out", "state", "d", "k", "g"}));
  cmd->add_option("--dtype", a->dtypes, "f32, bf16, f16 (repeatable; default: all three)")
      ->check(CLI::IsMember({"f32", "bf16", "f16", "float32", "bfloat16", "float16"}));
  cmd->add_option("--suite", a->suites, "kernel, kernel-truth (check's names; repeatable; default: both)")
      ->check(CLI::IsMember({"kernel", "kernel-truth"}));
  cmd->add_option("--how", a->how, "scale (every written element), offset (every element by the block's RMS), ulp "
                                   "(one element)")
      ->check(CLI::IsMember({"scale", "offset", "ulp"}));
  cmd->add_option("--cases", a->cases, "Cases per k")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", a->seed, "Seed of the drawn cases");
  cmd->add_option("--max-k", a->ceiling, "Largest k tried; exit 1 if some cell is not caught by then")
      ->check(CLI::PositiveNumber);
  cmd->callback([a] { set_exit_code(run_sensitivity(*a)); });
}

}  // namespace kda::cli
