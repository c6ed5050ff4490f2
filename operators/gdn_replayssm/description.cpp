// gdn_replayssm as an operator description: SGLang's GDN ReplaySSM (one scalar gate per value
// head), its contract (contract.hpp), reference step (reference_step.hpp), valid calls and
// error inputs, over the engine's decode sample space with the gate made per head.
#include "operators/gdn_replayssm/description.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "contract/host_tensor.hpp"
#include "contract/tensor_view.hpp"
#include "operators/gdn_replayssm/contract.hpp"
#include "operators/gdn_replayssm/contract_restated.hpp"
#include "operators/gdn_replayssm/error_inputs.hpp"
#include "operators/gdn_replayssm/golden_cases.hpp"
#include "operators/gdn_replayssm/reference_step.hpp"
#include "operators/gdn_replayssm/valid_call.hpp"
#include "operators/replayssm_family/case_driver.hpp"
#include "operators/replayssm_family/sample_space.hpp"
#include "reference/profile_emulation.hpp"
#include "reference/tensor_io.hpp"

namespace kda::engine {
namespace {

// The wrapper's tensor arguments in its signature's order (force_flush and cache_base optional).
constexpr std::array<std::string_view, 14> kTensors = {
    "mixed_qkv", "a",       "b",   "A_log",             "dt_bias",   "initial_state", "d_cache",
    "k_cache",   "g_cache", "out", "ssm_state_indices", "write_pos", "force_flush",   "cache_base"};
// Its scalar arguments, lower_bound before use_qk_l2norm_in_kernel as in its signature.
constexpr std::array<std::string_view, 7> kScalars = {"scale",           "lower_bound",       "use_qk_l2norm_in_kernel",
                                                      "nk",              "circular_replay",   "prefix_gate_cache",
                                                      "predecayed_k_cache"};
// At the wrapper's nk = 2 a K tile is next_pow2(K) / 2 wide and must reach 16 (G32).
constexpr int64_t kMinK = 17;

// The call config made one of this operator's valid calls: int32 indices (G25), K past G32.
CallConfig gdn_call(CallConfig c) {
  c.index = ScalarType::Int32;
  c.K = std::max(c.K, kMinK);
  c.a_3d = c.dt_2d = false;
  return c;
}

// A head dim off the powers of two, in (d/2, d) and inside `range` (d itself where none fits):
// the wrapper tiles K by next_power_of_2(K) and masks the rest, so any K and V are valid
// here, while KDA's contract refuses them and the shared sample space draws only powers of two.
int64_t off_power_of_two(Chooser& ch, int64_t d, IntRange range) {
  const int64_t lo = std::max(d / 2 + 1, range.lo), hi = std::min(d - 1, range.hi);
  return lo <= hi ? ch.integer(lo, hi) : d;
}

// A valid call of this operator: the shared sample space's, with K and V off the powers of
// two in one call of four.
CallConfig sample_gdn_call(Chooser& ch, const SampleLimits& l) {
  CallConfig c = sample_call_config(ch, l);
  if (ch.coin(1, 3)) {
    c.K = off_power_of_two(ch, c.K, l.K);
    c.V = off_power_of_two(ch, c.V, l.V);
  }
  return gdn_call(c);
}

// The element of host tensor t at idx.
double at(const DLTensor& t, std::initializer_list<int64_t> idx) {
  const ScalarType type = *scalar_type_of(t.dtype);
  const auto* base = static_cast<const std::byte*>(t.data) + t.byte_offset;
  return load_element(base + element_offset(t, std::data(idx)) * static_cast<int64_t>(size_of(type)), type);
}

// A compact tensor of `type` and `shape` in `slot`, reusing its storage when the layout is the
// same (every element is written before it is read: nothing to clear).
HostTensor& compact(HostTensor& slot, ScalarType type, std::vector<int64_t> shape) {
  if (!slot.has_data() || slot.type() != type || slot.shape() != shape) slot = HostTensor(type, std::move(shape));
  return slot;
}

// Elements [first * K, first * K + K) of compact tensor t set to v: stored once, its bytes
// copied K - 1 times (the same rounding as K stores, at a K-th of the conversions).
void set_repeated(HostTensor& t, int64_t first, int64_t K, double v) {
  const std::size_t es = size_of(t.type());
  std::byte* p = t.storage().data() + first * K * static_cast<int64_t>(es);
  store_element(p, t.type(), v);
  for (int64_t c = 1; c < K; ++c) std::memcpy(p + c * static_cast<int64_t>(es), p, es);
}

// Rotates the ring records of `slot` in the compact ring t [slots, heads, L, width] so that
// logical record j (physical (base + j) mod L) lies at j.
void rotate_ring(HostTensor& t, int64_t slot, int64_t base) {
  const int64_t heads = t.shape()[1], L = t.shape()[2];
  const int64_t record = static_cast<int64_t>(size_of(t.type())) * (t.dl().ndim == 4 ? t.shape()[3] : 1);
  std::vector<std::byte> ring(static_cast<std::size_t>(L * record));
  for (int64_t h = 0; h < heads; ++h) {
    std::byte* p = t.storage().data() + (slot * heads + h) * L * record;
    for (int64_t j = 0; j < L; ++j) std::memcpy(ring.data() + j * record, p + ((base + j) % L) * record, record);
    std::memcpy(p, ring.data(), ring.size());
  }
}

// A compact copy of the contiguous tensor t in `slot`.
HostTensor& copy_of(HostTensor& slot, const DLTensor& t) {
  HostTensor& c = compact(slot, *scalar_type_of(t.dtype), std::vector<int64_t>(t.shape, t.shape + t.ndim));
  std::memcpy(c.storage().data(), static_cast<const std::byte*>(t.data) + t.byte_offset, c.storage().size());
  return c;
}

// The gate of each head repeated over the K channels, in a's and dt_bias's dtype (exact), and
// each ring record's gate likewise: kda_replayssm's call with the same function (the key
// property of gdn-replayssm.md). Runs once per judged step: each source element is read once,
// and a ring record is repeated again only when its gate's bytes changed since the view was
// last made in this `storage` (storage[3] keeps them): a step appends a few records of a pool
// of slots * HV * L. The callers read the view, never write it.
// A circular ring (circular_replay) is viewed in logical order: each live row's slot rotated
// so that its window starts at record 0 (cache_base null in the view; circular_replay stays
// set, so a reader still knows a natural flush for a history checkpoint).
StepArgs as_kda(const StepArgs& g, const Dims& d, std::vector<HostTensor>& storage) {
  storage.resize(6);
  HostTensor& a = compact(storage[0], *scalar_type_of(g.a->dtype), {d.B, d.HV * d.K});
  HostTensor& dt = compact(storage[1], *scalar_type_of(g.dt_bias->dtype), {d.HV * d.K});
  const std::vector<int64_t> records = {d.slots, d.HV, d.L};
  const ScalarType ring = *scalar_type_of(g.g_cache->dtype);
  const bool circular = g.circular_replay && g.cache_base != nullptr;
  const bool made = !circular && storage[2].has_data() && storage[2].shape() == std::vector<int64_t>{d.slots, d.HV, d.L, d.K} &&
                    storage[3].has_data() && storage[3].type() == ring && storage[3].shape() == records;
  HostTensor& gc = compact(storage[2], ScalarType::Float32, {d.slots, d.HV, d.L, d.K});
  HostTensor& seen = compact(storage[3], ring, records);  // each record's gate as last repeated
  const std::size_t es = size_of(ring);
  const auto* source = static_cast<const std::byte*>(g.g_cache->data) + g.g_cache->byte_offset;
  for (int64_t hv = 0; hv < d.HV; ++hv) {
    set_repeated(dt, hv, d.K, at(*g.dt_bias, {hv}));
    for (int64_t row = 0; row < d.B; ++row) set_repeated(a, row * d.HV + hv, d.K, at(*g.a, {row, hv}));
    for (int64_t s = 0; s < d.slots; ++s)
      for (int64_t j = 0; j < d.L; ++j) {
        const int64_t record = (s * d.HV + hv) * d.L + j, index[3] = {s, hv, j};
        const std::byte* gate = source + element_offset(*g.g_cache, index) * static_cast<int64_t>(es);
        std::byte* last = seen.storage().data() + record * static_cast<int64_t>(es);
        if (made && std::memcmp(gate, last, es) == 0) continue;
        std::memcpy(last, gate, es);
        set_repeated(gc, record, d.K, load_element(gate, ring));
      }
  }
  StepArgs k = g;
  k.a = &a.dl();
  k.dt_bias = &dt.dl();
  k.g_cache = &gc.dl();
  if (!circular) return k;
  HostTensor& dc = copy_of(storage[4], *g.d_cache);
  HostTensor& kc = copy_of(storage[5], *g.k_cache);
  std::vector<bool> rotated(static_cast<std::size_t>(d.slots), false);
  for (int64_t row = 0; row < d.B; ++row) {
    const int64_t slot = index_value(*g.ssm_state_indices, row), base = index_value(*g.cache_base, row);
    if (slot < 0 || slot >= d.slots || base <= 0 || base >= d.L) continue;  // padding, invalid, or in order already
    if (rotated[static_cast<std::size_t>(slot)]) continue;  // a second row on the slot: rejected, not read
    rotated[static_cast<std::size_t>(slot)] = true;
    for (HostTensor* ring : {&dc, &kc, &gc}) rotate_ring(*ring, slot, base);
  }
  k.d_cache = &dc.dl();
  k.k_cache = &kc.dl();
  k.cache_base = nullptr;
  return k;
}

// The reference step as a backend: the contract and the runtime values first (refused calls
// write nothing), as every operator's reference step; gdn_replayssm_step itself indexes the
// tensors by the call's slots and cursors unchecked.
Dims checked_step(const StepArgs& args, reference::Rounding rounding) {
  check_runtime_values(args, validate_gdn_replayssm(args, kda::Backend::Cpu));
  return gdn::gdn_replayssm_step(args, rounding);
}

// The step under a rounding profile's emulation: kda_replayssm's emulated step on the KDA
// view of the call (the same function, gdn-replayssm.md's key property), validated as
// gdn_replayssm first; each appended record's gate (equal in every column of the view) is
// written back as the record's one scalar gate.
Dims emulated_step(reference::ProfileEmulation& emulation, const StepArgs& args) {
  const Dims d = validate_gdn_replayssm(args, kda::Backend::Cpu);
  check_runtime_values(args, d);
  std::vector<HostTensor> storage;
  const StepArgs view = as_kda(args, d, storage);
  emulation.replayssm_step(view);
  const auto slots = reference::io::read_indices(*args.ssm_state_indices);
  const auto cursors = reference::io::read_indices(*args.write_pos);
  const auto force =
      args.force_flush ? reference::io::read_indices(*args.force_flush) : std::vector<int64_t>(d.B, 0);
  auto* base = static_cast<std::byte*>(args.g_cache->data) + args.g_cache->byte_offset;
  const ScalarType type = *scalar_type_of(args.g_cache->dtype);
  for (int64_t row = 0; row < d.B; ++row) {
    const int64_t slot = slots[row], j = cursors[row];
    if (slot < 0 || j == d.L - 1 || force[row] != 0) continue;  // padding, or a flush: no record
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      const int64_t at_record[3] = {slot, hv, j};
      store_element(base + element_offset(*args.g_cache, at_record) * static_cast<int64_t>(size_of(type)), type,
                    at(*view.g_cache, {slot, hv, j, 0}));
    }
  }
  return d;
}

}  // namespace

