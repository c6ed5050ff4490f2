// A catalog message rendered from the error catalog (contract/error_catalog.json), the one
// place where messages are written: a fixed message as it stands, a template with each
// {placeholder} replaced by its value. The placeholders are named as the catalog writes
// them ("ndim", "tuple(a.shape)", "(B, 1, HV, V)").
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kda::engine {

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

// Python's tuple repr of a shape, as the catalog's messages print shapes: (3,), (3, 1, 4, 128).
std::string tuple_text(const std::vector<int64_t>& shape);

}  // namespace kda::engine
