// Kernel fuzz target (g++ + the nvcc-built kernel; there is no clang CUDA here, so it runs
// under the plain driver replay_main.cpp: corpus files and/or -runs=N random inputs, also
// under compute-sanitizer). Bytes -> a valid CaseConfig (the backend's operator's sample space,
// OperatorDescription::sample_case, under the GPU suites' limits: K up to 256, V up to 128,
// L up to 70, B up to 8; or, readable, a first line "case: <one-line config>") plus, per
// (token, row), an optional out-of-range runtime value written into the KERNEL's copy of the
// index tensors before the step: a slot just past the pool, the index dtype's maximum, a
// raw fuzzed slot, another row's slot (duplicate), a cursor of -1, L, INT32_MIN or a raw one.
// (force_flush is not mutated: the rollout driver copies only the index tensors to the
// reference's side, so a flush value of the kernel's copy alone would diverge by design.)
// Raw values that would land on a VALID slot or cursor are moved out of range (a valid but different slot or cursor would read the case's NaN-poisoned unused
// slots and ring records, which is not what this target asks about).
// The rollout (engine/driver/run_case.hpp) then checks, at every step: the kernel's
// row status flags equal the host's plan, every rejected row wrote zeros to out and touched
// nothing else (byte footprint of every written tensor, device guard regions), and the
// accepted rows match reference::replayssm_step within the dtype-derived bounds.
// The backend is our CUDA kernel, or any other the engine knows (KDA_FUZZ_BACKEND, e.g.
// plugin:/path/libmykernel.so), for the operator KDA_FUZZ_OP (default kda_replayssm); the
// case is fitted into its envelope and made one of the operator's cases. An operator without
// write_pos gets no cursor mutations. A backend that does not
// report row status must refuse a step with a mutated row (and write nothing); one that
// declares it claims nothing of such rows (engine::InvalidRows::None) gets none.
// When the backend cannot be made here (no usable GPU for cuda) the target prints
// "SKIPPED: <reason>" and exits 0.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "contract/tensor_view.hpp"
#include "engine/backends/backend.hpp"
#include "engine/description/operator_words.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/run_case.hpp"
#include "fuzz/fdp_chooser.hpp"
#include "fuzz/fuzz_finding.hpp"

