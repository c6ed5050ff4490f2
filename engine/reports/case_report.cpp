#include "engine/reports/case_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "engine/description/operator.hpp"
#include "engine/description/operator_words.hpp"

namespace kda::engine {

bool CaseReport::pass() const {
  return failure.empty() && untouched_changed == 0 && out.pass && state.pass &&
         d_ring.pass && k_ring.pass && g_ring.pass;
}

const reference::Comparison* CaseReport::worst() const {
  const reference::Comparison* w = nullptr;
  for (const auto* c : {&out, &state, &d_ring, &k_ring, &g_ring}) {
    if (c->blocks == 0) continue;
    if (w == nullptr || std::isnan(c->worst_error) || (!std::isnan(w->worst_error) && c->ratio() > w->ratio())) w = c;
  }
  return w;
}

std::string CaseReport::replay() const {
  if (!replay_line.empty()) return replay_line;
  return fmt::format("kda-harness case \"{}\" --backend {} --against {}", config_line(config, op),
                     backend_spec.empty() ? backend : backend_spec, against);
}

std::string CaseReport::tokens_run() const {
  if (tokens >= config.steps) return fmt::format("tokens {}", tokens);
  return fmt::format("tokens {} of {}{}", tokens, config.steps, pass() ? "" : " (stopped at the first failing token)");
}

std::string CaseReport::ring_counts() const {
  if (!op.empty() && has_operator(op) && !has_ring(find_operator(op))) return "";
  return fmt::format(", flushes {}, appends {}", flushes, appends);
}

std::string CaseReport::headline() const {
  const std::string h = failure_line();
  return h.empty() || note.empty() ? h : h + " [" + note + "]";
}

std::string CaseReport::failure_line() const {
  const std::string prefix = name.empty() ? "" : name + ": ";
  if (!failure.empty()) return prefix + failure;
  const std::pair<const char*, const reference::Comparison*> quantities[] = {
      {"out", &out}, {"initial_state", &state}, {"d_cache", &d_ring}, {"k_cache", &k_ring}, {"g_cache", &g_ring}};
  const reference::Comparison* w = worst();
  for (const auto& [tensor, c] : quantities)
    if (c == w && !c->pass) return fmt::format("{}{}: {}", prefix, tensor, c->describe());
  for (const auto& [tensor, c] : quantities)
    if (!c->pass) return fmt::format("{}{}: {}", prefix, tensor, c->describe());
  if (untouched_changed) return fmt::format("{}{} elements that no step may write changed", prefix, untouched_changed);
  return "";
}

std::string CaseReport::summary() const {
  std::string s;
  if (!what.empty()) {
    s = what;
  } else if (against == "error") {
    // What the backend raised, when it raised anything; a refusal that is no contract error
    // and an accepted call are the failure's to say.
    s = fmt::format("{} on {}: {}", name, backend, pass() ? "pass" : "FAIL");
    if (!error_seen.empty()) s += "\n  raised: " + error_seen;
  } else if (!outside_envelope.empty()) {
    s = fmt::format("{} on {}: {}\n  outside the backend's envelope ({}): {}", name.empty() ? config_line(config, op) : name,
                    backend, pass() ? "pass" : "FAIL", outside_envelope,
                    failure.empty() ? "refused, nothing written" : "NOT refused cleanly");
  } else {
    s = fmt::format("{}\n  {} vs {}: {}{}, rejected rows {}, max gate mass {:.3g}",
                    name.empty() ? config_line(config, op) : name, backend, against, tokens_run(), ring_counts(),
                    rejected_rows, max_gate_mass);
    if (against == "model") s += "\n  (no expected results in the file: compared with the float64 ReplaySSM model)";
    const auto line = [&s](const char* quantity, const reference::Comparison& c) {
      if (c.blocks > 0) s += fmt::format("\n  {:<6} {}", quantity, c.describe());
    };
    line("out:", out);
    line("state:", state);
    line("d:", d_ring);
    line("k:", k_ring);
    line("g:", g_ring);
    if (!name.empty())
      s += fmt::format("\n  tensors reproduced bit for bit: {}/{}; untouched elements changed: {}", tensors_bit_exact,
                       tensors_compared, untouched_changed);
  }
  if (!note.empty()) s += "\n  " + note;
  if (!failure.empty() && what.empty()) s += "\n  FAILURE: " + failure;
  return s;
}

}  // namespace kda::engine
