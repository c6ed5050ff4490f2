// The ground truth checked by a second, independent transcription of semantics.md in scalar
// loops over the tensors (no Eigen, no shared helpers); then the properties of the reference:
// (2) with L = 1 every step flushes, and one step is exactly one plain decode step: in
//     float64 arithmetic (Rounding::Off) the stored out and checkpoint are the plain
//     float64 results rounded once to their dtypes;
// (4) the plain recurrence in float32 stays within the float32 bounds of the float64 one
//     on the same inputs, at every token.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "operators/kda_replayssm/reference_step.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "property_tests/rc_chooser.hpp"
#include "property_tests/reference_property.hpp"
#include "reference/plain_recurrence.hpp"
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

// semantics.md's "One token of the plain recurrence", element by element, on the tensors.
struct ScalarLoops {
  const CaseConfig& c;
  CaseTensors& t;
  std::vector<double> S;  // [slots][HV][V][K] from initial_state

  ScalarLoops(const CaseConfig& cfg, CaseTensors& tensors) : c(cfg), t(tensors), S(cfg.slots * cfg.HV * cfg.V * cfg.K) {
    for (int64_t i = 0; i < static_cast<int64_t>(S.size()); ++i) S[i] = t.initial_state.get_linear(i);
  }
  double& s(int64_t slot, int64_t hv, int64_t i, int64_t k) { return S[((slot * c.HV + hv) * c.V + i) * c.K + k]; }

  // One token; returns out[row][hv*V + i] (zeros for padding rows).
  std::vector<double> step() {
    const int64_t K = c.K, V = c.V, H = c.H, HV = c.HV;
    std::vector<double> out(c.B * HV * V, 0.0);
    for (int64_t row = 0; row < c.B; ++row) {
      const auto slot = static_cast<int64_t>(t.ssm_state_indices.get_linear(row));
      if (slot < 0) continue;
      for (int64_t hv = 0; hv < HV; ++hv) {
        const int64_t h = hv / (HV / H);
        std::vector<double> q(K), k(K), v(V), g(K), d(V);
        double qq = 0, kk = 0;
        for (int64_t j = 0; j < K; ++j) {
          q[j] = t.mixed_qkv.get({row, h * K + j});
          k[j] = t.mixed_qkv.get({row, H * K + h * K + j});
          qq += q[j] * q[j];
          kk += k[j] * k[j];
        }
        for (int64_t i = 0; i < V; ++i) v[i] = t.mixed_qkv.get({row, 2 * H * K + hv * V + i});
        if (c.l2norm)
          for (int64_t j = 0; j < K; ++j) q[j] /= std::sqrt(qq + 1e-6), k[j] /= std::sqrt(kk + 1e-6);
        const double A = std::exp(t.A_log.get_linear(hv));
        for (int64_t j = 0; j < K; ++j) {
          const double x = t.a.get_linear(row * HV * K + hv * K + j) + t.dt_bias.get_linear(hv * K + j);
          g[j] = c.lower_bound ? *c.lower_bound / (1 + std::exp(-A * x)) : -A * (x <= 20 ? std::log(1 + std::exp(x)) : x);
        }
        HostTensor beta_t(c.act_dtype, {1});  // float32 sigmoid through b's dtype and back
        beta_t.set_linear(0, 1.0f / (1.0f + std::exp(-static_cast<float>(t.b.get({row, hv})))));
        const double beta = beta_t.get_linear(0);
        for (int64_t i = 0; i < V; ++i) {
          double Sk = 0;
          for (int64_t j = 0; j < K; ++j) Sk += (s(slot, hv, i, j) *= std::exp(g[j])) * k[j];
          d[i] = beta * (v[i] - Sk);
          double o = 0;
          for (int64_t j = 0; j < K; ++j) o += (s(slot, hv, i, j) += d[i] * k[j]) * q[j] * t.scale;
          out[(row * HV + hv) * V + i] = o;
        }
      }
    }
    return out;
  }
};