const OperatorDescription& gdn_replayssm_operator() {
  // The catalog ids its contract and runtime checks raise (OperatorDescription::raises).
  static constexpr std::string_view kRaises[] = {
      "V2", "V8", "V20", "V22", "R4", "G1", "G3", "G4", "G5", "G7", "G8", "G9", "G10", "G12", "G14", "G15",
      "G17", "G18", "G19", "G20", "G21", "G22", "G23", "G24", "G25", "G26", "G27", "G28", "G29", "G30", "G31",
      "G32", "X-DTYPE-FLOAT", "X-STRIDES", "X-EXTENTS", "X-BACKEND-CPU", "X-BACKEND-CUDA", "X-GDN-RING-RANK",
      "X-GDN-EMPTY-HEADS", "X-GDN-NK", "X-GDN-GATE-STRIDES", "X-GDN-DEVICE", "X-SLOT-INDEX", "X-WRITE-POS",
      "X-CACHE-BASE", "X-DUP-SLOT"};
  // The truth reads a call with its scalar gates repeated over the key channels.
  static const ReplaySSMDriver driver = replayssm_case_driver(&as_kda);
  static const OperatorDescription op{
      .name = "gdn_replayssm",
      .summary = "SGLang's GDN ReplaySSM decode step (Qwen3-Next): ReplaySSM with one scalar gate per value head",
      .tensors = kTensors,
      .scalars = kScalars,
      .bind = [](StepArgs a) { return a; },
      .validate = [](const StepArgs& a, kda::Backend b) { return validate_gdn_replayssm(a, b); },
      .reference_step = &checked_step,
      .emulated_step = &emulated_step,
      .error_inputs = &gdn_replayssm_error_inputs,
      .raises = kRaises,
      .sample_case = &sample_case,
      .sample_call = &sample_gdn_call,
      .valid_spec = [](const CallConfig& c) { return gdn_valid_spec(gdn_call(c)); },
      .dims_of = [](const CallConfig& c) { return gdn_call(c).dims(); },
      .fit_case = [](CaseConfig c) {
        c.gate_per_head = true;
        c.a_3d = c.dt_bias_2d = false;
        c.predecayed_keys = false;  // the KDA path's variant (P1)
        c.index_dtype = ScalarType::Int32;
        c.K = std::max(c.K, int64_t{32});  // the smallest power of two past G32
        return c;
      },
      .ok_line = [](const Dims& d) {
        return fmt::format("ok B={} H={} HV={} K={} V={} L={} slots={}", d.B, d.H, d.HV, d.K, d.V, d.L, d.slots);
      },
      .golden_cases = &gdn_replayssm_golden_cases,
      .restated_contract = &restated::gdn_replayssm,
      .case_driver = &driver,
      // prefix_gate_cache is accepted and ignored (raw gates either way): no variant of GDN.
      .ring_variants = KDA_RING_LINEAR | KDA_RING_CIRCULAR};
  return op;
}

}  // namespace kda::engine
