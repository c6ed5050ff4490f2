// The driver with a backend that steps in two halves (Backend::start_step, finish_step), as
// the CUDA backends do, here on the CPU: a backend that computes the reference step on its
// own copies of the tensors on another thread. The reports must be those of the same step
// taken whole; the oracle prepares while the step is in flight; whatever the step writes or
// refuses is judged after finish_step as after step(). And the token prefetch (the next
// token's inputs made on a helper thread) gives fill_token's bytes, and the helper threads'
// items (engine/oracles/spare_cores.hpp) run once each. KDA_FILL_THREADS=3 gives every case helper
// threads, also on a machine of two cores.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "contract/step_fields.hpp"
#include "contract/tensor_view.hpp"
#include "engine/backends/backend.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/backend_cases.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/oracles/oracle.hpp"
#include "engine/oracles/spare_cores.hpp"
#include "engine/reports/phase_times.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "operators/replayssm_family/token_prefetch.hpp"
#include "reference/rounding.hpp"

namespace kda::engine {
namespace {

std::byte* bytes_of(const DLTensor& t) { return static_cast<std::byte*>(t.data) + t.byte_offset; }

// The reference step on copies of the call's tensors, computed on another thread between
// start_step and finish_step, which copies every tensor back (as a GPU backend downloads).
// `after` may change the copies once the step is done (a planted fault).
class AsyncReference final : public Backend {
 public:
  // Its tensors are its own copies, not lent host memory: the driver does not lend them
  // through host guard regions (engine/driver/host_guards.hpp), as for a GPU backend.
  explicit AsyncReference(const OperatorDescription& op = default_operator()) : op_(op) {
    envelope_.device = Device::Cuda;
    envelope_.invalid_rows = InvalidRows::Raise;  // the reference step's
  }
  std::string name() const override { return "reference"; }
  const Envelope& envelope() const override { return envelope_; }
  const OperatorDescription& op() const override { return op_; }
  void step(const StepArgs&) override { ++whole_steps; }
  bool start_step(const StepArgs& host) override {
    in_flight = true;
    host_ = host;
    copy_ = host;
    for (std::size_t i = 0; i < kStepTensors.size(); ++i) {
      const DLTensor* t = kStepTensors[i].get(host);
      if (t == nullptr) continue;
      copies_[i] = HostTensor(*scalar_type_of(t->dtype), shape_of(*t), strides_of(*t));
      std::memcpy(copies_[i].storage().data(), bytes_of(*t), copies_[i].storage().size());
      kStepTensors[i].set(copy_, &copies_[i].dl());
    }
    running_ = std::async(std::launch::async, [this] {
      op_.reference_step(copy_, reference::Rounding::Kernel);
      if (after) after(copy_);
    });
    return true;
  }
  void finish_step() override {
    in_flight = false;
    ++finished;
    std::exception_ptr refusal;
    try {
      running_.get();
    } catch (...) {
      refusal = std::current_exception();
    }
    for (std::size_t i = 0; i < kStepTensors.size(); ++i)
      if (const DLTensor* t = kStepTensors[i].get(host_))
        std::memcpy(bytes_of(*t), copies_[i].storage().data(), copies_[i].storage().size());
    if (refusal) std::rethrow_exception(refusal);
  }

  std::function<void(const StepArgs&)> after;
  bool in_flight = false;
  int whole_steps = 0, finished = 0;

