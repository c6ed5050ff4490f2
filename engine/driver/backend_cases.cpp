#include "engine/driver/backend_cases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "engine/description/counter_chooser.hpp"
#include "engine/description/operator_words.hpp"

namespace kda::engine {
namespace {

// Streams of their own: a case's sizes and layout, and each block's shuffles of the flags.
constexpr auto kBackendCases = static_cast<rng::Stream>(0xBAC5);
constexpr auto kFlagStrata = static_cast<rng::Stream>(0x57A7);

constexpr int64_t kProductionHeadDim = 128;  // Kimi-Linear's K and V
// A region that pins K and V at this or more is a production one (draws_production_batches).
constexpr int64_t kSmallestProductionDim = 64;
// The layouts of one GPU's share of the heads: KDA's H = HV at a few tensor-parallel
// degrees, and a grouped layout (GDN's, 8 value heads per key head).
struct Layout {
  int64_t H, HV;
};
constexpr Layout kEqualLayouts[] = {{4, 4}, {8, 8}, {16, 16}};
constexpr Layout kGroupedLayout = {2, 16};
// The sample space's lower bounds of the gate (the same as the operators' sample_case draws).
constexpr double kLowerBounds[] = {-0.5, -1.0, -2.0, -5.0, -10.0};

// "on" positions per block of kStratumSize: force_flush keeps the sample space's 3 : 1 odds.
constexpr int64_t kForceFlushOn = 15, kLowerBoundOn = 10, kL2NormOn = 10;

bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

std::vector<int64_t> powers_of_two_in(int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  for (int64_t p = 1; p <= hi && p > 0; p *= 2)
    if (p >= lo) out.push_back(p);
  return out;
}

// The head dims a case may take: the powers of two in the region's range and the suite's;
// where those do not meet (a region above the suite's sizes), the region's smallest.
std::vector<int64_t> head_dims(IntRange suite, int64_t region_min, int64_t region_max, const char* name) {
  std::vector<int64_t> dims = powers_of_two_in(std::max(suite.lo, region_min), std::min(suite.hi, region_max));
  if (dims.empty()) {
    const std::vector<int64_t> region = powers_of_two_in(region_min, std::min<int64_t>(region_max, int64_t{1} << 20));
    if (!region.empty()) dims.push_back(region.front());
  }
  if (dims.empty())
    throw std::invalid_argument(fmt::format("no case fits: no power of two {} in {}..{}", name, region_min, region_max));
  return dims;
}

// The production head dim: 128, else the nearest the region allows (the largest below, or
// the smallest above).
int64_t production_dim(const std::vector<int64_t>& dims) {
  int64_t best = dims.front();
  for (int64_t d : dims)
    if (d <= kProductionHeadDim) best = d;
  return best;
}

std::vector<ScalarType> allowed(uint32_t set, const std::vector<ScalarType>& suite) {
  std::vector<ScalarType> out;
  for (ScalarType t : suite)
    if ((set & dtype_bit(t)) != 0) out.push_back(t);
  return out;
}

ScalarType pick(Chooser& c, const std::vector<ScalarType>& options, const char* what) {
  if (options.empty()) throw std::invalid_argument(fmt::format("no case fits: the region allows no {} dtype", what));
  return choose(c, std::span<const ScalarType>(options));
}

// One of `preferred` that `options` holds, else any of `options`.
ScalarType pick_preferring(Chooser& c, const std::vector<ScalarType>& options, std::initializer_list<ScalarType> preferred,
                           const char* what) {
  std::vector<ScalarType> kept;
  for (ScalarType t : options)
    if (std::find(preferred.begin(), preferred.end(), t) != preferred.end()) kept.push_back(t);
  return pick(c, kept.empty() ? options : kept, what);
}

// Whether position `index % kStratumSize` is among the `on` first of its block's shuffle.
bool stratum_on(uint64_t seed, uint64_t index, uint64_t flag, int64_t on) {
  CounterChooser c(seed, kFlagStrata, (index / kStratumSize) * 8 + flag);
  std::array<int64_t, kStratumSize> order{};
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = kStratumSize - 1; i > 0; --i) std::swap(order[i], order[c.integer(0, i)]);
  const int64_t position = static_cast<int64_t>(index % kStratumSize);
  return std::find(order.begin(), order.end(), position) - order.begin() < on;
}

// A production case under `budget`: B, then the ring and the tokens, then the heads (halved
// together while H > 1, so a grouped layout keeps its ratio) shrink; K and V never.
void fit_production(CaseConfig& c, double budget) {
  while (rollout_work(c) > budget) {
    if (c.B > 1) {
      c.slots -= c.B - c.B / 2;
      c.B /= 2;
    } else if (c.steps > 2) {
      c.steps /= 2;
    } else if (c.L > 4) {
      c.L /= 2;
    } else if (c.H > 1) {
      c.H /= 2, c.HV /= 2;
    } else if (c.HV > 1) {
      c.HV /= 2;
    } else if (c.steps > 1) {
      c.steps = 1;
    } else if (c.L > 1) {
      c.L /= 2;
    } else {
      break;
    }
  }
}

}  // namespace

