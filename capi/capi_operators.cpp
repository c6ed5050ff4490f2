// kda_operators and kda_operator_tensors: the engine's operator table, for callers that build
// calls by argument name (the Python package checks its keyword arguments against it).
#include <map>
#include <string>

#include "capi/kda_capi.h"
#include "capi/operator_args.hpp"

extern "C" {

const char* kda_operators(void) {
  static const std::string names = kda::engine::operator_names(",");
  return names.c_str();
}

const char* kda_operator_tensors(const char* op) {
  static const std::map<std::string, std::string> lists = [] {
    std::map<std::string, std::string> m;
    for (const kda::engine::OperatorDescription* o : kda::engine::operators()) {
      std::string s;
      for (std::string_view name : o->tensors) {
        if (!s.empty()) s += ',';
        s += name;
        if (kda::capi::optional_tensor(name)) s += '?';
      }
      m.emplace(std::string(o->name), s);
    }
    return m;
  }();
  if (op == nullptr) return nullptr;
  const auto it = lists.find(op);
  return it == lists.end() ? nullptr : it->second.c_str();
}

}  // extern "C"
