#include "golden/golden_case.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "contract/tensor_view.hpp"

namespace kda::golden {
namespace {

const std::string kStridesPrefix = "kda.strides.";

[[noreturn]] void bad(const std::string& what) { throw SafetensorsError("golden case: " + what); }

const std::string& required(const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  if (it == meta.end()) bad("metadata key " + key + " is missing");
  return it->second;
}

double parse_double(const std::string& key, const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) bad("metadata " + key + " is not a number: " + text);
  return x;
}

}  // namespace

const HostTensor& GoldenCase::at(const std::string& tensor) const {
  auto it = tensors.find(tensor);
  if (it == tensors.end()) bad(fmt::format("case {} has no tensor {}", name, tensor));
  return it->second;
}

const HostTensor& GoldenCase::at(const std::string& tensor, ScalarType type, const std::vector<int64_t>& shape) const {
  const HostTensor& t = at(tensor);
  if (t.type() != type || t.shape() != shape)
    bad(fmt::format("case {}: tensor {} is {} [{}], but must be {} [{}] like the tensor it is compared with", name, tensor,
                    name_of(t.type()), fmt::join(t.shape(), ", "), name_of(type), fmt::join(shape, ", ")));
  return t;
}

bool GoldenCase::has_expected() const { return has("expected.initial_state"); }

std::string step_name(const GoldenCase& c, int64_t t, const std::string& base) {
  return c.steps == 1 ? base : fmt::format("step{}.{}", t, base);
}

std::string checkpoint_name(const GoldenCase& c, int64_t t, int64_t slot) {
  return step_name(c, t, fmt::format("expected.initial_state.slot{}", slot));
}

std::string format_double(double x) { return fmt::format("{}", x); }

