// kda_cases and kda_case_*: the sample space as config lines, and a case's tensors.
#include <cstring>
#include <memory>

#include "capi/status.hpp"
#include "capi/work_budget.hpp"
#include "cases/case_tensors.hpp"
#include "engine/envelope.hpp"
#include "engine/plugin_call.hpp"
#include "engine/replayssm_sample_space.hpp"

struct kda_case {
  explicit kda_case(const kda::CaseConfig& c) : tensors(kda::materialize(c)), view(tensors.args(), nullptr) {}
  kda::CaseTensors tensors;
  kda::engine::PluginCall view;
};

namespace {

void require_replayssm(const char* op) {
  if (op != nullptr && std::strcmp(op, kda::engine::kReplaySsmOp) != 0)
    throw std::invalid_argument(std::string("unknown operator '") + op + "' (this library knows kda_replayssm)");
}

}  // namespace

extern "C" {

int32_t kda_cases(const char* op, uint64_t seed, int64_t index, double work_budget, const kda_envelope* envelope,
                  char* line, size_t capacity, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    require_replayssm(op);
    if (index < 0) throw std::invalid_argument("case index must be >= 0");
    const double budget = work_budget > 0 ? work_budget : kda::capi::kDefaultWorkBudget;
    kda::CaseConfig c =
        kda::engine::draw_case(seed, static_cast<uint64_t>(index), kda::engine::limits::check_cases(budget));
    if (envelope != nullptr) {
      const auto fitted = kda::engine::Envelope::from_c(*envelope).fit(c);
      if (!fitted) throw std::invalid_argument("no case fits the envelope");
      c = *fitted;
    }
    const std::string text = kda::to_string(c);
    if (line == nullptr || capacity <= text.size()) throw std::invalid_argument("line buffer too small");
    std::memcpy(line, text.c_str(), text.size() + 1);
    return KDA_OK;
  });
}

int32_t kda_case_materialize(const char* line, kda_case** out, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    if (line == nullptr || out == nullptr) throw std::invalid_argument("line and out must not be NULL");
    *out = nullptr;
    const kda::CaseConfig c = kda::parse_case_config(line);
    if (!kda::is_valid_config(c)) throw std::invalid_argument("not a valid case config: " + std::string(line));
    *out = new kda_case(c);
    return KDA_OK;
  });
}

const kda_call* kda_case_call(const kda_case* c) { return c == nullptr ? nullptr : c->view.get(); }

void kda_case_free(kda_case* c) { delete c; }

}  // extern "C"
