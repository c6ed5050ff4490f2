// The safetensors file format (Hugging Face): tensors by name, dtype and shape, plus a
// string-to-string `__metadata__` map, readable by the standard `safetensors` Python
// package (`safetensors.torch.load_file`). Layout, as the format's README and reference
// implementation define it:
//   8 bytes   N, the header length, unsigned 64-bit little-endian
//   N bytes   UTF-8 JSON object: {"__metadata__": {str: str}, NAME: {"dtype": "F32",
//             "shape": [..], "data_offsets": [BEGIN, END]}, ...}; offsets are relative to
//             the byte after the header, END one past the last byte; the writer pads the
//             JSON with spaces so that N is a multiple of 8
//   the rest  the byte buffer: every tensor compact, row-major, little-endian; sorted by
//             offset the tensors tile the buffer exactly (first BEGIN 0, each BEGIN = the
//             previous END, the last END = the buffer's size); END - BEGIN = numel * size.
// The writer orders the data like the reference serializer (by dtype, widest alignment
// first, then by name), so each tensor's data is aligned to its element size, and emits the
// JSON compactly (no spaces) with __metadata__ first: the same input gives the same bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "contract/scalar_type.hpp"

namespace kda::golden {

// A malformed file (any rule above broken), or an I/O failure.
class SafetensorsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StoredTensor {
  ScalarType dtype = ScalarType::Float32;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;  // numel * size_of(dtype) bytes, compact row-major, little-endian
  int64_t numel() const;
};

struct SafetensorsFile {
  std::map<std::string, std::string> metadata;  // the __metadata__ map (omitted when empty)
  std::map<std::string, StoredTensor> tensors;
};

// "F32", "BF16", "F16", "I32", "I64" (the format's dtype names).
std::string_view safetensors_dtype(ScalarType t);
std::optional<ScalarType> parse_safetensors_dtype(std::string_view name);

// The largest header the reference implementation accepts (100 MB).
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

std::vector<std::byte> write_safetensors(const SafetensorsFile& file);
// Checks every rule above; dtypes outside the five the harness knows are rejected by name.
SafetensorsFile read_safetensors(std::span<const std::byte> bytes);

// Reads and checks a safetensors file in one pass, as read_safetensors checks bytes, holding
// no copy of the whole file: its size is taken before anything is read (a header whose
// tensors do not tile exactly the rest of the file is refused before any tensor is
// allocated), then each tensor's data is read straight into its own buffer. Only a regular
// file is read (a FIFO or a device could block or never end); SafetensorsError otherwise, on
// an I/O error, or when the file changes size while it is read. sha256, when given, receives
// the digest of the whole file, of a malformed one too (the rest of it is read through before
// the error is thrown): a caller can then tell a changed file from a malformed one.
SafetensorsFile read_safetensors_file(const std::filesystem::path& path, std::string* sha256 = nullptr);

std::vector<std::byte> read_file_bytes(const std::filesystem::path& path);
// Whole or not at all (golden/atomic_file.hpp); throws AtomicWriteError.
void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes);

}  // namespace kda::golden