 private:
  const OperatorDescription& op_;
  Envelope envelope_;
  StepArgs host_, copy_;
  std::array<HostTensor, kStepTensors.size()> copies_;
  std::future<void> running_;
};

// Helper threads for every case here (the oracle's per-head bounds, the token prefetch), and
// the phase timers in CPU time (read once, at their first use).
const bool kThreads = setenv("KDA_FILL_THREADS", "3", 1) == 0;
const bool kPhaseTimes = setenv("KDA_PHASE_TIMES", "cpu", 1) == 0;

TEST(AsyncStep, GivesTheReportsOfTheWholeStep) {
  ASSERT_TRUE(kThreads);
  for (const OperatorDescription* op : {&default_operator(), &find_operator("kda_packed_decode"),
                                        &find_operator("gdn_replayssm")}) {
    for (uint64_t i = 0; i < 12; ++i) {
      const CaseConfig c = draw_backend_case(default_operator(), 3, i, limits::check_cases(2e5), Envelope{});
      const std::unique_ptr<Backend> whole = make_backend("reference", *op);
      AsyncReference halves(*op);
      // The whole step on one thread, the halves with helpers: the same reports.
      setenv("KDA_FILL_THREADS", "1", 1);
      const CaseReport a = run_vs_reference(c, *whole);
      setenv("KDA_FILL_THREADS", "3", 1);
      const CaseReport b = run_vs_reference(c, halves);
      EXPECT_EQ(a.summary(), b.summary()) << op->name << " " << to_string(c);
      EXPECT_EQ(halves.whole_steps, 0);
      EXPECT_EQ(halves.finished, b.tokens);
      EXPECT_TRUE(b.pass()) << b.summary();
    }
  }
}

TEST(AsyncStep, ARefusedRowIsJudgedAsAfterAWholeStep) {
  const CaseConfig c = parse_case_config("B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 steps=3 seed=9");
  const auto invalid_slot = [](CaseTensors& t, int64_t token) {
    if (token == 1) t.ssm_state_indices.set_linear(1, 99);
  };
  const std::unique_ptr<Backend> whole = make_backend("reference");
  AsyncReference halves;
  const CaseReport a = run_vs_reference(c, *whole, invalid_slot), b = run_vs_reference(c, halves, invalid_slot);
  EXPECT_EQ(a.summary(), b.summary());
  EXPECT_TRUE(b.pass()) << b.summary();
  EXPECT_GT(b.rejected_rows, 0);
}

TEST(AsyncStep, AWriteOutsideTheFootprintIsCaughtAfterFinish) {
  const CaseConfig c = parse_case_config("B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 steps=3 seed=9");
  AsyncReference halves;
  halves.after = [](const StepArgs& a) { bytes_of(*a.mixed_qkv)[5] ^= std::byte{1}; };  // an input
  const CaseReport r = run_vs_reference(c, halves);
  EXPECT_FALSE(r.pass());
  EXPECT_NE(r.failure.find("mixed_qkv"), std::string::npos) << r.failure;
}

// A backend that refuses the step (the reference step raises on the invalid slot) after
// writing a byte: the refusal comes from finish_step, and "nothing written" is judged after it.
class WritesThenRefuses final : public Backend {
 public:
  WritesThenRefuses() {
    envelope_.device = Device::Cuda;
    envelope_.invalid_rows = InvalidRows::Raise;  // it claims to refuse them, and writes first
  }
  std::string name() const override { return "reference"; }
  const Envelope& envelope() const override { return envelope_; }
  void step(const StepArgs&) override {}
  bool start_step(const StepArgs& host) override {
    host_ = host;
    return true;
  }
  void finish_step() override {
    try {
      default_operator().reference_step(host_, reference::Rounding::Kernel);
    } catch (...) {
      bytes_of(*host_.d_cache)[0] ^= std::byte{1};
      throw;
    }
  }

 private:
  Envelope envelope_;
  StepArgs host_;
};

TEST(AsyncStep, ARefusalThatWroteIsCaught) {
  const CaseConfig c = parse_case_config("B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 steps=3 seed=9");
  const auto invalid_slot = [](CaseTensors& t, int64_t token) {
    if (token == 1) t.ssm_state_indices.set_linear(1, 99);
  };
  WritesThenRefuses planted;
  const CaseReport r = run_vs_reference(c, planted, invalid_slot);
  EXPECT_FALSE(r.pass());
  EXPECT_NE(r.failure.find("token 1: refused, but wrote"), std::string::npos) << r.failure;
}

// An oracle that records whether the backend's step was in flight when it prepared.
class Recording final : public Oracle {
 public:
  explicit Recording(const AsyncReference& b) : b_(b) {}
  void before_step(const StepView&) override { in_flight.push_back(b_.in_flight); }
  void judge_step(const StepView&, CaseReport&) override { judged += !b_.in_flight; }
  void finish(const StepView&, CaseReport&) override {}
  std::vector<bool> in_flight;
  int judged = 0;

