// The one way a case line comes into the harness, for every entry point that takes one
// (`kda-harness case "<line>"`, the C library's kda_case_materialize and the config of
// kda_check_plugin and kda_shrink_case, and through them Python's case() and check(config=)):
// the line read and its config checked (cases/case_config.hpp: op= included, invalid_line_message),
// its operator resolved (an unknown or conflicting one said before an invalid config), made the
// operator's case once (fit()) and held to the budgets (engine/driver/case_budget.hpp) before
// anything is allocated.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/description/operator.hpp"
#include "engine/driver/case_budget.hpp"

namespace kda::engine {

// The operator an entry point judges besides what the line names.
struct OperatorGiven {
  // Named explicitly (--op, the C library's op argument, the plugin judged): a line that names
  // another operator is refused, naming both.
  const OperatorDescription* named = nullptr;
  std::string_view named_as = "--op";  // how the refusal calls it: "--op names X"
  // Where neither names one (a plugin's own operator); nullptr: the default operator.
  const OperatorDescription* otherwise = nullptr;
};

// Why a line was refused; what() says it in full.
class CaseLineError : public std::invalid_argument {
 public:
  enum class Kind {
    Syntax,      // not key=value, an unknown or repeated key, a bad value
    Operator,    // an unknown operator, or one other than the operator named beside it
    Invalid,     // no valid call (invalid_config_field)
    OverBudget,  // over the memory or work budget
  };
  CaseLineError(Kind why, const std::string& what) : std::invalid_argument(what), kind(why) {}
  Kind kind;
};

// The case a line describes, as the operator it names (else given.named, else given.otherwise,
// else the default) runs it; throws CaseLineError.
OperatorCase read_case_line(std::string_view line, const OperatorGiven& given = {}, const CaseBudget& budget = {});

}  // namespace kda::engine
