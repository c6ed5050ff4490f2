#include "contract/error_catalog_export.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace kda {
namespace detail {
// harness_sources_data.cpp (generated): the files that hold extension checks, by path.
struct HarnessSource {
  std::string_view path, text;
};
extern const HarnessSource kHarnessSources[];
extern const std::size_t kHarnessSourceCount;
extern const std::string_view kHarnessCommit;
}

namespace {

// "`k_cache` must have shape [slots, H, L, K]." -> "k-cache-must-have-shape-slots-h-l-k"
std::string slug(const std::string& message) {
  std::string s;
  for (unsigned char c : message) {
    if (std::isalnum(c)) s += static_cast<char>(std::tolower(c));
    else if (!s.empty() && s.back() != '-') s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s;
}

// The file named in parentheses at the end of an entry's source.
std::string source_file(const std::string& source) {
  const auto open = source.rfind('('), close = source.rfind(')');
  return open == std::string::npos || close < open ? source : source.substr(open + 1, close - open - 1);
}

// FNV-1a, 64 bits, as 16 lower-case hex digits: a stable record id.
std::string fnv1a_hex(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines, std::size_t first, std::size_t last) {
  std::string s;
  for (std::size_t i = first; i <= last; ++i) {
    if (i > first) s += '\n';
    s += lines[i];
  }
  return s;
}

// Where a record's facts come from: a file, a window of its lines and the line of the check.
struct SourceFacts {
  std::string repo, file, commit, url, code;
  int64_t line = 0, start = 0, end = 0;
};

const nlohmann::json& catalog_doc() {
  static const nlohmann::json doc = nlohmann::json::parse(error_catalog_json());
  return doc;
}

SourceFacts sglang_facts(const CatalogEntry& e) {
  const nlohmann::json& doc = catalog_doc();
  for (const auto& x : doc.at("sglang").at("excerpts")) {
    const int64_t start = x.at("start"), end = x.at("end");
    if (e.sglang_line < start || e.sglang_line > end) continue;
    if (e.source.find(x.at("file").get<std::string>()) == std::string::npos) continue;
    SourceFacts f{doc.at("sglang").at("repo"), x.at("file"), x.at("commit"), "", "", e.sglang_line, start, end};
    const auto lines = x.at("lines").get<std::vector<std::string>>();
    f.code = join_lines(lines, 0, lines.size() - 1);
    f.url = fmt::format("https://github.com/{}/blob/{}/{}#L{}-L{}", f.repo, f.commit, f.file, start, end);
    return f;
  }
  throw std::logic_error("error_catalog.json: no sglang excerpt holds line " + std::to_string(e.sglang_line) +
                         " of " + e.id);
}

SourceFacts harness_facts(const CatalogEntry& e) {
  const nlohmann::json& records = catalog_doc().at("records");
  SourceFacts f;
  f.repo = records.at("harnessRepo");
  f.file = source_file(e.source);
  f.commit = detail::kHarnessCommit;
  const detail::HarnessSource* source = nullptr;
  for (std::size_t i = 0; i < detail::kHarnessSourceCount; ++i)
    if (detail::kHarnessSources[i].path == f.file) source = &detail::kHarnessSources[i];
  if (!source) throw std::logic_error(e.id + ": " + f.file + " is not among the embedded extension sources");
  const std::vector<std::string> lines = split_lines(source->text);
  std::size_t at = 0;
  while (at < lines.size() && lines[at].find(e.harness_anchor) == std::string::npos) ++at;
  if (at == lines.size()) throw std::logic_error(e.id + ": " + e.harness_anchor + " is not in " + f.file);
  const std::size_t first = at >= 3 ? at - 3 : 0, last = std::min(at + 2, lines.size() - 1);
  f.line = static_cast<int64_t>(at) + 1;
  f.start = static_cast<int64_t>(first) + 1;
  f.end = static_cast<int64_t>(last) + 1;
  f.code = join_lines(lines, first, last);
  f.url = fmt::format("{}{}#L{}-L{}", records.at("harnessUrlBase").get<std::string>(), f.file, f.start, f.end);
  return f;
}

}  // namespace

nlohmann::ordered_json catalog_record(const CatalogEntry& e, std::span<const std::string> raised_by) {
  const nlohmann::json& meta = catalog_doc().at("records");
  const bool documented = !e.is_extension();
  const SourceFacts src = documented ? sglang_facts(e) : harness_facts(e);
  std::vector<std::string> tags = e.tags;
  tags.push_back("kda-catalog:" + e.id);
  for (const auto& op : raised_by) tags.push_back("kda-operator:" + op);
  nlohmann::ordered_json r;
  r["id"] = e.record_id.empty() ? fnv1a_hex(src.repo + "\n" + src.file + "\n" + e.message) : e.record_id;
  r["repo"] = src.repo;
  r["slug"] = slug(e.message);
  r["errorCode"] = nullptr;
  r["errorMessage"] = e.message;
  r["messagePattern"] = e.message_pattern;
  r["errorType"] = "exception";
  r["errorClass"] = meta.at(documented ? "errorClassDocumented" : "errorClassExtension");
  r["httpStatus"] = nullptr;
  r["severity"] = "error";
  r["filePath"] = src.file;
  r["lineNumber"] = src.line;
  r["sourceCode"] = src.code;
  r["sourceCodeStart"] = src.start;
  r["sourceCodeEnd"] = src.end;
  r["githubUrl"] = src.url;
  r["documentation"] = e.documentation;
  r["triggerScenarios"] = e.trigger_scenarios;
  r["commonSituations"] = e.common_situations;
  r["solutions"] = e.solutions;
  r["exampleFix"] = e.example_fix;
  r["handlingStrategy"] = "validation";
  r["validationCode"] = e.validation_code;
  r["typeGuard"] = e.type_guard;
  r["tryCatchPattern"] = nullptr;
  r["preventionTips"] = e.prevention_tips;
  r["tags"] = tags;
  r["backgroundTag"] = e.background_tag;
  r["analyzedSha"] = src.commit;
  r["analyzedAt"] = meta.at("analyzedAt");
  r["schemaVersion"] = 2;
  return r;
}

nlohmann::ordered_json catalog_envelope(const CatalogEntry& e, std::span<const std::string> raised_by) {
  nlohmann::ordered_json env;
  env["record"] = catalog_record(e, raised_by);
  env["datasetVersion"] = catalog_doc().at("records").at("datasetVersion");
  return env;
}

nlohmann::ordered_json catalog_records(RaisedBy raised_by) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& e : error_catalog()) all.push_back(catalog_envelope(e, raised_by(e.id)));
  return all;
}

