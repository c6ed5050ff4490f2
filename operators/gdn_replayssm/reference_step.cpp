#include "operators/gdn_replayssm/reference_step.hpp"

#include <vector>

#include "contract/ring_protocol.hpp"

#include "operators/gdn_replayssm/replay_head.hpp"
#include "reference/tensor_io.hpp"

namespace kda::gdn {
namespace {

namespace io = reference::io;
using reference::LayerParams;
using reference::TokenInputs;

// GDN's inputs in KDA's per-channel form: a[row, hv] and dt_bias[hv] repeated over the head's
// K channels (the map of gdn-replayssm.md, "The key property"), so KDA's per-head preparation
// (q, k, v, the gate, beta: reference/layer_inputs.hpp) gives GDN's token, its gate equal in
// every channel.
template <class Scalar>
void load_inputs(const StepArgs& args, const Dims& d, LayerParams<Scalar>& p, TokenInputs<Scalar>& in) {
  Matrix<Scalar> m;
  p.dims = d;
  io::gather(*args.A_log, {0, 1, 0, d.HV, io::stride_of(*args.A_log, 0)}, m);
  p.A_log = m.row(0).transpose();
  io::gather(*args.dt_bias, {0, 1, 0, d.HV, io::stride_of(*args.dt_bias, 0)}, m);
  p.dt_bias = m.transpose().replicate(1, d.K);  // [HV, K]
  p.scale = static_cast<Scalar>(args.scale);
  p.l2norm = args.use_qk_l2norm_in_kernel;
  p.lower_bound = args.lower_bound;
  p.beta_dtype = *scalar_type_of(args.b->dtype);

  in.slot = io::read_indices(*args.ssm_state_indices);
  const int64_t qkv_dim = 2 * d.H * d.K + d.HV * d.V;
  io::gather(*args.mixed_qkv, {0, d.B, io::stride_of(*args.mixed_qkv, 0), qkv_dim, 1}, in.qkv);
  io::gather(*args.a, {0, d.B, io::stride_of(*args.a, 0), d.HV, io::stride_of(*args.a, 1)}, m);
  in.a.resize(d.B, d.HV * d.K);
  for (int64_t hv = 0; hv < d.HV; ++hv) in.a.middleCols(hv * d.K, d.K) = m.col(hv).replicate(1, d.K);
  io::gather(*args.b, {0, d.B, io::stride_of(*args.b, 0), d.HV, 1}, in.b);
}

// Element strides of a tensor of up to 4 dims.
struct Strides {
  int64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  explicit Strides(const DLTensor& t)
      : s0(io::stride_of(t, 0)), s1(io::stride_of(t, 1)), s2(io::stride_of(t, 2)),
        s3(t.ndim > 3 ? io::stride_of(t, 3) : 0) {}
  // The [rows, cols] block at (i0, i1, i2, 0) of a [., ., rows, cols] tensor.
  io::Block block(int64_t i0, int64_t i1, int64_t i2, int64_t rows, int64_t cols) const {
    return {i0 * s0 + i1 * s1 + i2 * s2, rows, s2, cols, s3};
  }
};

// The window's records of ring block (i0, i1) oldest first: logical record j at row j of
// `into`, read from physical record ring.phys(j) (cols 1 for the gate ring, whose records are
// single elements). A linear window is one block; a circular one may wrap.
template <class Scalar>
void gather_window(const DLTensor& t, const Strides& s, int64_t i0, int64_t i1, const RingCursor& ring, int64_t cols,
                   Matrix<Scalar>& into) {
  const int64_t n = ring.write_pos;
  if (!ring.circular) {
    io::gather(t, s.block(i0, i1, 0, n, cols), into);
    return;
  }
  into.resize(n, cols);
  Matrix<Scalar> record;
  for (int64_t j = 0; j < n; ++j) {
    io::gather(t, s.block(i0, i1, ring.phys(j), 1, cols), record);
    into.row(j) = record.row(0);
  }
}

template <class Scalar>
void step(const StepArgs& args, const Dims& dm, reference::Rounding rounding) {
  LayerParams<Scalar> params;
  TokenInputs<Scalar> token;
  load_inputs(args, dm, params, token);
  const auto write_pos = io::read_indices(*args.write_pos);
  const auto force = args.force_flush ? io::read_indices(*args.force_flush) : std::vector<int64_t>(dm.B, 0);
  const auto base = args.circular_replay ? io::read_indices(*args.cache_base) : std::vector<int64_t>(dm.B, 0);
  const bool kernel = rounding == reference::Rounding::Kernel;
  const ScalarType out_type = *scalar_type_of(args.out->dtype);
  const auto round_operand = [&](Matrix<Scalar>& m) {
    if (kernel) io::round_through<Scalar>(out_type, m);
  };
  const Strides st(*args.initial_state), sd(*args.d_cache), sk(*args.k_cache), sg(*args.g_cache);
  const int64_t group = dm.HV / dm.H;
  Matrix<Scalar> S0, D, Kr, G;
  Vector<Scalar> o, d;
  for (int64_t row = 0; row < dm.B; ++row) {
    // out is contiguous: out[row, 0, hv, :] starts at (row * HV + hv) * V.
    const int64_t slot = token.slot[row];
    if (slot < 0) {
      io::zero(*args.out, {row * dm.HV * dm.V, 1, 0, dm.HV * dm.V, 1});
      continue;
    }
    const RingCursor ring{args.circular_replay, dm.L, write_pos[row], base[row]};
    const RingStep kind = ring.step(force[row] != 0);
    const int64_t at = ring.phys(ring.write_pos);  // where an appended record goes
    for (int64_t hv = 0; hv < dm.HV; ++hv) {
      const int64_t h = hv / group;
      io::gather(*args.initial_state, st.block(slot, hv, 0, dm.V, dm.K), S0);
      gather_window(*args.d_cache, sd, slot, hv, ring, dm.V, D);
      gather_window(*args.k_cache, sk, slot, h, ring, dm.K, Kr);
      gather_window(*args.g_cache, sg, slot, hv, ring, 1, G);  // [cursor, 1] (3-D: s3 is 0)
      Matrix<Scalar> S = rebuild_state(S0, D, Kr, ring.write_pos ? Vector<Scalar>(G.col(0)) : Vector<Scalar>(), ring.write_pos, round_operand);
      // A history checkpoint stores the rebuilt state before the token decays it.
      if (kind == RingStep::History) io::scatter(*args.initial_state, st.block(slot, hv, 0, dm.V, dm.K), S);
      const HeadToken<Scalar> t = reference::prepare_head(params, token, row, hv);
      const Scalar g = t.g(0);  // every channel holds the head's gate
      replay_token(S, t, g, o, d);
      io::scatter(*args.out, {(row * dm.HV + hv) * dm.V, 1, 0, dm.V, 1}, Matrix<Scalar>(o.transpose()));
      if (kind == RingStep::Full) {
        S.noalias() += d * t.k.transpose();
        io::scatter(*args.initial_state, st.block(slot, hv, 0, dm.V, dm.K), S);
      } else {
        io::scatter(*args.d_cache, sd.block(slot, hv, at, 1, dm.V), Matrix<Scalar>(d.transpose()));
        io::scatter(*args.g_cache, {slot * sg.s0 + hv * sg.s1 + at * sg.s2, 1, 0, 1, 1}, Matrix<Scalar>(Matrix<Scalar>::Constant(1, 1, g)));
        if (hv % group == 0) {  // the first value head of its group writes the shared key
          io::scatter(*args.k_cache, sk.block(slot, h, at, 1, dm.K), Matrix<Scalar>(t.k.transpose()));
        }
      }
    }
  }
}

}  // namespace

Dims gdn_dims(const StepArgs& args) {
  Dims d;
  d.B = args.mixed_qkv->shape[0];
  d.slots = args.initial_state->shape[0];
  d.HV = args.initial_state->shape[1];
  d.V = args.initial_state->shape[2];
  d.K = args.initial_state->shape[3];
  d.L = args.d_cache->shape[2];
  d.H = (args.mixed_qkv->shape[1] - d.HV * d.V) / 2 / d.K;
  return d;
}

Dims gdn_replayssm_step(const StepArgs& args, reference::Rounding rounding) {
  const Dims dims = gdn_dims(args);
  if (rounding == reference::Rounding::Kernel) step<float>(args, dims, rounding);
  else step<double>(args, dims, rounding);
  return dims;
}

}  // namespace kda::gdn
