// The device tensors of one benchmark case, carved out of one arena (a DeviceTensor the
// benchmark allocates once for the whole sweep) as compact DLTensor views.
//
// `sets` input sets rotate between launches so that consecutive launches touch different
// memory and the 60 MB L2 cannot serve a launch from what the previous one left: set s owns
// slots [s*B, (s+1)*B) of the checkpoint and rings and its own token inputs (mixed_qkv, a,
// b), out and slot indices. Shared by all sets: A_log, dt_bias, one write_pos tensor per
// cursor value (every row at that cursor) and force_flush all-zero / all-one.
#pragma once
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "bench/bench_case.hpp"
#include "contract/step_args.hpp"

namespace kda::bench {

class Workspace {
 public:
  // Plans the layout only (no memory): use bytes() to size the arena.
  Workspace(const BenchCase& c, int64_t sets);
  // Places the tensors at `base` (device memory of at least bytes(), 256-byte aligned).
  Workspace(const BenchCase& c, int64_t sets, std::byte* base, std::size_t capacity);
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  std::size_t bytes() const { return used_; }
  int64_t sets() const { return sets_; }
  // Fills every tensor with plausible, non-zero values (device kernels on `stream`).
  void fill(cudaStream_t stream);
  // The step of input set `set` with every row at `cursor`; force_flush all-one when forced.
  StepArgs args(int64_t set, int64_t cursor, bool forced);

 private:
  struct View {
    std::vector<int64_t> shape;
    DLTensor dl{};
  };
  DLTensor* carve(ScalarType t, std::vector<int64_t> shape);
  void layout();

  BenchCase c_;
  int64_t sets_;
  std::byte* base_ = nullptr;
  std::size_t capacity_ = 0, used_ = 0;
  std::deque<View> views_;  // stable addresses
  std::vector<DLTensor*> qkv_, a_, b_, out_, idx_, write_pos_;
  DLTensor *A_log_ = nullptr, *dt_bias_ = nullptr, *state_ = nullptr, *d_ = nullptr, *k_ = nullptr, *g_ = nullptr;
  DLTensor *ff0_ = nullptr, *ff1_ = nullptr;
};

// How many input sets make the launches of `c` rotate through at least `min_bytes` of
// distinct memory (counting the smallest step: an append at cursor 0), capped at max_sets.
int64_t sets_for(const BenchCase& c, double min_bytes, int64_t max_sets);

}  // namespace kda::bench
