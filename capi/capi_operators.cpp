// kda_operators, kda_operator_tensors, kda_operator_scalars and kda_operator_errors: the
// engine's operator table, for callers that build calls by argument name (the Python package
// checks its keyword arguments against it) or ask which catalog errors an operator raises.
#include <map>
#include <string>

#include "capi/kda_capi.h"
#include "capi/operator_args.hpp"

namespace {

// Each operator's names of one kind, comma-separated, an optional one marked with '?'.
using NameLists = std::map<std::string, std::string>;
template <class Names, class Optional>
NameLists name_lists(Names names, Optional optional) {
  NameLists m;
  for (const kda::engine::OperatorDescription* o : kda::engine::operators()) {
    std::string s;
    for (std::string_view name : names(*o)) {
      if (!s.empty()) s += ',';
      s += name;
      if (optional(name)) s += '?';
    }
    m.emplace(std::string(o->name), s);
  }
  return m;
}

const char* find(const NameLists& lists, const char* op) {
  if (op == nullptr) return nullptr;
  const auto it = lists.find(op);
  return it == lists.end() ? nullptr : it->second.c_str();
}

}  // namespace

extern "C" {

const char* kda_operators(void) {
  static const std::string names = kda::engine::operator_names(",");
  return names.c_str();
}

const char* kda_operator_tensors(const char* op) {
  static const NameLists lists = name_lists([](const kda::engine::OperatorDescription& o) { return o.tensors; },
                                            [](std::string_view name) { return kda::capi::optional_tensor(name); });
  return find(lists, op);
}

const char* kda_operator_scalars(const char* op) {
  // A scalar absent from a default call (lower_bound's None) may be absent from any.
  static const NameLists lists = name_lists([](const kda::engine::OperatorDescription& o) { return o.scalars; },
                                            [](std::string_view name) {
                                              const kda::ScalarField* f = kda::scalar_field(name);
                                              return f != nullptr && !f->get(kda::StepArgs{}).has_value();
                                            });
  return find(lists, op);
}

const char* kda_operator_errors(const char* op) {
  static const NameLists lists = name_lists([](const kda::engine::OperatorDescription& o) { return o.raises; },
                                            [](std::string_view) { return false; });
  return find(lists, op);
}

}  // extern "C"