namespace {

using namespace kda;
using namespace kda::engine;

constexpr const char* kTarget = "kernel_fuzzer";

enum class Bad : uint8_t { None, SlotPastPool, SlotMax, SlotRaw, SlotDuplicate, CursorMinus1, CursorL, CursorRaw,
                           CursorMin };

struct RowMutation {
  Bad kind = Bad::None;
  int64_t value = 0;  // raw value, or the other row for SlotDuplicate
};

void write_index(HostTensor& t, int64_t row, int64_t v) { set_index_value(t.dl(), row, v); }
int64_t read_index(const HostTensor& t, int64_t row) { return index_value(t.dl(), row); }

RowMutation decode_mutation(FuzzedDataProvider& p, const CaseConfig& c) {
  RowMutation m;
  const int kind = p.ConsumeIntegralInRange<int>(0, 17);  // 9..17: leave the row alone
  if (kind >= 9) return m;
  m.kind = static_cast<Bad>(kind);
  const bool i64 = c.index_dtype == ScalarType::Int64;
  switch (m.kind) {
    case Bad::SlotRaw: m.value = i64 ? p.ConsumeIntegral<int64_t>() : p.ConsumeIntegral<int32_t>(); break;
    case Bad::SlotDuplicate: m.value = p.ConsumeIntegralInRange<int64_t>(0, c.B - 1); break;
    case Bad::CursorRaw: m.value = p.ConsumeIntegral<int32_t>(); break;
    default: break;
  }
  return m;
}

void apply(CaseTensors& k, int64_t row, const RowMutation& m) {
  const CaseConfig& c = k.config;
  const bool i64 = c.index_dtype == ScalarType::Int64;
  int64_t v = m.value;
  switch (m.kind) {
    case Bad::None: return;
    case Bad::SlotPastPool: return write_index(k.ssm_state_indices, row, c.slots);
    case Bad::SlotMax:
      return write_index(k.ssm_state_indices, row,
                         i64 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max());
    case Bad::SlotRaw:
      if (v >= 0 && v < c.slots) v += c.slots;  // never a valid slot
      return write_index(k.ssm_state_indices, row, v);
    case Bad::SlotDuplicate: {
      const int64_t other = read_index(k.ssm_state_indices, v);
      return write_index(k.ssm_state_indices, row, other >= 0 && v != row ? other : c.slots + 3);
    }
    case Bad::CursorMinus1: return write_index(k.write_pos, row, -1);
    case Bad::CursorL: return write_index(k.write_pos, row, c.L);
    case Bad::CursorRaw:
      if (v >= 0 && v < c.L) v = -1 - v;  // never a valid cursor
      return write_index(k.write_pos, row, v);
    case Bad::CursorMin: return write_index(k.write_pos, row, std::numeric_limits<int32_t>::min());
  }
}

// One step's mutations. A duplicate must stay a duplicate: the row it copies may itself be
// moved off its slot by a later mutation of the same step, which would leave the copy alone
// on a valid slot that is not its own, reading that slot's ring records past their owner's
// cursor (NaN in the case: a finding of this target against itself, see
// regressions/kernel_fuzzer/fixed-duplicate-of-moved-row-*). So duplicates go after every other mutation, and a copy
// left alone on a valid slot is moved out of range.
void mutate_step(CaseTensors& k, const RowMutation* row_mutations) {
  const CaseConfig& c = k.config;
  for (int64_t row = 0; row < c.B; ++row)
    if (row_mutations[row].kind != Bad::SlotDuplicate) apply(k, row, row_mutations[row]);
  for (int64_t row = 0; row < c.B; ++row)
    if (row_mutations[row].kind == Bad::SlotDuplicate) apply(k, row, row_mutations[row]);
  for (int64_t row = 0; row < c.B; ++row) {
    if (row_mutations[row].kind != Bad::SlotDuplicate) continue;
    const int64_t slot = read_index(k.ssm_state_indices, row);
    bool shared = false;
    for (int64_t other = 0; other < c.B; ++other) shared |= other != row && read_index(k.ssm_state_indices, other) == slot;
    if (slot >= 0 && slot < c.slots && !shared) write_index(k.ssm_state_indices, row, c.slots + 3);
  }
}


std::unique_ptr<engine::Backend>& backend() {
  static std::unique_ptr<engine::Backend> b;
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* spec = std::getenv("KDA_FUZZ_BACKEND");
  const std::string which = spec != nullptr && *spec != '\0' ? spec : "cuda";
  const char* op = std::getenv("KDA_FUZZ_OP");
  try {
    backend() = make_backend(which, (op != nullptr && *op != '\0' ? find_operator(op) : default_operator()));
  } catch (const std::exception& e) {
    std::printf("SKIPPED: kernel_fuzzer on backend %s: %s\n", which.c_str(), e.what());
    std::exit(0);
  }
  std::printf("kernel_fuzzer: %s on backend %s, envelope %s\n", std::string(backend()->op().name).c_str(),
              backend()->name().c_str(),
              backend()->envelope().describe().c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // "case: <line>\n" then the mutation bytes: the form the regressions keep, stable when the
  // sample space changes. Otherwise the config is drawn from the bytes.
  CaseConfig drawn;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t line_end = text.find('\n');
  const bool readable = text.rfind("case:", 0) == 0 && line_end != std::string_view::npos;
  if (readable) {
    try {
      drawn = parse_case_config(text.substr(5, line_end - 5));
    } catch (const std::invalid_argument&) {
      return 0;
    }
    if (!is_valid_config(drawn) || rollout_work(drawn) > 1e8) return 0;
  }
  const std::size_t skip = readable ? line_end + 1 : 0;
  FuzzedDataProvider fdp(data + skip, size - skip);
  if (!readable) {
    fuzz::FdpChooser chooser(fdp);
    drawn = backend()->op().sample_case(chooser, engine::limits::gpu_suites(2e6));
  }
  const std::optional<CaseConfig> fitted = backend()->envelope().fit(drawn);
  if (!fitted) return 0;
  const engine::OperatorCase fitted_case = engine::fit(backend()->op(), *fitted);
  const CaseConfig& config = fitted_case.config;
  const bool has_cursors = engine::takes(backend()->op(), "write_pos");
  std::vector<RowMutation> mutations(static_cast<std::size_t>(config.steps * config.B));
  // A backend that claims nothing of invalid rows (SGLang's contract) is fed none: the bytes are
  // read all the same, so an input means the same case on every backend.
  const bool claims_invalid_rows = backend()->envelope().invalid_rows != engine::InvalidRows::None;
  for (RowMutation& m : mutations) {
    m = decode_mutation(fdp, config);
    if ((!has_cursors && m.kind >= Bad::CursorMinus1) || !claims_invalid_rows) m = RowMutation{};
  }
  try {
    const CaseReport r = run_vs_reference(fitted_case, *backend(), [&](CaseTensors& kernel_case, int64_t token) {
      mutate_step(kernel_case, &mutations[token * config.B]);
    });
    if (!r.pass()) fuzz::finding(kTarget, "backend vs reference:\n" + r.summary() + "\n  replay: " + r.replay());
  } catch (const std::exception& e) {
    fuzz::finding(kTarget, std::string("threw ") + typeid(e).name() + ": " + e.what() + "\nconfig: " + engine::config_line(config, backend()->op()));
  }
  return 0;
}
