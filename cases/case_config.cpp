#include "cases/case_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <charconv>
#include <stdexcept>
#include <vector>

namespace kda {
namespace {


[[noreturn]] void bad(std::string_view key, std::string_view value) {
  throw std::invalid_argument(fmt::format("case config: bad value '{}' for key '{}'", value, key));
}

int64_t parse_int(std::string_view key, std::string_view v) {
  int64_t x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size()) bad(key, v);
  return x;
}

uint64_t parse_uint(std::string_view key, std::string_view v) {
  uint64_t x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size()) bad(key, v);
  return x;
}

double parse_double(std::string_view key, std::string_view v) {
  // strtod on a copy: from_chars for double is not in every supported standard library.
  const std::string s(v);
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) bad(key, v);
  return x;
}

bool parse_bool(std::string_view key, std::string_view v) {
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  bad(key, v);
}

ScalarType parse_dtype(std::string_view key, std::string_view v) {
  auto t = parse_scalar_type(v);
  if (!t) bad(key, v);
  return *t;
}

bool is_power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

}  // namespace

std::string_view short_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return "f32";
    case ScalarType::BFloat16: return "bf16";
    case ScalarType::Float16: return "f16";
    case ScalarType::Int32: return "i32";
    case ScalarType::Int64: return "i64";
  }
  return "?";
}

std::string to_string(const CaseConfig& c) {
  return fmt::format(
      "B={} H={} HV={} K={} V={} L={} slots={} act={} state={} ring={} out={} idx={} a3d={} dt2d={} l2={} "
      "ff={} env={} lb={} steps={} pad={} flush={} rcur={} values={} seed={}",
      c.B, c.H, c.HV, c.K, c.V, c.L, c.slots, short_name(c.act_dtype), short_name(c.state_dtype),
      short_name(c.ring_dtype), short_name(c.out_dtype), short_name(c.index_dtype), int(c.a_3d),
      int(c.dt_bias_2d), int(c.l2norm), int(c.force_flush), int(c.envelope),
      c.lower_bound ? fmt::format("{}", *c.lower_bound) : std::string("none"), c.steps, c.pad_fraction,
      c.flush_prob, int(c.random_cursors), c.values == ValueMode::Adversarial ? "adv" : "well", c.seed) +
         (c.gate_per_head ? " gate=head" : "") + (c.pad_ends ? " padends=1" : "") +
         (c.circular ? " circ=1" : "") + (c.prefix_gates ? " pgc=1" : "") + (c.predecayed_keys ? " pdk=1" : "") +
         (c.tokens != 0 ? fmt::format(" T={} idx2d={} nat={} vfirst={} gik={} bsig={} zpool={}", c.tokens,
                                      int(c.indices_2d), int(c.accepted), int(c.v_first), int(c.gate_in_kernel),
                                      int(c.beta_sigmoid), int(c.zero_pool))
                        : std::string());
}

std::string to_string(const CaseConfig& c, std::string_view op) {
  return op.empty() ? to_string(c) : fmt::format("op={} {}", op, to_string(c));
}

CaseConfig parse_case_config(std::string_view line) {
  CaseLine parsed = parse_case_line(line);
  if (!parsed.op.empty())
    throw std::invalid_argument(fmt::format("case config: op={} names an operator where a config alone is read", parsed.op));
  return parsed.config;
}

CaseConfig with_keys(const CaseConfig& c, std::string_view keys) {
  const CaseLine pinned = parse_case_line(keys);  // the keys' syntax and values checked
  if (!pinned.op.empty()) throw std::invalid_argument("case config: a pin names config keys, not op=");
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < keys.size();) {
    const std::size_t start = keys.find_first_not_of(" \t\n\r", i);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(keys.find_first_of(" \t\n\r", start), keys.size());
    names.push_back(keys.substr(start, keys.find('=', start) - start));
    i = end;
  }
  if (names.empty()) throw std::invalid_argument("case config: a pin needs at least one key=value");
  const std::string line = to_string(c);
  std::string kept;
  for (std::size_t i = 0; i < line.size();) {
    const std::size_t end = std::min(line.find(' ', i), line.size());
    const std::string_view item = std::string_view(line).substr(i, end - i);
    if (std::find(names.begin(), names.end(), item.substr(0, item.find('='))) == names.end())
      kept.append(item).push_back(' ');
    i = end + 1;
  }
  return parse_case_config(kept + std::string(keys));
}

