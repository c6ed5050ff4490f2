#include "tools/check_isolated.hpp"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "engine/driver/fatal_signal.hpp"
#include "tools/child_group.hpp"

namespace kda::cli {
namespace {

using Json = nlohmann::json;

Json number(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
}

double number_of(const Json& j) {
  if (j.is_number()) return j.get<double>();
  const std::string s = j.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  return s == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}

Json comparison(const reference::Comparison& c) {
  return {{"worst_error", number(c.worst_error)}, {"worst_block", c.worst_block}, {"blocks", c.blocks},
          {"failed", c.failed},  {"tolerance", number(c.tolerance)}, {"pass", c.pass},
          {"where", c.where}};
}

reference::Comparison comparison_of(const Json& j) {
  reference::Comparison c;
  c.worst_error = number_of(j.at("worst_error"));
  c.worst_block = j.at("worst_block");
  c.blocks = j.at("blocks");
  c.failed = j.at("failed");
  c.tolerance = number_of(j.at("tolerance"));
  c.pass = j.at("pass");
  c.where = j.at("where");
  return c;
}

// Why a child gave no report: its wait status, or the timeout that killed it.
std::string death(int status, bool timed_out, double timeout) {
  if (timed_out) return fmt::format("the backend hung: no result within {:g} s (--case-timeout), killed", timeout);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return fmt::format("the backend crashed: killed by signal {} (SIG{}: {})", sig,
                       sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", sigdescr_np(sig) ? sigdescr_np(sig) : "?");
  }
  if (WIFEXITED(status)) return fmt::format("the backend ended the process (exit status {}) before the case ended", WEXITSTATUS(status));
  return "the case's process ended without a result";
}

// In the child: runs case i, writes its report and the end marker to fd, ends without running
// the parent's destructors or exit handlers.
[[noreturn]] void run_child(const SuiteSpec& spec, int64_t i, int worker, int fd) {
  engine::keep_exit_status_of_cases();  // the parent reports how the child ended
  engine::send_fault_notes_to(fd);
  std::string text;
  {
    const engine::CaseInFlight flight(spec.replay(i));
    engine::CaseReport r;
    try {
      r = spec.run(i, worker);
    } catch (const std::exception& e) {
      r.what = r.failure = std::string("exception: ") + e.what();
    } catch (...) {
      r.what = r.failure = "exception of an unknown type";
    }
    text = report_to_wire(r);
  }
  text += kEndOfReport;
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(3);
    p += w, left -= static_cast<std::size_t>(w);
  }
  _exit(0);
}

// What the child's fatal-signal report said of its fault (send_fault_notes_to), as ": ..." to
// follow the cause of death; "" when it said nothing.
std::string fault_note(const std::string& data) {
  constexpr std::string_view kPrefix = "fault: ";
  if (data.compare(0, kPrefix.size(), kPrefix) != 0) return "";
  const std::size_t end = std::min(data.find('\n'), std::size_t{1024});  // one line, and not a long one
  return ": " + data.substr(kPrefix.size(), end - kPrefix.size());
}

// A case's report from how its child ended and what it wrote: only a child that exited with
// status 0 after writing a whole report (up to the end marker) passes its report on.
std::optional<engine::CaseReport> report_of(const std::string& data, int status, bool timed_out) {
  if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  if (data.empty() || data.back() != kEndOfReport) return std::nullopt;
  try {
    return report_from_wire(data.substr(0, data.size() - 1));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string report_to_wire(const engine::CaseReport& r) {
  Json j;
  j["config"] = to_string(r.config);
  j["name"] = r.name, j["backend"] = r.backend, j["backend_spec"] = r.backend_spec, j["against"] = r.against;
  j["op"] = r.op, j["replay_line"] = r.replay_line, j["what"] = r.what, j["note"] = r.note;
  j["tokens"] = r.tokens, j["flushes"] = r.flushes, j["appends"] = r.appends, j["rejected_rows"] = r.rejected_rows;
  j["max_gate_mass"] = number(r.max_gate_mass), j["max_cancellation"] = number(r.max_cancellation);
  j["out"] = comparison(r.out), j["state"] = comparison(r.state), j["d_ring"] = comparison(r.d_ring);
  j["k_ring"] = comparison(r.k_ring), j["g_ring"] = comparison(r.g_ring);
  j["untouched_changed"] = r.untouched_changed, j["tensors_compared"] = r.tensors_compared;
  j["tensors_bit_exact"] = r.tensors_bit_exact;
  j["error_seen"] = r.error_seen, j["outside_envelope"] = r.outside_envelope, j["failure"] = r.failure;
  return j.dump();
}

engine::CaseReport report_from_wire(const std::string& text) {
  const Json j = Json::parse(text);
  engine::CaseReport r;
  r.config = parse_case_config(j.at("config").get<std::string>());
  r.name = j.at("name"), r.backend = j.at("backend"), r.backend_spec = j.at("backend_spec"), r.against = j.at("against");
  r.op = j.at("op"), r.replay_line = j.at("replay_line"), r.what = j.at("what"), r.note = j.at("note");
  r.tokens = j.at("tokens"), r.flushes = j.at("flushes"), r.appends = j.at("appends");
  r.rejected_rows = j.at("rejected_rows");
  r.max_gate_mass = number_of(j.at("max_gate_mass")), r.max_cancellation = number_of(j.at("max_cancellation"));
  r.out = comparison_of(j.at("out")), r.state = comparison_of(j.at("state")), r.d_ring = comparison_of(j.at("d_ring"));
  r.k_ring = comparison_of(j.at("k_ring")), r.g_ring = comparison_of(j.at("g_ring"));
  r.untouched_changed = j.at("untouched_changed"), r.tensors_compared = j.at("tensors_compared");
  r.tensors_bit_exact = j.at("tensors_bit_exact");
  r.error_seen = j.at("error_seen"), r.outside_envelope = j.at("outside_envelope"), r.failure = j.at("failure");
  return r;
}

SuiteResult run_suite_isolated(const SuiteSpec& spec, const Progress& progress, double timeout, int64_t keep_failures) {
  if (!spec.replay) throw std::logic_error("run_suite_isolated: suite " + spec.name + " has no replay lines");
  if (!spec.skip_reason.empty()) return run_suite(spec, progress, keep_failures);  // nothing runs
  const auto start = std::chrono::steady_clock::now();
  const auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  std::vector<engine::CaseReport> outcomes(static_cast<std::size_t>(std::max<int64_t>(spec.cases, 0)));
  std::vector<double> case_seconds(outcomes.size());
  struct Running {
    int64_t index = 0;
    int worker = 0;
    std::chrono::steady_clock::time_point start;
    bool timed_out = false;
  };
  ChildGroups groups;
  std::vector<Running> running;  // beside groups.children(), index for index
  std::vector<bool> worker_busy(static_cast<std::size_t>(std::max(1, spec.jobs)), false);
  int64_t next = 0, done = 0, failed = 0;

  const auto finish = [&](std::size_t k) {
    const Running c = running[k];
    running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    const auto [data, status] = groups.collect(k);
    std::optional<engine::CaseReport> reported = report_of(data, status, c.timed_out);
    engine::CaseReport r;
    if (reported) {
      r = std::move(*reported);
    } else {
      r.failure = death(status, c.timed_out, timeout) + fault_note(data);
      r.what = fmt::format("case {} of suite {}: {}", c.index, spec.name, r.failure);
      r.replay_line = spec.replay(c.index);
    }
    if (!r.pass()) ++failed;
    case_seconds[static_cast<std::size_t>(c.index)] = since(c.start);
    outcomes[static_cast<std::size_t>(c.index)] = std::move(r);
    worker_busy[static_cast<std::size_t>(c.worker)] = false;
    ++done;
  };

  while (done < spec.cases) {
    while (next < spec.cases && running.size() < worker_busy.size()) {
      int worker = 0;
      while (worker_busy[static_cast<std::size_t>(worker)]) ++worker;
      const int64_t index = next;
      groups.spawn([&](int fd) { run_child(spec, index, worker, fd); });
      worker_busy[static_cast<std::size_t>(worker)] = true;
      running.push_back({next++, worker, std::chrono::steady_clock::now(), false});
    }
    groups.poll_output(100);
    for (std::size_t k = 0; k < running.size();) {
      if (groups.has_ended(k)) {
        finish(k);
        continue;
      }
      if (!running[k].timed_out && timeout > 0 && since(running[k].start) > timeout) {
        running[k].timed_out = true;
        groups.kill_group(k);
      }
      ++k;
    }
    progress.draw(spec.name, done, spec.cases, failed, since(start));
  }
  progress.clear();
  return fold_outcomes(spec, std::move(outcomes), std::move(case_seconds), since(start), keep_failures);
}

}  // namespace kda::cli
