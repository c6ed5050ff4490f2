// The element types the contract knows, and their DLPack encodings (all read from the one
// dtype table, contract/dtype_table.hpp).
#pragma once
#include <dlpack/dlpack.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kda {

enum class ScalarType : unsigned char { Float32, BFloat16, Float16, Int32, Int64 };

// nullopt for any DLPack dtype outside the five above (float64, uint8, lanes != 1, ...).
std::optional<ScalarType> scalar_type_of(DLDataType dt);
DLDataType to_dl(ScalarType t);
std::size_t size_of(ScalarType t);
bool is_floating(ScalarType t);
// "float32", "bfloat16", "float16", "int32", "int64".
std::string_view name_of(ScalarType t);
// Accepts the names above and the short forms f32, bf16, f16, i32, i64.
std::optional<ScalarType> parse_scalar_type(std::string_view s);
// Unit roundoff of round-to-nearest and smallest positive normal (0 for integers).
double unit_roundoff_of(ScalarType t);
double smallest_normal_of(ScalarType t);
// Any DLPack dtype as text: the names above, else e.g. "float64", "uint8", "bool", "int32x4".
std::string dl_dtype_name(DLDataType dt);
// Inverse of dl_dtype_name for every name it produces, "code{C}_{BITS}" and zero bits or
// lanes included (used by the JSON metadata reader, so any metadata round-trips).
std::optional<DLDataType> parse_dl_dtype(std::string_view s);

}  // namespace kda
