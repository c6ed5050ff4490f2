// P0, W1, W2 and V1-V22. Each breaks its own check; none breaks an earlier one (the comments
// say why where it is not obvious).
#include "cases/row_padding.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "operators/kda_replayssm/error_inputs.hpp"

namespace kda::engine {
namespace {

using Out = std::optional<Expected>;

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Non-contiguous: every stride doubled, which breaks contiguity when some dim has size >= 2
// (callers check); the last stride becomes 2, so raw last-stride checks break too.
void double_strides(TensorSpec& t) {
  t.reshape(t.shape);
  for (auto& s : t.strides) s *= 2;
}

}  // namespace

std::vector<ErrorInput> validator_error_inputs() {
  std::vector<ErrorInput> in;
  in.push_back({"P0", [](MutationTarget& t, uint32_t) -> Out {
    t.spec.at("mixed_qkv").reshape({});
    return expect("V1", {{"ndim", 0}});
  }});
  in.push_back({"W1", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& a = t.spec.at("a");
    // Row-padded (a slice of a wider buffer): every last stride 1, so only W1's contiguity
    // sees it; the plain packed decode, which has no W1, accepts this layout.
    if (v % 4 == 3 && a.shape.size() >= 2 && a.shape[0] >= 2 && product(a.shape) >= 2) {
      a.reshape(a.shape);
      a.strides = row_padded_strides(a.shape);
    } else if (v % 4 == 2 && product(a.shape) >= 2) {
      double_strides(a);
    } else if (v % 4 == 1) {
      auto sh = a.shape;
      sh.resize(4, 1);
      a.reshape(sh);
    } else {
      a.reshape({product(a.shape)});
    }
    return expect("W1");
  }});
  in.push_back({"W2", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& dt = t.spec.at("dt_bias");
    if (v % 3 == 2 && product(dt.shape) >= 2) double_strides(dt);
    else if (v % 3 == 1) { auto sh = dt.shape; sh.insert(sh.begin(), 3 - sh.size(), 1); dt.reshape(sh); }
    else dt.reshape({});
    return expect("W2");
  }});
  in.push_back({"V1", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& qkv = t.spec.at("mixed_qkv");
    const int64_t D = qkv.shape.back();
    // A 1-D mixed_qkv makes batch = D; only W3 (deferred to X-VIEW-A) depends on batch before V1.
    qkv.reshape(v % 2 ? std::vector<int64_t>{t.B, 1, D} : std::vector<int64_t>{D});
    return expect("V1", {{"ndim", static_cast<int64_t>(qkv.shape.size())}});
  }});
  in.push_back({"V2", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& qkv = t.spec.at("mixed_qkv");
    qkv.explicit_strides() = {2 * qkv.shape[1] + 1, 2 + static_cast<int64_t>(v % 2)};
    return expect("V2");
  }});
  in.push_back({"V3", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& b = t.spec.at("b");
    const auto sh = b.shape;
    b.reshape(v % 2 ? std::vector<int64_t>{sh[0], sh[1], 1} : std::vector<int64_t>{sh[0]});
    return expect("V3", {{"a.ndim", 2}, {"b.ndim", static_cast<int64_t>(b.shape.size())}});  // a is flattened
  }});
  in.push_back({"V4", [](MutationTarget& t, uint32_t) -> Out {
    TensorSpec& b = t.spec.at("b");
    b.reshape(b.shape);
    b.strides = {2 * b.shape[1], 2};  // raw last stride, read even when b.shape[1] == 1
    return expect("V4");
  }});
  in.push_back({"V5", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& A_log = t.spec.at("A_log");
    const int64_t n = A_log.shape[0];
    A_log.reshape(v % 3 == 0   ? std::vector<int64_t>{}
                  : v % 3 == 1 ? std::vector<int64_t>{n, 1}
                               : std::vector<int64_t>{1, n});
    return expect("V5");
  }});
  in.push_back({"V6", [](MutationTarget& t, uint32_t v) -> Out {
    t.spec.at("A_log").explicit_strides() = {2 + static_cast<int64_t>(v % 2)};
    return expect("V6");
  }});
  in.push_back({"V7", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& idx = t.spec.at("ssm_state_indices");
    idx.reshape(v % 2 ? std::vector<int64_t>{} : std::vector<int64_t>{t.B, 1});
    return expect("V7", {{"ndim", static_cast<int64_t>(idx.shape.size())}});
  }});
  in.push_back({"V8", [](MutationTarget& t, uint32_t) -> Out {
    TensorSpec& out = t.spec.at("out");
    if (product(out.shape) <= 1) return std::nullopt;  // an empty or one-element out is always contiguous
    double_strides(out);
    return expect("V8");
  }});
  in.push_back({"V9", [](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* targets[] = {"a",   "b", "A_log", "dt_bias", "initial_state",
                                              "out", "ssm_state_indices"};
    t.spec.at(targets[v % 7]).device = other_device(t.spec.at("mixed_qkv").device);
    return expect("V9");
  }});
  in.push_back({"V10", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& b = t.spec.at("b");
    const int64_t rows = t.B + 1 + v % 3;
    b.reshape({rows, b.shape[1]});
    return expect("V10", {{"B", t.B}, {"a0", t.B}, {"b0", rows}});
  }});
  in.push_back({"V11", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& idx = t.spec.at("ssm_state_indices");
    idx.reshape({t.B + 1 + v % 3});
    return expect("V11", {{"tuple(ssm_state_indices.shape)", tuple_repr(idx.shape)}, {"B", t.B}});
  }});
  in.push_back({"V12", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& state = t.spec.at("initial_state");
    const auto sh = state.shape;
    state.reshape(v % 2 ? std::vector<int64_t>{1, sh[0], sh[1], sh[2], sh[3]}
                        : std::vector<int64_t>{sh[0], sh[1], sh[2] * sh[3]});
    return expect("V12", {{"ndim", static_cast<int64_t>(state.shape.size())}});
  }});
  in.push_back({"V13", [](MutationTarget& t, uint32_t) -> Out {
    double_strides(t.spec.at("initial_state"));  // raw last stride 2
    return expect("V13");
  }});
  in.push_back({"V14", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    int64_t k = d.K, vv = d.V;
    switch (v % 4) {
      case 0: vv = 3; break;
      case 1: k = 48; break;
      case 2: vv = 0; break;
      default: k = 24; vv = 96; break;
    }
    TensorSpec& state = t.spec.at("initial_state");
    state.reshape({state.shape[0], d.HV, vv, k});
    return expect("V14", {{"K", k}, {"V", vv}});
  }});
  in.push_back({"V15", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    const int64_t B = t.B;
    if (B == 0) return std::nullopt;  // no view of `a`: V15 is skipped (X-VIEW-A ruling)
    const std::vector<int64_t> sh = v % 3 == 0   ? std::vector<int64_t>{B, d.HV * d.K + 1 + v % 5}
                                    : v % 3 == 1 ? std::vector<int64_t>{B, d.HV + 1, d.K}
                                                 : std::vector<int64_t>{B, d.HV, 2 * d.K};
    t.spec.at("a").reshape(sh);
    return expect("V15", {{"HV", d.HV}, {"K", d.K}, {"tuple(a.shape)", tuple_repr({B, product(sh) / B})}});
  }});
  in.push_back({"V16", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& b = t.spec.at("b");
    b.reshape({t.B, t.dims.HV + 1 + v % 3});
    return expect("V16", {{"HV", t.dims.HV}, {"tuple(b.shape)", tuple_repr(b.shape)}});
  }});
  in.push_back({"V17", [](MutationTarget& t, uint32_t v) -> Out {
    const int64_t n = t.dims.HV + 1 + v % 3;
    t.spec.at("A_log").reshape({n});
    return expect("V17", {{"HV", t.dims.HV}, {"numel", n}});
  }});
  in.push_back({"V18", [](MutationTarget& t, uint32_t v) -> Out {
    const int64_t HV = t.dims.HV, K = t.dims.K;
    TensorSpec& dt = t.spec.at("dt_bias");
    dt.reshape(v % 3 == 0   ? std::vector<int64_t>{HV * K + 1 + v % 5}
               : v % 3 == 1 ? std::vector<int64_t>{HV, 2 * K}
                            : std::vector<int64_t>{HV + 1, K});
    return expect("V18", {{"HV*K", HV * K}, {"numel", product(dt.shape)}});
  }});
  in.push_back({"V19", [](MutationTarget& t, uint32_t v) -> Out {
    const int64_t B = t.B, HV = t.dims.HV, V = t.dims.V;
    const std::vector<int64_t> sh = v % 4 == 0   ? std::vector<int64_t>{B, HV, V}
                                    : v % 4 == 1 ? std::vector<int64_t>{B, 1, HV, 2 * V}
                                    : v % 4 == 2 ? std::vector<int64_t>{B + 1, 1, HV, V}
                                                 : std::vector<int64_t>{B, 2, HV, V};
    t.spec.at("out").reshape(sh);
    return expect("V19", {{"(B, 1, HV, V)", tuple_repr({B, 1, HV, V})}, {"tuple(out.shape)", tuple_repr(sh)}});
  }});
  in.push_back({"V20", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    const int64_t vdim = d.HV * d.V;
    const int64_t D = v % 4 == 0 ? vdim : v % 4 == 1 ? vdim + 2 * d.H * d.K + 1 : v % 4 == 2 ? vdim - 1 : vdim + 1;
    t.spec.at("mixed_qkv").reshape({t.B, D});
    return expect("V20", {{"qkv_dim", D}, {"HV", d.HV}, {"V", d.V}});
  }});
  in.push_back({"V21", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    if (d.K < 2) return std::nullopt;  // every q size is divisible by K = 1
    const int64_t q = d.H * d.K + 1 + static_cast<int64_t>(v % (d.K - 1));
    t.spec.at("mixed_qkv").reshape({t.B, d.HV * d.V + 2 * q});
    return expect("V21", {{"q_dim", q}, {"K", d.K}});
  }});
  in.push_back({"V22", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    const int64_t h = d.HV + 1 + v % 3;  // HV % h == HV != 0
    t.spec.at("mixed_qkv").reshape({t.B, d.HV * d.V + 2 * h * d.K});
    return expect("V22", {{"H", h}, {"HV", d.HV}});
  }});
  return in;
}

}  // namespace kda::engine
