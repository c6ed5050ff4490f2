// A message rendered from the error catalog (contract/error_catalog.json), the one place
// where messages are written, for validate() and for everything that predicts what it
// raises: a fixed message as it stands, a template with each {placeholder} replaced by its
// value. Placeholders are named as the catalog writes them ("ndim", "tuple(a.shape)",
// "(B, 1, HV, V)"); shapes are given as tuple_repr() prints them (contract/tensor_view.hpp).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace kda {

struct MessageArg {
  std::string_view name;
  std::string value;
  MessageArg(std::string_view n, std::string v) : name(n), value(std::move(v)) {}
  MessageArg(std::string_view n, int64_t v) : name(n), value(std::to_string(v)) {}
  MessageArg(std::string_view n, int v) : name(n), value(std::to_string(v)) {}
};

// Throws std::logic_error for an unknown id, a placeholder without a value, or a value
// without a placeholder.
std::string catalog_message(std::string_view id, std::initializer_list<MessageArg> args = {});

}  // namespace kda
