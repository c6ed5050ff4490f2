// How a fuzz target reports a finding: print what broke (and how to replay it) to stderr,
// then abort(). libFuzzer treats the abort as a crash and saves the input as crash-<sha1>;
// the plain replay driver (replay_main.cpp) names the file it was replaying. A finding is
// never an exception: the targets catch every exception the code under test may throw and
// judge it, so an escaping one would itself be a bug of the target.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

namespace kda::fuzz {

[[noreturn]] inline void finding(const char* target, const std::string& what) {
  std::fprintf(stderr, "\n==== FUZZ FINDING (%s) ====\n%s\n==== end of finding ====\n", target, what.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace kda::fuzz
