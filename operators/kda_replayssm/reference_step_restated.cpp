#include "operators/kda_replayssm/reference_step_restated.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include "cases/rng.hpp"
#include "contract/contract_error.hpp"
#include "contract/error_catalog.hpp"
#include "contract/host_tensor.hpp"
#include "engine/description/raw_metadata.hpp"
#include "engine/description/row_plan.hpp"
#include "operators/kda_replayssm/reference_step.hpp"

namespace kda::restated {
namespace {

constexpr raw::Wide kMaxElements = 1 << 16;   // storage elements over all tensors
constexpr raw::Wide kMaxWork = 1 << 18;       // B * HV * V * K * L

enum Arg { kQkv, kA, kB, kALog, kDt, kState, kD, kK, kG, kOut, kIdx, kWp, kFf, kArgCount };

struct Call {
  std::array<HostTensor, kArgCount> t;
  bool has_ff = false;
  StepArgs args(const StepArgs& m) {
    StepArgs s = m;  // scalars as fuzzed
    s.mixed_qkv = &t[kQkv].dl(), s.a = &t[kA].dl(), s.b = &t[kB].dl(), s.A_log = &t[kALog].dl();
    s.dt_bias = &t[kDt].dl(), s.initial_state = &t[kState].dl(), s.d_cache = &t[kD].dl();
    s.k_cache = &t[kK].dl(), s.g_cache = &t[kG].dl(), s.out = &t[kOut].dl();
    s.ssm_state_indices = &t[kIdx].dl(), s.write_pos = &t[kWp].dl();
    s.force_flush = has_ff ? &t[kFf].dl() : nullptr;
    return s;
  }
};

// Storage elements a tensor's strides reach (strides are non-negative: validate accepted it).
raw::Wide envelope(const DLTensor& t) {
  if (raw::numel(t) == 0) return 1;
  raw::Wide hi = 0;
  for (int64_t d = 0; d < t.ndim; ++d) hi += raw::wmul(t.shape[d] - 1, raw::stride(t, d));
  return hi + 1;
}

HostTensor materialize_like(const DLTensor& m) {
  std::vector<int64_t> strides;
  if (m.strides) strides.assign(m.strides, m.strides + m.ndim);
  return HostTensor(*scalar_type_of(m.dtype), {m.shape, m.shape + m.ndim}, std::move(strides));
}

int64_t element_offset(const DLTensor& t, std::initializer_list<int64_t> index) {
  int64_t off = 0, d = 0;
  for (int64_t i : index) off += i * static_cast<int64_t>(raw::stride(t, d++));
  return off;
}

// Integer elements by raw bytes (a double round trip would lose int64 values past 2^53).
void write_int(HostTensor& t, int64_t i, int64_t v) {
  std::byte* p = t.storage().data() + element_offset(t.dl(), {i}) * (t.dl().dtype.bits / 8);
  if (t.dl().dtype.bits == 64) std::memcpy(p, &v, 8);
  else { const int32_t w = static_cast<int32_t>(v); std::memcpy(p, &w, 4); }
}
int64_t read_int(const HostTensor& t, int64_t i) {
  const std::byte* p = t.storage().data() + element_offset(t.dl(), {i}) * (t.dl().dtype.bits / 8);
  if (t.dl().dtype.bits == 64) { int64_t v; std::memcpy(&v, p, 8); return v; }
  int32_t v; std::memcpy(&v, p, 4); return v;
}

void fill_floats(Call& c, engine::Chooser& p) {
  const rng::Counter r(p.bits(), rng::Stream::Qkv);
  constexpr std::array<double, 5> magnitudes = {1.0, 1e-3, 10.0, 1e4, 0.0};
  const double mag = magnitudes[p.integer(0, static_cast<int64_t>(magnitudes.size()) - 1)];
  for (int a = kQkv; a <= kOut; ++a) {
    HostTensor& t = c.t[a];
    for (int64_t i = 0; i < t.numel(); ++i) t.set_linear(i, mag * r.normal((static_cast<uint64_t>(a) << 40) + i));
  }
  if (p.coin()) {  // one NaN or inf somewhere in the inputs or the state
    HostTensor& t = c.t[p.integer(kQkv, kG)];
    if (t.numel() > 0)
      t.set_linear(p.integer(0, t.numel() - 1),
                   p.coin() ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity());
  }
}

void fill_indices(Call& c, const Dims& d, engine::Chooser& p) {
  const bool idx64 = c.t[kIdx].dl().dtype.bits == 64;
  for (int64_t row = 0; row < d.B; ++row) {
    int64_t slot = row < d.slots ? row : -1, pos = d.L > 1 ? row % d.L : 0;
    switch (p.integer(0, 7)) {
      case 0: break;
      case 1: slot = -1 - p.integer(0, 2); break;  // padding
      case 2: slot = d.slots + p.integer(0, 2); break;  // past the pool
      case 3: slot = p.integer(0, d.slots > 0 ? d.slots - 1 : 0); break;  // maybe a duplicate
      case 4: slot = idx64 ? static_cast<int64_t>(p.bits()) : static_cast<int32_t>(p.bits()); break;
      case 5: pos = p.coin() ? -1 : d.L; break;  // just outside the ring
      case 6: pos = static_cast<int32_t>(p.bits()); break;
      default: pos = p.integer(0, d.L - 1); break;
    }
    write_int(c.t[kIdx], row, slot);
    write_int(c.t[kWp], row, pos);
    if (c.has_ff) write_int(c.t[kFf], row, p.coin() ? static_cast<int32_t>(p.bits()) : 0);
  }
}

// The runtime-value error the rows call for, in row order (contract.md, "Harness extensions").
std::optional<std::string> expected_runtime_error(const Call& c, const Dims& d) {
  std::set<int64_t> seen;
  for (int64_t row = 0; row < d.B; ++row) {
    const int64_t slot = read_int(c.t[kIdx], row), pos = read_int(c.t[kWp], row);
    if (slot < 0) continue;
    if (slot >= d.slots) return "X-SLOT-INDEX";
    if (pos < 0 || pos > d.L - 1) return "X-WRITE-POS";
    if (!seen.insert(slot).second) return "X-DUP-SLOT";
  }
  return std::nullopt;
}

// Marks the storage elements of t[i0, i1, i2, :] (i2 < 0: t[i0, i1, :, :]) as writable.
void allow(std::vector<bool>& ok, const DLTensor& t, int64_t i0, int64_t i1, int64_t i2) {
  for (int64_t j = i2 < 0 ? 0 : i2; j < (i2 < 0 ? t.shape[2] : i2 + 1); ++j)
    for (int64_t e = 0; e < t.shape[3]; ++e) ok[element_offset(t, {i0, i1, j, e})] = true;
}

std::string footprint(const Call& before, const Call& after, const Dims& d) {
  std::array<std::vector<bool>, kArgCount> ok;
  for (int a : {kState, kD, kK, kG})
    ok[a].assign(after.t[a].storage().size() / (after.t[a].dl().dtype.bits / 8) + 1, false);
  const int64_t group = d.HV / d.H;
  for (int64_t row = 0; row < d.B; ++row) {
    const int64_t slot = read_int(after.t[kIdx], row), cur = read_int(after.t[kWp], row);
    if (slot < 0) continue;
    const bool flush = cur == d.L - 1 || (after.has_ff && read_int(after.t[kFf], row) != 0);
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      if (flush) { allow(ok[kState], after.t[kState].dl(), slot, hv, -1); continue; }
      allow(ok[kD], after.t[kD].dl(), slot, hv, cur);
      allow(ok[kG], after.t[kG].dl(), slot, hv, cur);
      allow(ok[kK], after.t[kK].dl(), slot, hv / group, cur);
    }
  }
  const char* names[] = {"initial_state", "d_cache", "k_cache", "g_cache"};
  for (int a : {kState, kD, kK, kG}) {
    const auto &x = before.t[a].storage(), &y = after.t[a].storage();
    const std::size_t size = after.t[a].dl().dtype.bits / 8;
    for (std::size_t i = 0; i < y.size(); ++i)
      if (x[i] != y[i] && !ok[a][i / size])
        return fmt::format("byte {} of {} (element {}) changed outside the step's footprint", i, names[a - kState],
                           i / size);
  }
  for (int64_t row = 0; row < d.B; ++row)
    if (read_int(after.t[kIdx], row) < 0)
      for (int64_t e = 0; e < d.HV * d.V; ++e)
        if (after.t[kOut].get_linear(row * d.HV * d.V + e) != 0.0)
          return fmt::format("padding row {} has a non-zero output element {}", row, e);
  return "";
}

}  // namespace

