// `check --time` and the C library's kda_time_plugin: the judged backend's step timed per
// shape class, after the verdict, beside the bandwidth of a plain copy where its tensors live,
// with the benchmark's bytes model (engine/reports/bytes_model.hpp). Timing decides nothing.
#pragma once
#include <string>
#include <vector>

#include "engine/backends/backend.hpp"
#include "engine/reports/bytes_model.hpp"
#include "engine/reports/step_stats.hpp"

namespace kda::engine {

// One shape class: its name in the operator's words, the call's config and the cursor every
// row steps at (the middle of the ring, appending; L = 1: the plain decode).
struct TimeClass {
  std::string name;
  CaseConfig config;
  int64_t cursor = 0;
};

// The benchmark's classes (bench/replayssm_bench.cpp sweeps them): the plain decode (L = 1), a
// short ring (L = 8) and a long ring (L = 64), each at B = 1 and B = 64, with the benchmark's
// default shape (H = HV = 32, K = V = 128, bfloat16 activations, rings and out, float32 state,
// compact, no padding rows). Made the operator's (an operator without a ring has the decode
// classes alone) and fitted into the envelope; a class that fits as another did is left out.
std::vector<TimeClass> time_classes(const OperatorDescription& op, const Envelope& envelope);

// The bytes the benchmark's model counts for one step of the class (every row at its cursor).
StepBytes class_bytes(const TimeClass& c);

struct ClassTime {
  TimeClass cls;
  Stats stats;             // per step
  StepBytes bytes;         // class_bytes
  double gbps = 0;         // bytes / median
  double copy_fraction = 0;  // gbps / the copy's
  std::string problem;     // the backend refused or failed the call: nothing timed
};

struct TimingReport {
  std::string backend, clock;
  double copy_gbps = 0;
  std::vector<ClassTime> classes;
  // A table, one line per class, headed by what was timed and how.
  std::string text() const;
};

TimingReport time_backend(Backend& backend, const TimingBudget& budget = {});

}  // namespace kda::engine
