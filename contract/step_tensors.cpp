#include "contract/step_tensors.hpp"

#include <stdexcept>
#include <string>
#include <utility>


namespace kda {

namespace {

using Member = HostTensor StepTensors::*;
using Optional = std::optional<HostTensor> StepTensors::*;
constexpr std::pair<std::string_view, Member> kMembers[] = {
    {"mixed_qkv", &StepTensors::mixed_qkv}, {"a", &StepTensors::a}, {"b", &StepTensors::b},
    {"A_log", &StepTensors::A_log}, {"dt_bias", &StepTensors::dt_bias}, {"initial_state", &StepTensors::initial_state},
    {"d_cache", &StepTensors::d_cache}, {"k_cache", &StepTensors::k_cache}, {"g_cache", &StepTensors::g_cache},
    {"out", &StepTensors::out}, {"ssm_state_indices", &StepTensors::ssm_state_indices},
    {"write_pos", &StepTensors::write_pos}};
constexpr std::pair<std::string_view, Optional> kOptional[] = {
    {"force_flush", &StepTensors::force_flush}, {"cache_base", &StepTensors::cache_base}, {"q", &StepTensors::q},
    {"k", &StepTensors::k}, {"v", &StepTensors::v}, {"g", &StepTensors::g}, {"beta", &StepTensors::beta},
    {"num_accepted_tokens", &StepTensors::num_accepted_tokens}};

Optional optional_member(std::string_view name) {
  for (const auto& [n, m] : kOptional)
    if (n == name) return m;
  return nullptr;
}

}  // namespace

HostTensor& StepTensors::at(std::string_view name) {
  for (const auto& [n, m] : kMembers)
    if (n == name) return this->*m;
  if (const Optional m = optional_member(name)) return (this->*m) ? *(this->*m) : (this->*m).emplace();
  throw std::invalid_argument("no tensor argument named " + std::string(name));
}

bool StepTensors::is_optional(std::string_view name) { return optional_member(name) != nullptr; }

void StepTensors::drop(std::string_view name) {
  const Optional m = optional_member(name);
  if (m == nullptr) throw std::invalid_argument("no optional tensor argument named " + std::string(name));
  (this->*m).reset();
}

StepArgs StepTensors::args() {
  StepArgs s;
  s.scale = scale;
  s.use_qk_l2norm_in_kernel = use_qk_l2norm_in_kernel;
  s.lower_bound = lower_bound;
  s.nk = nk;
  s.circular_replay = circular_replay;
  s.prefix_gate_cache = prefix_gate_cache;
  s.predecayed_k_cache = predecayed_k_cache;
  s.use_gate_in_kernel = use_gate_in_kernel;
  s.use_beta_sigmoid_in_kernel = use_beta_sigmoid_in_kernel;
  s.allow_neg_eigval = allow_neg_eigval;
  s.state_v_first = state_v_first;
  s.mixed_qkv = &mixed_qkv.dl();
  s.a = &a.dl();
  s.b = &b.dl();
  s.A_log = &A_log.dl();
  s.dt_bias = &dt_bias.dl();
  s.initial_state = &initial_state.dl();
  s.d_cache = &d_cache.dl();
  s.k_cache = &k_cache.dl();
  s.g_cache = &g_cache.dl();
  s.out = &out.dl();
  s.ssm_state_indices = &ssm_state_indices.dl();
  s.write_pos = &write_pos.dl();
  s.force_flush = force_flush ? &force_flush->dl() : nullptr;
  s.cache_base = cache_base ? &cache_base->dl() : nullptr;
  const auto view = [](const std::optional<HostTensor>& t) -> const DLTensor* { return t ? &t->dl() : nullptr; };
  s.q = view(q);
  s.k = view(k);
  s.v = view(v);
  s.g = view(g);
  s.beta = view(beta);
  s.num_accepted_tokens = view(num_accepted_tokens);
  return s;
}

}  // namespace kda
