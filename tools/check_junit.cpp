#include "tools/check_junit.hpp"

#include <fmt/format.h>

namespace kda::cli {
namespace {

// XML 1.0 text: the five special characters escaped; the characters XML 1.0 does not allow,
// control characters other than tab and newline and the noncharacters U+FFFE and U+FFFF
// (UTF-8 EF BF BE and EF BF BF), replaced by '?'.
std::string xml(const std::string& text) {
  std::string s;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto at = [&](std::size_t j) { return j < text.size() ? static_cast<unsigned char>(text[j]) : 0; };
    if (c == 0xEF && at(i + 1) == 0xBF && (at(i + 2) & 0xFE) == 0xBE) {
      s += '?';
      i += 2;
      continue;
    }
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

// One testcase of a case; a failure carries its headline as the message and its summary and
// replay line (and shrunk line) as the text, or says that run_suite kept only the first
// failures whole.
std::string case_xml(const SuiteResult& r, const CaseOutcome& c) {
  std::string s = fmt::format("    <testcase classname=\"kda-harness.check.{}\" name=\"{}\" time=\"{:.3f}\"", xml(r.name),
                              xml(c.label), c.seconds);
  if (c.pass) return s + "/>\n";
  std::string message = "failed", body;
  if (c.kept >= 0) {
    const engine::CaseReport& f = r.failures[static_cast<std::size_t>(c.kept)];
    if (const std::string h = f.headline(); !h.empty()) message = h;
    body = f.summary() + "\n  replay: " + f.replay() + "\n";
    if (!f.shrunk.empty()) body += "  shrunk: " + f.shrunk + "\n";
  } else {
    body = fmt::format("(not kept: only the suite's first {} failures are reported whole)\n", r.failures.size());
  }
  return s + fmt::format(">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n", xml(message), xml(body));
}

// The testcases a suite reports: every case, or its failures and one for its passes.
int64_t testcases(const SuiteResult& r, bool every_case) {
  if (r.skipped()) return 1;
  return every_case ? r.cases : r.failed + (r.passed > 0 ? 1 : 0);
}

std::string suite_xml(const SuiteResult& r, bool every_case) {
  std::string s = fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
                              "time=\"{:.3f}\">\n",
                              xml(r.name), testcases(r, every_case), r.skipped() ? 0 : r.failed, r.skipped() ? 1 : 0,
                              r.seconds);
  s += fmt::format("    <properties>\n      <property name=\"backend\" value=\"{}\"/>\n", xml(r.backend));
  s += fmt::format("      <property name=\"cases\" value=\"{}\"/>\n      <property name=\"failed_cases\" value=\"{}\"/>\n",
                   r.cases, r.failed);
  s += fmt::format("      <property name=\"what\" value=\"{}\"/>\n    </properties>\n", xml(r.what));
  if (r.skipped())
    return s + fmt::format("    <testcase classname=\"kda-harness.check.{}\" name=\"{}\" time=\"0\">\n      <skipped "
                           "message=\"{}\"/>\n    </testcase>\n  </testsuite>\n",
                           xml(r.name), xml(r.name), xml(r.skip_reason));
  double passed_seconds = 0;
  for (const CaseOutcome& c : r.outcomes) {
    if (every_case || !c.pass) s += case_xml(r, c);
    else passed_seconds += c.seconds;
  }
  if (!every_case && r.passed > 0)
    s += fmt::format("    <testcase classname=\"kda-harness.check.{}\" name=\"{} cases passed\" time=\"{:.3f}\"/>\n",
                     xml(r.name), r.passed, passed_seconds);
  return s + "  </testsuite>\n";
}

}  // namespace

std::string junit_report(const std::vector<SuiteResult>& results, double wall_seconds, bool every_case) {
  int64_t tests = 0, failed = 0, skipped = 0;
  for (const auto& r : results) {
    tests += testcases(r, every_case);
    failed += r.skipped() ? 0 : r.failed;
    skipped += r.skipped();
  }
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format("<testsuites name=\"kda-harness check\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
                   "time=\"{:.3f}\">\n",
                   tests, failed, skipped, wall_seconds);
  for (const auto& r : results) s += suite_xml(r, every_case);
  return s + "</testsuites>\n";
}

}  // namespace kda::cli