std::vector<int64_t> element_offsets(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<int64_t> out(static_cast<std::size_t>(n));
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) off += index[d] * strides[d];
    out[static_cast<std::size_t>(i)] = off;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {  // odometer increment
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

StoredTensor to_stored(const HostTensor& t) {
  StoredTensor s;
  s.dtype = t.type();
  s.shape = t.shape();
  const std::size_t size = size_of(s.dtype);
  const auto offsets = element_offsets(t.shape(), t.strides());
  s.data.resize(offsets.size() * size);
  for (std::size_t i = 0; i < offsets.size(); ++i)
    std::memcpy(s.data.data() + i * size, t.storage().data() + offsets[i] * size, size);
  return s;
}

HostTensor from_stored(const StoredTensor& s, const std::vector<int64_t>& strides) {
  HostTensor t(s.dtype, s.shape, strides);
  std::memset(t.storage().data(), 0xFF, t.storage().size());
  const std::size_t size = size_of(s.dtype);
  const auto offsets = element_offsets(t.shape(), t.strides());
  for (std::size_t i = 0; i < offsets.size(); ++i)
    std::memcpy(t.storage().data() + offsets[i] * size, s.data.data() + i * size, size);
  return t;
}

SafetensorsFile encode(const GoldenCase& c) {
  SafetensorsFile f;
  auto& m = f.metadata;
  m["kda.format"] = kFormatTag;
  m["kda.kind"] = c.kind == CaseKind::Step ? "step" : "error";
  m["kda.name"] = c.name;
  m["kda.purpose"] = c.purpose;
  if (c.config) m["kda.config"] = to_string(*c.config);
  m["kda.steps"] = std::to_string(c.steps);
  m["kda.scale"] = format_double(c.scale);
  m["kda.use_qk_l2norm_in_kernel"] = c.l2norm ? "true" : "false";
  m["kda.lower_bound"] = c.lower_bound ? format_double(*c.lower_bound) : "none";
  if (c.circular_replay) m["kda.circular_replay"] = "true";
  if (c.prefix_gate_cache) m["kda.prefix_gate_cache"] = "true";
  if (c.predecayed_k_cache) m["kda.predecayed_k_cache"] = "true";
  if (c.use_gate_in_kernel) m["kda.use_gate_in_kernel"] = "true";
  if (c.use_beta_sigmoid_in_kernel) m["kda.use_beta_sigmoid_in_kernel"] = "true";
  if (c.allow_neg_eigval) m["kda.allow_neg_eigval"] = "true";
  if (c.state_v_first) m["kda.state_v_first"] = "true";
  if (!c.call_json.empty()) m["kda.call"] = c.call_json;
  if (!c.generator.empty()) m["kda.generator"] = c.generator;
  if (c.op != default_op()) m["kda.op"] = c.op;
  if (c.kind == CaseKind::Error) {
    m["kda.expected_id"] = c.expected_id;
    m["kda.expected_message"] = c.expected_message;
  }
  for (const auto& [name, t] : c.tensors) {
    f.tensors.emplace(name, to_stored(t));
    if (t.strides() != compact_strides(t.shape())) m[kStridesPrefix + name] = nlohmann::json(t.strides()).dump();
  }
  return f;
}

GoldenCase decode(SafetensorsFile file, const std::string& fallback_name) {
  const auto& m = file.metadata;
  auto get = [&m](const std::string& key, const std::string& fallback) {
    auto it = m.find(key);
    return it == m.end() ? fallback : it->second;
  };
  if (auto it = m.find("kda.format"); it != m.end() && it->second != kFormatTag)
    bad("kda.format is " + it->second + ", this harness reads " + kFormatTag);
  GoldenCase c;
  c.name = get("kda.name", fallback_name);
  c.purpose = get("kda.purpose", "");
  const std::string kind = get("kda.kind", "step");
  if (kind != "step" && kind != "error") bad("kda.kind must be step or error, not " + kind);
  c.kind = kind == "step" ? CaseKind::Step : CaseKind::Error;
  if (auto it = m.find("kda.config"); it != m.end()) {
    try {
      c.config = parse_case_config(it->second);
    } catch (const std::invalid_argument& e) {
      bad(std::string("kda.config: ") + e.what());
    }
  }
  const std::string steps = get("kda.steps", "1");
  c.steps = static_cast<int64_t>(parse_double("kda.steps", steps));
  if (c.steps < 1 || std::to_string(c.steps) != steps) bad("kda.steps must be a positive integer, not " + steps);
  c.scale = parse_double("kda.scale", required(m, "kda.scale"));
  const std::string l2 = get("kda.use_qk_l2norm_in_kernel", "false");
  if (l2 != "true" && l2 != "false") bad("kda.use_qk_l2norm_in_kernel must be true or false, not " + l2);
  c.l2norm = l2 == "true";
  const std::string lb = get("kda.lower_bound", "none");
  if (lb != "none") c.lower_bound = parse_double("kda.lower_bound", lb);
  for (auto [key, flag] : {std::pair{"kda.circular_replay", &c.circular_replay}, std::pair{"kda.prefix_gate_cache", &c.prefix_gate_cache},
                           std::pair{"kda.predecayed_k_cache", &c.predecayed_k_cache},
                           std::pair{"kda.use_gate_in_kernel", &c.use_gate_in_kernel},
                           std::pair{"kda.use_beta_sigmoid_in_kernel", &c.use_beta_sigmoid_in_kernel},
                           std::pair{"kda.allow_neg_eigval", &c.allow_neg_eigval},
                           std::pair{"kda.state_v_first", &c.state_v_first}}) {
    const std::string v = get(key, "false");
    if (v != "true" && v != "false") bad(std::string(key) + " must be true or false, not " + v);
    *flag = v == "true";
  }
  c.call_json = get("kda.call", "");
  c.generator = get("kda.generator", "");
  c.op = get("kda.op", default_op());
  if (c.kind == CaseKind::Error) {
    c.expected_id = required(m, "kda.expected_id");
    c.expected_message = required(m, "kda.expected_message");
  }
  while (!file.tensors.empty()) {
    auto node = file.tensors.extract(file.tensors.begin());  // its data freed once decoded
    const std::string& name = node.key();
    StoredTensor& stored = node.mapped();
    std::vector<int64_t> strides;
    if (auto it = m.find(kStridesPrefix + name); it != m.end()) {
      try {
        strides = nlohmann::json::parse(it->second).get<std::vector<int64_t>>();
      } catch (const nlohmann::json::exception&) {
        bad("metadata " + kStridesPrefix + name + " is not a JSON array of integers");
      }
      if (strides.size() != stored.shape.size()) bad("metadata " + kStridesPrefix + name + " has the wrong rank");
      int64_t reach = 1, numel = 1;  // elements the strides span, and the tensor's own
      for (std::size_t d = 0; d < strides.size(); ++d) {
        if (strides[d] < 0 || strides[d] > (int64_t{1} << 40)) bad("metadata " + kStridesPrefix + name + " has a stride out of range");
        if (stored.shape[d] > 0) reach += (stored.shape[d] - 1) * strides[d];
        numel *= stored.shape[d];
      }
      // A layout may pad (the envelope), but not make a small tensor allocate gigabytes.
      if (reach > 16 * numel + (int64_t{1} << 20)) bad("metadata " + kStridesPrefix + name + " spans far more than the tensor");
    }
    c.tensors.emplace(name, strides.empty() ? HostTensor::adopt_compact(stored.dtype, stored.shape, std::move(stored.data))
                                            : from_stored(stored, strides));
  }
  // kda.steps must name exactly the steps whose inputs the file holds: a count that does not
  // would make a replay read missing tensors (or loop for a very long time).
  // The per-step input every call holds: mixed_qkv, or q for the recurrent decode family's.
  const std::string input = c.has(step_name(c, 0, "q")) && !c.has(step_name(c, 0, "mixed_qkv")) ? "q" : "mixed_qkv";
  int64_t stored_steps = 0;
  while (c.has(step_name(c, stored_steps, input)) && stored_steps < c.steps) ++stored_steps;
  if (stored_steps != c.steps || (c.steps > 1 && c.has(fmt::format("step{}.{}", c.steps, input))))
    bad(fmt::format("metadata kda.steps is {}, but the file holds the inputs of {} step(s)", c.steps, stored_steps));
  return c;
}

}  // namespace kda::golden
