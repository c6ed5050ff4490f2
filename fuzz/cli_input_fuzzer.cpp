// libFuzzer target: bytes -> the two kinds of text a user hands kda-harness, through the
// parsers the command line uses:
//   - a case line (`kda-harness case "<line>"`: parse_case_line, then engine/driver/case_line.hpp's
//     read_case_line: its operator, the field check that names what is wrong, the operator's
//     fit and the budget estimates that refuse a config before anything is allocated);
//   - a call's JSON metadata (`kda-harness validate FILE`: parse_call_metadata with each
//     operator's tensors and scalars, then that operator's validate());
//   - a case file (`kda-harness case FILE.safetensors`, `golden verify`: read_safetensors,
//     decode, then verify_case on the CPU reference), which may lie about its offsets,
//     shapes and index values (regressions/cli_input_fuzzer/*.safetensors).
// Every input goes through all three. A finding: an exception other than the parsers' documented
// ones (std::invalid_argument, MetadataError, ContractError), a line that does not read
// back as itself from its own printed form, a budget estimate that is negative or NaN, metadata whose printed JSON does not
// parse back to the same metadata, or a sanitizer report.
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "cases/case_config.hpp"
#include "contract/contract_error.hpp"
#include "contract/metadata_json.hpp"
#include "engine/backends/backend.hpp"
#include "engine/description/operator.hpp"
#include "engine/driver/case_line.hpp"
#include "fuzz/fuzz_finding.hpp"
#include "golden/golden_case.hpp"
#include "golden/golden_verify.hpp"

namespace {

constexpr const char* kTarget = "cli_input_fuzzer";

[[noreturn]] void found(const std::string& what, std::string_view input) {
  kda::fuzz::finding(kTarget, what + "\ninput: " + std::string(input));
}

void config_line(std::string_view text) {
  using namespace kda;
  CaseLine parsed;
  try {
    parsed = parse_case_line(text);
  } catch (const std::invalid_argument&) {
    return;  // a refused line: `case` says why (exit 2)
  } catch (const std::exception& e) {
    found(std::string("parse_case_line threw ") + e.what(), text);
  }
  const std::string line = to_string(parsed.config, parsed.op);
  try {
    const CaseLine again = parse_case_line(line);
    if (to_string(again.config, again.op) != line) found("the printed line reads back differently: " + line, text);
  } catch (const std::exception& e) {
    found(std::string("the printed line does not read back: ") + e.what() + ": " + line, text);
  }
  engine::OperatorCase c;
  try {
    c = engine::read_case_line(text, {}, {1e300, 1e300});  // budgets out of the way: the estimates are checked below
  } catch (const engine::CaseLineError&) {
    return;  // an unknown operator or no valid call: `case` says why (exit 2)
  } catch (const std::exception& e) {
    found(std::string("read_case_line threw ") + e.what(), text);
  }
  const double bytes = engine::case_memory_bytes(c.config);
  if (!(bytes >= 0)) found("a memory estimate that is negative or NaN: " + std::to_string(bytes), text);
  if (!(engine::case_work(c.config) >= 0)) found("a work estimate that is negative or NaN", text);
  (void)engine::over_budget(c.config, engine::CaseBudget{});
}

void call_json(std::string_view text) {
  using namespace kda;
  for (const engine::OperatorDescription* op : engine::operators()) {
    StepTensors call;
    try {
      call = parse_call_metadata(text, op->tensors, op->scalars);
    } catch (const MetadataError&) {
      continue;  // `validate` reports it as a usage error (exit 2)
    } catch (const std::exception& e) {
      found(std::string(op->name) + ": parse_call_metadata threw " + e.what(), text);
    }
    const StepArgs args = op->bind(call.args());
    try {
      (void)op->validate(args, Backend::Any);
    } catch (const ContractError&) {
      // the call breaks the contract: `validate` prints the catalog entry (exit 1)
    } catch (const std::exception& e) {
      found(std::string(op->name) + ": validate threw " + e.what(), text);
    }
    const std::string printed = call_metadata_json(args, op->scalars).dump();
    try {
      StepTensors again = parse_call_metadata(std::string_view(printed), op->tensors, op->scalars);
      if (call_metadata_json(op->bind(again.args()), op->scalars).dump() != printed)
        found(std::string(op->name) + ": the printed metadata reads back differently: " + printed, text);
    } catch (const std::exception& e) {
      found(std::string(op->name) + ": the printed metadata does not read back: " + e.what() + ": " + printed, text);
    }
  }
}

// A file that reads as a case is verified on the reference: whatever it claims, the verdict
// is a report (verify_case turns every error into a failure), never a crash.
void case_file(std::span<const std::byte> bytes) {
  using namespace kda;
  golden::GoldenCase c;
  try {
    c = golden::decode(golden::read_safetensors(bytes), "fuzzed");
  } catch (const golden::SafetensorsError&) {
    return;  // `case` reports a malformed file (exit 2)
  } catch (const std::exception& e) {
    found(std::string("reading a case file threw ") + e.what(), "(binary)");
  }
  if (!engine::has_operator(c.op)) return;
  const std::unique_ptr<engine::Backend> backend = engine::make_backend("reference", engine::find_operator(c.op));
  (void)golden::verify_case(c, *backend);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  config_line(text);
  call_json(text);
  case_file({reinterpret_cast<const std::byte*>(data), size});
  return 0;
}
