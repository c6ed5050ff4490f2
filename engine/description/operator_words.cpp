#include "engine/description/operator_words.hpp"

#include <algorithm>

namespace kda::engine {
namespace {

constexpr std::string_view kRingKeys[] = {"L", "ring", "flush", "rcur", "circ", "pgc"};

}  // namespace

bool has_ring(const OperatorDescription& op) { return takes(op, "d_cache"); }
bool has_force_flush(const OperatorDescription& op) { return takes(op, "force_flush"); }

bool speaks_of_key(const OperatorDescription& op, std::string_view key) {
  if (key == "ff") return has_force_flush(op);
  if (std::find(std::begin(kRingKeys), std::end(kRingKeys), key) != std::end(kRingKeys)) return has_ring(op);
  return true;
}

std::string config_line(const CaseConfig& c, const OperatorDescription& op) {
  const std::string full = to_string(c, &op == &default_operator() ? std::string_view() : op.name);
  std::string out;
  std::size_t i = 0;
  while (i < full.size()) {
    std::size_t j = full.find(' ', i);
    if (j == std::string::npos) j = full.size();
    const std::string_view item(full.data() + i, j - i);
    if (speaks_of_key(op, item.substr(0, item.find('=')))) {
      if (!out.empty()) out += ' ';
      out += item;
    }
    i = j + 1;
  }
  return out;
}

std::string config_line(const CaseConfig& c, std::string_view op) {
  return has_operator(op) ? config_line(c, find_operator(op)) : to_string(c);
}

}  // namespace kda::engine
