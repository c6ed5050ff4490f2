#include "operators/kda_triton_replayssm/reference_step.hpp"

#include <vector>

#include "contract/ring_protocol.hpp"
#include "operators/gdn_replayssm/reference_step.hpp"
#include "reference/replay_head.hpp"
#include "reference/exp.hpp"
#include "reference/tensor_io.hpp"

namespace kda::kda_triton {
namespace {

namespace io = reference::io;
using reference::HeadToken;
using reference::Matrix;
using reference::Vector;

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

// The window's records of ring block (i0, i1), oldest first: logical record j at row j of
// `into`, read from physical record ring.phys(j).
template <class Scalar>
void gather_window(const DLTensor& t, const Strides4& s, int64_t i0, int64_t i1, const RingCursor& ring, int64_t cols,
                   Matrix<Scalar>& into, Matrix<Scalar>& record) {
  into.resize(ring.write_pos, cols);
  for (int64_t j = 0; j < ring.write_pos; ++j) {
    io::gather(t, s.block(i0, i1, ring.phys(j), 1, cols), record);
    into.row(j) = record.row(0);
  }
}

template <class Scalar>
void step(const StepArgs& args, const Dims& dm, reference::Rounding rounding) {
  auto params = reference::load_params<Scalar>(args, dm);
  // SGLang's pre-decay path keeps sigmoid(b) in float32 (circular-replay.md, "Rounding points").
  if (args.predecayed_k_cache) params.beta_dtype = ScalarType::Float32;
  const auto token = reference::load_token<Scalar>(args, dm);
  const auto write_pos = io::read_indices(*args.write_pos);
  const auto force = args.force_flush ? io::read_indices(*args.force_flush) : std::vector<int64_t>(dm.B, 0);
  const auto base = args.circular_replay ? io::read_indices(*args.cache_base) : std::vector<int64_t>(dm.B, 0);
  const bool kernel = rounding == reference::Rounding::Kernel;
  const ScalarType out_type = *scalar_type_of(args.out->dtype);
  const auto round_operand = [&](Matrix<Scalar>& m) {
    if (kernel) io::round_through<Scalar>(out_type, m);
  };
  const Strides4 st(*args.initial_state), sd(*args.d_cache), sk(*args.k_cache), sg(*args.g_cache);
  const int64_t group = dm.HV / dm.H;
  // Kept from head to head: no allocation per head.
  Matrix<Scalar> S0, D, Kr, P, W, S, record;
  Vector<Scalar> total, o, d;
  HeadToken<Scalar> t;
  for (int64_t row = 0; row < dm.B; ++row) {
    // out is contiguous: out[row, 0, hv, :] starts at (row * HV + hv) * V.
    const int64_t slot = token.slot[row];
    if (slot < 0) {
      io::zero(*args.out, {row * dm.HV * dm.V, 1, 0, dm.HV * dm.V, 1});
      continue;
    }
    const RingCursor ring{args.circular_replay, dm.L, write_pos[row], base[row]};
    const RingStep kind = ring.step(force[row] != 0);
    const int64_t n = ring.write_pos, at = ring.phys(n);  // at: where an appended record goes
    for (int64_t hv = 0; hv < dm.HV; ++hv) {
      const int64_t h = hv / group;
      io::gather(*args.initial_state, st.block(slot, hv, 0, dm.V, dm.K), S0);
      gather_window(*args.d_cache, sd, slot, hv, ring, dm.V, D, record);
      gather_window(*args.k_cache, sk, slot, h, ring, dm.K, Kr, record);
      gather_window(*args.g_cache, sg, slot, hv, ring, dm.K, P, record);
      // P: the window's prefixes, as stored (prefix ring) or summed from the raw gates.
      if (!args.prefix_gate_cache)
        for (int64_t j = 1; j < n; ++j) P.row(j) += P.row(j - 1);
      total = n ? Vector<Scalar>(P.row(n - 1).transpose()) : Vector<Scalar>::Zero(dm.K);
      // The decayed keys: k_j exp(total - prefix_j), or a pre-decayed k_ring_j exp(total).
      if (args.predecayed_k_cache) W = (Kr.array().rowwise() * reference::exp_of(total.transpose().array())).matrix();
      else W = (Kr.array() * reference::exp_of((-(P.rowwise() - total.transpose())).array())).matrix();
      round_operand(D);
      round_operand(W);
      S = S0;
      S.array().rowwise() *= reference::exp_of(total.transpose().array());
      S.noalias() += D.transpose() * W;
      // A history checkpoint stores the rebuilt state before the token decays it.
      if (kind == RingStep::History) io::scatter(*args.initial_state, st.block(slot, hv, 0, dm.V, dm.K), S);
      reference::prepare_head(params, token, row, hv, t);
      reference::replay_token(S, t, o, d);
      io::scatter(*args.out, {(row * dm.HV + hv) * dm.V, 1, 0, dm.V, 1}, Matrix<Scalar>(o.transpose()));
      if (kind == RingStep::Full) {
        S.noalias() += d * t.k.transpose();
        io::scatter(*args.initial_state, st.block(slot, hv, 0, dm.V, dm.K), S);
        continue;
      }
      io::scatter(*args.d_cache, sd.block(slot, hv, at, 1, dm.V), Matrix<Scalar>(d.transpose()));
      // The window restarts with this token after a history checkpoint.
      const Vector<Scalar> window_total = kind == RingStep::History ? Vector<Scalar>::Zero(dm.K) : total;
      const Vector<Scalar> prefix_new = window_total + t.g;
      io::scatter(*args.g_cache, sg.block(slot, hv, at, 1, dm.K),
                  Matrix<Scalar>((args.prefix_gate_cache ? prefix_new : t.g).transpose()));
      if (hv % group != 0) continue;  // the first value head of its group writes the shared key
      Vector<Scalar> k_store = t.k;
      if (args.predecayed_k_cache) {  // k exp(-prefix_new), as 1 / (exp(total) exp(g))
        const Vector<Scalar> decay = reference::exp_of(window_total.array()) * reference::exp_of(t.g.array());
        k_store = (t.k.array() * decay.array().inverse()).matrix();
      }
      io::scatter(*args.k_cache, sk.block(slot, h, at, 1, dm.K), Matrix<Scalar>(k_store.transpose()));
    }
  }
}

}  // namespace

Dims kda_triton_step(const StepArgs& args, reference::Rounding rounding) {
  const Dims dims = gdn::gdn_dims(args);
  if (rounding == reference::Rounding::Kernel) step<float>(args, dims, rounding);
  else step<double>(args, dims, rounding);
  return dims;
}

}  // namespace kda::kda_triton
