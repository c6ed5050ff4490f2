// libFuzzer target: bytes -> the metadata of all sixteen arguments (metadata_decoder.hpp) ->
// the contract of every operator of the table (engine/description/operator.hpp), each on the arguments it
// takes (OperatorDescription::bind). Its validate must accept, or raise exactly one catalog
// error; the oracle (contract_oracle.hpp) judges either answer. Further properties of one call:
//   - the backend's device check comes last: a call rejected for Backend::Any is rejected
//     with the same error for Backend::Cpu, and a call accepted for Cpu/Cuda is accepted for
//     Any with the same Dims;
//   - the call's JSON metadata (contract/metadata_json.hpp, the form in which findings and
//     golden error cases are stored) reads back into a call that validate() answers the same
//     way, wherever JSON can carry the call (finite scale, the DLPack dtype codes and device
//     numbers that the reader documents);
//   - an accepted call of an operator whose restated contract restates its step (its
//     description's restated_contract->reference_step_holds: kda_replayssm's), when small and
//     on the CPU, runs through the reference step with fuzzed runtime values.
// Anything else — another exception type, a crash, a sanitizer report — is a finding.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "contract/metadata_json.hpp"
#include "contract/step_fields.hpp"
#include "contract/validate.hpp"
#include "engine/description/contract_restatement.hpp"
#include "engine/description/operator.hpp"
#include "fuzz/contract_oracle.hpp"
#include "fuzz/fdp_chooser.hpp"
#include "fuzz/fuzz_finding.hpp"
#include "fuzz/metadata_decoder.hpp"

namespace {

using namespace kda;

constexpr const char* kTarget = "contract_fuzzer";

struct Outcome {
  std::optional<Dims> dims;  // accepted
  std::string id, message;   // rejected
  bool operator==(const Outcome& o) const { return dims == o.dims && id == o.id && message == o.message; }
  std::string text() const {
    if (dims) return "accepted";
    return "rejected " + id + ": " + message;
  }
};

const char* backend_name(Backend b) { return b == Backend::Cpu ? "Cpu" : b == Backend::Cuda ? "Cuda" : "Any"; }

// Every argument name of every operator (contract/step_fields.hpp): the keys a JSON input
// may hold; each operator then binds the arguments it takes.
const std::vector<std::string_view>& all_tensor_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n;
    for (const TensorField& f : kStepTensors) n.push_back(f.name);
    return n;
  }();
  return names;
}
const std::vector<std::string_view>& all_scalar_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n;
    for (const ScalarField& f : kStepScalars) n.push_back(f.name);
    return n;
  }();
  return names;
}

// The call as JSON metadata with its backend: save it as fuzz/regressions/contract_fuzzer/
// NAME.json to keep it (this target reads it back); `kda-harness validate --op OP FILE.json`
// reads it without the "backend" key (and without the scalars OP does not take).
std::string describe(const StepArgs& args, Backend backend) {
  nlohmann::ordered_json j = call_metadata_json(args, all_scalar_names());
  // JSON has no NaN or inf: such scalars are written as strings ("nan", "inf", "-inf").
  if (!std::isfinite(args.scale)) j["scale"] = std::to_string(args.scale);
  if (args.lower_bound && !std::isfinite(*args.lower_bound)) j["lower_bound"] = std::to_string(*args.lower_bound);
  j["backend"] = backend_name(backend);
  return "call (JSON metadata):\n" + j.dump();
}

using engine::OperatorDescription;

Outcome run_validate(const OperatorDescription& op, const StepArgs& args, Backend backend) {
  Outcome o;
  try {
    o.dims = op.validate(args, backend);
  } catch (const ContractError& e) {
    o.id = e.id();
    o.message = e.what();
  } catch (const std::exception& e) {
    fuzz::finding(kTarget, std::string("validate() threw ") + typeid(e).name() + " (not a ContractError): " + e.what() +
                               "\n" + describe(args, backend));
  }
  return o;
}

// Whether the JSON metadata can carry the call (contract/metadata_json.hpp's vocabulary).
bool json_can_carry(const StepArgs& args) {
  if (!std::isfinite(args.scale)) return false;
  for (const TensorField& f : kStepTensors) {
    const DLTensor* t = f.get(args);
    if (!t) continue;
    if (t->dtype.code > kDLComplex || t->dtype.bits == 0 || t->dtype.lanes == 0) return false;
    if (t->device.device_id < 0) return false;
  }
  return true;
}

