#include "operators/kda_replayssm/reference_step.hpp"

#include <vector>

#include "contract/validate.hpp"
#include "reference/replay_head.hpp"
#include "reference/tensor_io.hpp"

namespace kda::reference {
namespace {

// Element strides of a 4-D tensor.
struct Strides4 {
  int64_t s0, s1, s2, s3;
  explicit Strides4(const DLTensor& t)
      : s0(io::stride_of(t, 0)), s1(io::stride_of(t, 1)), s2(io::stride_of(t, 2)), s3(io::stride_of(t, 3)) {}
  // The [rows, cols] block at (i0, i1, i2, 0) of a [., ., rows, cols] tensor.
  io::Block block(int64_t i0, int64_t i1, int64_t i2, int64_t rows, int64_t cols) const {
    return {i0 * s0 + i1 * s1 + i2 * s2, rows, s2, cols, s3};
  }
};

template <class Scalar>
void step(const StepArgs& args, const Dims& dm, Rounding rounding) {
  const auto params = load_params<Scalar>(args, dm);
  const auto token = load_token<Scalar>(args, dm);
  const auto write_pos = io::read_indices(*args.write_pos);
  const auto force = args.force_flush ? io::read_indices(*args.force_flush) : std::vector<int64_t>(dm.B, 0);
  const ScalarType out_type = *scalar_type_of(args.out->dtype);
  const auto round_operand = [&](Matrix<Scalar>& m) {
    if (rounding == Rounding::Kernel) io::round_through<Scalar>(out_type, m);
  };
  const Strides4 st(*args.initial_state), sd(*args.d_cache), sk(*args.k_cache), sg(*args.g_cache);
  const int64_t group = dm.HV / dm.H;
  // Kept from head to head: no allocation per head.
  Matrix<Scalar> S0, D, Kr, G, S, v_row, k_row;  // v_row, k_row: a record of V, of K values
  RebuildWork<Scalar> work;
  HeadToken<Scalar> t;
  Vector<Scalar> o, d;
  for (int64_t row = 0; row < dm.B; ++row) {
    // out is contiguous (V8): out[row, 0, hv, :] starts at (row * HV + hv) * V.
    const int64_t slot = token.slot[row];
    if (slot < 0) {
      io::zero(*args.out, {row * dm.HV * dm.V, 1, 0, dm.HV * dm.V, 1});
      continue;
    }
    const int64_t cursor = write_pos[row];
    const bool flush = cursor == dm.L - 1 || force[row] != 0;
    for (int64_t hv = 0; hv < dm.HV; ++hv) {
      const int64_t h = hv / group;
      io::gather(*args.initial_state, st.block(slot, hv, 0, dm.V, dm.K), S0);
      io::gather(*args.d_cache, sd.block(slot, hv, 0, cursor, dm.V), D);
      io::gather(*args.k_cache, sk.block(slot, h, 0, cursor, dm.K), Kr);
      io::gather(*args.g_cache, sg.block(slot, hv, 0, cursor, dm.K), G);
      rebuild_state(S0, D, Kr, G, cursor, round_operand, work, S);
      prepare_head(params, token, row, hv, t);
      replay_token(S, t, o, d);
      io::scatter(*args.out, {(row * dm.HV + hv) * dm.V, 1, 0, dm.V, 1}, v_row = o.transpose());
      if (flush) {
        S.noalias() += d * t.k.transpose();
        io::scatter(*args.initial_state, st.block(slot, hv, 0, dm.V, dm.K), S);
      } else {
        io::scatter(*args.d_cache, sd.block(slot, hv, cursor, 1, dm.V), v_row = d.transpose());
        io::scatter(*args.g_cache, sg.block(slot, hv, cursor, 1, dm.K), k_row = t.g.transpose());
        if (hv % group == 0)  // one value head per query-head group writes the shared key
          io::scatter(*args.k_cache, sk.block(slot, h, cursor, 1, dm.K), k_row = t.k.transpose());
      }
    }
  }
}

}  // namespace

Dims replayssm_step(const StepArgs& args, Rounding rounding) {
  const Dims dims = validate(args, Backend::Cpu);
  check_runtime_values(args, dims);
  if (rounding == Rounding::Kernel) step<float>(args, dims, rounding);
  else step<double>(args, dims, rounding);
  return dims;
}

}  // namespace kda::reference
