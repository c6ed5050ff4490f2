#include "tools/check_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <system_error>
#include <thread>

#include "engine/driver/fatal_signal.hpp"

namespace kda::cli {

void Progress::draw(const std::string& name, int64_t done, int64_t total, int64_t failed, double seconds) const {
  if (mode_ == Mode::Off) return;
  if (mode_ == Mode::Lines) {
    if (name != last_suite_) last_suite_ = name, last_ = -1;
    if (last_ >= 0 && seconds - last_ < every_) return;
    last_ = seconds;
  }
  const std::string left = done > 0 && done < total
                               ? fmt::format(", about {:.0f}s left", seconds / static_cast<double>(done) * (total - done))
                               : std::string(done >= total ? ", done" : ", estimating time left");
  const std::string failures = failed ? fmt::format(", {} failed", failed) : std::string();
  const int percent = total > 0 ? static_cast<int>(100 * done / total) : 100;
  if (mode_ == Mode::Lines) {
    std::fputs(fmt::format("{} {}/{} ({}%){}, {:.0f}s{}\n", name, done, total, percent, failures, seconds, left).c_str(),
               stderr);
    return;
  }
  constexpr int kWidth = 30;
  const int filled = total > 0 ? static_cast<int>(kWidth * done / total) : kWidth;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kWidth - filled), '.');
  std::fputs(fmt::format("\r\033[K{:<18} [{}] {}/{}{} {:.0f}s{}", name, bar, done, total, failures, seconds, left).c_str(),
             stderr);
}

void Progress::clear() const {
  if (mode_ == Mode::Bar) std::fputs("\r\033[K", stderr);
}

Progress::Mode progress_mode(bool off) {
  if (off) return Progress::Mode::Off;
  const char* term = std::getenv("TERM");
  const char* no_color = std::getenv("NO_COLOR");
  const bool redraws = isatty(STDERR_FILENO) && term != nullptr && *term != '\0' && std::string(term) != "dumb" &&
                       (no_color == nullptr || *no_color == '\0');
  return redraws ? Progress::Mode::Bar : Progress::Mode::Lines;
}

SuiteResult run_suite(const SuiteSpec& spec, const Progress& progress, int64_t keep_failures) {
  if (!spec.skip_reason.empty()) return fold_outcomes(spec, {}, {}, 0, keep_failures);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<engine::CaseReport> outcomes(static_cast<std::size_t>(spec.cases));
  std::vector<double> case_seconds(static_cast<std::size_t>(spec.cases));
  std::atomic<int64_t> next{0}, done{0}, failed{0};
  auto worker = [&](int w) {
    for (int64_t i = next++; i < spec.cases; i = next++) {
      engine::CaseReport o;
      const auto case_start = std::chrono::steady_clock::now();
      try {
        const engine::CaseInFlight flight(spec.replay ? spec.replay(i) : fmt::format("case {} of suite {}", i, spec.name));
        o = spec.run(i, w);
      } catch (const std::exception& e) {
        o.what = o.failure = std::string("exception: ") + e.what();
      } catch (...) {  // an exception leaving a worker thread would terminate the process
        o.what = o.failure = "exception of an unknown type";
      }
      if (!o.pass()) ++failed;
      case_seconds[static_cast<std::size_t>(i)] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - case_start).count();
      outcomes[static_cast<std::size_t>(i)] = std::move(o);
      ++done;
    }
  };
  const int jobs = std::max(1, std::min<int>(spec.jobs, static_cast<int>(std::max<int64_t>(spec.cases, 1))));
  std::vector<std::thread> threads;
  try {
    for (int w = 0; w < jobs; ++w) threads.emplace_back(worker, w);
  } catch (const std::system_error& e) {
    // Fewer threads than asked (no memory for their stacks, a process limit): the cases are
    // shared by those that started, or run here when none did.
    std::cerr << fmt::format("kda-harness check: {}: started {} of {} worker threads ({}); going on with {}\n",
                             spec.name, threads.size(), jobs, e.what(), std::max<std::size_t>(threads.size(), 1));
    if (threads.empty()) worker(0);
  }
  while (done.load() < spec.cases) {
    progress.draw(spec.name, done.load(), spec.cases, failed.load(), elapsed());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (auto& t : threads) t.join();
  progress.clear();
  return fold_outcomes(spec, std::move(outcomes), std::move(case_seconds), elapsed(), keep_failures);
}

SuiteResult fold_outcomes(const SuiteSpec& spec, std::vector<engine::CaseReport> outcomes, std::vector<double> case_seconds,
                          double seconds, int64_t keep_failures) {
  SuiteResult r;
  r.name = spec.name;
  r.backend = spec.backend;
  r.what = spec.what;
  r.skip_reason = spec.skip_reason;
  if (r.skipped()) return r;
  r.cases = spec.cases;
  r.seconds = seconds;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const engine::CaseReport& o = outcomes[i];
    o.pass() ? ++r.passed : ++r.failed;
    if (o.tokens > 0) {  // a rollout ran: what it tested counts toward the coverage
      r.coverage.add(o.config);
      r.tokens += o.tokens, r.flushes += o.flushes, r.appends += o.appends;
    }
    CaseOutcome c{static_cast<int64_t>(i), fmt::format("case {}{}", i, o.name.empty() ? "" : " " + o.name), o.pass(),
                  case_seconds[i]};
    if (!o.pass() && static_cast<int64_t>(r.failures.size()) < keep_failures) {
      c.kept = static_cast<int64_t>(r.failures.size());
      r.failures.push_back(o);
    }
    r.outcomes.push_back(std::move(c));
    const reference::Comparison* w = o.worst();
    if (w == nullptr) continue;
    const bool nan = std::isnan(w->worst_error);
    if (!r.worst_is_nan && (nan || w->ratio() > r.worst_ratio || r.worst_tolerance == 0)) {
      r.worst_is_nan = nan;
      r.worst_ratio = nan ? NAN : w->ratio();
      r.worst_error = w->worst_error;
      r.worst_tolerance = w->tolerance;
      r.worst_replay = o.replay();
      r.worst_detail = o.summary();
    }
  }
  return r;
}

}  // namespace kda::cli
