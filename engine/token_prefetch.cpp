#include "engine/token_prefetch.hpp"

#include <utility>

#include "engine/phase_times.hpp"
#include "engine/spare_cores.hpp"

namespace kda::engine {
namespace {

void copy_inputs(const CaseTensors& from, CaseTensors& to) {
  to.mixed_qkv.copy_bytes_from(from.mixed_qkv);
  to.a.copy_bytes_from(from.a);
  to.b.copy_bytes_from(from.b);
  if (to.force_flush) to.force_flush->copy_bytes_from(*from.force_flush);
  to.token = from.token;
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
  if (helper_.joinable()) {
    {
      const std::lock_guard<std::mutex> hold(lock_);
      stop_ = true;
    }
    changed_.notify_all();
    helper_.join();
  }
}

void TokenPrefetch::start(int64_t token) {
  if (!spare_) return;
  {
    const std::lock_guard<std::mutex> hold(lock_);
    asked_ = token;
  }
  if (!helper_.joinable()) helper_ = std::thread([this] { work(); });
  else changed_.notify_all();
}

void TokenPrefetch::take(CaseTensors& t, int64_t token) {
  std::unique_lock<std::mutex> hold(lock_);
  if (!spare_ || asked_ != token) {
    hold.unlock();
    fill_token(t, token);
    return;
  }
  changed_.wait(hold, [&] { return made_ == token || error_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  copy_inputs(next_, t);
}

void TokenPrefetch::work() {
  std::unique_lock<std::mutex> hold(lock_);
  for (;;) {
    changed_.wait(hold, [&] { return stop_ || asked_ != made_; });
    if (stop_) return;
    const int64_t token = asked_;
    hold.unlock();
    std::exception_ptr error;
    try {
      // CPU time adds up over threads; wall time counts what the driver waits for (take()).
      if (phase_times_cpu()) timed(Phase::Fill, [&] { fill_token(next_, token); });
      else fill_token(next_, token);
    } catch (...) {
      error = std::current_exception();
    }
    hold.lock();
    made_ = token;
    error_ = error;
    changed_.notify_all();
  }
}

}  // namespace kda::engine
