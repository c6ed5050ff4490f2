#include "engine/reports/failure_cause.hpp"

#include <cctype>
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
  // Indices, then parenthesized descriptions (which slot, which head: those with a space;
  // "(G17)" stays), then numbers that are no part of a name ("token 3" but not "G17", "bf16").
  static const std::regex brackets(R"(\[[^\]]*\])"), described(R"(\([^()]* [^()]*\))"), spaces(R"( {2,})");
  std::string text = std::regex_replace(r.failure, brackets, "[..]");
  for (int depth = 0; depth < 3; ++depth) text = std::regex_replace(text, described, "");
  std::string s;
  for (std::size_t i = 0; i < text.size();) {
    const auto name_char = [&](std::size_t j) {
      return j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_');
    };
    const bool in_name = i > 0 && name_char(i - 1);
    const bool sign = (text[i] == '-' || text[i] == '+') && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]));
    if (!in_name && (sign || std::isdigit(static_cast<unsigned char>(text[i])))) {
      std::size_t j = i + (sign ? 1 : 0);
      while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
      if (j < text.size() && (text[j] == 'e' || text[j] == 'E') && j + 1 < text.size() &&
          (std::isdigit(static_cast<unsigned char>(text[j + 1])) || text[j + 1] == '-' || text[j + 1] == '+'))
        for (j += 2; j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])); ++j) {
        }
      s += '#';
      i = j;
      continue;
    }
    if (!in_name && (text.compare(i, 4, "-nan") == 0 || text.compare(i, 4, "-inf") == 0) && !name_char(i + 4)) {
      s += '#', i += 4;
      continue;
    }
    if (!in_name && (text.compare(i, 3, "nan") == 0 || text.compare(i, 3, "inf") == 0) && !name_char(i + 3)) {
      s += '#', i += 3;
      continue;
    }
    s += text[i++];
  }
  s = std::regex_replace(s, spaces, " ");
  constexpr std::size_t kWidth = 160;
  if (s.size() > kWidth) s = s.substr(0, kWidth - 3) + "...";
  return s;
}

}  // namespace kda::engine
