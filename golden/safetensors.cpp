#include "golden/safetensors.hpp"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <fstream>

#include "contract/json_keys.hpp"
#include "golden/atomic_file.hpp"
#include "golden/sha256.hpp"

namespace kda::golden {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; tensors are copied byte for byte");

[[noreturn]] void bad(const std::string& what) { throw SafetensorsError("safetensors: " + what); }

// The reference serializer orders data by dtype, descending in its Dtype enum (I64, F32,
// I32, BF16, F16 for the five used here), then by name: the widest alignment comes first.
int dtype_rank(ScalarType t) {
  switch (t) {
    case ScalarType::Int64: return 0;
    case ScalarType::Float32: return 1;
    case ScalarType::Int32: return 2;
    case ScalarType::BFloat16: return 3;
    case ScalarType::Float16: return 4;
  }
  return 5;
}

int64_t checked_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) bad("negative dimension");
    if (s != 0 && n > INT64_MAX / s) bad("shape overflows");
    n *= s;
  }
  return n;
}

// Parses the header JSON, rejecting duplicate keys in any object (the format disallows
// them; nlohmann would silently keep the last one).
nlohmann::json parse_header(std::string_view text) {
  if (const auto duplicate = duplicate_json_key(text)) bad("duplicate key \"" + *duplicate + "\" in the header");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    bad(std::string("header is not valid UTF-8 JSON: ") + e.what());
  }
  if (!header.is_object()) bad("header is not a JSON object");
  return header;
}

std::vector<int64_t> read_uints(const nlohmann::json& j, const std::string& what) {
  if (!j.is_array()) bad(what + " is not an array");
  std::vector<int64_t> v;
  for (const auto& x : j) {
    if (!x.is_number_unsigned()) bad(what + " holds something other than a non-negative integer");
    const auto u = x.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) bad(what + " holds an integer too large");
    v.push_back(static_cast<int64_t>(u));
  }
  return v;
}

}  // namespace

int64_t StoredTensor::numel() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

std::string_view safetensors_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return "F32";
    case ScalarType::BFloat16: return "BF16";
    case ScalarType::Float16: return "F16";
    case ScalarType::Int32: return "I32";
    case ScalarType::Int64: return "I64";
  }
  return "?";
}

std::optional<ScalarType> parse_safetensors_dtype(std::string_view name) {
  for (ScalarType t : {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16, ScalarType::Int32,
                       ScalarType::Int64})
    if (safetensors_dtype(t) == name) return t;
  return std::nullopt;
}

std::vector<std::byte> write_safetensors(const SafetensorsFile& file) {
  std::vector<const std::pair<const std::string, StoredTensor>*> order;
  for (const auto& entry : file.tensors) {
    if (entry.first == "__metadata__") bad("a tensor may not be named __metadata__");
    if (static_cast<int64_t>(entry.second.data.size()) != checked_numel(entry.second.shape) * static_cast<int64_t>(size_of(entry.second.dtype)))
      bad("tensor \"" + entry.first + "\": data size does not match its shape and dtype");
    order.push_back(&entry);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto* x, const auto* y) {
    return dtype_rank(x->second.dtype) < dtype_rank(y->second.dtype);  // names already sorted (std::map)
  });
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) {
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto& [k, v] : file.metadata) meta[k] = v;
    header["__metadata__"] = std::move(meta);
  }
  uint64_t offset = 0;
  for (const auto* entry : order) {
    nlohmann::ordered_json info = nlohmann::ordered_json::object();
    info["dtype"] = std::string(safetensors_dtype(entry->second.dtype));
    info["shape"] = entry->second.shape;
    info["data_offsets"] = {offset, offset + entry->second.data.size()};
    offset += entry->second.data.size();
    header[entry->first] = std::move(info);
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<std::byte> out;
  out.reserve(8 + text.size() + offset);
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((n >> (8 * i)) & 0xFF));
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  for (const auto* entry : order) out.insert(out.end(), entry->second.data.begin(), entry->second.data.end());
  return out;
}

namespace {

// Where a tensor's data lies in the byte buffer.
struct Placed {
  std::string name;
  int64_t begin, end;
};

// The header length from the first 8 bytes, checked against the file's size.
uint64_t header_length(std::span<const std::byte, 8> first, uint64_t file_size) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint64_t>(first[i]);
  if (n > kMaxHeaderBytes) bad("header length " + std::to_string(n) + " exceeds 100 MB");
  if (8 + n > file_size) bad("header length " + std::to_string(n) + " runs past the end of the file");
  return n;
}

