// The one source of decisions of a sample space. A sampler asks a Chooser for every choice it
// makes, so the same description of the ranges serves three front-ends: the harness's counter
// generator (engine/description/counter_chooser.hpp), a FuzzedDataProvider (fuzz/fdp_chooser.hpp) and
// RapidCheck (property_tests/rc_chooser.hpp). Front-ends that shrink move every choice towards
// its first option and the low end of its range, so samplers list small options first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <vector>

namespace kda::engine {

class Chooser {
 public:
  virtual ~Chooser() = default;
  // An index into weights (not all zero), index i with probability weights[i] / sum.
  virtual std::size_t pick(std::span<const uint32_t> weights) = 0;
  // An integer in [lo, hi], lo <= hi.
  virtual int64_t integer(int64_t lo, int64_t hi) = 0;
  // 64 free bits (seeds).
  virtual uint64_t bits() = 0;

  // True with odds yes : no (false is the small end).
  bool coin(uint32_t yes = 1, uint32_t no = 1) {
    const uint32_t w[] = {no, yes};
    return pick(w) == 1;
  }
};

// A value and its weight in a choice.
template <class T>
struct Weighted {
  T value;
  uint32_t weight = 1;
};

// One of the options that `allowed` keeps, by weight. Throws std::invalid_argument when it
// keeps none (limits that exclude a whole dimension are a caller's error).
template <class T, class Allowed>
T choose(Chooser& c, std::span<const Weighted<T>> options, Allowed allowed) {
  std::vector<uint32_t> weights;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < options.size(); ++i)
    if (options[i].weight > 0 && allowed(options[i].value)) {
      weights.push_back(options[i].weight);
      index.push_back(i);
    }
  if (weights.empty()) throw std::invalid_argument("sample space: the limits exclude every option");
  return options[index[c.pick(weights)]].value;
}

template <class T>
T choose(Chooser& c, std::span<const Weighted<T>> options) {
  return choose(c, options, [](const T&) { return true; });
}

// Equal weights.
template <class T>
T choose(Chooser& c, std::span<const T> options) {
  if (options.empty()) throw std::invalid_argument("sample space: no option to choose from");
  const std::vector<uint32_t> weights(options.size(), 1);
  return options[c.pick(weights)];
}

}  // namespace kda::engine
