#include "contract/scalar_type.hpp"

#include "contract/dtype_table.hpp"

#include <fmt/format.h>

namespace kda {

namespace {

const DtypeInfo& info(ScalarType t) { return kDtypeTable[static_cast<int>(t)]; }

}  // namespace

std::optional<ScalarType> scalar_type_of(DLDataType dt) {
  if (dt.lanes != 1) return std::nullopt;
  for (int i = 0; i < kDtypeCount; ++i)
    if (kDtypeTable[i].dl_code == dt.code && kDtypeTable[i].bits == dt.bits) return static_cast<ScalarType>(i);
  return std::nullopt;
}

DLDataType to_dl(ScalarType t) { return {info(t).dl_code, info(t).bits, 1}; }

std::size_t size_of(ScalarType t) { return info(t).bits / 8; }

bool is_floating(ScalarType t) { return info(t).floating; }

std::string_view name_of(ScalarType t) { return info(t).name; }

std::optional<ScalarType> parse_scalar_type(std::string_view s) {
  for (int i = 0; i < kDtypeCount; ++i)
    if (s == kDtypeTable[i].name || s == kDtypeTable[i].short_name) return static_cast<ScalarType>(i);
  return std::nullopt;
}

double unit_roundoff_of(ScalarType t) { return info(t).unit_roundoff; }

double smallest_normal_of(ScalarType t) { return info(t).smallest_normal; }

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
