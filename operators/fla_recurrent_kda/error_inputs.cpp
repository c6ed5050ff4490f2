// fla_recurrent_kda's error inputs, in its check order (contract.cpp): each breaks one check
// of a valid call and none before it. Expected messages come from the catalog.
#include <algorithm>

#include "contract/contract_error.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "operators/fla_recurrent_kda/description.hpp"

namespace kda::engine {
namespace {

using Out = std::optional<Expected>;

std::vector<int64_t> pool_shape(const Dims& d, int64_t N) { return {N, d.HV, d.K, d.V}; }

}  // namespace

std::vector<ErrorInput> fla_recurrent_kda_error_inputs() {
  std::vector<ErrorInput> in;
  // The ranks (X-FLA-RANK): a token dim dropped from one of the [B, T, ...] tensors.
  in.push_back({"X-FLA-RANK", [](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* kNames[] = {"q", "k", "v", "g"};
    static constexpr const char* kLayouts[] = {"[B, T, H, K]", "[B, T, H, K]", "[B, T, HV, V]", "[B, T, HV, K]"};
    const std::size_t which = v % 4;
    TensorSpec& x = t.spec.at(kNames[which]);
    std::vector<int64_t> shape = x.shape;
    shape.erase(shape.begin() + 1);  // [B, H, K]: what a decode without the token dim passes
    x.reshape(shape);
    return expect("X-FLA-RANK", {{"name", std::string(kNames[which])}, {"layout", std::string(kLayouts[which])}, {"ndim", 3}});
  }});
  // Shapes (X-FLA-SHAPE): dt_bias one per head, or a V-first pool without state_v_first at K != V.
  in.push_back({"X-FLA-SHAPE", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    if (v % 2 == 0 || d.K == d.V) {
      t.spec.at("dt_bias").reshape({d.HV});
      if (d.K == 1) return std::nullopt;  // [HV] is [HV * K]
      return expect("X-FLA-SHAPE", {{"name", std::string("dt_bias")}, {"expected", tuple_repr({d.HV * d.K})}, {"got", tuple_repr({d.HV})}});
    }
    TensorSpec& pool = t.spec.at("initial_state");
    const int64_t N = pool.shape[0];
    pool.reshape({N, d.HV, d.V, d.K});
    return expect("X-FLA-SHAPE", {{"name", std::string("initial_state")}, {"expected", tuple_repr(pool_shape(d, N))},
                                  {"got", tuple_repr({N, d.HV, d.V, d.K})}});
  }});
  // out not v's shape (fla's own assert).
  in.push_back({"X-FLA-OUT-SHAPE", [](MutationTarget& t, uint32_t) -> Out {
    TensorSpec& out = t.spec.at("out");
    const std::vector<int64_t> v = t.spec.at("v").shape;
    std::vector<int64_t> shape = v;
    shape[3] += 1;
    out.reshape(shape);
    return expect("X-FLA-OUT-SHAPE", {{"v", tuple_repr(v)}, {"out", tuple_repr(shape)}});
  }});
  // Indices of a rank that does not fit T: 1-D with T > 1, or [B, T + 1].
  in.push_back({"X-FLA-INDICES", [](MutationTarget& t, uint32_t) -> Out {
    const Dims& d = t.dims;
    TensorSpec& idx = t.spec.at("ssm_state_indices");
    const std::vector<int64_t> shape = d.T > 1 ? std::vector<int64_t>{d.B} : std::vector<int64_t>{d.B, d.T + 1};
    if (d.T > 1 && t.spec.find("num_accepted_tokens")) return std::nullopt;  // would be X-FLA-ACCEPTED's too
    idx.reshape(shape);
    return expect("X-FLA-INDICES", {{"shape", tuple_repr(shape)}, {"B", d.B}, {"T", d.T}});
  }});
  // num_accepted_tokens as int64.
  in.push_back({"X-FLA-ACCEPTED", [](MutationTarget& t, uint32_t) -> Out {
    TensorSpec* nat = t.spec.find("num_accepted_tokens");
    if (!nat) return std::nullopt;
    nat->dtype = to_dl(ScalarType::Int64);
    return expect("X-FLA-ACCEPTED");
  }});
  // A transposed (strided) index tensor, or a strided q.
  in.push_back({"X-FLA-CONTIGUOUS", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    if (v % 2 == 0 && d.T > 1 && d.B > 1) {
      t.spec.at("ssm_state_indices").explicit_strides() = {1, d.B};
      return expect("X-FLA-CONTIGUOUS", {{"name", std::string("ssm_state_indices")}});
    }
    if (d.K == 1) return std::nullopt;
    TensorSpec& q = t.spec.at("q");
    std::vector<int64_t>& s = q.explicit_strides();
    for (std::size_t i = 0; i < s.size(); ++i) s[i] *= 2;
    return expect("X-FLA-CONTIGUOUS", {{"name", std::string("q")}});
  }});
  return in;
}

}  // namespace kda::engine