void check_json_round_trip(const OperatorDescription& op, const StepArgs& args, Backend backend,
                           const Outcome& expected) {
  if (!json_can_carry(args)) return;
  std::optional<StepTensors> back;
  try {
    // The operator's own arguments: a tensor it does not take (a JSON input's cache_base
    // under a KDA operator) is not part of its call.
    nlohmann::ordered_json j = call_metadata_json(args, op.scalars);
    for (const TensorField& f : kStepTensors)
      if (!takes(op, f.name)) j.erase(std::string(f.name));
    back.emplace(parse_call_metadata(j, op.tensors, op.scalars));
  } catch (const std::exception& e) {
    fuzz::finding(kTarget, std::string("call_metadata_json() wrote what parse_call_metadata() refuses: ") + e.what() +
                               "\n" + describe(args, backend));
  }
  const Outcome again = run_validate(op, op.bind(back->args()), backend);
  if (!(again == expected))
    fuzz::finding(kTarget, "validate() answers the JSON round trip differently: " + again.text() + " vs " +
                               expected.text() + "\n" + describe(args, backend));
}

// A regression input may also be a call's JSON metadata, as a finding prints it (the
// arguments of any operator: gdn_replayssm's cache_base, nk, ... included), with an
// optional "backend" key ("Any", "Cpu", "Cuda"): readable, and stable when the byte decoder
// changes. Text that is not such JSON is skipped (a usage error, not a finding).
std::optional<fuzz::DecodedCall> json_call(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    fuzz::DecodedCall call;
    if (j.is_object() && j.contains("backend")) {
      const std::string b = j["backend"].get<std::string>();
      call.backend = b == "Cpu" ? Backend::Cpu : b == "Cuda" ? Backend::Cuda : Backend::Any;
      j.erase("backend");
    }
    for (const char* scalar : {"scale", "lower_bound"})
      if (j.is_object() && j.contains(scalar) && j[scalar].is_string()) j[scalar] = std::stod(j[scalar].get<std::string>());
    call.meta = parse_call_metadata(j, all_tensor_names(), all_scalar_names());
    return call;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  std::optional<fuzz::DecodedCall> decoded;
  if (size > 0 && data[0] == '{') {
    decoded = json_call(data, size);
    if (!decoded) return 0;
    fdp.ConsumeRemainingBytes<uint8_t>();  // the step check then draws its defaults
  } else {
    decoded = fuzz::decode_call(fdp);
  }
  fuzz::DecodedCall& call = *decoded;
  const Backend backend = call.backend;
  for (const OperatorDescription* op_ptr : engine::operators()) {
  const OperatorDescription& op = *op_ptr;
  const StepArgs args = op.bind(call.meta.args());
  // A call of another signature (the operator's first tensor, which every signature requires,
  // absent: the byte decoder draws ReplaySSM-family calls) is not this operator's call.
  if (tensor_field(op.tensors.front())->get(args) == nullptr) continue;
  try {
    const Outcome outcome = run_validate(op, args, backend);
    if (outcome.dims) {
      if (std::string w = fuzz::judge_acceptance(op, args, backend, *outcome.dims); !w.empty())
        fuzz::finding(kTarget, std::string(op.name) + ": " + w + "\n" + describe(args, backend));
    } else {
      if (std::string w = fuzz::judge_rejection(op, args, backend, ContractError(outcome.id, outcome.message));
          !w.empty())
        fuzz::finding(kTarget, std::string(op.name) + ": " + w + "\n" + describe(args, backend));
    }
    if (backend == Backend::Any && !outcome.dims) {
      const Outcome cpu = run_validate(op, args, Backend::Cpu);
      if (!(cpu == outcome))
        fuzz::finding(kTarget, "Backend::Cpu changes a rejection: " + cpu.text() + " vs " + outcome.text() + "\n" +
                                   describe(args, backend));
    }
    if (backend != Backend::Any && outcome.dims) {
      const Outcome any = run_validate(op, args, Backend::Any);
      if (!(any == outcome)) fuzz::finding(kTarget, "Backend::Any rejects a call accepted for a backend\n" + describe(args, backend));
    }
    check_json_round_trip(op, args, backend, outcome);
    if (outcome.dims && op.restated_contract && op.restated_contract->reference_step_holds) {
      fuzz::FdpChooser choices(fdp);
      if (std::string w = op.restated_contract->reference_step_holds(args, *outcome.dims, choices); !w.empty())
        fuzz::finding(kTarget, "reference step: " + w + "\n" + describe(args, backend));
    }
  } catch (const std::exception& e) {
    fuzz::finding(kTarget, std::string(op.name) + ": uncaught " + typeid(e).name() + ": " + e.what() + "\n" +
                               describe(args, backend));
  }
  }
  return 0;
}
