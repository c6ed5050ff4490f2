#include "tools/validate_explain.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "contract/checked_int.hpp"
#include "contract/scalar_type.hpp"
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
  if (t->strides) out.push_back(sizes(name + ".strides", strides_of(*t)));
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

const std::map<std::string, std::vector<std::string>>& tensors_by_check() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"W1", {"a"}}, {"W2", {"dt_bias"}}, {"V1", {"mixed_qkv"}}, {"V2", {"mixed_qkv"}}, {"V3", {"a", "b"}},
      {"V4", {"a", "b"}}, {"V5", {"A_log", "dt_bias"}}, {"V6", {"A_log", "dt_bias"}},
      {"V7", {"ssm_state_indices"}}, {"V8", {"out"}}, {"V10", {"a", "b"}}, {"V11", {"ssm_state_indices"}},
      {"V12", {"initial_state"}}, {"V13", {"initial_state"}}, {"V15", {"a"}}, {"V16", {"b"}}, {"V17", {"A_log"}},
      {"V18", {"dt_bias"}}, {"V19", {"out"}}, {"V20", {"mixed_qkv"}}, {"V21", {"mixed_qkv"}},
      {"R1", {"write_pos"}}, {"R2", {"write_pos"}}, {"R3", {"force_flush"}}, {"R4", {"d_cache"}},
      {"R8", {"g_cache"}}, {"X-VIEW-A", {"a"}}, {"X-DTYPE-INDEX", {"ssm_state_indices"}},
      {"X-WRITE-POS", {"write_pos"}}, {"X-SLOT-INDEX", {"ssm_state_indices"}}, {"X-DUP-SLOT", {"ssm_state_indices"}}};
  return m;
}

const DLTensor* by_name(const StepArgs& a, const std::string& name) {
  const std::pair<const char*, const DLTensor*> all[] = {
      {"mixed_qkv", a.mixed_qkv}, {"a", a.a}, {"b", a.b}, {"A_log", a.A_log}, {"dt_bias", a.dt_bias},
      {"initial_state", a.initial_state}, {"d_cache", a.d_cache}, {"k_cache", a.k_cache}, {"g_cache", a.g_cache},
      {"out", a.out}, {"ssm_state_indices", a.ssm_state_indices}, {"write_pos", a.write_pos},
      {"force_flush", a.force_flush}};
  for (auto [n, t] : all)
    if (name == n) return t;
  return nullptr;
}

}  // namespace

std::vector<Value> explain(const std::string& id, const StepArgs& a) {
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
  if (auto it = tensors_by_check().find(id); it != tensors_by_check().end())
    for (const std::string& n : it->second) tensor_values(out, n, by_name(a, n));
  if (id == "V9" || id == "R9" || id == "R10" || id.rfind("X-BACKEND", 0) == 0)
    for (const char* n : {"mixed_qkv", "a", "b", "A_log", "dt_bias", "initial_state", "d_cache", "k_cache", "g_cache",
                          "out", "ssm_state_indices", "write_pos", "force_flush"})
      if (const DLTensor* t = by_name(a, n)) out.push_back(word(std::string(n) + ".device", device_text(t->device)));
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