// The header checked against a byte buffer of buffer_size bytes: the file's metadata and
// tensors without their data, and where each tensor's data lies, in buffer order (they tile
// it exactly, so no tensor is larger than the buffer).
SafetensorsFile read_layout(std::string_view text, uint64_t buffer_size, std::vector<Placed>& placed) {
  const nlohmann::json header = parse_header(text);
  SafetensorsFile file;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) bad("__metadata__ is not an object");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) bad("__metadata__ value of \"" + k + "\" is not a string");
        file.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    if (!value.is_object() || value.size() != 3 || !value.contains("dtype") || !value.contains("shape") ||
        !value.contains("data_offsets"))
      bad("tensor \"" + name + "\" must have exactly dtype, shape and data_offsets");
    if (!value["dtype"].is_string()) bad("tensor \"" + name + "\": dtype is not a string");
    const auto dtype = parse_safetensors_dtype(value["dtype"].get<std::string>());
    if (!dtype) bad("tensor \"" + name + "\": dtype " + value["dtype"].get<std::string>() + " is not one of F32, BF16, F16, I32, I64");
    StoredTensor t;
    t.dtype = *dtype;
    t.shape = read_uints(value["shape"], "shape of \"" + name + "\"");
    const auto offsets = read_uints(value["data_offsets"], "data_offsets of \"" + name + "\"");
    if (offsets.size() != 2 || offsets[1] < offsets[0]) bad("tensor \"" + name + "\": data_offsets must be [BEGIN, END] with END >= BEGIN");
    const int64_t numel = checked_numel(t.shape);
    if (numel > INT64_MAX / 8 || offsets[1] - offsets[0] != numel * static_cast<int64_t>(size_of(t.dtype)))
      bad("tensor \"" + name + "\": data_offsets span does not equal numel * dtype size");
    placed.push_back({name, offsets[0], offsets[1]});
    file.tensors.emplace(name, std::move(t));
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& x, const Placed& y) {
    return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
  });
  int64_t expected = 0;
  for (const Placed& p : placed) {
    if (p.begin != expected) bad("tensor \"" + p.name + "\": data_offsets leave a hole or overlap (begin " +
                                 std::to_string(p.begin) + ", expected " + std::to_string(expected) + ")");
    expected = p.end;
  }
  if (static_cast<uint64_t>(expected) != buffer_size)
    bad("the tensors cover " + std::to_string(expected) + " bytes of a " + std::to_string(buffer_size) + "-byte buffer");
  return file;
}

}  // namespace

SafetensorsFile read_safetensors(std::span<const std::byte> bytes) {
  if (bytes.size() < 8) bad("file shorter than the 8-byte header length");
  const uint64_t n = header_length(bytes.first<8>(), bytes.size());
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, n);
  const std::span<const std::byte> buffer = bytes.subspan(8 + n);
  std::vector<Placed> placed;
  SafetensorsFile file = read_layout(text, buffer.size(), placed);
  for (const Placed& p : placed) {
    StoredTensor& t = file.tensors.at(p.name);
    t.data.assign(buffer.begin() + p.begin, buffer.begin() + p.end);
  }
  return file;
}

namespace {

// Sequential reads of an open file of a known size, every byte fed to a digest.
class FileReader {
 public:
  FileReader(const std::filesystem::path& path, int fd, uint64_t size) : path_(path), fd_(fd), size_(size) {}
  ~FileReader() { ::close(fd_); }
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  void read(std::span<std::byte> into) {
    while (!into.empty()) {
      const ssize_t n = ::read(fd_, into.data(), into.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) bad("reading " + path_.string() + ": " + strerror(errno));
      if (n == 0) bad(path_.string() + " got shorter while it was read");
      hash_.update(into.first(static_cast<std::size_t>(n)));
      into = into.subspan(static_cast<std::size_t>(n));
    }
  }
  // After the last byte the size promised: the file ends there.
  void expect_end() {
    std::byte extra;
    ssize_t n;
    while ((n = ::read(fd_, &extra, 1)) < 0 && errno == EINTR) {
    }
    if (n != 0) bad(path_.string() + " grew while it was read");
  }
  // The digest of the whole file, reading what is left in blocks (after a format error).
  std::string digest_of_all() {
    std::vector<std::byte> block(std::size_t{1} << 20);
    for (ssize_t n; (n = ::read(fd_, block.data(), block.size())) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return "";
      hash_.update(std::span<const std::byte>(block.data(), static_cast<std::size_t>(n)));
    }
    return hash_.hex();
  }
  std::string digest() { return hash_.hex(); }
  uint64_t size() const { return size_; }

 private:
  std::filesystem::path path_;
  int fd_;
  uint64_t size_;
  Sha256 hash_;
};

SafetensorsFile read_from(FileReader& in) {
  if (in.size() < 8) bad("file shorter than the 8-byte header length");
  std::array<std::byte, 8> first;
  in.read(first);
  const uint64_t n = header_length(first, in.size());
  std::string text(n, '\0');
  in.read(std::as_writable_bytes(std::span<char>(text.data(), text.size())));
  std::vector<Placed> placed;
  SafetensorsFile file = read_layout(text, in.size() - 8 - n, placed);
  text = std::string();
  for (const Placed& p : placed) {  // in the file's order
    StoredTensor& t = file.tensors.at(p.name);
    t.data.resize(static_cast<std::size_t>(p.end - p.begin));
    in.read(t.data);
  }
  in.expect_end();
  return file;
}

}  // namespace

SafetensorsFile read_safetensors_file(const std::filesystem::path& path, std::string* sha256) {
  // O_NONBLOCK: a FIFO opens without waiting for a writer, and is then refused as not regular.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw SafetensorsError("cannot open " + path.string() + ": " + strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw SafetensorsError(path.string() + " is not a regular file");
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  FileReader in(path, fd, static_cast<uint64_t>(st.st_size));
  try {
    SafetensorsFile file = read_from(in);
    if (sha256) *sha256 = in.digest();
    return file;
  } catch (const SafetensorsError&) {
    if (sha256) *sha256 = in.digest_of_all();
    throw;
  }
}

std::vector<std::byte> read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SafetensorsError("cannot open " + path.string());
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  std::transform(chars.begin(), chars.end(), out.begin(), [](char c) { return static_cast<std::byte>(c); });
  return out;
}

void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  write_output_file(path, bytes);
}

}  // namespace kda::golden
