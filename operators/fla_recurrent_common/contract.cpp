// validate_fla_recurrent(): the checks of docs/fla-recurrent-decode.md in its order, for either
// gate width. fla's own is the assert that `out` has v's shape (X-FLA-OUT-SHAPE: fla raises an
// AssertionError without a message); the rest are the harness's, each named by the catalog id
// it raises.
#include "operators/fla_recurrent_common/contract.hpp"

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "contract/catalog_message.hpp"
#include "contract/contract_error.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "contract/validate_internal.hpp"

namespace kda {
namespace {

namespace id {
constexpr const char* kNegEigval = "X-FLA-NEG-EIGVAL";
constexpr const char* kRank = "X-FLA-RANK";
constexpr const char* kEmpty = "X-FLA-EMPTY";
constexpr const char* kHeads = "X-FLA-HEADS";
constexpr const char* kShape = "X-FLA-SHAPE";
constexpr const char* kOutShape = "X-FLA-OUT-SHAPE";
constexpr const char* kIndices = "X-FLA-INDICES";
constexpr const char* kAccepted = "X-FLA-ACCEPTED";
constexpr const char* kAcceptedValue = "X-FLA-ACCEPTED-VALUE";
constexpr const char* kDtype = "X-FLA-DTYPE";
constexpr const char* kContiguous = "X-FLA-CONTIGUOUS";
}  // namespace id

[[noreturn]] void fail(const char* id, std::initializer_list<MessageArg> args = {}) {
  throw ContractError(id, catalog_message(id, args));
}

std::string shape_text(const DLTensor& t) { return tuple_repr(shape_of(t)); }

bool is_int32(const DLTensor& t) {
  const DLDataType i32 = to_dl(ScalarType::Int32);
  return t.dtype.code == i32.code && t.dtype.bits == i32.bits && t.dtype.lanes == i32.lanes;
}
bool is_float(const DLTensor& t) {
  const std::optional<ScalarType> type = scalar_type_of(t.dtype);
  return type && is_floating(*type);
}
bool is_index(const DLTensor& t) {
  const std::optional<ScalarType> type = scalar_type_of(t.dtype);
  return type && (*type == ScalarType::Int32 || *type == ScalarType::Int64);
}

// A tensor's shape must be `expected` (X-FLA-SHAPE).
void expect_shape(const DLTensor& t, const char* name, const std::vector<int64_t>& expected) {
  if (shape_of(t) != expected)
    fail(id::kShape, {{"name", std::string(name)}, {"expected", tuple_repr(expected)}, {"got", shape_text(t)}});
}

// The kernel reads every tensor but the pool at offsets computed from the sizes alone; the
// pool at slot * stride(0) plus its compact inner offsets.
bool inner_contiguous(const DLTensor& t) {
  int64_t expected = 1;
  for (int64_t d = t.ndim - 1; d >= 1; --d) {
    if (size(t, d) != 1 && stride(t, d) != expected) return false;
    expected *= size(t, d);
  }
  return true;
}

}  // namespace

StepArgs fla_recurrent_args(StepArgs args, FlaGate gate) {
  StepArgs s;
  s.q = args.q;
  s.k = args.k;
  s.v = args.v;
  s.g = args.g;
  s.beta = args.beta;
  s.A_log = args.A_log;
  s.dt_bias = args.dt_bias;
  s.initial_state = args.initial_state;
  s.ssm_state_indices = args.ssm_state_indices;
  s.num_accepted_tokens = args.num_accepted_tokens;
  s.out = args.out;
  s.scale = args.scale;
  s.use_qk_l2norm_in_kernel = args.use_qk_l2norm_in_kernel;
  s.use_gate_in_kernel = args.use_gate_in_kernel;
  s.use_beta_sigmoid_in_kernel = args.use_beta_sigmoid_in_kernel;
  s.allow_neg_eigval = args.allow_neg_eigval;
  if (gate == FlaGate::PerKey) s.lower_bound = args.lower_bound;
  s.state_v_first = args.state_v_first;
  return s;
}

Dims validate_fla_recurrent(const StepArgs& args, Backend backend, FlaGate gate) {
  static constexpr const char* kRequired[] = {"q",       "k",       "v",  "g", "beta", "A_log", "dt_bias",
                                              "initial_state", "ssm_state_indices"};
  const DLTensor* const required[] = {args.q,       args.k,       args.v,  args.g, args.beta, args.A_log, args.dt_bias,
                                      args.initial_state, args.ssm_state_indices};
  for (std::size_t i = 0; i < std::size(required); ++i)
    detail::check_well_formed(required[i], kRequired[i], true);
  detail::check_well_formed(args.num_accepted_tokens, "num_accepted_tokens", false);
  detail::check_well_formed(args.out, "out", true);
  const DLTensor &q = *args.q, &k = *args.k, &v = *args.v, &g = *args.g, &beta = *args.beta, &pool = *args.initial_state,
                 &out = *args.out, &idx = *args.ssm_state_indices;

  // fla's public wrapper raises this ValueError; the in-place entry point computes on.
  if (args.allow_neg_eigval && !args.use_beta_sigmoid_in_kernel) fail(id::kNegEigval);

  const auto rank = [](const DLTensor& t, const char* name, int64_t want, const char* layout) {
    if (t.ndim != want) fail(id::kRank, {{"name", std::string(name)}, {"layout", std::string(layout)}, {"ndim", t.ndim}});
  };
  rank(q, "q", 4, "[B, T, H, K]");
  rank(k, "k", 4, "[B, T, H, K]");
  rank(v, "v", 4, "[B, T, HV, V]");
  const bool per_key = gate == FlaGate::PerKey;
  if (per_key) rank(g, "g", 4, "[B, T, HV, K]");
  else rank(g, "g", 3, "[B, T, HV]");
  if (beta.ndim != 3 && beta.ndim != 4)
    fail(id::kRank, {{"name", std::string("beta")}, {"layout", std::string("[B, T, HV] or [B, T, HV, V]")}, {"ndim", beta.ndim}});
  rank(out, "out", 4, "[B, T, HV, V]");
  rank(pool, "initial_state", 4, args.state_v_first ? "[N, HV, V, K]" : "[N, HV, K, V]");

  // The sizes as fla reads them: B, T, H, K from k; HV, V from v.
  const int64_t B = size(k, 0), T = size(k, 1), H = size(k, 2), K = size(k, 3), HV = size(v, 2), V = size(v, 3);
  if (B < 1 || T < 1 || H < 1 || K < 1 || HV < 1 || V < 1)
    fail(id::kEmpty, {{"B", B}, {"T", T}, {"H", H}, {"K", K}, {"HV", HV}, {"V", V}});
  expect_shape(q, "q", {B, T, H, K});
  expect_shape(v, "v", {B, T, HV, V});
  if (HV % H != 0) fail(id::kHeads, {{"HV", HV}, {"H", H}});
  expect_shape(g, "g", per_key ? std::vector<int64_t>{B, T, HV, K} : std::vector<int64_t>{B, T, HV});
  if (beta.ndim == 3) expect_shape(beta, "beta", {B, T, HV});
  else expect_shape(beta, "beta", {B, T, HV, V});
  expect_shape(*args.A_log, "A_log", {HV});
  expect_shape(*args.dt_bias, "dt_bias", {per_key ? HV * K : HV});
  const int64_t N = size(pool, 0);
  expect_shape(pool, "initial_state", args.state_v_first ? std::vector<int64_t>{N, HV, V, K} : std::vector<int64_t>{N, HV, K, V});
  if (shape_of(out) != shape_of(v)) fail(id::kOutShape, {{"v", shape_text(v)}, {"out", shape_text(out)}});

  // The index tensor's rank must fit T: the kernel reads idx[b * stride(0) + t], so a 1-D
  // tensor with T > 1 names other rows' slots and reads past its end.
  const bool two_d = idx.ndim == 2 && size(idx, 0) == B && size(idx, 1) == T;
  const bool one_d = idx.ndim == 1 && size(idx, 0) == B && T == 1;
  if (!two_d && !one_d) fail(id::kIndices, {{"shape", shape_text(idx)}, {"B", B}, {"T", T}});
  if (const DLTensor* nat = args.num_accepted_tokens;
      nat && (!two_d || nat->ndim != 1 || size(*nat, 0) != B || !is_int32(*nat)))
    fail(id::kAccepted);

  for (const DLTensor* t : {&q, &k, &v, &g, &beta, args.A_log, args.dt_bias, &pool, &out})
    if (!is_float(*t)) fail(id::kDtype);
  if (!is_index(idx)) fail(id::kDtype);

  // Strides the kernel ignores: every tensor but the pool compact, the pool compact inside a slot.
  const std::pair<const DLTensor*, const char*> compact[] = {
      {&q, "q"},         {&k, "k"},           {&v, "v"},     {&g, "g"}, {&beta, "beta"}, {args.A_log, "A_log"},
      {args.dt_bias, "dt_bias"}, {&out, "out"}, {&idx, "ssm_state_indices"}, {args.num_accepted_tokens, "num_accepted_tokens"}};
  for (const auto& [t, name] : compact)
    if (t && !is_contiguous(*t)) fail(id::kContiguous, {{"name", std::string(name)}});
  if (!inner_contiguous(pool)) fail(id::kContiguous, {{"name", std::string("initial_state")}});

  const DLTensor* const all[] = {&q, &k, &v, &g, &beta, args.A_log, args.dt_bias, &pool, &out, &idx, args.num_accepted_tokens};
  for (const DLTensor* t : all)
    if (t && detail::has_negative_stride(*t)) fail(error_id::kStrides);
  if (may_self_overlap(pool)) fail(error_id::kStrides);  // the only written tensor that may be strided
  for (const DLTensor* t : all)
    if (t && !detail::extent_fits(*t)) fail(error_id::kExtents);
  for (const DLTensor* t : all) {
    if (!t) continue;
    if (backend == Backend::Cpu && t->device.device_type != kDLCPU) fail(error_id::kBackendCpu);
    if (backend == Backend::Cuda && t->device.device_type != kDLCUDA) fail(error_id::kBackendCuda);
  }
  Dims d{B, H, HV, K, V, 0, N};
  d.T = T;
  return d;
}

int64_t fla_index(const DLTensor& indices, int64_t row, int64_t token) {
  const int64_t at[2] = {row, token};
  const std::byte* p = static_cast<const std::byte*>(indices.data) + indices.byte_offset +
                       element_offset(indices, at) * (indices.dtype.bits / 8);
  if (indices.dtype.bits == 64) {
    int64_t x;
    std::memcpy(&x, p, sizeof x);
    return x;
  }
  int32_t x;
  std::memcpy(&x, p, sizeof x);
  return x;
}

int64_t fla_start_token(const StepArgs& args, int64_t row) {
  return args.num_accepted_tokens ? index_value(*args.num_accepted_tokens, row) - 1 : 0;
}

void check_fla_runtime_values(const StepArgs& args, const Dims& dims) {
  const DLTensor& idx = *args.ssm_state_indices;
  if (idx.device.device_type != kDLCPU || idx.data == nullptr)
    throw std::invalid_argument("check_fla_runtime_values: `ssm_state_indices` is not host-resident data");
  const int64_t tokens = idx.ndim == 2 ? dims.T : 1;
  std::unordered_set<int64_t> seen;
  for (int64_t row = 0; row < dims.B; ++row) {
    if (fla_index(idx, row, 0) < 0) continue;  // padding: its state is neither read nor written
    for (int64_t t = 0; t < tokens; ++t) {
      const int64_t slot = fla_index(idx, row, t);
      if (slot < 0 || slot >= dims.slots) fail(error_id::kSlotIndex);
      if (!seen.insert(slot).second) fail(error_id::kDuplicateSlot);
    }
    if (args.num_accepted_tokens) {
      const int64_t n = index_value(*args.num_accepted_tokens, row);
      if (n < 1 || n > dims.T) fail(id::kAcceptedValue);
    }
  }
}

}  // namespace kda
