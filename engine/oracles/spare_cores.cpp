#include "engine/oracles/spare_cores.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

#include "engine/reports/phase_times.hpp"

namespace kda::engine {
namespace {

std::atomic<int> g_playing{0};

// Below this many elements per thread a wake-up costs more than the work.
constexpr double kWorkPerThread = 32768;
// More threads than this gain little on the items handed out (a case's heads).
constexpr int kMostHelpers = 8;

// A fixed set of threads that run the items of one call at a time. Each call publishes its
// items under the lock; threads take the next index from an atomic counter.
class Pool {
 public:
  // Runs the items with `helpers` threads besides the caller's; false (nothing ran) when
  // another call holds the pool.
  bool run(int64_t n, int helpers, const std::function<void(int64_t)>& item) {
    // A child forked from a process with helpers has none of them (check --isolate).
    if (getpid() != owner_) return false;
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    for (int i = static_cast<int>(threads_.size()) + 1; i <= helpers; ++i)
      threads_.emplace_back([this, i] { serve(i); });
    {
      const std::lock_guard<std::mutex> hold(lock_);
      item_ = &item;
      n_ = n;
      next_ = 0;
      left_ = n;
      helpers_ = helpers;
      phase_ = current_phase();
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock<std::mutex> hold(lock_);
    done_.wait(hold, [&] { return left_ == 0 && inside_ == 0; });
    item_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return true;
  }

 private:
  // Helper `index` (1, 2, ...): it joins a call that asks for at least that many.
  void serve(int index) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> hold(lock_);
    for (;;) {
      wake_.wait(hold, [&] { return generation_ != seen; });
      seen = generation_;
      if (index > helpers_ || item_ == nullptr) continue;
      ++inside_;
      const Phase phase = phase_;
      hold.unlock();
      if (phase_times_cpu()) {  // CPU time adds up over threads: the caller's phase gets it
        const PhaseScope timing(phase);
        work();
      } else {
        work();
      }
      hold.lock();
      --inside_;
      done_.notify_all();
    }
  }

  // Takes items until none is left.
  void work() {
    for (;;) {
      const int64_t i = next_.fetch_add(1);
      if (i >= n_) return;
      std::exception_ptr error;
      try {
        (*item_)(i);
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard<std::mutex> hold(lock_);
      if (error && !error_) error_ = error;
      if (--left_ == 0) done_.notify_all();
    }
  }

  std::mutex busy_;  // held by the call being run
  std::mutex lock_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(int64_t)>* item_ = nullptr;
  int64_t n_ = 0, left_ = 0;
  std::atomic<int64_t> next_{0};
  int helpers_ = 0, inside_ = 0;
  Phase phase_ = Phase::Other;  // the caller's
  uint64_t generation_ = 0;
  std::exception_ptr error_;
  const pid_t owner_ = getpid();
};

// Never destroyed: its threads wait for work until the process ends.
Pool& pool() {
  static Pool* const p = new Pool;
  return *p;
}

}  // namespace

PlayingCase::PlayingCase() { g_playing.fetch_add(1); }
PlayingCase::~PlayingCase() { g_playing.fetch_sub(1); }

int spare_cores() {
  if (const char* v = std::getenv("KDA_FILL_THREADS"); v != nullptr && *v != '\0') return std::max(0, std::atoi(v) - 1);
  static const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return cores >= 4 ? std::max(0, cores / std::max(1, g_playing.load()) - 1) : 0;
}

void for_each_item(int64_t n, double work, const std::function<void(int64_t)>& item) {
  const int helpers = static_cast<int>(
      std::min<double>({static_cast<double>(spare_cores()), static_cast<double>(kMostHelpers),
                        static_cast<double>(n - 1), work / kWorkPerThread - 1}));
  if (helpers >= 1 && pool().run(n, helpers, item)) return;
  for (int64_t i = 0; i < n; ++i) item(i);
}

}  // namespace kda::engine
