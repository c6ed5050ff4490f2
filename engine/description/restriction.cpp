#include "engine/description/restriction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace kda::engine {
namespace {

[[noreturn]] void bad(std::string_view item, std::string_view why) {
  throw std::invalid_argument(fmt::format("restriction: cannot read '{}': {}", item, why));
}

int64_t number(std::string_view item, std::string_view s) {
  int64_t x = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || p != s.data() + s.size() || x < 1) bad(item, "sizes are whole numbers >= 1");
  return x;
}

// "128" -> 128..128, "32..128", "..64" -> 1..64, "32.." -> 32..(no limit).
std::pair<int64_t, int64_t> range(std::string_view item, std::string_view s, int64_t no_limit) {
  const auto dots = s.find("..");
  if (dots == std::string_view::npos) {
    const int64_t x = number(item, s);
    return {x, x};
  }
  const std::string_view lo = s.substr(0, dots), hi = s.substr(dots + 2);
  const std::pair<int64_t, int64_t> r{lo.empty() ? 1 : number(item, lo), hi.empty() ? no_limit : number(item, hi)};
  if (r.first > r.second) bad(item, "the range is empty");
  return r;
}

uint32_t dtype_set(std::string_view item, std::string_view s, bool indices) {
  uint32_t set = 0;
  while (!s.empty()) {
    const auto bar = s.find('|');
    const std::string_view name = s.substr(0, bar);
    const auto t = parse_scalar_type(name);
    if (!t || is_floating(*t) == indices)
      bad(item, indices ? "index dtypes are int32 and int64" : "float dtypes are float32, bfloat16 and float16");
    set |= dtype_bit(*t);
    s = bar == std::string_view::npos ? std::string_view() : s.substr(bar + 1);
  }
  if (set == 0) bad(item, "no dtype named");
  return set;
}

}  // namespace

Envelope narrowed(const Envelope& e, const Envelope& r) {
  Envelope n = e;
  n.act_dtypes &= r.act_dtypes;
  n.state_dtypes &= r.state_dtypes;
  n.ring_dtypes &= r.ring_dtypes;
  n.out_dtypes &= r.out_dtypes;
  n.index_dtypes &= r.index_dtypes;
  n.k_min = std::max(e.k_min, r.k_min), n.k_max = std::min(e.k_max, r.k_max);
  n.v_min = std::max(e.v_min, r.v_min), n.v_max = std::min(e.v_max, r.v_max);
  n.l_max = e.l_max == 0 ? r.l_max : r.l_max == 0 ? e.l_max : std::min(e.l_max, r.l_max);
  n.strided = e.strided && r.strided;
  return n;
}

Envelope parse_restriction(std::string_view text) {
  Envelope r;
  const Envelope all;
  std::vector<std::string_view> items;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find_first_of(" ,", at), text.size());
    if (end > at) items.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  for (const std::string_view item : items) {
    if (item == "compact") {
      r.strided = false;
      continue;
    }
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) bad(item, "items are KEY=VALUE or compact");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "K") std::tie(r.k_min, r.k_max) = range(item, value, all.k_max);
    else if (key == "V") std::tie(r.v_min, r.v_max) = range(item, value, all.v_max);
    else if (key == "L") {  // the longest ring: L=8 or L=..8
      const auto [lo, hi] = range(item, value, 0);
      if (hi == 0 || (lo != hi && lo != 1)) bad(item, "L takes the longest ring: L=8 or L=..8");
      r.l_max = hi;
    } else if (key == "act") r.act_dtypes = dtype_set(item, value, false);
    else if (key == "state") r.state_dtypes = dtype_set(item, value, false);
    else if (key == "ring") r.ring_dtypes = dtype_set(item, value, false);
    else if (key == "out") r.out_dtypes = dtype_set(item, value, false);
    else if (key == "idx") r.index_dtypes = dtype_set(item, value, true);
    else bad(item, "keys are K, V, L, act, state, ring, out, idx (and the item compact)");
  }
  return r;
}

}  // namespace kda::engine
