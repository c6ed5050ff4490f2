// The error inputs of the plain packed decode: ReplaySSM's for the checks the two share
// (taken by label), and its own where `a` and `dt_bias` are checked as given (V3, V5, V10,
// V15, V18, and V4/V6, which now see their raw strides) or where the call has no rings
// (X-DTYPE-FLOAT, X-STRIDES). No W1-W3, R1-R10, X-VIEW-A or X-RING-SLOTS.
#include <algorithm>

#include "contract/contract_error.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "operators/kda_packed_decode/description.hpp"
#include "operators/kda_replayssm/error_inputs.hpp"

namespace kda::engine {
namespace {

using Out = std::optional<Expected>;

ErrorInput shared(std::string_view label) {
  const auto& all = replayssm_error_inputs();
  return all[error_input_index(all, label)];
}

// Runs ReplaySSM's input on even variants and `own` on odd ones.
ErrorInput with_own_variants(std::string_view label, std::function<Out(MutationTarget&, uint32_t)> own) {
  ErrorInput base = shared(label);
  return {base.label, [apply = base.apply, own](MutationTarget& t, uint32_t v) -> Out {
            return v % 2 == 0 ? apply(t, v / 2) : own(t, v / 2);
          }};
}

}  // namespace

std::vector<ErrorInput> packed_decode_error_inputs() {
  std::vector<ErrorInput> in;
  for (const char* label : {"P0", "V1", "V2"}) in.push_back(shared(label));
  in.push_back({"V3", [](MutationTarget& t, uint32_t v) -> Out {
    // a 3-D `a` (what ReplaySSM flattens) or a 1-D one; or b of another rank.
    const Dims& d = t.dims;
    if (v % 3 == 2) {
      TensorSpec& b = t.spec.at("b");
      b.reshape({b.shape[0]});
      return expect("V3", {{"a.ndim", 2}, {"b.ndim", 1}});
    }
    TensorSpec& a = t.spec.at("a");
    a.reshape(v % 3 == 0 ? std::vector<int64_t>{t.B, d.HV, d.K} : std::vector<int64_t>{t.B * d.HV * d.K});
    return expect("V3", {{"a.ndim", static_cast<int64_t>(a.shape.size())}, {"b.ndim", 2}});
  }});
  in.push_back(with_own_variants("V4", [](MutationTarget& t, uint32_t) -> Out {
    TensorSpec& a = t.spec.at("a");
    a.explicit_strides() = {2 * a.shape[1], 2};
    return expect("V4");
  }));
  in.push_back(with_own_variants("V5", [](MutationTarget& t, uint32_t) -> Out {
    t.spec.at("dt_bias").reshape({t.dims.HV, t.dims.K});  // what ReplaySSM flattens
    return expect("V5");
  }));
  in.push_back(with_own_variants("V6", [](MutationTarget& t, uint32_t v) -> Out {
    t.spec.at("dt_bias").explicit_strides() = {2 + static_cast<int64_t>(v % 2)};
    return expect("V6");
  }));
  for (const char* label : {"V7", "V8", "V9"}) in.push_back(shared(label));
  in.push_back(with_own_variants("V10", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& a = t.spec.at("a");
    const int64_t rows = t.B + 1 + v % 3;
    a.reshape({rows, a.shape[1]});
    return expect("V10", {{"B", t.B}, {"a0", rows}, {"b0", t.B}});
  }));
  for (const char* label : {"V11", "V12", "V13", "V14"}) in.push_back(shared(label));
  in.push_back({"V15", [](MutationTarget& t, uint32_t v) -> Out {
    const std::vector<int64_t> sh{t.B, t.dims.HV * t.dims.K + 1 + v % 5};
    t.spec.at("a").reshape(sh);
    return expect("V15", {{"HV", t.dims.HV}, {"K", t.dims.K}, {"tuple(a.shape)", tuple_repr(sh)}});
  }});
  for (const char* label : {"V16", "V17"}) in.push_back(shared(label));
  in.push_back({"V18", [](MutationTarget& t, uint32_t v) -> Out {
    const int64_t n = t.dims.HV * t.dims.K + 1 + v % 5;
    t.spec.at("dt_bias").reshape({n});
    return expect("V18", {{"HV*K", t.dims.HV * t.dims.K}, {"numel", n}});
  }});
  for (const char* label : {"V19", "V20", "V21", "V22"}) in.push_back(shared(label));
  in.push_back({error_id::kFloatDtype, [](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* targets[] = {"mixed_qkv", "a", "b", "A_log", "dt_bias", "initial_state", "out"};
    static const DLDataType bad[] = {{kDLFloat, 64, 1}, {kDLInt, 32, 1}, {kDLUInt, 8, 1}, {kDLBfloat, 16, 2},
                                     {kDLFloat, 8, 1}};
    t.spec.at(targets[v % 7]).dtype = bad[(v / 7) % 5];
    return expect(error_id::kFloatDtype);
  }});
  in.push_back(shared(error_id::kIndexDtype));
  in.push_back({error_id::kStrides, [](MutationTarget& t, uint32_t v) -> Out {
    CallSpec& s = t.spec;
    switch (v % 4) {
      case 0: {  // V13 reads only the last dim of the state
        TensorSpec& state = s.at("initial_state");
        if (std::find(state.shape.begin(), state.shape.end(), 0) != state.shape.end() || state.shape[2] < 2)
          state.explicit_strides()[0] = -1;
        else state.explicit_strides()[2] = 0;
        break;
      }
      case 1: s.at("out").explicit_strides()[1] = -3; break;  // size-1 dim: still contiguous
      case 2: s.at("ssm_state_indices").explicit_strides()[0] = -1; break;
      default: s.at("a").explicit_strides()[0] = -1; break;  // V4 reads only the last dim
    }
    return expect(error_id::kStrides);
  }});
  in.push_back(shared("X-BACKEND"));
  return in;
}

}  // namespace kda::engine