bool is_production_index(uint64_t index) { return index % kProductionEvery == 0; }
bool is_precise_index(uint64_t index) { return index % kProductionEvery == 1; }
bool is_padded_ends_index(uint64_t index) { return index % kPaddedEndsEvery == kPaddedEndsEvery - 1; }

bool draws_production_batches(const Envelope& region, const ProductionShape* model) {
  return model != nullptr || (region.k_min == region.k_max && region.v_min == region.v_max &&
                              region.k_min >= kSmallestProductionDim && region.v_min >= kSmallestProductionDim);
}

CaseConfig draw_backend_case(const OperatorDescription& op, uint64_t seed, uint64_t index, const SampleLimits& limits,
                             const Envelope& region, const ProductionShape* model) {
  CounterChooser ch(seed, kBackendCases, index);
  const bool batches = draws_production_batches(region, model);
  if (model != nullptr && (model->K < region.k_min || model->K > region.k_max || model->V < region.v_min ||
                           model->V > region.v_max))
    throw std::invalid_argument(fmt::format("no case fits: {} has K={} and V={}, outside K {}..{} V {}..{}", model->model,
                                            model->K, model->V, region.k_min, region.k_max, region.v_min, region.v_max));
  const std::vector<int64_t> ks = model != nullptr ? std::vector<int64_t>{model->K}
                                                   : head_dims(limits.K, region.k_min, region.k_max, "K"),
                             vs = model != nullptr ? std::vector<int64_t>{model->V}
                                                   : head_dims(limits.V, region.v_min, region.v_max, "V");
  const bool production = is_production_index(index) && !batches;
  const int64_t K = production || batches ? production_dim(ks) : choose(ch, std::span<const int64_t>(ks));
  const int64_t V = production || batches ? production_dim(vs) : choose(ch, std::span<const int64_t>(vs));

  SampleLimits l = limits;
  l.K = {K, K};  // pinned: the work budget is met with the other sizes
  l.V = {V, V};
  if (region.l_max > 0) l.ring_length.hi = std::min(l.ring_length.hi, region.l_max);
  l.strided = limits.strided && region.strided;
  CaseConfig c = op.sample_case(ch, l);
  const std::vector<ScalarType> act = allowed(region.act_dtypes, limits.float_dtypes),
                                state = allowed(region.state_dtypes, limits.float_dtypes),
                                ring = allowed(region.ring_dtypes, limits.float_dtypes),
                                out = allowed(region.out_dtypes, limits.float_dtypes);
  if (is_precise_index(index)) {
    c.act_dtype = pick_preferring(ch, act, {ScalarType::BFloat16, ScalarType::Float16}, "activation");
    c.state_dtype = pick_preferring(ch, state, {ScalarType::Float32}, "state");
    c.ring_dtype = pick_preferring(ch, ring, {ScalarType::Float32}, "ring");
    c.out_dtype = pick_preferring(ch, out, {ScalarType::Float32}, "out");
  } else {
    c.act_dtype = pick(ch, act, "activation");
    c.state_dtype = pick(ch, state, "state");
    c.ring_dtype = pick(ch, ring, "ring");
    c.out_dtype = pick(ch, out, "out");
  }
  c.index_dtype = pick(ch, allowed(region.index_dtypes, limits.index_dtypes), "index");

  c.force_flush = stratum_on(seed, index, 0, kForceFlushOn);
  c.l2norm = stratum_on(seed, index, 1, kL2NormOn);
  if (!stratum_on(seed, index, 2, kLowerBoundOn)) c.lower_bound.reset();
  else if (!c.lower_bound) c.lower_bound = choose(ch, std::span<const double>(kLowerBounds));

  if (production) {
    const bool grouped = (index / kProductionEvery) % 2 == 1;
    const Layout layout = grouped ? kGroupedLayout : choose(ch, std::span<const Layout>(kEqualLayouts));
    c.H = layout.H, c.HV = layout.HV;
    fit_production(c, std::max(limits.work_budget, kProductionWork));
  }
  if (batches) draw_production_batch(ch, index, model, region.l_max, c);
  if (c.B == 1) c.pad_fraction = 0;  // a case that computes nothing can find nothing
  if (is_padded_ends_index(index) && c.B == 2) {
    // One live row between the two padded ones, paid for with fewer tokens where the budget asks.
    CaseConfig wider = c;
    wider.B = 3, wider.slots = std::max<int64_t>(c.slots + 1, 3);
    const double budget = std::max(limits.work_budget, production ? kProductionWork : 0.0);
    while (!batches && rollout_work(wider) > budget && wider.steps > 1) wider.steps = (wider.steps + 1) / 2;
    if (batches || rollout_work(wider) <= budget) c = wider;
  }
  if (is_padded_ends_index(index) && c.B >= 3) c.pad_ends = true;
  // The ring variants the region serves (an operator without them fits them away later).
  if ((region.ring_modes & KDA_RING_CIRCULAR) == 0) c.circular = false;
  if ((region.ring_modes & KDA_RING_LINEAR) == 0) c.circular = true;
  if ((region.ring_modes & KDA_RING_PREFIX_GATES) == 0) c.prefix_gates = false;
  if ((region.ring_modes & KDA_RING_PREDECAYED_KEYS) == 0) c.predecayed_keys = false;
  if (!is_valid_config(c) || (!is_pow2(c.K) && model == nullptr) || !region.excludes(c).empty())
    throw std::logic_error("draw_backend_case drew a case outside its region: " + to_string(c) + " (" +
                           region.excludes(c) + ")");
  return c;
}

