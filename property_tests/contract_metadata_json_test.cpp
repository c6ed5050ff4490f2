// The JSON form of a call's metadata (`kda-harness validate` input): round trips, and a
// usage error (MetadataError) for anything malformed.
#include <gtest/gtest.h>

#include "contract/metadata_json.hpp"
#include "contract/scalar_type.hpp"
#include "contract/validate.hpp"
#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"
#include "operators/kda_replayssm/error_inputs.hpp"
#include "operators/replayssm_family/valid_call.hpp"

namespace kda::test {
namespace {

using engine::BuiltCall;
using engine::CallConfig;

std::string outcome(const StepArgs& args) {
  try {
    const Dims d = validate(args);
    return "ok " + std::to_string(d.B) + " " + std::to_string(d.H) + " " + std::to_string(d.slots);
  } catch (const ContractError& e) {
    return e.id() + ": " + e.what();
  }
}

// Every mutation on two configs: dump -> parse -> dump is the identity, and validate()
// gives the same answer on the parsed call.
TEST(ContractMetadataJson, RoundTripsEveryMutatedCall) {
  CallConfig plain, odd;
  odd.B = 1;
  odd.H = 1;
  odd.group = 1;
  odd.unit_stride = 3;
  odd.envelope_pad = 5;
  odd.null_strides = false;
  odd.device = {kDLCUDA, 1};
  odd.force_flush = false;
  const auto& inputs = engine::replayssm_error_inputs();
  for (const CallConfig& c : {plain, odd}) {
    for (std::size_t input = 0; input < inputs.size(); ++input) {
      engine::MutationTarget t{engine::make_valid_spec(c), c.dims(), c.B};
      engine::apply_mutations(inputs, t, {{input, 5}});
      BuiltCall call(t.spec);
      const auto json = call_metadata_json(engine::step_args(call));
      StepTensors parsed = parse_call_metadata(std::string_view(json.dump()));
      EXPECT_EQ(call_metadata_json(parsed.args()), json) << inputs[input].label;
      EXPECT_EQ(outcome(parsed.args()), outcome(engine::step_args(call))) << inputs[input].label;
    }
  }
}

// Any DLPack dtype survives the JSON form: name -> parse is the identity.
TEST(ContractMetadataJson, EveryDtypeRoundTripsThroughItsName) {
  for (int code = 0; code < 256; ++code)
    for (int bits : {0, 1, 8, 16, 32, 64, 255})
      for (int lanes : {0, 1, 2, 65535}) {
        const DLDataType dt{static_cast<uint8_t>(code), static_cast<uint8_t>(bits), static_cast<uint16_t>(lanes)};
        const std::optional<DLDataType> back = parse_dl_dtype(dl_dtype_name(dt));
        ASSERT_TRUE(back.has_value()) << dl_dtype_name(dt);
        EXPECT_TRUE(back->code == dt.code && back->bits == dt.bits && back->lanes == dt.lanes) << dl_dtype_name(dt);
      }
  for (const char* bad : {"float", "float32x", "floatx2", "float99999999999932", "code300_8", "code7", "int8y2", ""})
    EXPECT_FALSE(parse_dl_dtype(bad).has_value()) << bad;
}

nlohmann::json valid_json() {
  BuiltCall call(engine::make_valid_spec(CallConfig{}));
  StepArgs args = engine::step_args(call);
  args.scale = 0.125;
  args.lower_bound = -5.0;
  return nlohmann::json::parse(call_metadata_json(args).dump());
}

TEST(ContractMetadataJson, ReadsScalarsAndOptionalKeys) {
  nlohmann::json j = valid_json();
  StepTensors m = parse_call_metadata(j);
  EXPECT_EQ(m.scale, 0.125);
  EXPECT_EQ(m.lower_bound, -5.0);
  EXPECT_TRUE(m.force_flush.has_value());
  j.erase("force_flush");
  j.erase("lower_bound");
  j.erase("use_qk_l2norm_in_kernel");
  j["a"]["dtype"] = "torch.bfloat16";
  j["a"].erase("strides");
  j["b"]["device"] = "cpu:0";
  m = parse_call_metadata(j);
  EXPECT_FALSE(m.force_flush.has_value());
  EXPECT_FALSE(m.lower_bound.has_value());
  EXPECT_FALSE(m.use_qk_l2norm_in_kernel);
  EXPECT_EQ(m.a.dl().strides, nullptr);
  EXPECT_EQ(m.a.dl().dtype.code, kDLBfloat);
  EXPECT_EQ(outcome(m.args()), "ok 3 2 5");
  j["out"]["device"] = "cuda";
  EXPECT_EQ(parse_call_metadata(j).out.dl().device.device_type, kDLCUDA);
  j["out"]["device"] = "dlpack:13:2";
  EXPECT_EQ(parse_call_metadata(j).out.dl().device.device_type, kDLCUDAManaged);
  j["out"]["dtype"] = "float64";
  EXPECT_EQ(parse_call_metadata(j).out.dl().dtype.bits, 64);
}

TEST(ContractMetadataJson, MalformedInputIsAUsageError) {
  EXPECT_THROW(parse_call_metadata(std::string_view("{\"mixed_qkv\": ")), MetadataError);
  EXPECT_THROW(parse_call_metadata(std::string_view("[1, 2]")), MetadataError);
  const std::vector<std::function<void(nlohmann::json&)>> breakers = {
      [](auto& j) { j["k_caches"] = j["k_cache"]; },           // unknown key
      [](auto& j) { j.erase("g_cache"); },                     // missing tensor
      [](auto& j) { j.erase("scale"); },                       // missing scalar
      [](auto& j) { j["a"]["layout"] = "row"; },               // unknown tensor key
      [](auto& j) { j["a"].erase("shape"); },                  // missing shape
      [](auto& j) { j["a"]["shape"] = {3, -1}; },              // negative size
      [](auto& j) { j["a"]["shape"] = {3, 1.5}; },             // non-integer size
      [](auto& j) { j["a"]["strides"] = {1}; },                // strides rank != shape rank
      [](auto& j) { j["a"]["dtype"] = "float33x"; },           // unknown dtype
      [](auto& j) { j["a"]["device"] = "gpu:0"; },             // unknown device
      [](auto& j) { j["a"]["device"] = "cuda:x"; },            // bad index
      [](auto& j) { j["a"]["device"] = "dlpack:99:0"; },       // not a DLDeviceType value
      [](auto& j) { j["a"]["device"] = "cuda:99999999999"; },  // index beyond int32
      [](auto& j) { j["scale"] = "0.1"; },                     // scale not a number
      [](auto& j) { j["lower_bound"] = "none"; },              // lower_bound not null/number
      [](auto& j) { j["use_qk_l2norm_in_kernel"] = 1; },       // not a bool
      [](auto& j) { j["out"] = 7; },                           // tensor not an object
      [](auto& j) { j["a"]["shape"] = {3, 18446744073709551615ull}; },  // beyond int64
  };
  for (std::size_t i = 0; i < breakers.size(); ++i) {
    nlohmann::json j = valid_json();
    breakers[i](j);
    EXPECT_THROW(parse_call_metadata(j), MetadataError) << "breaker " << i;
  }
}

}  // namespace
}  // namespace kda::test
