// Runs a RapidCheck property a given number of times inside a GoogleTest test, so a test can
// print its own statistics after the property ran. The number of cases comes from the
// environment variable named by count_env when set (for longer local runs), else from the
// default; RapidCheck's seed and other parameters from RC_PARAMS (ctest fixes the seed so CI
// is reproducible; any failure prints the seed and the one-line CaseConfig).
#pragma once
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace kda::testing {

inline int case_count(const char* count_env, int default_count) {
  const char* v = std::getenv(count_env);
  return v && *v ? std::atoi(v) : default_count;
}

template <class Property>
void check_property(const std::string& name, int count, Property&& property) {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = count;
  rc::detail::TestMetadata meta;
  meta.id = meta.description = name;
  const auto result = rc::detail::checkTestable(std::forward<Property>(property), meta, params);
  if (!result.template is<rc::detail::SuccessResult>()) {
    std::ostringstream msg;
    rc::detail::printResultMessage(result, msg);
    ADD_FAILURE() << name << ": " << msg.str();
  }
}

}  // namespace kda::testing