TEST(ReferenceProperties, PlainRecurrenceMatchesScalarLoops) {
  check_property("plain_step<double> == semantics.md in scalar loops", case_count("KDA_REFERENCE_CASES_LOOPS", 100), [] {
    engine::SampleLimits limits = engine::limits::reference_suites(6, 2e6);
    limits.strided = false;  // the loops index initial_state compactly
    const CaseConfig c = *gen_case(limits);
    CaseTensors t = materialize_replayssm_case(c);
    const Dims d = dims_of(c);
    ScalarLoops loops(c, t);
    auto plain = PlainState<double>::from_tensor(t.initial_state.dl(), d);
    const auto params = load_params<double>(t.args(), d);
    for (int64_t token = 0; token < c.steps; ++token) {
      if (token > 0) fill_token(t, token);
      const auto token_in = load_token<double>(t.args(), d);
      const Matrix<double> out = plain_step(plain, params, token_in);
      const std::vector<double> expected = loops.step();
      for (int64_t row = 0; row < d.B; ++row) {
        if (token_in.slot[row] < 0) {
          RC_ASSERT(out.row(row).isZero(0));
          continue;
        }
        for (int64_t hv = 0; hv < d.HV; ++hv) {
          double diff = 0, ref = 0;
          for (int64_t i = 0; i < d.V; ++i) {
            const double e = expected[(row * d.HV + hv) * d.V + i];
            diff += (out(row, hv * d.V + i) - e) * (out(row, hv * d.V + i) - e);
            ref += e * e;
            for (int64_t j = 0; j < d.K; ++j) {
              const double se = loops.s(token_in.slot[row], hv, i, j);
              if (!(std::abs(plain.at(token_in.slot[row], hv)(i, j) - se) <= 1e-12 * (1 + std::abs(se))))
                RC_FAIL(fmt::format("token {} state differs at row {} hv {} ({}, {}) | {}", token, row, hv, i, j, to_string(c)));
            }
          }
          if (!(std::sqrt(diff) <= 1e-12 * std::sqrt(ref) + 1e-300))
            RC_FAIL(fmt::format("token {} out differs at row {} hv {} | {}", token, row, hv, to_string(c)));
        }
      }
    }
  });
}

TEST(ReferenceProperties, LEqualsOneIsOnePlainDecodeStep) {
  double worst_out = 0, worst_state = 0;  // error / one-rounding bound
  check_property("L = 1: a ReplaySSM step == one plain decode step", case_count("KDA_REFERENCE_CASES_L1", 300), [&] {
    engine::SampleLimits limits = engine::limits::reference_suites(1);
    limits.ring_length = {1, 1};
    const CaseConfig c = *gen_case(limits);
    CaseTensors t = materialize_replayssm_case(c);
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
    const CaseConfig c = *gen_case(engine::limits::reference_suites(32, 1e7));
    CaseTensors t = materialize_replayssm_case(c);
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

// io::gather reads every float16 bit pattern (NaNs, infinities, subnormals, -0) as the float
// Eigen's conversion gives, bit for bit, into float and into double, with unit and other
// column strides.
TEST(ReferenceTensorIo, GathersEveryFloat16AsEigenConvertsIt) {
  constexpr int64_t n = 65536;
  HostTensor t(ScalarType::Float16, {1, n});
  for (int64_t bits = 0; bits < n; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    std::memcpy(t.storage().data() + 2 * bits, &h, 2);
  }
  const auto expected = [](int64_t bits) {
    return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>(bits)));
  };
  Matrix<float> f;
  Matrix<double> d, strided;
  io::gather(t.dl(), {0, 1, n, n, 1}, f);
  io::gather(t.dl(), {0, 1, n, n, 1}, d);
  io::gather(t.dl(), {1, 1, n, n / 2, 2}, strided);  // the odd bit patterns
  int64_t mismatches = 0;
  for (int64_t bits = 0; bits < n; ++bits) {
    const float e = expected(bits);
    const double e_d = e;
    mismatches += std::memcmp(&f(0, bits), &e, sizeof e) != 0;
    mismatches += std::memcmp(&d(0, bits), &e_d, sizeof e_d) != 0;
    if (bits % 2 == 1) mismatches += std::memcmp(&strided(0, bits / 2), &e_d, sizeof e_d) != 0;
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace kda::testing
