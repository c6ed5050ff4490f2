#include "contract/scalar_type.hpp"

#include <fmt/format.h>

namespace kda {

std::optional<ScalarType> scalar_type_of(DLDataType dt) {
  if (dt.lanes != 1) return std::nullopt;
  switch (dt.code) {
    case kDLFloat:
      if (dt.bits == 32) return ScalarType::Float32;
      if (dt.bits == 16) return ScalarType::Float16;
      return std::nullopt;
    case kDLBfloat:
      if (dt.bits == 16) return ScalarType::BFloat16;
      return std::nullopt;
    case kDLInt:
      if (dt.bits == 32) return ScalarType::Int32;
      if (dt.bits == 64) return ScalarType::Int64;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

DLDataType to_dl(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return {kDLFloat, 32, 1};
    case ScalarType::BFloat16: return {kDLBfloat, 16, 1};
    case ScalarType::Float16: return {kDLFloat, 16, 1};
    case ScalarType::Int32: return {kDLInt, 32, 1};
    case ScalarType::Int64: return {kDLInt, 64, 1};
  }
  return {kDLFloat, 32, 1};
}

std::size_t size_of(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: case ScalarType::Int32: return 4;
    case ScalarType::BFloat16: case ScalarType::Float16: return 2;
    case ScalarType::Int64: return 8;
  }
  return 4;
}

bool is_floating(ScalarType t) {
  return t == ScalarType::Float32 || t == ScalarType::BFloat16 || t == ScalarType::Float16;
}

std::string_view name_of(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return "float32";
    case ScalarType::BFloat16: return "bfloat16";
    case ScalarType::Float16: return "float16";
    case ScalarType::Int32: return "int32";
    case ScalarType::Int64: return "int64";
  }
  return "?";
}

std::optional<ScalarType> parse_scalar_type(std::string_view s) {
  if (s == "float32" || s == "f32") return ScalarType::Float32;
  if (s == "bfloat16" || s == "bf16") return ScalarType::BFloat16;
  if (s == "float16" || s == "f16") return ScalarType::Float16;
  if (s == "int32" || s == "i32") return ScalarType::Int32;
  if (s == "int64" || s == "i64") return ScalarType::Int64;
  return std::nullopt;
}

namespace {
const char* code_name(uint8_t code) {
  switch (code) {
    case kDLInt: return "int";
    case kDLUInt: return "uint";
    case kDLFloat: return "float";
    case kDLBfloat: return "bfloat";
    case kDLComplex: return "complex";
    case kDLOpaqueHandle: return "opaque";
    default: return nullptr;
  }
}
}  // namespace

std::string dl_dtype_name(DLDataType dt) {
  if (dt.code == kDLUInt && dt.bits == 1 && dt.lanes == 1) return "bool";
  const char* c = code_name(dt.code);
  std::string base = c ? fmt::format("{}{}", c, dt.bits) : fmt::format("code{}_{}", dt.code, dt.bits);
  if (dt.lanes != 1) base += fmt::format("x{}", dt.lanes);
  return base;
}

namespace {
// A decimal number of at most 5 digits at s[i...], advancing i; nullopt when there is none,
// or when more digits follow (so that no long digit string can wrap around).
std::optional<unsigned> read_number(std::string_view s, std::size_t& i) {
  const std::size_t start = i;
  unsigned n = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 5) n = n * 10 + static_cast<unsigned>(s[i++] - '0');
  if (i == start || (i < s.size() && s[i] >= '0' && s[i] <= '9')) return std::nullopt;
  return n;
}

// "BITS" or "BITSxLANES" from position i to the end of s.
std::optional<DLDataType> read_bits_lanes(std::string_view s, std::size_t i, unsigned code) {
  const auto bits = read_number(s, i);
  std::optional<unsigned> lanes = 1;
  if (bits && i < s.size()) {
    if (s[i++] != 'x') return std::nullopt;
    lanes = read_number(s, i);
  }
  if (!bits || !lanes || i != s.size() || code > 255 || *bits > 255 || *lanes > 65535) return std::nullopt;
  return DLDataType{static_cast<uint8_t>(code), static_cast<uint8_t>(*bits), static_cast<uint16_t>(*lanes)};
}
}  // namespace

std::optional<DLDataType> parse_dl_dtype(std::string_view s) {
  if (s == "bool") return DLDataType{kDLUInt, 1, 1};
  if (auto t = parse_scalar_type(s)) return to_dl(*t);
  // dl_dtype_name's form for unknown codes: "code{C}_{BITS}" (+ "x{LANES}").
  if (s.substr(0, 4) == "code") {
    std::size_t i = 4;
    const auto code = read_number(s, i);
    if (!code || i >= s.size() || s[i] != '_') return std::nullopt;
    return read_bits_lanes(s, i + 1, *code);
  }
  static constexpr std::pair<const char*, uint8_t> prefixes[] = {
      {"bfloat", kDLBfloat}, {"float", kDLFloat}, {"uint", kDLUInt}, {"int", kDLInt},
      {"complex", kDLComplex}, {"opaque", kDLOpaqueHandle}};
  for (auto [p, code] : prefixes) {
    const std::string_view ps(p);
    if (s.substr(0, ps.size()) == ps) return read_bits_lanes(s, ps.size(), code);
  }
  return std::nullopt;
}

}  // namespace kda
