#include "golden/golden_manifest.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "engine/description/operator.hpp"

namespace kda::golden {

std::string default_op() { return std::string(engine::default_operator().name); }

std::string manifest_text(const Manifest& m) {
  nlohmann::ordered_json j;
  j["format"] = kManifestFormat;
  j["hash"] = "SHA-256 (FIPS 180-4) of each file's bytes, lower-case hex";
  j["regenerate"] = "kda-harness golden regen; check with kda-harness golden verify";
  j["cases"] = nlohmann::ordered_json::array();
  for (const ManifestEntry& e : m.cases) {
    nlohmann::ordered_json c;
    c["name"] = e.name;
    c["file"] = e.file;
    c["kind"] = e.kind;
    c["purpose"] = e.purpose;
    c["config"] = e.config;
    c["steps"] = e.steps;
    c["bytes"] = e.bytes;
    c["sha256"] = e.sha256;
    if (e.op != default_op()) c["op"] = e.op;
    j["cases"].push_back(std::move(c));
  }
  return j.dump(2) + "\n";
}

Manifest parse_manifest(std::string_view text) {
  Manifest m;
  try {
    const auto j = nlohmann::json::parse(text);
    if (j.at("format").get<std::string>() != kManifestFormat)
      throw std::runtime_error("manifest format is not " + std::string(kManifestFormat));
    for (const auto& c : j.at("cases")) {
      ManifestEntry e;
      e.name = c.at("name").get<std::string>();
      e.file = c.at("file").get<std::string>();
      e.kind = c.at("kind").get<std::string>();
      e.purpose = c.at("purpose").get<std::string>();
      e.config = c.at("config").get<std::string>();
      e.steps = c.at("steps").get<int64_t>();
      e.bytes = c.at("bytes").get<int64_t>();
      e.sha256 = c.at("sha256").get<std::string>();
      e.op = c.value("op", default_op());
      m.cases.push_back(std::move(e));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed golden manifest: ") + e.what());
  }
  return m;
}

Manifest read_manifest(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open the golden manifest " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return parse_manifest(s.str());
}

}  // namespace kda::golden
