#include "engine/case_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kda::engine {

bool CaseReport::pass() const {
  return failure.empty() && out.pass && state.pass && d_ring.pass && k_ring.pass && g_ring.pass;
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
  return fmt::format("kda-harness case \"{}\" --backend {} --against {}{}", to_string(config),
                     backend_spec.empty() ? backend : backend_spec, against,
                     op == "kda_replayssm" ? std::string() : " --op " + op);
}

std::string CaseReport::headline() const {
  if (!failure.empty()) return failure;
  const std::pair<const char*, const reference::Comparison*> quantities[] = {
      {"out", &out}, {"initial_state", &state}, {"d_cache", &d_ring}, {"k_cache", &k_ring}, {"g_cache", &g_ring}};
  const reference::Comparison* w = worst();
  for (const auto& [name, c] : quantities)
    if (c == w && !c->pass) return fmt::format("{}: {}", name, c->describe());
  for (const auto& [name, c] : quantities)
    if (!c->pass) return fmt::format("{}: {}", name, c->describe());
  return "";
}

std::string CaseReport::summary() const {
  std::string s = fmt::format("{}\n  {} vs {}: tokens {}, flushes {}, appends {}, rejected rows {}, max gate mass {:.3g}",
                              to_string(config), backend, against, tokens, flushes, appends, rejected_rows, max_gate_mass);
  const auto line = [&s](const char* name, const reference::Comparison& c) {
    if (c.blocks > 0) s += fmt::format("\n  {:<6} {}", name, c.describe());
  };
  line("out:", out);
  line("state:", state);
  line("d:", d_ring);
  line("k:", k_ring);
  line("g:", g_ring);
  if (!failure.empty()) s += "\n  FAILURE: " + failure;
  return s;
}

}  // namespace kda::engine
