// Helper threads for a case, where the machine has cores to spare: a fuzz target plays one
// case at a time on one thread, and on a many-core host the rest of the machine is idle
// (a suite's workers already use the cores). On a machine of four or more hardware threads
// a case may use its share of them among the cases being played at once in this process
// (each inside a PlayingCase), on a smaller one only its own thread; KDA_FILL_THREADS=N
// sets N threads per case instead (1: only its own; as for the case generator,
// cases/case_tensors.hpp). Whatever runs where, the results are the same: the work handed
// out is a set of independent items.
#pragma once
#include <cstdint>
#include <functional>

namespace kda::engine {

// A case being played, for as long as it lives.
class PlayingCase {
 public:
  PlayingCase();
  ~PlayingCase();
  PlayingCase(const PlayingCase&) = delete;
  PlayingCase& operator=(const PlayingCase&) = delete;
};

// The helper threads a case being played may use besides its own (0: none).
int spare_cores();

// item(i) for every i in [0, n), on the calling thread and up to spare_cores() helpers of a
// pool shared by the process (only the caller's thread while another call uses the pool, or
// when the items are too small to be worth a thread: `work` is an estimate of the elements
// all of them touch). Rethrows the first exception an item threw, after every item ran.
void for_each_item(int64_t n, double work, const std::function<void(int64_t)>& item);

}  // namespace kda::engine
