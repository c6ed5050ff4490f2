#include "tools/validate_explain.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <string_view>

#include "contract/checked_int.hpp"
#include "contract/error_catalog.hpp"
#include "contract/scalar_type.hpp"
#include "contract/step_fields.hpp"
#include "contract/tensor_view.hpp"

namespace kda::cli {
namespace {

// contract.md's derived sizes, where the metadata has the dims they are read from.
struct Derived {
  std::optional<int64_t> B, HV, V, K, L, slots, qkv_dim;
  std::optional<i128> H;
};

Derived derive(const StepArgs& a) {
  Derived d;
  if (a.mixed_qkv->ndim >= 1) d.B = a.mixed_qkv->shape[0];
  if (a.mixed_qkv->ndim == 2) d.qkv_dim = a.mixed_qkv->shape[1];
  const DLTensor& st = *a.initial_state;
  if (st.ndim == 4) d.slots = st.shape[0], d.HV = st.shape[1], d.V = st.shape[2], d.K = st.shape[3];
  if (a.d_cache && a.d_cache->ndim >= 3) d.L = a.d_cache->shape[2];
  if (d.qkv_dim && d.HV && d.K && *d.K > 0) {
    const i128 qk = static_cast<i128>(*d.qkv_dim) - static_cast<i128>(*d.HV) * *d.V;
    d.H = qk / 2 / *d.K;
  }
  return d;
}

Value sizes(std::string name, const std::vector<int64_t>& v, std::string note = "") {
  return {std::move(name), nlohmann::json(v), tuple_repr(v), std::move(note)};
}

Value number(std::string name, i128 v, std::string note = "") {
  nlohmann::json j = v >= INT64_MIN && v <= INT64_MAX ? nlohmann::json(static_cast<int64_t>(v)) : nlohmann::json(to_string(v));
  return {std::move(name), std::move(j), to_string(v), std::move(note)};
}

Value word(std::string name, std::string v, std::string note = "") {
  return {std::move(name), nlohmann::json(v), v, std::move(note)};
}

std::string device_text(DLDevice d) {
  if (d.device_type == kDLCPU) return fmt::format("cpu:{}", d.device_id);
  if (d.device_type == kDLCUDA) return fmt::format("cuda:{}", d.device_id);
  return fmt::format("dlpack:{}:{}", static_cast<int>(d.device_type), d.device_id);
}

void tensor_values(std::vector<Value>& out, const std::string& name, const DLTensor* t) {
  if (!t) {
    out.push_back(word(name, "None"));
    return;
  }
  out.push_back(sizes(name + ".shape", shape_of(*t)));
  // Null strides are shown as what they mean: PyTorch's compact strides (a zero-size dim counts
  // as 1), which checks of raw strides such as G10 compare.
  out.push_back(t->strides ? sizes(name + ".strides", strides_of(*t))
                           : sizes(name + ".strides", strides_of(*t), "null: compact, as torch.empty allocates"));
  out.push_back(word(name + ".dtype", dl_dtype_name(t->dtype)));
  out.push_back(word(name + ".device", device_text(t->device)));
}

std::vector<int64_t> tail(const DLTensor& t) {
  std::vector<int64_t> s = shape_of(t);
  return s.size() > 1 ? std::vector<int64_t>(s.begin() + 1, s.end()) : std::vector<int64_t>{};
}

// A ring's shape[1:] against the tuple R5-R7 expect.
void ring_values(std::vector<Value>& out, const std::string& ring, const DLTensor& t, const std::string& heads,
                 std::optional<i128> h, const std::string& last, std::optional<int64_t> x, std::optional<int64_t> L) {
  out.push_back(sizes(ring + ".shape[1:]", tail(t)));
  if (h && x && L)
    out.push_back(sizes(fmt::format("expected ({}, L, {})", heads, last),
                        {clamp_to_i64(*h), *L, *x}, fmt::format("[slots, {}, L, {}] with {} = {}", heads, last, heads,
                                                                to_string(*h))));
}

// Whether x and y describe the same tensor metadata (null strides read as compact ones).
bool same_metadata(const engine::TensorSpec& x, const engine::TensorSpec& y) {
  const auto strides = [](const engine::TensorSpec& t) { return t.null_strides ? compact_strides(t.shape) : t.strides; };
  return x.dtype.code == y.dtype.code && x.dtype.bits == y.dtype.bits && x.dtype.lanes == y.dtype.lanes &&
         x.shape == y.shape && strides(x) == strides(y) && x.device.device_type == y.device.device_type &&
         x.device.device_id == y.device.device_id;
}

// What the operator's error inputs that raise `id` edit in its valid call (every variant):
// the tensors they change, and whether they change nothing but devices (a device check,
// which concerns every tensor's device).
struct Edits {
  std::set<std::string, std::less<>> tensors;
  bool devices_only = false;
};

Edits edits_raising(const engine::OperatorDescription& op, const std::string& id) {
  const engine::CallConfig config;
  const engine::CallSpec valid = op.valid_spec(config);
  Edits e;
  bool other_edits = false;
  for (const engine::ErrorInput& input : op.error_inputs())
    for (uint32_t variant = 0; variant < 64; ++variant) {
      engine::MutationTarget t{valid, op.dims_of(config), config.B};
      const std::optional<engine::Expected> raised = input.apply(t, variant);
      if (!raised || raised->id != id) continue;
      if (t.spec.backend != valid.backend) e.devices_only = true;  // the backend's device check
      for (const auto& [name, after] : t.spec.tensors) {
        const engine::TensorSpec* before = valid.find(name);
        if (before && same_metadata(*before, after)) continue;
        e.tensors.insert(name);
        engine::TensorSpec moved_back = after;
        if (before) moved_back.device = before->device;
        if (!before || !same_metadata(*before, moved_back)) other_edits = true;
      }
    }
  e.devices_only = (e.devices_only || !e.tensors.empty()) && !other_edits;
  return e;
}

// Whether the catalog's condition of a check reads `name`: a tensor as `name.` (an
// attribute) or `name is` (a None test), a scalar as a word.
bool check_reads(std::string_view check, std::string_view name, bool scalar) {
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  for (std::size_t at = check.find(name); at != std::string_view::npos; at = check.find(name, at + 1)) {
    if (at > 0 && (word_char(check[at - 1]) || check[at - 1] == '.')) continue;
    const std::string_view rest = check.substr(at + name.size());
    if (scalar ? rest.empty() || !word_char(rest[0]) : rest.starts_with(".") || rest.starts_with(" is ")) return true;
  }
  return false;
}

const DLTensor* by_name(const StepArgs& a, std::string_view name) {
  const TensorField* f = tensor_field(name);
  return f ? f->get(a) : nullptr;
}

// A scalar as written in a call: integers (nk, the flags as 0 or 1) without a fraction.
std::string scalar_text(double v) {
  const bool integral = std::abs(v) < 0x1p53 && v == std::trunc(v);
  return integral ? std::to_string(static_cast<int64_t>(v)) : fmt::format("{}", v);
}

}  // namespace

std::vector<Value> explain(const engine::OperatorDescription& op, const std::string& id, const StepArgs& a) {
  std::vector<Value> out;
  const Derived d = derive(a);
  if (id == "R5") ring_values(out, "d_cache", *a.d_cache, "HV", d.HV, "V", d.V, d.L);
  if (id == "R6") ring_values(out, "k_cache", *a.k_cache, "H", d.H, "K", d.K, d.L);
  if (id == "R7") ring_values(out, "g_cache", *a.g_cache, "HV", d.HV, "K", d.K, d.L);
  if (id == "X-RING-SLOTS")
    for (const char* n : {"initial_state", "d_cache", "k_cache", "g_cache"})
      out.push_back(number(std::string(n) + ".shape[0]", by_name(a, n)->ndim > 0 ? by_name(a, n)->shape[0] : 0));
  if (id == "V20" && d.qkv_dim && d.HV && d.V) {
    out.push_back(number("qkv_dim", *d.qkv_dim, "mixed_qkv.shape[1]"));
    out.push_back(number("qk_dim", static_cast<i128>(*d.qkv_dim) - static_cast<i128>(*d.HV) * *d.V, "qkv_dim - HV*V"));
  }
  if (id == "V21" && d.qkv_dim && d.HV && d.V)
    out.push_back(number("q_dim", (static_cast<i128>(*d.qkv_dim) - static_cast<i128>(*d.HV) * *d.V) / 2,
                         "(qkv_dim - HV*V) / 2"));
  // The tensors the check concerns: those its error inputs edit and those its catalog
  // condition reads; for a device check, every tensor's device.
  const Edits edits = edits_raising(op, id);
  const CatalogEntry* entry = find_catalog_entry(id);
  const std::string_view check = entry ? std::string_view(entry->check) : std::string_view();
  if (!edits.devices_only)
    for (std::string_view n : op.tensors)
      if (edits.tensors.contains(n) || check_reads(check, n, false)) tensor_values(out, std::string(n), by_name(a, n));
  if (edits.devices_only)
    for (std::string_view n : op.tensors)
      if (const DLTensor* t = by_name(a, n)) out.push_back(word(std::string(n) + ".device", device_text(t->device)));
  for (std::string_view n : op.scalars)
    if (check_reads(check, n, true))
      if (const ScalarField* f = scalar_field(n)) {
        const std::optional<double> v = f->get(a);
        out.push_back(word(std::string(n), v ? scalar_text(*v) : "None"));
      }
  if (d.B) out.push_back(number("B", *d.B, "batch rows, mixed_qkv.shape[0]"));
  if (d.H) out.push_back(number("H", *d.H, "query (and key) heads, from mixed_qkv's last dim"));
  if (d.HV) out.push_back(number("HV", *d.HV, "value heads, initial_state.shape[1]"));
  if (d.K) out.push_back(number("K", *d.K, "key head dim, initial_state.shape[3]"));
  if (d.V) out.push_back(number("V", *d.V, "value head dim, initial_state.shape[2]"));
  if (d.L) out.push_back(number("L", *d.L, "ring length, d_cache.shape[2]"));
  if (d.slots) out.push_back(number("slots", *d.slots, "initial_state.shape[0]"));
  return out;
}

}  // namespace kda::cli
