// A call's metadata as JSON: the input of `kda-harness validate FILE.json`, and the form in
// which tests, fuzzers and golden error cases store a call. Keys are contract.md's argument
// names; a tensor is {"shape": [...], "strides": [...] or null, "dtype": "bfloat16",
// "device": "cpu" | "cuda:N"}; force_flush may be null; scalars are plain values.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "contract/step_tensors.hpp"

namespace kda {

// Malformed JSON, an unknown or missing key, a value of the wrong kind: a usage error.
class MetadataError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Metadata-only tensors (no data) for every argument, plus the scalars.

// Required keys: the twelve tensors and scale. Optional: force_flush (absent or null = none),
// use_qk_l2norm_in_kernel (default false), lower_bound (absent or null = none).
// "strides" may be omitted (= null, compact). dtype: "float32", "bfloat16", "float16",
// "int32", "int64", any other DLPack name ("float64", "uint8", "bool", ...), optionally
// prefixed "torch.". device: "cpu", "cuda", "cuda:N", or "dlpack:TYPE:N" for other DLPack
// device types (TYPE 0..15: the values C++ allows in DLDeviceType). Throws MetadataError.
StepTensors parse_call_metadata(const nlohmann::json& j);
StepTensors parse_call_metadata(std::string_view json_text);
// The same for an operator whose tensor arguments are `tensors` (force_flush, where listed,
// optional): the others are unknown keys, and their StepTensors fields stay empty.
StepTensors parse_call_metadata(const nlohmann::json& j, std::span<const std::string_view> tensors);
StepTensors parse_call_metadata(std::string_view json_text, std::span<const std::string_view> tensors);
// And whose scalar arguments are `scalars` (the forms above: the KDA operators' three).
StepTensors parse_call_metadata(const nlohmann::json& j, std::span<const std::string_view> tensors,
                                std::span<const std::string_view> scalars);
StepTensors parse_call_metadata(std::string_view json_text, std::span<const std::string_view> tensors,
                                std::span<const std::string_view> scalars);
// A std::string or a C string is JSON text (json and string_view both convert from them, so
// without these a call would be ambiguous).
inline StepTensors parse_call_metadata(const std::string& json_text) {
  return parse_call_metadata(std::string_view(json_text));
}
inline StepTensors parse_call_metadata(const char* json_text) { return parse_call_metadata(std::string_view(json_text)); }
inline StepTensors parse_call_metadata(const std::string& json_text, std::span<const std::string_view> tensors) {
  return parse_call_metadata(std::string_view(json_text), tensors);
}
inline StepTensors parse_call_metadata(const char* json_text, std::span<const std::string_view> tensors) {
  return parse_call_metadata(std::string_view(json_text), tensors);
}

// The metadata of a call (never its data), in the form parse_call_metadata() reads; a null
// tensor other than force_flush is left out (an operator that does not take it).
nlohmann::ordered_json call_metadata_json(const StepArgs& args);
// The same with the named scalar arguments (the form above: the KDA operators' three).
nlohmann::ordered_json call_metadata_json(const StepArgs& args, std::span<const std::string_view> scalars);

}  // namespace kda