 private:
  const AsyncReference& b_;
};

TEST(AsyncStep, TheOraclePreparesWhileTheStepIsInFlight) {
  const CaseConfig c = parse_case_config("B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 steps=4 seed=9");
  CaseTensors t = materialize_replayssm_case(c);
  AsyncReference halves;
  Recording oracle(halves);
  CasePlay play{t, c.steps, [&t](int64_t token) { fill_token(t, token); }, true, nullptr};
  CaseReport r = start_report(c, halves, "recording");
  run_case(play, halves, oracle, r);
  EXPECT_EQ(oracle.in_flight, std::vector<bool>(4, true));
  EXPECT_EQ(oracle.judged, 4);
}

TEST(SpareCores, EveryItemRunsOnceAndAnErrorComesBack) {
  ASSERT_EQ(spare_cores(), 2);
  for (int64_t n : {0, 1, 2, 7, 100}) {
    std::vector<int> runs(static_cast<std::size_t>(n), 0);
    for_each_item(n, 1e9, [&](int64_t i) { ++runs[static_cast<std::size_t>(i)]; });
    EXPECT_EQ(runs, std::vector<int>(static_cast<std::size_t>(n), 1)) << n;
  }
  std::atomic<int> ran{0};
  EXPECT_THROW(for_each_item(50, 1e9,
                             [&](int64_t i) {
                               ++ran;
                               if (i == 17) throw std::runtime_error("item 17");
                             }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 50);
  for_each_item(5, 1e9, [](int64_t) {});  // the pool still serves after an error
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// In CPU time the helpers' share of a call counts as the caller's phase: every item's CPU
// time shows in the phase (it did not, for the items the helpers ran).
TEST(SpareCores, AHelpersCpuTimeCountsAsTheCallersPhase) {
  ASSERT_TRUE(kPhaseTimes);
  ASSERT_TRUE(phase_times_cpu());
  std::mutex lock;
  std::set<std::thread::id> threads;
  std::condition_variable two_threads;
  std::atomic<int64_t> item_nanos{0};
  const double before = phase_totals().seconds[static_cast<int>(Phase::Reference)];
  {
    const PhaseScope reference(Phase::Reference);
    for_each_item(8, 1e9, [&](int64_t) {
      {
        // No item ends before a helper has started one: helpers surely take part.
        std::unique_lock<std::mutex> hold(lock);
        threads.insert(std::this_thread::get_id());
        two_threads.notify_all();
        two_threads.wait_for(hold, std::chrono::seconds(10), [&] { return threads.size() >= 2; });
      }
      const double start = thread_cpu_seconds();
      volatile double x = 0;
      while (thread_cpu_seconds() - start < 0.01) x = x + 1;  // 10 ms of CPU
      item_nanos += static_cast<int64_t>(1e9 * (thread_cpu_seconds() - start));
    });
  }
  ASSERT_GE(threads.size(), 2u);
  const double counted = phase_totals().seconds[static_cast<int>(Phase::Reference)] - before;
  EXPECT_GE(counted, 1e-9 * static_cast<double>(item_nanos.load()));
}

TEST(TokenPrefetch, GivesTheBytesOfFillToken) {
  for (uint64_t i = 0; i < 40; ++i) {
    CaseConfig c = draw_backend_case(default_operator(), 11, i, limits::check_cases(2e5), Envelope{});
    c.steps = std::max<int64_t>(c.steps, 3);
    const CaseTensors materialized = materialize_replayssm_case(c);
    CaseTensors prefetched = materialized, direct = materialized;
    TokenPrefetch prefetch(prefetched);
    prefetch.start(1);
    for (int64_t token = 1; token < c.steps; ++token) {
      prefetch.take(prefetched, token);
      if (token + 1 < c.steps) prefetch.start(token + 1);
      fill_token(direct, token);
      EXPECT_EQ(prefetched.token, token);
      EXPECT_EQ(prefetched.mixed_qkv.storage(), direct.mixed_qkv.storage()) << to_string(c);
      EXPECT_EQ(prefetched.a.storage(), direct.a.storage()) << to_string(c);
      EXPECT_EQ(prefetched.b.storage(), direct.b.storage()) << to_string(c);
      ASSERT_EQ(prefetched.force_flush.has_value(), direct.force_flush.has_value());
      if (direct.force_flush) {
        EXPECT_EQ(prefetched.force_flush->storage(), direct.force_flush->storage());
      }
    }
    prefetch.take(prefetched, 1);  // a token not asked for is made in place
    fill_token(direct, 1);
    EXPECT_EQ(prefetched.mixed_qkv.storage(), direct.mixed_qkv.storage());
  }
}

}  // namespace
}  // namespace kda::engine
