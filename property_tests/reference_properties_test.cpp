// Issue 3, properties 2 and 4:
// (2) with L = 1 every step flushes, and one step is exactly one plain decode step: in
//     float64 arithmetic (Rounding::Off) the stored out and checkpoint are the plain
//     float64 results rounded once to their dtypes;
// (4) the plain recurrence in float32 stays within the float32 bounds of the float64 one
//     on the same inputs, at every token.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "cases/case_tensors.hpp"
#include "property_tests/reference_case_gen.hpp"
#include "property_tests/reference_property.hpp"
#include "reference/plain_recurrence.hpp"
#include "reference/replayssm_step.hpp"
#include "reference/tensor_io.hpp"
#include "reference/tolerance.hpp"

namespace kda::testing {
namespace {

using namespace kda::reference;

Dims dims_of(const CaseConfig& c) { return {c.B, c.H, c.HV, c.K, c.V, c.L, c.slots}; }

// One store rounds each element to nearest: |error| <= u |x| for normal numbers, <= u *
// smallest_normal in the subnormal range; Rounding::Off stores through float32 first, which
// adds at most 2^-24 |x| (double rounding).
double one_rounding_bound(double ref_norm, int64_t n, ScalarType t) {
  const double u = unit_roundoff(t);
  return (u + 0x1p-24) * ref_norm + std::sqrt(static_cast<double>(n)) * u * smallest_normal(t);
}

TEST(ReferenceProperties, LEqualsOneIsOnePlainDecodeStep) {
  double worst_out = 0, worst_state = 0;  // error / one-rounding bound
  check_property("L = 1: a ReplaySSM step == one plain decode step", case_count("KDA_REFERENCE_CASES_L1", 300), [&] {
    CaseConfig c = *gen_reference_case(1);
    c.L = 1;
    CaseTensors t = materialize(c);
    const Dims d = dims_of(c);
    const StepArgs args = t.args();
    auto plain = PlainState<double>::from_tensor(t.initial_state.dl(), d);
    const Matrix<double> ref = plain_step(plain, load_params<double>(args, d), load_token<double>(args, d));
    replayssm_step(args, Rounding::Off);
    Matrix<double> out, S;
    io::gather(t.out.dl(), {0, d.B, d.HV * d.V, d.HV * d.V, 1}, out);
    const auto slots = io::read_indices(t.ssm_state_indices.dl());
    for (int64_t row = 0; row < d.B; ++row) {
      for (int64_t hv = 0; hv < d.HV; ++hv) {
        const Vector<double> o_ref = ref.row(row).segment(hv * d.V, d.V).transpose();
        const Vector<double> o = out.row(row).segment(hv * d.V, d.V).transpose();
        const double e = (o - o_ref).norm(), b = one_rounding_bound(o_ref.norm(), d.V, c.out_dtype);
        if (!(e <= b)) RC_FAIL(fmt::format("out row {} hv {}: error {:.3e} > {:.3e} | {}", row, hv, e, b, to_string(c)));
        if (b > 0) worst_out = std::max(worst_out, e / b);
        if (slots[row] < 0) continue;
        const DLTensor& st = t.initial_state.dl();
        io::gather(st, {slots[row] * io::stride_of(st, 0) + hv * io::stride_of(st, 1), d.V, io::stride_of(st, 2), d.K,
                        io::stride_of(st, 3)}, S);
        const Matrix<double>& S_ref = plain.at(slots[row], hv);
        const double es = (S - S_ref).norm(), bs = one_rounding_bound(S_ref.norm(), d.V * d.K, c.state_dtype);
        if (!(es <= bs)) RC_FAIL(fmt::format("state row {} hv {}: error {:.3e} > {:.3e} | {}", row, hv, es, bs, to_string(c)));
        worst_state = std::max(worst_state, es / bs);
      }
    }
  });
  std::printf("L = 1: worst error / one-rounding bound: out %.3f, checkpoint %.3f\n", worst_out, worst_state);
}

TEST(ReferenceProperties, Float32PlainWithinFloat32Bounds) {
  double worst_out = 0, worst_state = 0;
  check_property("plain float32 == plain float64 within float32 bounds", case_count("KDA_REFERENCE_CASES_F32", 300), [&] {
    const CaseConfig c = *gen_reference_case(32, 1e7);
    CaseTensors t = materialize(c);
    const Dims d = dims_of(c);
    const StepArgs args = t.args();
    auto p32 = PlainState<float>::from_tensor(t.initial_state.dl(), d);
    auto p64 = PlainState<double>::from_tensor(t.initial_state.dl(), d);
    const auto params32 = load_params<float>(args, d);
    const auto params64 = load_params<double>(args, d);
    const RolloutBounds bounds = float32_plain_bounds(c.K, c.V, c.steps);
    for (int64_t token = 0; token < c.steps; ++token) {
      if (token > 0) fill_token(t, token);
      const auto in32 = load_token<float>(args, d);
      const auto in64 = load_token<double>(args, d);
      const Matrix<double> o32 = plain_step(p32, params32, in32).cast<double>();
      const Matrix<double> o64 = plain_step(p64, params64, in64);
      for (int64_t row = 0; row < d.B; ++row) {
        const int64_t slot = in64.slot[row];
        if (slot < 0) continue;
        for (int64_t hv = 0; hv < d.HV; ++hv) {
          const Matrix<double>& S64 = p64.at(slot, hv);
          const double floor = output_floor(S64.norm(), prepare_head(params64, in64, row, hv).q_scaled.norm(), d.K, d.V,
                                            ScalarType::Float32);
          const Vector<double> a = o32.row(row).segment(hv * d.V, d.V).transpose();
          const Vector<double> e = o64.row(row).segment(hv * d.V, d.V).transpose();
          const double eo = (a - e).norm() / std::max(e.norm(), floor);
          const double es = (p32.at(slot, hv).cast<double>() - S64).norm() / S64.norm();
          if (!(eo <= bounds.output && es <= bounds.state))
            RC_FAIL(fmt::format("token {} row {} hv {}: out {:.3e} (bound {:.3e}), state {:.3e} (bound {:.3e}) | {}", token,
                                row, hv, eo, bounds.output, es, bounds.state, to_string(c)));
          worst_out = std::max(worst_out, eo / bounds.output);
          worst_state = std::max(worst_state, es / bounds.state);
        }
      }
    }
  });
  std::printf("plain float32 vs float64: worst error / bound: out %.3f, state %.3f\n", worst_out, worst_state);
}

}  // namespace
}  // namespace kda::testing
