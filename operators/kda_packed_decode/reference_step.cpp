#include "operators/kda_packed_decode/reference_step.hpp"

#include "operators/kda_packed_decode/contract.hpp"
#include "reference/plain_recurrence.hpp"
#include "reference/tensor_io.hpp"

namespace kda::reference {
namespace {

template <class Scalar>
void step(const StepArgs& args, const Dims& dm) {
  LayerParams<Scalar> params = load_params<Scalar>(args, dm);
  params.beta_dtype = ScalarType::Float32;  // sigmoid(b.float()) kept in float32
  const auto token = load_token<Scalar>(args, dm);
  const DLTensor& state = *args.initial_state;
  const int64_t s0 = io::stride_of(state, 0), s1 = io::stride_of(state, 1), s2 = io::stride_of(state, 2),
                s3 = io::stride_of(state, 3);
  Matrix<Scalar> S;
  for (int64_t row = 0; row < dm.B; ++row) {
    // out is contiguous (V8): out[row, 0, hv, :] starts at (row * HV + hv) * V.
    const int64_t slot = token.slot[row];
    if (slot < 0) {
      io::zero(*args.out, {row * dm.HV * dm.V, 1, 0, dm.HV * dm.V, 1});
      continue;
    }
    for (int64_t hv = 0; hv < dm.HV; ++hv) {
      const io::Block block{slot * s0 + hv * s1, dm.V, s2, dm.K, s3};
      io::gather(state, block, S);
      const Vector<Scalar> o = plain_head_update(S, prepare_head(params, token, row, hv));
      io::scatter(*args.out, {(row * dm.HV + hv) * dm.V, 1, 0, dm.V, 1}, Matrix<Scalar>(o.transpose()));
      io::scatter(*args.initial_state, block, S);
    }
  }
}

}  // namespace

Dims packed_decode_step(const StepArgs& given, Rounding rounding) {
  const StepArgs args = packed_decode_args(given);
  const Dims dims = validate_packed_decode(args, Backend::Cpu);
  check_runtime_values(args, dims);
  if (rounding == Rounding::Kernel)
    step<float>(args, dims);
  else
    step<double>(args, dims);
  return dims;
}

}  // namespace kda::reference
