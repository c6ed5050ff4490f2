// Issue 3, property 3 (footprint) and the runtime-value errors. Against a copy of every
// tensor's storage taken before the step (every byte, envelope gaps included):
// - a padding row writes zeros to its out row and nothing else;
// - an append writes exactly the ring records at the cursor (d and g per value head, k once
//   per query head) and never the checkpoint; a flush writes exactly the checkpoint and never
//   the rings; inputs, indices and unnamed slots are never written.
// The ring records at an appending row's cursor are set to NaN before the step, so the test
// also sees that they ARE written. A step with a bad slot index, cursor or duplicate slot (or
// a metadata error) throws its catalog error and changes no byte.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "contract/contract_error.hpp"
#include "operators/kda_replayssm/reference_step.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "property_tests/rc_chooser.hpp"
#include "property_tests/reference_property.hpp"

namespace kda::testing {
namespace {

using reference::Rounding;

std::vector<HostTensor*> all_tensors(CaseTensors& t) {
  std::vector<HostTensor*> v{&t.mixed_qkv, &t.a, &t.b, &t.A_log, &t.dt_bias, &t.initial_state, &t.d_cache,
                             &t.k_cache, &t.g_cache, &t.out, &t.ssm_state_indices, &t.write_pos};
  if (t.force_flush) v.push_back(&*t.force_flush);
  return v;
}
const char* const kNames[] = {"mixed_qkv", "a", "b", "A_log", "dt_bias", "initial_state", "d_cache",
                              "k_cache", "g_cache", "out", "ssm_state_indices", "write_pos", "force_flush"};

// Which bytes of a tensor's storage a step may change.
struct Allowed {
  HostTensor* tensor;
  std::vector<bool> bytes;
  explicit Allowed(HostTensor& t) : tensor(&t), bytes(t.storage().size(), false) {}
  // Allows every element [i0, i1, i2, :] of a 4-D tensor (i2 < 0: every i2 too).
  void allow(int64_t i0, int64_t i1, int64_t i2) {
    const auto& sh = tensor->shape();
    const auto& st = tensor->strides();
    const auto size = static_cast<int64_t>(size_of(tensor->type()));
    for (int64_t j = i2 < 0 ? 0 : i2; j < (i2 < 0 ? sh[2] : i2 + 1); ++j)
      for (int64_t e = 0; e < sh[3]; ++e) {
        const int64_t off = (i0 * st[0] + i1 * st[1] + j * st[2] + e * st[3]) * size;
        for (int64_t b = 0; b < size; ++b) bytes[off + b] = true;
      }
  }
};

struct RowPlan {
  int64_t slot, cursor;
  bool flush;
};

std::vector<RowPlan> plans_of(CaseTensors& t) {
  std::vector<RowPlan> p;
  for (int64_t row = 0; row < t.config.B; ++row) {
    const auto slot = static_cast<int64_t>(t.ssm_state_indices.get_linear(row));
    const auto cursor = static_cast<int64_t>(t.write_pos.get_linear(row));
    const bool forced = t.force_flush && t.force_flush->get_linear(row) != 0;
    p.push_back({slot, cursor, slot >= 0 && (cursor == t.config.L - 1 || forced)});
  }
  return p;
}

bool is_nan_at(const HostTensor& t, std::vector<int64_t> idx) { return std::isnan(t.get(idx)); }

TEST(ReferenceFootprint, StepWritesExactlyItsFootprint) {
  check_property("footprint of a step", case_count("KDA_REFERENCE_CASES_FOOTPRINT", 300), [] {
    const CaseConfig c = *gen_case(engine::limits::reference_suites(8, 4e6));
    const Rounding rounding = *rc::gen::element(Rounding::Kernel, Rounding::Off);
    CaseTensors t = materialize_replayssm_case(c);
    const int64_t group = c.HV / c.H;
    for (int64_t token = 0; token < c.steps; ++token) {
      if (token > 0) fill_token(t, token);
      const auto plans = plans_of(t);
      for (const RowPlan& p : plans) {  // the records this step must write start as NaN
        if (p.slot < 0 || p.flush) continue;
        for (int64_t hv = 0; hv < c.HV; ++hv)
          for (int64_t e = 0; e < c.V; ++e) t.d_cache.set({p.slot, hv, p.cursor, e}, NAN);
        for (int64_t hv = 0; hv < c.HV; ++hv)
          for (int64_t e = 0; e < c.K; ++e) t.g_cache.set({p.slot, hv, p.cursor, e}, NAN);
        for (int64_t h = 0; h < c.H; ++h)
          for (int64_t e = 0; e < c.K; ++e) t.k_cache.set({p.slot, h, p.cursor, e}, NAN);
      }
      auto tensors = all_tensors(t);
      std::vector<std::vector<std::byte>> before;
      for (HostTensor* x : tensors) before.push_back(x->storage());
      std::vector<Allowed> allowed;
      for (HostTensor* x : tensors) allowed.emplace_back(*x);
      Allowed &state = allowed[5], &d = allowed[6], &k = allowed[7], &g = allowed[8], &out = allowed[9];
      for (int64_t row = 0; row < c.B; ++row) {
        const RowPlan& p = plans[row];
        for (int64_t hv = 0; hv < c.HV; ++hv) out.allow(row, 0, hv);
        if (p.slot < 0) continue;
        for (int64_t hv = 0; hv < c.HV; ++hv) {
          if (p.flush) state.allow(p.slot, hv, -1);
          else d.allow(p.slot, hv, p.cursor), g.allow(p.slot, hv, p.cursor);
        }
        for (int64_t h = 0; h < c.H && !p.flush; ++h) k.allow(p.slot, h, p.cursor);
      }
      reference::replayssm_step(t.args(), rounding);
      for (std::size_t i = 0; i < tensors.size(); ++i)
        for (std::size_t b = 0; b < before[i].size(); ++b)
          if (before[i][b] != tensors[i]->storage()[b] && !allowed[i].bytes[b])
            RC_FAIL(fmt::format("token {}: byte {} of {} changed outside the footprint | {}", token, b, kNames[i], to_string(c)));
      for (int64_t row = 0; row < c.B; ++row) {
        const RowPlan& p = plans[row];
        if (p.slot < 0) {
          for (int64_t e = 0; e < c.HV * c.V; ++e)
            if (t.out.get_linear(row * c.HV * c.V + e) != 0 || std::signbit(t.out.get_linear(row * c.HV * c.V + e)))
              RC_FAIL(fmt::format("token {}: padding row {} out is not +0 | {}", token, row, to_string(c)));
          continue;
        }
        if (p.flush) continue;
        for (int64_t hv = 0; hv < c.HV; ++hv)
          if (is_nan_at(t.d_cache, {p.slot, hv, p.cursor, 0}) || is_nan_at(t.g_cache, {p.slot, hv, p.cursor, c.K - 1}) ||
              is_nan_at(t.k_cache, {p.slot, hv / group, p.cursor, c.K / 2}))
            RC_FAIL(fmt::format("token {}: row {} did not write its records at cursor {} | {}", token, row, p.cursor, to_string(c)));
      }
      advance_cursors(t);
    }
  });
}

TEST(ReferenceFootprint, ErrorsWriteNothing) {
  check_property("a rejected step writes nothing", case_count("KDA_REFERENCE_CASES_ERRORS", 200), [] {
    CaseConfig c = *gen_case(engine::limits::reference_suites(1, 2e6));
    c.pad_fraction = 0;  // every row names a slot
    const int kind = *rc::gen::inRange(0, 5);
    if (kind == 3 && c.B < 2) c.B = 2, c.slots = std::max<int64_t>(c.slots, 2);
    CaseTensors t = materialize_replayssm_case(c);
    const int64_t row = *rc::gen::inRange<int64_t>(0, c.B);
    std::string expected;
    switch (kind) {
      case 0: t.ssm_state_indices.set_linear(row, static_cast<double>(c.slots + *rc::gen::inRange(0, 3)));
              expected = error_id::kSlotIndex; break;
      case 1: t.write_pos.set_linear(row, -1.0 - *rc::gen::inRange(0, 3)); expected = error_id::kWritePos; break;
      case 2: t.write_pos.set_linear(row, static_cast<double>(c.L + *rc::gen::inRange(0, 3))); expected = error_id::kWritePos; break;
      case 3: t.ssm_state_indices.set_linear((row + 1) % c.B, t.ssm_state_indices.get_linear(row));
              expected = error_id::kDuplicateSlot; break;
      default: t.g_cache = HostTensor(ScalarType::BFloat16, t.g_cache.shape()); expected = "R8"; break;
    }
    auto tensors = all_tensors(t);
    std::vector<std::vector<std::byte>> before;
    for (HostTensor* x : tensors) before.push_back(x->storage());
    try {
      reference::replayssm_step(t.args(), *rc::gen::element(Rounding::Kernel, Rounding::Off));
      RC_FAIL("accepted a step that should fail with " + expected + " | " + to_string(c));
    } catch (const ContractError& e) {
      RC_ASSERT(e.id() == expected);
    }
    for (std::size_t i = 0; i < tensors.size(); ++i)
      if (before[i] != tensors[i]->storage()) RC_FAIL(fmt::format("{} changed by a rejected step | {}", kNames[i], to_string(c)));
  });
}

}  // namespace
}  // namespace kda::testing
