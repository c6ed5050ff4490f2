#include "engine/description/error_inputs.hpp"

#include <algorithm>
#include <stdexcept>

namespace kda::engine {

DLDevice other_device(DLDevice d) {
  return d.device_type == kDLCPU ? DLDevice{kDLCUDA, 0} : DLDevice{kDLCUDA, d.device_id + 1};
}

Expected expect(std::string_view id, std::initializer_list<MessageArg> args) {
  return {std::string(id), catalog_message(id, args)};
}

MutationResult apply_mutations(std::span<const ErrorInput> inputs, MutationTarget& target, std::vector<Mutation> set) {
  std::sort(set.begin(), set.end(), [](const Mutation& x, const Mutation& y) { return x.input > y.input; });
  MutationResult r;
  for (const Mutation& m : set) {
    if (m.input >= inputs.size()) throw std::out_of_range("apply_mutations: no such error input");
    if (std::optional<Expected> e = inputs[m.input].apply(target, m.variant)) {
      r.expected = std::move(e);
      r.applied.push_back(m);
    }
  }
  return r;
}

std::vector<Mutation> sample_mutations(Chooser& c, std::size_t input_count, int max_size) {
  std::vector<Mutation> set;
  const int n = static_cast<int>(c.integer(0, max_size));
  for (int i = 0; i < n; ++i) {
    Mutation m;
    m.input = static_cast<std::size_t>(c.integer(0, static_cast<int64_t>(input_count) - 1));
    m.variant = static_cast<uint32_t>(c.integer(0, 63));
    if (std::none_of(set.begin(), set.end(), [&](const Mutation& x) { return x.input == m.input; })) set.push_back(m);
  }
  return set;
}

std::size_t error_input_index(std::span<const ErrorInput> inputs, std::string_view label) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].label == label) return i;
  throw std::out_of_range("no error input " + std::string(label));
}

std::string describe(std::span<const ErrorInput> inputs, const std::vector<Mutation>& set) {
  std::string s;
  for (const Mutation& m : set) {
    if (!s.empty()) s += " + ";
    s += (m.input < inputs.size() ? inputs[m.input].label : std::string("?")) + "#" + std::to_string(m.variant);
  }
  return s.empty() ? "none" : s;
}

}  // namespace kda::engine
