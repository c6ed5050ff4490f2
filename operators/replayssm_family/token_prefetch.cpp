#include "operators/replayssm_family/token_prefetch.hpp"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include <unistd.h>

#include "engine/reports/phase_times.hpp"
#include "engine/oracles/spare_cores.hpp"

namespace kda::engine {
namespace {

void copy_inputs(const CaseTensors& from, CaseTensors& to) {
  to.mixed_qkv.copy_bytes_from(from.mixed_qkv);
  to.a.copy_bytes_from(from.a);
  to.b.copy_bytes_from(from.b);
  if (to.force_flush) to.force_flush->copy_bytes_from(*from.force_flush);
  to.token = from.token;
}

// A helper thread per thread that plays cases, kept for its later cases (a thread made and
// joined per case cost about 0.1 ms of a case's 4-5 on the H200 host). One task at a time.
// Never joined nor freed: it waits for work until the process ends.
class Helper {
 public:
  Helper() { std::thread([this] { serve(); }).detach(); }
  // Runs `task` on the helper, after the task before it.
  void post(std::function<void()> task) {
    std::unique_lock<std::mutex> hold(lock_);
    changed_.wait(hold, [&] { return !busy_; });
    task_ = std::move(task);
    busy_ = true;
    changed_.notify_all();
  }
  // Waits until the posted task ran.
  void wait() {
    std::unique_lock<std::mutex> hold(lock_);
    changed_.wait(hold, [&] { return !busy_; });
  }
  const pid_t owner = getpid();

 private:
  void serve() {
    std::unique_lock<std::mutex> hold(lock_);
    for (;;) {
      changed_.wait(hold, [&] { return task_ != nullptr; });
      const std::function<void()> task = std::exchange(task_, nullptr);
      hold.unlock();
      task();  // catches what it throws
      hold.lock();
      busy_ = false;
      changed_.notify_all();
    }
  }

  std::mutex lock_;
  std::condition_variable changed_;
  std::function<void()> task_;
  bool busy_ = false;
};

// This thread's helper (a child forked from a process with one makes its own).
Helper& helper() {
  thread_local Helper* h = nullptr;
  if (h == nullptr || h->owner != getpid()) h = new Helper;
  return *h;
}

}  // namespace

TokenPrefetch::TokenPrefetch(const CaseTensors& t) {
  spare_ = spare_cores() >= 1 && t.config.steps > 1;
  if (!spare_) return;
  next_.config = t.config;
  next_.token = t.token;
  next_.mixed_qkv = t.mixed_qkv;
  next_.a = t.a;
  next_.b = t.b;
  next_.A_log = t.A_log;
  next_.dt_bias = t.dt_bias;
  next_.force_flush = t.force_flush;
}

TokenPrefetch::~TokenPrefetch() {
  if (asked_ >= 0) helper().wait();  // a fill in progress writes next_
}

void TokenPrefetch::start(int64_t token) {
  if (!spare_) return;
  if (asked_ >= 0) helper().wait();
  asked_ = token;
  error_ = nullptr;
  helper().post([this, token] {
    try {
      // CPU time adds up over threads; wall time counts what the driver waits for (take()).
      if (phase_times_cpu()) timed(Phase::Fill, [&] { fill_token(next_, token); });
      else fill_token(next_, token);
    } catch (...) {
      error_ = std::current_exception();
    }
  });
}

void TokenPrefetch::take(CaseTensors& t, int64_t token) {
  if (!spare_ || asked_ != token) {
    fill_token(t, token);
    return;
  }
  helper().wait();
  asked_ = -1;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  copy_inputs(next_, t);
}

}  // namespace kda::engine
