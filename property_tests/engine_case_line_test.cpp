// A case line's one way in (engine/driver/case_line.hpp): the operator it names (op=), beside the
// one an entry point names; the config checked, fitted once and held to the budgets.
#include <gtest/gtest.h>

#include <string>

#include "engine/description/operator_words.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/backend_cases.hpp"
#include "engine/driver/case_line.hpp"

namespace kda::engine {
namespace {

constexpr const char* kLine = "B=2 H=1 HV=2 K=4 V=4 L=3 slots=3 steps=2 seed=5";

const OperatorDescription& another() { return *operators().at(1); }

CaseLineError::Kind refusal(const std::string& line, const OperatorGiven& given = {}, const CaseBudget& budget = {}) {
  try {
    read_case_line(line, given, budget);
  } catch (const CaseLineError& e) {
    return e.kind;
  }
  ADD_FAILURE() << "accepted: " << line;
  return CaseLineError::Kind::Syntax;
}

std::string message(const std::string& line, const OperatorGiven& given = {}) {
  try {
    read_case_line(line, given);
  } catch (const CaseLineError& e) {
    return e.what();
  }
  return "";
}

TEST(CaseLine, ALineWithoutOpIsTheDefaultOperatorsOrTheOneNamedBesideIt) {
  EXPECT_EQ(read_case_line(kLine).op, &default_operator());
  EXPECT_EQ(read_case_line(kLine, {&another(), "--op"}).op, &another());
  EXPECT_EQ(read_case_line(kLine, {nullptr, "--op", &another()}).op, &another());
}

TEST(CaseLine, EveryOperatorsPrintedLineReadsBackAsItsCaseAlone) {
  for (const OperatorDescription* op : operators())
    for (int i = 0; i < 20; ++i) {
      const CaseConfig c =
          fit(*op, draw_backend_case(*op, 3, static_cast<uint64_t>(i), limits::check_cases(2e5), Envelope{})).config;
      const std::string line = config_line(c, *op);
      const OperatorCase read = read_case_line(line);  // no operator named beside the line
      EXPECT_EQ(read.op, op) << line;
      EXPECT_EQ(read.config, c) << line;
      EXPECT_EQ(config_line(read.config, *read.op), line);
    }
}

TEST(CaseLine, AnOperatorNamedTwiceDifferentlyIsRefusedNamingBoth) {
  const std::string line = "op=" + std::string(another().name) + " " + kLine;
  EXPECT_EQ(read_case_line(line, {&another(), "--op"}).op, &another());  // the same operator twice: fine
  EXPECT_EQ(refusal(line, {&default_operator(), "--op"}), CaseLineError::Kind::Operator);
  const std::string said = message(line, {&default_operator(), "--op"});
  EXPECT_NE(said.find("op=" + std::string(another().name)), std::string::npos) << said;
  EXPECT_NE(said.find("--op names " + std::string(default_operator().name)), std::string::npos) << said;
  // A plugin of another operator where no --op is given: the line's operator still decides.
  EXPECT_EQ(read_case_line(line, {nullptr, "--op", &default_operator()}).op, &another());
}

TEST(CaseLine, RefusalsSayWhichKindAndWhy) {
  EXPECT_EQ(refusal("B=2 bogus=1"), CaseLineError::Kind::Syntax);
  EXPECT_EQ(refusal("op= B=2"), CaseLineError::Kind::Syntax);
  EXPECT_EQ(refusal("op=a op=a B=2"), CaseLineError::Kind::Syntax);
  EXPECT_EQ(refusal("op=no_such_operator B=2"), CaseLineError::Kind::Operator);
  EXPECT_NE(message("op=no_such_operator B=2").find(default_operator().name), std::string::npos);
  EXPECT_EQ(refusal("B=2 H=3 HV=4"), CaseLineError::Kind::Invalid);
  EXPECT_NE(message("B=2 H=3 HV=4").find("valid call: HV=4"), std::string::npos);
  EXPECT_EQ(refusal(kLine, {}, {4096, 1.0}), CaseLineError::Kind::OverBudget);
  EXPECT_EQ(refusal("K=4096 V=4096 HV=64 H=64 slots=64 B=64"), CaseLineError::Kind::OverBudget);
}

TEST(CaseLine, TheTextFormNamesAnOperatorOnlyWhereToldAndAConfigAloneRefusesOne) {
  const CaseConfig c = parse_case_config(kLine);
  EXPECT_EQ(to_string(c, ""), to_string(c));
  EXPECT_EQ(to_string(c, "x"), "op=x " + to_string(c));
  EXPECT_EQ(parse_case_line(to_string(c, "x")).op, "x");
  EXPECT_EQ(parse_case_line(to_string(c, "x")).config, c);
  EXPECT_THROW(parse_case_config(to_string(c, "x")), std::invalid_argument);
  EXPECT_EQ(config_line(c, default_operator()).find("op="), std::string::npos);
}

}  // namespace
}  // namespace kda::engine