CaseLine parse_case_line(std::string_view line) {
  CaseLine parsed;
  CaseConfig& c = parsed.config;
  std::vector<std::string_view> seen;  // a key given twice is a typo, never "the last one wins"
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r')) ++i;
    if (i == line.size()) break;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\n' && line[j] != '\r') ++j;
    const std::string_view item = line.substr(i, j - i);
    i = j;
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) throw std::invalid_argument(fmt::format("case config: '{}' is not key=value", item));
    const std::string_view k = item.substr(0, eq), v = item.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), k) != seen.end())
      throw std::invalid_argument(fmt::format("case config: key '{}' appears twice", k));
    seen.push_back(k);
    if (k == "op") {
      if (v.empty()) bad(k, v);
      parsed.op = std::string(v);
    } else if (k == "B") c.B = parse_int(k, v);
    else if (k == "H") c.H = parse_int(k, v);
    else if (k == "HV") c.HV = parse_int(k, v);
    else if (k == "K") c.K = parse_int(k, v);
    else if (k == "V") c.V = parse_int(k, v);
    else if (k == "L") c.L = parse_int(k, v);
    else if (k == "slots") c.slots = parse_int(k, v);
    else if (k == "act") c.act_dtype = parse_dtype(k, v);
    else if (k == "state") c.state_dtype = parse_dtype(k, v);
    else if (k == "ring") c.ring_dtype = parse_dtype(k, v);
    else if (k == "out") c.out_dtype = parse_dtype(k, v);
    else if (k == "idx") c.index_dtype = parse_dtype(k, v);
    else if (k == "a3d") c.a_3d = parse_bool(k, v);
    else if (k == "dt2d") c.dt_bias_2d = parse_bool(k, v);
    else if (k == "l2") c.l2norm = parse_bool(k, v);
    else if (k == "ff") c.force_flush = parse_bool(k, v);
    else if (k == "env") c.envelope = parse_bool(k, v);
    else if (k == "lb") c.lower_bound = v == "none" ? std::nullopt : std::optional<double>(parse_double(k, v));
    else if (k == "steps") c.steps = parse_int(k, v);
    else if (k == "pad") c.pad_fraction = parse_double(k, v);
    else if (k == "flush") c.flush_prob = parse_double(k, v);
    else if (k == "rcur") c.random_cursors = parse_bool(k, v);
    else if (k == "values") {
      if (v == "well") c.values = ValueMode::WellConditioned;
      else if (v == "adv") c.values = ValueMode::Adversarial;
      else bad(k, v);
    } else if (k == "seed") c.seed = parse_uint(k, v);
    else if (k == "padends") c.pad_ends = parse_bool(k, v);
    else if (k == "circ") c.circular = parse_bool(k, v);
    else if (k == "pgc") c.prefix_gates = parse_bool(k, v);
    else if (k == "pdk") c.predecayed_keys = parse_bool(k, v);
    else if (k == "T") c.tokens = parse_int(k, v);
    else if (k == "idx2d") c.indices_2d = parse_bool(k, v);
    else if (k == "nat") c.accepted = parse_bool(k, v);
    else if (k == "vfirst") c.v_first = parse_bool(k, v);
    else if (k == "gik") c.gate_in_kernel = parse_bool(k, v);
    else if (k == "bsig") c.beta_sigmoid = parse_bool(k, v);
    else if (k == "zpool") c.zero_pool = parse_bool(k, v);
    else if (k == "gate") {
      if (v == "head") c.gate_per_head = true;
      else if (v == "key") c.gate_per_head = false;
      else bad(k, v);
    }
    else throw std::invalid_argument(fmt::format("case config: unknown key '{}'", k));
  }
  return parsed;
}

std::string invalid_config_field(const CaseConfig& c) {
  const auto floating = [](ScalarType t) { return is_floating(t); };
  if (c.B < 1) return fmt::format("B={} must be at least 1", c.B);
  if (c.H < 1) return fmt::format("H={} must be at least 1", c.H);
  if (c.HV < c.H || c.HV % c.H != 0) return fmt::format("HV={} is not a multiple of H={} (grouped heads)", c.HV, c.H);
  if (!is_power_of_two(c.K)) return fmt::format("K={} is not a power of two", c.K);
  if (!is_power_of_two(c.V)) return fmt::format("V={} is not a power of two", c.V);
  if (c.L < 1 || c.L > (int64_t{1} << 30)) return fmt::format("L={} is outside 1..2^30", c.L);
  if (c.slots < c.B) return fmt::format("slots={} is fewer than B={} (every row needs its own slot)", c.slots, c.B);
  if (!floating(c.act_dtype)) return fmt::format("act={} is not a floating dtype", name_of(c.act_dtype));
  if (!floating(c.state_dtype)) return fmt::format("state={} is not a floating dtype", name_of(c.state_dtype));
  if (!floating(c.ring_dtype)) return fmt::format("ring={} is not a floating dtype", name_of(c.ring_dtype));
  if (!floating(c.out_dtype)) return fmt::format("out={} is not a floating dtype", name_of(c.out_dtype));
  if (c.index_dtype != ScalarType::Int32 && c.index_dtype != ScalarType::Int64)
    return fmt::format("idx={} is not i32 or i64", name_of(c.index_dtype));
  if (c.lower_bound && !std::isfinite(*c.lower_bound)) return fmt::format("lb={} is not finite", *c.lower_bound);
  // a bounded gate lower_bound * sigmoid(A x) decays the state only for lower_bound <= 0;
  // above, it grows it by exp(lower_bound) a token (lb=100: inf, then NaN, in the reference)
  if (c.lower_bound && *c.lower_bound > 0)
    return fmt::format("lb={} is above 0: the gate lb * sigmoid(A x) would grow the state, not decay it", *c.lower_bound);
  if (c.steps < 1) return fmt::format("steps={} must be at least 1", c.steps);
  if (!(c.pad_fraction >= 0 && c.pad_fraction <= 1)) return fmt::format("pad={} is outside 0..1", c.pad_fraction);
  if (!(c.flush_prob >= 0 && c.flush_prob <= 1)) return fmt::format("flush={} is outside 0..1", c.flush_prob);
  if (c.tokens < 0 || c.tokens > 64) return fmt::format("T={} is outside 0..64", c.tokens);
  return "";
}

bool is_valid_config(const CaseConfig& c) { return invalid_config_field(c).empty(); }

std::string invalid_line_message(const CaseLine& line) {
  const std::string field = invalid_config_field(line.config);
  return field.empty() ? "" : fmt::format("the config does not describe a valid call: {} (in {})", field,
                                          to_string(line.config, line.op));
}

double rollout_work(const CaseConfig& c) {
  return static_cast<double>(c.B) * c.HV * c.V * c.K * (static_cast<double>(c.L) / 2 + 2) * c.steps;
}

}  // namespace kda
