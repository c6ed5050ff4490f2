#include "tools/check_junit.hpp"

#include <fmt/format.h>

namespace kda::cli {
namespace {

// XML 1.0 text: the five special characters escaped, control characters other than tab and
// newline (not allowed in XML 1.0) replaced by '?'.
std::string xml(const std::string& text) {
  std::string s;
  for (unsigned char c : text) {
    switch (c) {
      case '&': s += "&amp;"; break;
      case '<': s += "&lt;"; break;
      case '>': s += "&gt;"; break;
      case '"': s += "&quot;"; break;
      case '\'': s += "&apos;"; break;
      default: s += (c < 0x20 && c != '\t' && c != '\n') ? '?' : static_cast<char>(c);
    }
  }
  return s;
}

std::string suite_xml(const SuiteResult& r) {
  const bool failed = !r.skipped() && r.failed > 0;
  std::string s = fmt::format("  <testsuite name=\"{}\" tests=\"1\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\">\n",
                              xml(r.name), failed ? 1 : 0, r.skipped() ? 1 : 0, r.seconds);
  s += fmt::format("    <properties>\n      <property name=\"backend\" value=\"{}\"/>\n", xml(r.backend));
  s += fmt::format("      <property name=\"cases\" value=\"{}\"/>\n      <property name=\"failed_cases\" value=\"{}\"/>\n",
                   r.cases, r.failed);
  s += fmt::format("      <property name=\"what\" value=\"{}\"/>\n    </properties>\n", xml(r.what));
  s += fmt::format("    <testcase classname=\"kda-harness.check.{}\" name=\"{} ({} cases)\" time=\"{:.3f}\"",
                   xml(r.backend), xml(r.name), r.cases, r.seconds);
  if (r.skipped()) return s + fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n  </testsuite>\n", xml(r.skip_reason));
  if (!failed) return s + "/>\n  </testsuite>\n";
  std::string body;
  for (const engine::CaseReport& f : r.failures) body += f.summary() + "\n  replay: " + f.replay() + "\n";
  if (r.failed > static_cast<int64_t>(r.failures.size()))
    body += fmt::format("(and {} more)\n", r.failed - static_cast<int64_t>(r.failures.size()));
  s += fmt::format(">\n      <failure message=\"{} of {} cases failed\">{}</failure>\n    </testcase>\n  </testsuite>\n",
                   r.failed, r.cases, xml(body));
  return s;
}

}  // namespace

std::string junit_report(const std::vector<SuiteResult>& results, double wall_seconds) {
  int64_t failed = 0, skipped = 0;
  for (const auto& r : results) {
    failed += !r.skipped() && r.failed > 0;
    skipped += r.skipped();
  }
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format("<testsuites name=\"kda-harness check\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
                   "time=\"{:.3f}\">\n",
                   results.size(), failed, skipped, wall_seconds);
  for (const auto& r : results) s += suite_xml(r);
  return s + "</testsuites>\n";
}

}  // namespace kda::cli
