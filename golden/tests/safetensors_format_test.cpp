// The safetensors writer and reader against the format's published rules (the README of
// huggingface/safetensors and its reference implementation, safetensors/src/tensor.rs):
//   - 8-byte little-endian header length N, then N bytes of UTF-8 JSON, then the buffer;
//   - the writer pads the JSON with spaces to a multiple of 8 (so every tensor's data is
//     aligned), writes __metadata__ first and orders data by dtype alignment, then name;
//   - each tensor entry has exactly dtype, shape and data_offsets; offsets, sorted, tile the
//     buffer from 0 to its end; END - BEGIN = numel * dtype size; __metadata__ maps strings
//     to strings; duplicate keys are not allowed; the header is at most 100 MB.
// The byte-exact examples are the ones the reference implementation's own tests serialize.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <string>

#include "golden/golden_catalog.hpp"
#include "golden/golden_case.hpp"
#include "golden/golden_generate.hpp"
#include "golden/safetensors.hpp"

namespace kda::golden {
namespace {

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// 8-byte little-endian length + header text + data.
std::vector<std::byte> file_of(const std::string& header, const std::vector<std::byte>& data) {
  std::vector<std::byte> out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((header.size() >> (8 * i)) & 0xFF));
  const auto h = bytes_of(header);
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

const std::vector<std::byte> kNoData;

StoredTensor f32_0_to_5(std::vector<int64_t> shape) {
  StoredTensor t{ScalarType::Float32, std::move(shape), {}};
  for (float v : {0.f, 1.f, 2.f, 3.f, 4.f, 5.f}) {
    std::byte b[4];
    std::memcpy(b, &v, 4);
    t.data.insert(t.data.end(), b, b + 4);
  }
  return t;
}

TEST(Safetensors, PublishedExampleWithoutPadding) {
  SafetensorsFile f;
  f.tensors["attn.0"] = f32_0_to_5({1, 2, 3});
  const std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header.size() % 8, 0u);  // 64 bytes: no padding needed
  EXPECT_EQ(write_safetensors(f), file_of(header, f.tensors["attn.0"].data));
}

TEST(Safetensors, PublishedExampleWithPadding) {
  SafetensorsFile f;
  f.tensors["attn0"] = f32_0_to_5({1, 1, 2, 3});
  const std::string json = R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})";
  const std::string header = json + std::string((8 - json.size() % 8) % 8, ' ');
  ASSERT_EQ(header.size(), 72u);
  EXPECT_EQ(write_safetensors(f), file_of(header, f.tensors["attn0"].data));
}

TEST(Safetensors, PublishedEmptyExamples) {
  SafetensorsFile empty;
  EXPECT_EQ(write_safetensors(empty), file_of("{}      ", kNoData));
  SafetensorsFile meta;
  meta.metadata["framework"] = "pt";
  EXPECT_EQ(write_safetensors(meta), file_of(R"({"__metadata__":{"framework":"pt"}}     )", kNoData));
}

// Checks a file against the rules above without the harness's reader.
void expect_valid_layout(const std::vector<std::byte>& file) {
  ASSERT_GE(file.size(), 8u);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint64_t>(file[i]);
  ASSERT_LE(8 + n, file.size());
  EXPECT_EQ(n % 8, 0u) << "header not padded to 8 bytes";
  const std::string header(reinterpret_cast<const char*>(file.data()) + 8, n);
  ASSERT_EQ(header.front(), '{');
  const std::size_t end = header.find_last_not_of(' ');
  ASSERT_EQ(header[end], '}') << "only spaces may follow the JSON";
  const auto j = nlohmann::ordered_json::parse(header.substr(0, end + 1));
  const uint64_t buffer = file.size() - 8 - n;
  uint64_t expected_begin = 0;
  bool first = true;
  for (const auto& [name, v] : j.items()) {
    if (name == "__metadata__") {
      EXPECT_TRUE(first) << "__metadata__ is written first";
      for (const auto& [k, s] : v.items()) EXPECT_TRUE(s.is_string()) << k;
      first = false;
      continue;
    }
    first = false;
    ASSERT_EQ(v.size(), 3u) << name;
    const std::string dtype = v.at("dtype");
    const auto t = parse_safetensors_dtype(dtype);
    ASSERT_TRUE(t.has_value()) << dtype;
    uint64_t numel = 1;
    for (const auto& s : v.at("shape")) numel *= s.get<uint64_t>();
    const uint64_t begin = v.at("data_offsets")[0], stop = v.at("data_offsets")[1];
    EXPECT_EQ(begin, expected_begin) << name << ": data in header order, no hole, no overlap";
    EXPECT_EQ(stop - begin, numel * size_of(*t)) << name;
    EXPECT_EQ((8 + n + begin) % size_of(*t), 0u) << name << ": data aligned to its element size";
    expected_begin = stop;
  }
  EXPECT_EQ(expected_begin, buffer) << "the tensors tile the whole buffer";
}

