#include "reference/replayssm_model.hpp"

#include "contract/ring_protocol.hpp"
#include "reference/replay_head.hpp"
#include "reference/tensor_io.hpp"

namespace kda::reference {
namespace {
// Reads the [rows, cols] matrix at (i0, i1) of a 4-D tensor [., ., rows, cols].
template <class Scalar>
Matrix<Scalar> read_4d(const DLTensor& t, int64_t i0, int64_t i1, int64_t rows, int64_t cols) {
  Matrix<Scalar> m;
  io::gather(t, {i0 * io::stride_of(t, 0) + i1 * io::stride_of(t, 1), rows, io::stride_of(t, 2), cols, io::stride_of(t, 3)}, m);
  return m;
}
constexpr auto kNoRounding = [](auto&) {};
}  // namespace

template <class Scalar>
ReplayModel<Scalar> ReplayModel<Scalar>::from_tensors(const StepArgs& args, const Dims& d) {
  ReplayModel m;
  m.dims_ = d;
  for (int64_t slot = 0; slot < d.slots; ++slot) {
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      m.S0_.push_back(read_4d<Scalar>(*args.initial_state, slot, hv, d.V, d.K));
      m.D_.push_back(read_4d<Scalar>(*args.d_cache, slot, hv, d.L, d.V));
      m.G_.push_back(read_4d<Scalar>(*args.g_cache, slot, hv, d.L, d.K));
    }
    for (int64_t h = 0; h < d.H; ++h) m.Kr_.push_back(read_4d<Scalar>(*args.k_cache, slot, h, d.L, d.K));
  }
  return m;
}

template <class Scalar>
ReplayModel<Scalar> ReplayModel<Scalar>::from_tensors(const StepArgs& args, const Dims& d, std::span<const int64_t> slots) {
  ReplayModel m;
  m.dims_ = d;
  m.S0_.resize(static_cast<std::size_t>(d.slots * d.HV));
  m.D_.resize(m.S0_.size());
  m.G_.resize(m.S0_.size());
  m.Kr_.resize(static_cast<std::size_t>(d.slots * d.H));
  for (const int64_t slot : slots) {
    if (slot < 0 || slot >= d.slots || m.S0_[slot * d.HV].size() > 0) continue;
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      m.S0_[slot * d.HV + hv] = read_4d<Scalar>(*args.initial_state, slot, hv, d.V, d.K);
      m.D_[slot * d.HV + hv] = read_4d<Scalar>(*args.d_cache, slot, hv, d.L, d.V);
      m.G_[slot * d.HV + hv] = read_4d<Scalar>(*args.g_cache, slot, hv, d.L, d.K);
    }
    for (int64_t h = 0; h < d.H; ++h) m.Kr_[slot * d.H + h] = read_4d<Scalar>(*args.k_cache, slot, h, d.L, d.K);
  }
  return m;
}

template <class Scalar>
Matrix<Scalar> ReplayModel<Scalar>::rebuilt_state(int64_t slot, int64_t hv, int64_t cursor) const {
  const int64_t i = slot * dims_.HV + hv, h = hv / (dims_.HV / dims_.H);
  return rebuild_state(S0_[i], D_[i], Kr_[slot * dims_.H + h], G_[i], cursor, kNoRounding);
}

template <class Scalar>
Matrix<Scalar> ReplayModel<Scalar>::step(const LayerParams<Scalar>& params, const TokenInputs<Scalar>& token,
                                         std::span<const int64_t> write_pos, std::span<const int64_t> force_flush,
                                         bool circular) {
  const Dims& d = dims_;
  const int64_t group = d.HV / d.H;
  Matrix<Scalar> out = Matrix<Scalar>::Zero(d.B, d.HV * d.V);
  Vector<Scalar> o, dv;
  for (int64_t row = 0; row < d.B; ++row) {
    const int64_t slot = token.slot[row];
    if (slot < 0) continue;
    const int64_t cursor = write_pos[row];
    const RingStep kind = RingCursor{circular, d.L, cursor, 0}.step(!force_flush.empty() && force_flush[row] != 0);
    // The record goes to the unread row `cursor`; the model's rings are in logical order, so
    // after a history checkpoint (the window restarts with the token's record, the caller's
    // cursor goes to 1) it moves to row 0 once every head has read the window.
    const int64_t at = cursor;
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      const int64_t i = slot * d.HV + hv, h = hv / group;
      Matrix<Scalar> S = rebuilt_state(slot, hv, cursor);
      if (kind == RingStep::History) S0_[i] = S;
      const HeadToken<Scalar> t = prepare_head(params, token, row, hv);
      replay_token(S, t, o, dv);
      out.row(row).segment(hv * d.V, d.V) = o.transpose();
      if (kind == RingStep::Full) {
        S.noalias() += dv * t.k.transpose();
        S0_[i] = S;
      } else {
        D_[i].row(at) = dv.transpose();
        G_[i].row(at) = t.g.transpose();
        if (hv % group == 0) Kr_[slot * d.H + h].row(at) = t.k.transpose();
      }
    }
    if (kind != RingStep::History) continue;
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      D_[slot * d.HV + hv].row(0) = D_[slot * d.HV + hv].row(at);
      G_[slot * d.HV + hv].row(0) = G_[slot * d.HV + hv].row(at);
    }
    for (int64_t h = 0; h < d.H; ++h) Kr_[slot * d.H + h].row(0) = Kr_[slot * d.H + h].row(at);
  }
  return out;
}

template class ReplayModel<float>;
template class ReplayModel<double>;

}  // namespace kda::reference
