// What the GDN launch needs of its arguments (gdn_kernel_dims(), cuda_launch.hpp): enough that
// the kernel never reads or writes outside a tensor, checked on metadata only.
#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "operators/gdn_replayssm/cuda_launch.hpp"

namespace kda::cuda {
namespace {

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument("gdn_replayssm_decode: " + why); }

bool power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

enum class Kind { Float, Gate, Index };

// t present, on mixed_qkv's CUDA device, of the given shape and dtype kind.
void expect(const DLTensor* t, const char* name, const std::vector<int64_t>& shape, Kind kind, const DLTensor& first) {
  if (t == nullptr) refuse(fmt::format("{} is missing", name));
  if (t->device.device_type != kDLCUDA || !same_device(*t, first))
    refuse(fmt::format("{} must be on mixed_qkv's CUDA device", name));
  if (shape_of(*t) != shape)
    refuse(fmt::format("{} has shape {}, the kernel reads {}", name, tuple_repr(shape_of(*t)), tuple_repr(shape)));
  if (t->data == nullptr && numel(*t) != 0) refuse(fmt::format("{} has no data", name));
  const auto type = scalar_type_of(t->dtype);
  const bool ok = type && (kind == Kind::Float  ? is_floating(*type)
                           : kind == Kind::Gate ? *type == ScalarType::Float32
                                                : *type == ScalarType::Int32);
  if (!ok)
    refuse(fmt::format("{} must be {}", name,
                       kind == Kind::Float  ? "float32, bfloat16 or float16"
                       : kind == Kind::Gate ? "float32"
                                            : "int32"));
}

}  // namespace

Dims gdn_kernel_dims(const StepArgs& a) {
  if (a.mixed_qkv == nullptr || a.initial_state == nullptr || a.d_cache == nullptr)
    refuse("mixed_qkv, initial_state and d_cache are required");
  if (ndim(*a.mixed_qkv) != 2 || ndim(*a.initial_state) != 4 || ndim(*a.d_cache) != 4)
    refuse("mixed_qkv must be 2-D, initial_state and d_cache 4-D");
  if (a.predecayed_k_cache) refuse("predecayed_k_cache is not implemented by this kernel");
  Dims d;
  d.B = size(*a.mixed_qkv, 0);
  d.slots = size(*a.initial_state, 0), d.HV = size(*a.initial_state, 1);
  d.V = size(*a.initial_state, 2), d.K = size(*a.initial_state, 3);
  d.L = size(*a.d_cache, 2);
  if (!power_of_two(d.K) || !power_of_two(d.V)) refuse(fmt::format("K={} and V={} must be powers of two", d.K, d.V));
  if (d.L < 1) refuse("L (d_cache.shape[2]) must be at least 1");
  const int64_t qkv_dim = size(*a.mixed_qkv, 1), qk = qkv_dim - d.HV * d.V;
  if (qk <= 0 || qk % (2 * d.K) != 0) refuse(fmt::format("mixed_qkv's last dim {} is not 2*H*K + HV*V", qkv_dim));
  d.H = qk / (2 * d.K);
  if (d.HV % d.H != 0) refuse(fmt::format("HV={} is not a multiple of H={}", d.HV, d.H));
  const DLTensor& q = *a.mixed_qkv;
  expect(a.mixed_qkv, "mixed_qkv", {d.B, qkv_dim}, Kind::Float, q);
  if (d.B > 0 && stride(q, 1) != 1) refuse("mixed_qkv's last stride must be 1");
  expect(a.a, "a", {d.B, d.HV}, Kind::Float, q);
  expect(a.b, "b", {d.B, d.HV}, Kind::Float, q);
  expect(a.A_log, "A_log", {d.HV}, Kind::Float, q);
  expect(a.dt_bias, "dt_bias", {d.HV}, Kind::Float, q);
  expect(a.initial_state, "initial_state", {d.slots, d.HV, d.V, d.K}, Kind::Float, q);
  expect(a.d_cache, "d_cache", {d.slots, d.HV, d.L, d.V}, Kind::Float, q);
  expect(a.k_cache, "k_cache", {d.slots, d.H, d.L, d.K}, Kind::Float, q);
  expect(a.g_cache, "g_cache", {d.slots, d.HV, d.L}, Kind::Gate, q);
  expect(a.out, "out", {d.B, 1, d.HV, d.V}, Kind::Float, q);
  expect(a.ssm_state_indices, "ssm_state_indices", {d.B}, Kind::Index, q);
  expect(a.write_pos, "write_pos", {d.B}, Kind::Index, q);
  if (a.force_flush != nullptr) expect(a.force_flush, "force_flush", {d.B}, Kind::Index, q);
  // Read only under circular replay (like the Triton kernel): otherwise any cache_base, or none.
  if (a.circular_replay) expect(a.cache_base, "cache_base", {d.B}, Kind::Index, q);
  return d;
}

}  // namespace kda::cuda