std::string kda_replayssm_reference_step(const StepArgs& m, const Dims& d, engine::Chooser& p) {
  const DLTensor* meta[kArgCount] = {m.mixed_qkv, m.a, m.b, m.A_log, m.dt_bias, m.initial_state, m.d_cache,
                                     m.k_cache, m.g_cache, m.out, m.ssm_state_indices, m.write_pos, m.force_flush};
  raw::Wide elements = 0;
  for (const DLTensor* t : meta) {
    if (!t) continue;
    if (t->device.device_type != kDLCPU) return "";
    elements += envelope(*t);
    if (elements > kMaxElements) return "";
  }
  if (raw::wmul(raw::wmul(raw::wmul(d.B, d.HV), raw::wmul(d.V, d.K)), d.L) > kMaxWork) return "";

  Call c;
  c.has_ff = m.force_flush != nullptr;
  for (int a = 0; a < kArgCount; ++a)
    if (meta[a]) c.t[a] = materialize_like(*meta[a]);
  fill_floats(c, p);
  fill_indices(c, d, p);
  const auto rounding = p.coin() ? reference::Rounding::Off : reference::Rounding::Kernel;
  const std::optional<std::string> expected = expected_runtime_error(c, d);
  const Call before = c;
  const StepArgs args = c.args(m);
  const engine::WrittenBytes before_bytes = engine::snapshot_written(args);
  try {
    const Dims got = reference::replayssm_step(args, rounding);
    if (expected) return fmt::format("replayssm_step accepted runtime values that call for {}", *expected);
    if (!(got == d)) return "replayssm_step returned other Dims than validate()";
    return footprint(before, c, d);
  } catch (const ContractError& e) {
    if (!expected) return fmt::format("replayssm_step rejected valid runtime values with {}: {}", e.id(), e.what());
    if (e.id() != *expected) return fmt::format("replayssm_step raised {} where the rows call for {}", e.id(), *expected);
    const auto* entry = find_catalog_entry(e.id());
    if (!entry || std::string(e.what()) != entry->message ||
        catalog_ids_matching(e.what()) != std::vector<std::string>{e.id()})
      return fmt::format("{}: message is not the catalog's: {}", e.id(), e.what());
    if (const std::string changed = engine::any_change(before_bytes, args); !changed.empty())
      return fmt::format("replayssm_step raised {} but changed {}", e.id(), changed);
    return "";
  }
}

}  // namespace kda::restated