namespace {
// B in the stats: a bucket of the decode batches a server runs.
std::string batch_bucket(int64_t B) {
  for (const auto& [lo, hi] : {std::pair<int64_t, int64_t>{1, 1}, {2, 8}, {9, 32}, {33, 63}, {64, 127}, {128, 256}})
    if (B >= lo && B <= hi) return lo == hi ? std::to_string(lo) : fmt::format("{}..{}", lo, hi);
  return "257+";
}
}  // namespace

void CaseStats::add(const CaseConfig& c) {
  ++cases;
  auto& n = counts;
  ++n["K"][std::to_string(c.K)];
  ++n["V"][std::to_string(c.V)];
  ++n["H/HV"][fmt::format("{}/{}", c.H, c.HV)];
  ++n["B"][batch_bucket(c.B)];
  ++n["slots-B"][c.slots - c.B == 0 ? "0" : c.slots - c.B <= 8 ? "1..8" : "9+"];
  ++n["L"][c.L == 1 ? "1" : c.L <= 16 ? "2..16" : "17..64"];
  ++n["steps"][std::to_string(std::min<int64_t>(c.steps, 4)) + (c.steps >= 4 ? "+" : "")];
  ++n["force_flush"][c.force_flush ? "on" : "off"];
  ++n["lower_bound"][c.lower_bound ? "on" : "off"];
  ++n["l2norm"][c.l2norm ? "on" : "off"];
  ++n["strided"][c.envelope ? "on" : "off"];
  ++n["padding"][c.pad_ends ? "ends" : c.B > 1 && c.pad_fraction > 0 ? "random" : "none"];
  ++n["ring mode"][c.circular ? "circular" : "linear"];
  ++n["act"][std::string(name_of(c.act_dtype))];
  ++n["state"][std::string(name_of(c.state_dtype))];
  ++n["ring"][std::string(name_of(c.ring_dtype))];
  ++n["out"][std::string(name_of(c.out_dtype))];
  ++n["idx"][std::string(name_of(c.index_dtype))];
  if (c.tokens > 0) {  // the recurrent decodes' call forms (CaseConfig::tokens chosen)
    const auto on = [](bool b) { return b ? "on" : "off"; };
    ++n["T"][std::to_string(c.tokens)];
    ++n["indices"][c.indices_2d ? "[B, T]" : "[B]"];
    ++n["accepted"][on(c.accepted)];
    ++n["pool"][c.v_first ? "V-first" : "K-first"];
    ++n["gate in kernel"][on(c.gate_in_kernel)];
    ++n["beta sigmoid"][on(c.beta_sigmoid)];
    ++n["zero pool"][on(c.zero_pool)];
  }
  if (c.K == kProductionHeadDim && c.V == kProductionHeadDim && c.HV >= 4)
    ++production;
}

