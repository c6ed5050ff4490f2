#include "engine/failure_cause.hpp"

#include <regex>

namespace kda::engine {

std::string failure_cause(const CaseReport& r) {
  if (r.pass()) return "";
  if (r.failure.empty()) {
    // A numeric failure: headline() is "<name>: <tensor>: Mismatched blocks: ...".
    std::string h = r.headline();
    if (!r.name.empty() && h.rfind(r.name + ": ", 0) == 0) h = h.substr(r.name.size() + 2);
    const std::size_t colon = h.find(':');
    return (colon == std::string::npos ? h : h.substr(0, colon)) + ": values outside the tolerance";
  }
  // Indices, then parenthesized detail (which slot, which head), then numbers.
  static const std::regex brackets(R"(\[[^\]]*\])"), parens(R"(\([^()]*\))"),
      numbers(R"([-+]?(\d+\.?\d*([eE][-+]?\d+)?|nan|inf))", std::regex::icase), spaces(R"( {2,})");
  std::string s = std::regex_replace(r.failure, brackets, "[..]");
  for (int depth = 0; depth < 3; ++depth) s = std::regex_replace(s, parens, "");
  s = std::regex_replace(s, numbers, "#");
  s = std::regex_replace(s, spaces, " ");
  constexpr std::size_t kWidth = 160;
  if (s.size() > kWidth) s = s.substr(0, kWidth - 3) + "...";
  return s;
}

}  // namespace kda::engine
