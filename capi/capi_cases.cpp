// kda_cases and kda_case_*: an operator's sample space as config lines, and a case's tensors.
#include <cstring>
#include <memory>

#include "capi/status.hpp"
#include "capi/work_budget.hpp"
#include "cases/case_tensors.hpp"
#include "engine/backends/plugin_call.hpp"
#include "engine/description/envelope.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/operator_words.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/backend_cases.hpp"
#include "engine/driver/case_driver.hpp"
#include "engine/driver/case_line.hpp"

namespace {

// The named operator; NULL names the default (the table's first).
const kda::engine::OperatorDescription& operator_named(const char* op) {
  return op == nullptr ? *kda::engine::operators().front() : kda::engine::find_operator(op);
}

}  // namespace

// The operator's case of a config line: its tensors, and the call of them it takes.
struct kda_case {
  explicit kda_case(const kda::engine::OperatorCase& c)
      : config(kda::engine::config_line(c.config, *c.op)),
        op_name(c.op->name),
        tensors(kda::engine::materialize_case(*c.op, c.config)),
        view(c.op->bind(tensors.args()), nullptr, op_name.c_str(), c.op->scalars) {}
  std::string config;  // the config line of the tensors (the operator's fit of the given one)
  std::string op_name;
  kda::CaseTensors tensors;
  kda::engine::PluginCall view;
};

extern "C" {

int32_t kda_cases(const char* op, uint64_t seed, int64_t index, double work_budget, const kda_envelope* envelope,
                  char* line, size_t capacity, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    const kda::engine::OperatorDescription& o = operator_named(op);
    if (index < 0) throw std::invalid_argument("case index must be >= 0");
    const double budget = work_budget > 0 ? work_budget : kda::capi::kDefaultWorkBudget;
    const kda::engine::Envelope region =
        envelope != nullptr ? kda::engine::Envelope::from_c(*envelope, o) : kda::engine::Envelope{};
    const kda::CaseConfig c = kda::engine::draw_backend_case(o, seed, static_cast<uint64_t>(index),
                                                             kda::engine::limits::check_cases(budget), region);
    const std::string text = kda::engine::config_line(o.fit_case(c), o);
    if (line == nullptr || capacity <= text.size()) throw std::invalid_argument("line buffer too small");
    std::memcpy(line, text.c_str(), text.size() + 1);
    return KDA_OK;
  });
}

int32_t kda_case_materialize(const char* op, const char* line, kda_case** out, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    if (line == nullptr || out == nullptr) throw std::invalid_argument("line and out must not be NULL");
    *out = nullptr;
    const kda::engine::OperatorDescription* named = op == nullptr ? nullptr : &kda::engine::find_operator(op);
    *out = new kda_case(kda::engine::read_case_line(line, {named, "op", nullptr}));
    return KDA_OK;
  });
}

const char* kda_case_config(const kda_case* c) { return c == nullptr ? nullptr : c->config.c_str(); }

const kda_call* kda_case_call(const kda_case* c) { return c == nullptr ? nullptr : c->view.get(); }

void kda_case_free(kda_case* c) { delete c; }

}  // extern "C"
