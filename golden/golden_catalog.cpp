#include "golden/golden_catalog.hpp"

#include <set>
#include <stdexcept>

#include "engine/description/operator.hpp"

namespace kda::golden {
namespace {

std::vector<GoldenSpec> build() {
  std::vector<GoldenSpec> out;
  for (const engine::OperatorDescription* op : engine::operators()) {
    if (!op->golden_cases) continue;
    for (GoldenSpec& s : op->golden_cases()) {
      s.op = std::string(op->name);
      s.name = s.op + "." + s.name;  // unique across operators; a copied operator's cases are its own
      out.push_back(std::move(s));
    }
  }
  std::set<std::string> names;
  for (const auto& s : out)
    if (!names.insert(s.name).second) throw std::logic_error("golden_specs: duplicate case name " + s.name);
  return out;
}

}  // namespace

const std::vector<GoldenSpec>& golden_specs() {
  static const std::vector<GoldenSpec> specs = build();
  return specs;
}

}  // namespace kda::golden
