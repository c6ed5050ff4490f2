// The recurrent decode family's error inputs, in its check order (contract.cpp): each breaks one
// check of a valid call and none before it. Expected messages come from the catalog.
#include <algorithm>

#include "contract/contract_error.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "operators/fla_recurrent_common/call.hpp"

namespace kda::engine {
namespace {

using Out = std::optional<Expected>;

std::vector<int64_t> pool_shape(const Dims& d, int64_t N) { return {N, d.HV, d.K, d.V}; }

}  // namespace

std::vector<ErrorInput> fla_recurrent_error_inputs(FlaGate gate) {
  const bool per_key = gate == FlaGate::PerKey;
  std::vector<ErrorInput> in;
  // The ranks (X-FLA-RANK): a token dim dropped from one of the [B, T, ...] tensors.
  in.push_back({"X-FLA-RANK", [per_key](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* kNames[] = {"q", "k", "v", "g"};
    const char* layouts[] = {"[B, T, H, K]", "[B, T, H, K]", "[B, T, HV, V]", per_key ? "[B, T, HV, K]" : "[B, T, HV]"};
    const std::size_t which = v % 4;
    TensorSpec& x = t.spec.at(kNames[which]);
    std::vector<int64_t> shape = x.shape;
    shape.erase(shape.begin() + 1);  // [B, H, K]: what a decode without the token dim passes
    x.reshape(shape);
    return expect("X-FLA-RANK", {{"name", std::string(kNames[which])}, {"layout", std::string(layouts[which])},
                                 {"ndim", static_cast<int64_t>(shape.size())}});
  }});
  // Shapes (X-FLA-SHAPE): dt_bias of the other gate width, a V-first pool without state_v_first
  // (K != V), or g with a last dim too many.
  in.push_back({"X-FLA-SHAPE", [per_key](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    if (v % 3 == 0 && d.K > 1) {
      const int64_t valid = per_key ? d.HV * d.K : d.HV, other = per_key ? d.HV : d.HV * d.K;
      t.spec.at("dt_bias").reshape({other});
      return expect("X-FLA-SHAPE", {{"name", std::string("dt_bias")}, {"expected", tuple_repr({valid})}, {"got", tuple_repr({other})}});
    }
    if (v % 3 == 1 && d.K != d.V) {
      TensorSpec& pool = t.spec.at("initial_state");
      const int64_t N = pool.shape[0];
      pool.reshape({N, d.HV, d.V, d.K});
      return expect("X-FLA-SHAPE", {{"name", std::string("initial_state")}, {"expected", tuple_repr(pool_shape(d, N))},
                                    {"got", tuple_repr({N, d.HV, d.V, d.K})}});
    }
    TensorSpec& g = t.spec.at("g");
    const std::vector<int64_t> valid = g.shape;
    std::vector<int64_t> shape = valid;
    shape.back() += 1;
    g.reshape(shape);
    return expect("X-FLA-SHAPE", {{"name", std::string("g")}, {"expected", tuple_repr(valid)}, {"got", tuple_repr(shape)}});
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
  // Indices of a shape that does not fit T: [B, T + 1] (a 1-D tensor with T > 1 is the same check).
  in.push_back({"X-FLA-INDICES", [](MutationTarget& t, uint32_t) -> Out {
    const Dims& d = t.dims;
    const std::vector<int64_t> shape{d.B, d.T + 1};
    t.spec.at("ssm_state_indices").reshape(shape);
    return expect("X-FLA-INDICES", {{"shape", tuple_repr(shape)}, {"B", d.B}, {"T", d.T}});
  }});
  // num_accepted_tokens as int64, or given beside [B] indices.
  in.push_back({"X-FLA-ACCEPTED", [](MutationTarget& t, uint32_t) -> Out {
    if (TensorSpec* nat = t.spec.find("num_accepted_tokens")) {
      nat->dtype = to_dl(ScalarType::Int64);
    } else {
      TensorSpec given = t.spec.at("ssm_state_indices");
      given.dtype = to_dl(ScalarType::Int32);
      given.reshape({t.dims.B});
      t.spec.set("num_accepted_tokens", given);
    }
    return expect("X-FLA-ACCEPTED");
  }});
  // A float tensor of a dtype the harness does not judge (float64).
  in.push_back({"X-FLA-DTYPE", [](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* kNames[] = {"q", "v", "g", "out"};
    t.spec.at(kNames[v % 4]).dtype = DLDataType{kDLFloat, 64, 1};
    return expect("X-FLA-DTYPE");
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
