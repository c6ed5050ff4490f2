// The footprint of one step: what it may write (every row of out; for each non-padding row
// that flushes, its slot of initial_state; for one that appends, its slot's ring records at
// its cursor) and what it must leave alone (everything else, read-only tensors, the gaps of
// strided layouts, unnamed slots). A snapshot taken before the step tells afterwards the first
// byte written outside it.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "contract/step_args.hpp"

namespace kda::capi {

class FootprintSnapshot {
 public:
  // Host tensors of a valid call (validate() passed).
  explicit FootprintSnapshot(const StepArgs& args);
  // Where the tensors it was taken of now differ outside the footprint ("k_cache element
  // [2, 0, 3, 1]"), or nullopt.
  std::optional<std::string> stray_write() const;

 private:
  struct Tensor {
    std::string name;
    const DLTensor* t = nullptr;
    int64_t lo = 0;                   // lowest element offset
    std::vector<std::byte> bytes;     // every byte the tensor's strides reach, before the step
    std::vector<int64_t> allowed;     // element offsets (relative to lo) the step may write
  };
  std::vector<Tensor> tensors_;
};

}  // namespace kda::capi