std::string CaseStats::describe(const OperatorDescription& op) const {
  // Numeric keys in numeric order ("2/16" by H, then HV), others as the map has them.
  const auto numeric_order = [](const std::string& a, const std::string& b) {
    int64_t a1 = 0, a2 = 0, b1 = 0, b2 = 0;
    const bool an = std::sscanf(a.c_str(), "%ld/%ld", &a1, &a2) >= 1, bn = std::sscanf(b.c_str(), "%ld/%ld", &b1, &b2) >= 1;
    if (an != bn) return an;
    if (!an) return a < b;
    return std::pair(a1, a2) < std::pair(b1, b2);
  };
  std::string s = fmt::format("{} cases, {} with K = V = 128 and 4 value heads or more ({:.1f}%)\n", cases,
                              production, cases ? 100.0 * production / cases : 0.0);
  // Each field with the config line's key it counts: a field the operator has no words for is left out.
  constexpr std::pair<const char*, const char*> fields[] = {
      {"K", "K"}, {"V", "V"}, {"H/HV", "H"}, {"B", "B"}, {"slots-B", "slots"}, {"L", "L"}, {"ring mode", "circ"},
      {"steps", "steps"}, {"padding", "pad"}, {"force_flush", "ff"}, {"lower_bound", "lb"}, {"l2norm", "l2"},
      {"strided", "env"}, {"act", "act"}, {"state", "state"}, {"ring", "ring"}, {"out", "out"}, {"idx", "idx"},
      {"T", "T"}, {"indices", "idx2d"}, {"accepted", "nat"}, {"pool", "vfirst"}, {"gate in kernel", "gik"},
      {"beta sigmoid", "bsig"}, {"zero pool", "zpool"}};
  for (const auto& [field, key] : fields) {
    if (!speaks_of_key(op, key)) continue;
    const auto it = counts.find(field);
    if (it == counts.end()) continue;
    std::vector<std::string> keys;
    for (const auto& [k, _] : it->second) keys.push_back(k);
    std::sort(keys.begin(), keys.end(), numeric_order);
    std::string line;
    for (const std::string& k : keys) {
      const int64_t n = it->second.at(k);
      line += fmt::format("{}{} {} ({:.1f}%)", line.empty() ? "" : " | ", k, n, 100.0 * n / cases);
    }
    s += fmt::format("  {:<14} {}\n", field, line);
  }
  return s;
}

}  // namespace kda::engine