std::string catalog_entry_markdown(const CatalogEntry& e, std::span<const std::string> raised_by) {
  std::string md = fmt::format("## {}\n\n```text\n{}\n```\n\n", e.id, e.message);
  md += fmt::format("- **Origin:** {} ({})\n", e.origin, e.source);
  md += fmt::format("- **Raised by:** {}\n", fmt::join(raised_by, ", "));
  md += fmt::format("- **Check:** `` {} ``\n", e.check);
  md += fmt::format("- **Pattern:** `` {} ``\n", e.message_pattern);
  md += fmt::format("- **Triggered when:** {}\n- **Fix:** {}\n\n", e.trigger, e.fix);
  md += fmt::format("{}\n\n**Trigger scenarios.** {}\n\n**Common situations.** {}\n\n**Solutions.**\n\n",
                    e.documentation, e.trigger_scenarios, e.common_situations);
  for (const auto& s : e.solutions) md += fmt::format("- {}\n", s);
  md += fmt::format("\n**Example fix.**\n\n```cpp\n{}\n```\n\n**Validation.**\n\n```cpp\n{}\n```\n\n", e.example_fix,
                    e.validation_code);
  md += fmt::format("**Type guard.**\n\n```cpp\n{}\n```\n\n**Prevention tips.**\n\n", e.type_guard);
  for (const auto& s : e.prevention_tips) md += fmt::format("- {}\n", s);
  md += "\n**Tags:** ";
  for (std::size_t i = 0; i < e.tags.size(); ++i) md += (i ? ", " : "") + e.tags[i];
  md += "\n";
  return md;
}

std::string catalog_markdown(RaisedBy raised_by) {
  std::string md =
      "# Error catalog\n\n"
      "<!-- Generated by `kda-harness errors --markdown` from contract/error_catalog.json: do not edit. -->\n\n"
      "Every error that `kda::validate()` or `kda::check_runtime_values()` raises is a `kda::ContractError`\n"
      "carrying one of the ids below and the exact message. The documented checks are SGLang's, in\n"
      "contract.md's order (byte-exact messages); the harness extensions run after them, with\n"
      "fixed messages marked `[kda-harness]`. The plain packed decode (`kda_packed_decode`) raises\n"
      "V1-V22 with the same messages (on `a` and `dt_bias` as given) and the extensions that apply\n"
      "to a call without rings. `gdn_replayssm` (SGLang's GDN ReplaySSM Triton wrapper) raises G1-G32 in\n"
      "its wrapper's order (G2, G6, G11, G13 and G16 with the KDA entries of the same text), then\n"
      "extensions of its own and those of the KDA operators that apply to it. The column \"raised\n"
      "by\" says which operators raise each entry.\n"
      "`kda-harness validate [--op OP] FILE.json` tells which check a call's metadata fails;\n"
      "`kda-harness errors ID` prints one entry; `kda-harness errors --records` exports these entries\n"
      "as records of the seed dataset's schema (tags `kda-operator:OP` name the operators).\n\n"
      "| id | origin | raised by | source |\n|---|---|---|---|\n";
  for (const auto& e : error_catalog())
    md += fmt::format("| [{}](#{}) | {} | {} | {} |\n", e.id, slug(e.id), e.origin, fmt::join(raised_by(e.id), ", "),
                      e.source);
  for (const auto& e : error_catalog()) {
    md += '\n';
    md += catalog_entry_markdown(e, raised_by(e.id));
  }
  return md;
}

}  // namespace kda
