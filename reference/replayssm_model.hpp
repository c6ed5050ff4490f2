// ReplaySSM in Scalar arithmetic with its OWN rings held in Scalar: no tensor, no storage
// rounding anywhere. ReplayModel<double> is the "pure double" model of semantics.md (the
// float32 g ring of the real tensors is itself a rounding point, so reaching ~1e-14 against
// the plain recurrence needs float64 rings). It runs the same per-head algorithm as
// replayssm_step (reference/replay_head.hpp), with identity rounding.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "reference/layer_inputs.hpp"

namespace kda::reference {

template <class Scalar>
class ReplayModel {
 public:
  ReplayModel() = default;
  // Copies the checkpoints and every ring record of the tensors (as stored) into Scalar.
  static ReplayModel from_tensors(const StepArgs& args, const Dims& dims);
  // The same for the listed slots only (a slot out of range is skipped); the others hold
  // nothing and must not be asked for.
  static ReplayModel from_tensors(const StepArgs& args, const Dims& dims, std::span<const int64_t> slots);

  // One step for a batch. write_pos and force_flush are per row (force_flush may be empty =
  // absent). Returns out [B, HV*V]; padding rows give zeros. Rows must name distinct slots.
  // `circular`: the rings are a circular ring's, held in logical order (the caller rotated
  // them in: record j at j), so a natural flush is a history checkpoint (circular-replay.md).
  Matrix<Scalar> step(const LayerParams<Scalar>& params, const TokenInputs<Scalar>& token,
                      std::span<const int64_t> write_pos, std::span<const int64_t> force_flush,
                      bool circular = false);

  // The state S of (slot, hv) as the step rebuilds it from the checkpoint and the first
  // `cursor` ring records.
  Matrix<Scalar> rebuilt_state(int64_t slot, int64_t hv, int64_t cursor) const;
  const Matrix<Scalar>& checkpoint(int64_t slot, int64_t hv) const { return S0_[slot * dims_.HV + hv]; }
  // The ring records of (slot, hv) as stored ([L, V] deltas, [L, K] gates; the keys of hv's
  // query head, [L, K]).
  const Matrix<Scalar>& d_records(int64_t slot, int64_t hv) const { return D_[slot * dims_.HV + hv]; }
  const Matrix<Scalar>& g_records(int64_t slot, int64_t hv) const { return G_[slot * dims_.HV + hv]; }
  const Matrix<Scalar>& k_records(int64_t slot, int64_t hv) const { return Kr_[slot * dims_.H + hv / (dims_.HV / dims_.H)]; }
  const Dims& dims() const { return dims_; }

 private:
  Dims dims_;
  std::vector<Matrix<Scalar>> S0_;  // [slots*HV] of [V, K]
  std::vector<Matrix<Scalar>> D_;   // [slots*HV] of [L, V]
  std::vector<Matrix<Scalar>> G_;   // [slots*HV] of [L, K]
  std::vector<Matrix<Scalar>> Kr_;  // [slots*H]  of [L, K]
};

}  // namespace kda::reference
