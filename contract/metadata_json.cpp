#include "contract/metadata_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "contract/json_keys.hpp"
#include "contract/scalar_type.hpp"
#include "contract/step_fields.hpp"

namespace kda {
namespace {

using nlohmann::json;

// ReplaySSM's arguments, force_flush (optional) last: the default key set.
const std::vector<std::string_view> kReplaySSMKeys = {"mixed_qkv", "a", "b", "A_log", "dt_bias", "initial_state",
                                                      "d_cache", "k_cache", "g_cache", "out", "ssm_state_indices",
                                                      "write_pos", "force_flush"};
const std::vector<std::string_view> kKdaScalarKeys = {"scale", "use_qk_l2norm_in_kernel", "lower_bound"};
// Scalars a call may leave out (absent: the StepArgs default).
bool optional_scalar(std::string_view name) { return name != "scale"; }

[[noreturn]] void bad(const std::string& what) { throw MetadataError(what); }

int64_t parse_int(const json& v, const std::string& where) {
  if (!v.is_number_integer()) bad(where + " must be an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) bad(where + " is out of range");
  return v.get<int64_t>();
}

// A whole string as an int32 (DLDevice's fields; any value, so that any metadata round-trips).
std::optional<int32_t> parse_int32(std::string_view s) {
  int32_t n = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return n;
}

DLDevice parse_device(const json& v, const std::string& name) {
  if (!v.is_string()) bad(name + ".device must be a string such as \"cpu\" or \"cuda:0\"");
  const std::string s = v;
  if (s == "cpu") return {kDLCPU, 0};
  if (s == "cuda") return {kDLCUDA, 0};
  for (auto [prefix, type] : {std::pair{"cpu:", kDLCPU}, std::pair{"cuda:", kDLCUDA}})
    if (s.rfind(prefix, 0) == 0)
      if (auto id = parse_int32(std::string_view(s).substr(std::string_view(prefix).size()))) return {type, *id};
  if (s.rfind("dlpack:", 0) == 0) {
    const auto colon = s.find(':', 7);
    if (colon != std::string::npos) {
      auto type = parse_int32(std::string_view(s).substr(7, colon - 7));
      auto id = parse_int32(std::string_view(s).substr(colon + 1));
      // DLDeviceType's enumerators end at 13: C++ allows only 0..15 in that enum.
      if (type && id && *type >= 0 && *type <= 15) return {static_cast<DLDeviceType>(*type), *id};
    }
  }
  bad(name + ".device \"" + s + "\" is not \"cpu\", \"cuda\", \"cuda:N\" or \"dlpack:TYPE:N\" (TYPE 0..15)");
}

HostTensor parse_tensor(const json& v, const std::string& name) {
  if (!v.is_object()) bad(name + " must be a tensor object {\"shape\", \"strides\", \"dtype\", \"device\"}");
  for (const auto& [key, _] : v.items())
    if (key != "shape" && key != "strides" && key != "dtype" && key != "device")
      bad(fmt::format("unknown key \"{}\" in {} (expected shape, strides, dtype, device)", key, name));
  for (const char* key : {"shape", "dtype", "device"})
    if (!v.contains(key)) bad(fmt::format("{} has no \"{}\"", name, key));
  if (!v["shape"].is_array()) bad(name + ".shape must be an array of sizes");
  std::vector<int64_t> shape, strides;
  for (const auto& s : v["shape"]) {
    shape.push_back(parse_int(s, name + ".shape[]"));
    if (shape.back() < 0) bad(name + ".shape has a negative size");
  }
  const bool strides_null = !v.contains("strides") || v["strides"].is_null();
  if (!strides_null) {
    if (!v["strides"].is_array()) bad(name + ".strides must be an array or null");
    for (const auto& s : v["strides"]) strides.push_back(parse_int(s, name + ".strides[]"));
    if (strides.size() != shape.size()) bad(name + ".strides must have one entry per dim of shape");
  }
  if (!v["dtype"].is_string()) bad(name + ".dtype must be a string");
  std::string dtype_text = v["dtype"];
  if (dtype_text.rfind("torch.", 0) == 0) dtype_text.erase(0, 6);
  const std::optional<DLDataType> dtype = parse_dl_dtype(dtype_text);
  if (!dtype) bad(fmt::format("{}.dtype \"{}\" is not a known dtype (float32, bfloat16, int32, ...)", name, dtype_text));
  return HostTensor::metadata(*dtype, std::move(shape), std::move(strides), parse_device(v["device"], name),
                              strides_null);
}

std::string device_text(DLDevice d) {
  if (d.device_type == kDLCPU) return d.device_id == 0 ? "cpu" : fmt::format("cpu:{}", d.device_id);
  if (d.device_type == kDLCUDA) return fmt::format("cuda:{}", d.device_id);
  return fmt::format("dlpack:{}:{}", static_cast<int>(d.device_type), d.device_id);
}

nlohmann::ordered_json tensor_json(const DLTensor& t) {
  nlohmann::ordered_json j;
  j["shape"] = std::vector<int64_t>(t.shape, t.shape + t.ndim);
  j["strides"] = t.strides ? nlohmann::ordered_json(std::vector<int64_t>(t.strides, t.strides + t.ndim))
                           : nlohmann::ordered_json(nullptr);
  j["dtype"] = dl_dtype_name(t.dtype);
  j["device"] = device_text(t.device);
  return j;
}

}  // namespace

StepTensors parse_call_metadata(const json& j) {
  return parse_call_metadata(j, kReplaySSMKeys, kKdaScalarKeys);
}

StepTensors parse_call_metadata(const json& j, std::span<const std::string_view> tensors) {
  return parse_call_metadata(j, tensors, kKdaScalarKeys);
}

StepTensors parse_call_metadata(const json& j, std::span<const std::string_view> tensors,
                                std::span<const std::string_view> scalars) {
  const auto in = [](std::span<const std::string_view> list, std::string_view key) {
    return std::find(list.begin(), list.end(), key) != list.end();
  };
  if (!j.is_object()) bad("the metadata must be a JSON object keyed by argument name");
  for (const auto& [key, _] : j.items())
    if (!in(tensors, key) && !in(scalars, key))
      bad(fmt::format("unknown key \"{}\" (keys are contract.md's argument names)", key));
  for (std::string_view key : tensors)
    if (!optional_tensor(key) && !j.contains(key)) bad(fmt::format("missing key \"{}\"", key));
  for (std::string_view key : scalars)
    if (!optional_scalar(key) && !j.contains(key)) bad(fmt::format("missing key \"{}\"", key));

  StepTensors m;
  for (std::string_view name : tensors) {
    const std::string key(name);
    if (j.contains(key) && !(optional_tensor(name) && j[key].is_null())) m.at(name) = parse_tensor(j[key], key);
  }
  if (in(scalars, "scale")) {
    if (!j["scale"].is_number()) bad("scale must be a number");
    m.scale = j["scale"];
  }
  const auto flag = [&](const char* key, bool& field) {
    if (!in(scalars, key) || !j.contains(key)) return;
    if (!j[key].is_boolean()) bad(std::string(key) + " must be true or false");
    field = j[key];
  };
  flag("use_qk_l2norm_in_kernel", m.use_qk_l2norm_in_kernel);
  flag("circular_replay", m.circular_replay);
  flag("prefix_gate_cache", m.prefix_gate_cache);
  flag("predecayed_k_cache", m.predecayed_k_cache);
  if (in(scalars, "lower_bound") && j.contains("lower_bound") && !j["lower_bound"].is_null()) {
    if (!j["lower_bound"].is_number()) bad("lower_bound must be null or a number");
    m.lower_bound = j["lower_bound"].get<double>();
  }
  if (in(scalars, "nk") && j.contains("nk")) m.nk = parse_int(j["nk"], "nk");
  return m;
}

StepTensors parse_call_metadata(std::string_view json_text) {
  return parse_call_metadata(json_text, kReplaySSMKeys, kKdaScalarKeys);
}

StepTensors parse_call_metadata(std::string_view json_text, std::span<const std::string_view> tensors) {
  return parse_call_metadata(json_text, tensors, kKdaScalarKeys);
}

StepTensors parse_call_metadata(std::string_view json_text, std::span<const std::string_view> tensors,
                                std::span<const std::string_view> scalars) {
  // A call that names a tensor twice is ambiguous (contract/json_keys.hpp).
  if (const auto duplicate = duplicate_json_key(json_text))
    bad(fmt::format("duplicate key \"{}\" in one JSON object", *duplicate));
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {  // a syntax error, or a number out of range (1e99999)
    bad(std::string("malformed JSON: ") + e.what());
  }
  return parse_call_metadata(j, tensors, scalars);
}

nlohmann::ordered_json call_metadata_json(const StepArgs& args) {
  return call_metadata_json(args, kKdaScalarKeys);
}

nlohmann::ordered_json call_metadata_json(const StepArgs& args, std::span<const std::string_view> scalars) {
  nlohmann::ordered_json j;
  for (const TensorField& f : kStepTensors)
    if (!optional_tensor(f.name) && f.get(args)) j[std::string(f.name)] = tensor_json(*f.get(args));
  if (j.empty()) throw std::invalid_argument("call_metadata_json: the call has no tensor");
  // A call with write_pos (a ReplaySSM's) names force_flush, null when absent; an operator
  // without write_pos takes no force_flush either. cache_base is written where present.
  if (args.write_pos || args.force_flush)
    j["force_flush"] = args.force_flush ? tensor_json(*args.force_flush) : nlohmann::ordered_json(nullptr);
  if (args.cache_base) j["cache_base"] = tensor_json(*args.cache_base);
  for (std::string_view name : scalars) {
    const ScalarField* f = scalar_field(name);
    if (f == nullptr) throw std::invalid_argument("call_metadata_json: no scalar argument named " + std::string(name));
    const std::optional<double> v = f->get(args);
    const std::string key(name);
    if (!v) j[key] = nullptr;
    else if (name == "scale" || name == "lower_bound") j[key] = *v;
    else if (name == "nk") j[key] = static_cast<int64_t>(*v);
    else j[key] = *v != 0.0;
  }
  return j;
}

}  // namespace kda
