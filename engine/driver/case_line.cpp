#include "engine/driver/case_line.hpp"

#include <fmt/format.h>

namespace kda::engine {
namespace {

const OperatorDescription& operator_of(const CaseLine& parsed, const OperatorGiven& given) {
  if (parsed.op.empty()) return given.named ? *given.named : given.otherwise ? *given.otherwise : default_operator();
  if (given.named != nullptr && given.named->name != parsed.op)
    throw CaseLineError(CaseLineError::Kind::Operator,
                        fmt::format("the case line names op={}, but {} names {}: name the operator once",
                                    parsed.op, given.named_as, given.named->name));
  try {
    return find_operator(parsed.op);
  } catch (const std::invalid_argument& e) {
    throw CaseLineError(CaseLineError::Kind::Operator, std::string("case config: op: ") + e.what());
  }
}

}  // namespace

OperatorCase read_case_line(std::string_view line, const OperatorGiven& given, const CaseBudget& budget) {
  CaseLine parsed;
  try {
    parsed = parse_case_line(line);
  } catch (const std::invalid_argument& e) {
    throw CaseLineError(CaseLineError::Kind::Syntax, e.what());
  }
  // The config checked where it was read; an unknown or conflicting operator is said first.
  const std::string invalid = invalid_line_message(parsed);
  const OperatorDescription& op = operator_of(parsed, given);
  if (!invalid.empty()) throw CaseLineError(CaseLineError::Kind::Invalid, invalid);
  OperatorCase c = fit(op, parsed.config);
  if (const std::string why = over_budget(c.config, budget); !why.empty())
    throw CaseLineError(CaseLineError::Kind::OverBudget, why);
  return c;
}

}  // namespace kda::engine
