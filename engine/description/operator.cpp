#include "engine/description/operator.hpp"

#include <algorithm>

#include <stdexcept>

#include <fmt/format.h>

#include "engine/description/counter_chooser.hpp"

namespace kda::engine {

const OperatorDescription& default_operator() { return *operators().front(); }

bool has_operator(std::string_view name) {
  return std::any_of(operators().begin(), operators().end(), [&](const OperatorDescription* op) { return op->name == name; });
}

const OperatorDescription& find_operator(std::string_view name) {
  for (const OperatorDescription* op : operators())
    if (op->name == name) return *op;
  throw std::invalid_argument(fmt::format("unknown operator '{}' ({})", name, operator_names(", ")));
}

std::string operator_names(std::string_view separator) {
  std::string s;
  for (const OperatorDescription* op : operators())
    s += (s.empty() ? "" : std::string(separator)) + std::string(op->name);
  return s;
}

bool raises(const OperatorDescription& op, std::string_view id) {
  return std::find(op.raises.begin(), op.raises.end(), id) != op.raises.end();
}

std::vector<std::string> operators_raising(std::string_view id) {
  std::vector<std::string> out;
  for (const OperatorDescription* op : operators())
    if (raises(*op, id)) out.emplace_back(op->name);
  return out;
}

bool takes(const OperatorDescription& op, std::string_view tensor) {
  return std::find(op.tensors.begin(), op.tensors.end(), tensor) != op.tensors.end();
}

OperatorCase fit(const OperatorDescription& op, const CaseConfig& c) { return {&op, op.fit_case(c)}; }

CaseConfig draw_case(const OperatorDescription& op, uint64_t seed, uint64_t index, const SampleLimits& limits) {
  CounterChooser c(seed, stream::kCheckCases, index);
  return op.sample_case(c, limits);
}

}  // namespace kda::engine