TEST(Safetensors, GoldenFilesFollowTheLayoutRules) {
  for (const char* name : {"kda_replayssm.envelope_strided", "kda_replayssm.padding_rows_int64",
                           "kda_replayssm.rollout_gqa_9_tokens", "kda_replayssm.error_k_cache_hv_heads"}) {
    SCOPED_TRACE(name);
    const GoldenSpec* spec = nullptr;
    for (const auto& s : golden_specs())
      if (s.name == name) spec = &s;
    ASSERT_NE(spec, nullptr);
    const auto bytes = write_safetensors(encode(generate_case(*spec)));
    expect_valid_layout(bytes);
    const SafetensorsFile back = read_safetensors(bytes);
    EXPECT_EQ(write_safetensors(back), bytes) << "read then write gives the same bytes";
  }
}

TEST(Safetensors, RoundTripKeepsEveryDtypeShapeAndByte) {
  SafetensorsFile f;
  f.metadata = {{"b", "2"}, {"a", "x\"y\\z"}};
  int i = 0;
  for (ScalarType t : {ScalarType::Float32, ScalarType::BFloat16, ScalarType::Float16, ScalarType::Int32, ScalarType::Int64}) {
    StoredTensor s{t, {2, 3}, std::vector<std::byte>(6 * size_of(t))};
    for (std::size_t b = 0; b < s.data.size(); ++b) s.data[b] = static_cast<std::byte>((b * 37 + i) & 0xFF);
    f.tensors["t" + std::to_string(i++)] = s;
  }
  f.tensors["empty"] = StoredTensor{ScalarType::Float32, {0, 4}, {}};
  f.tensors["scalar"] = StoredTensor{ScalarType::Int64, {}, std::vector<std::byte>(8, std::byte{7})};
  const auto bytes = write_safetensors(f);
  expect_valid_layout(bytes);
  const SafetensorsFile g = read_safetensors(bytes);
  EXPECT_EQ(g.metadata, f.metadata);
  ASSERT_EQ(g.tensors.size(), f.tensors.size());
  for (const auto& [name, t] : f.tensors) {
    EXPECT_EQ(g.tensors.at(name).dtype, t.dtype) << name;
    EXPECT_EQ(g.tensors.at(name).shape, t.shape) << name;
    EXPECT_EQ(g.tensors.at(name).data, t.data) << name;
  }
}

void expect_rejected(const std::vector<std::byte>& file, const std::string& what) {
  EXPECT_THROW(read_safetensors(file), SafetensorsError) << what;
}

TEST(Safetensors, ReaderRejectsEveryBrokenRule) {
  const std::vector<std::byte> four(4, std::byte{0}), eight(8, std::byte{0});
  expect_rejected({std::byte{1}, std::byte{0}}, "shorter than 8 bytes");
  expect_rejected(file_of(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", kNoData), "data past the end");
  expect_rejected(file_of(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight), "trailing bytes");
  expect_rejected(file_of(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four), "size != numel * 4");
  expect_rejected(file_of(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight), "hole at the start");
  expect_rejected(file_of(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                          R"("u":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                          eight),
                  "overlapping tensors");
  expect_rejected(file_of(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                          R"("t":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                          eight),
                  "duplicate key");
  expect_rejected(file_of(R"({"t":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", eight), "dtype outside the five");
  expect_rejected(file_of(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", four), "extra key");
  expect_rejected(file_of(R"({"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", four), "negative dim");
  expect_rejected(file_of(R"({"__metadata__":{"k":1}})", kNoData), "non-string metadata");
  expect_rejected(file_of(R"([1,2])", kNoData), "header not an object");
  expect_rejected(file_of("{\"t\xff\":1}", kNoData), "invalid UTF-8");
  std::vector<std::byte> huge(16, std::byte{0});
  const uint64_t n = kMaxHeaderBytes + 8;
  for (int i = 0; i < 8; ++i) huge[i] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
  expect_rejected(huge, "header over 100 MB");
}

}  // namespace
}  // namespace kda::golden
