// validate() on ANY metadata: valid calls with some tensors replaced by wild descriptions
// (ranks 0..5, sizes up to INT64_MAX, null/negative/huge strides, every dtype code, odd
// devices) either pass, or raise a ContractError whose message matches exactly its own
// catalog pattern; nothing else escapes; the JSON form round-trips. Harness misuse (null pointers, negative sizes)
// raises std::invalid_argument.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <limits>

#include "contract/error_catalog.hpp"
#include "contract/metadata_json.hpp"
#include "contract/validate.hpp"
#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"
#include "operators/replayssm_family/valid_call.hpp"
#include "property_tests/rc_chooser.hpp"

namespace kda::test {
namespace {

using engine::BuiltCall;
using engine::CallConfig;
using engine::CallSpec;
using engine::TensorSpec;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

rc::Gen<int64_t> gen_size() {
  return rc::gen::oneOf(rc::gen::element<int64_t>(0, 1, 2, 3, 4, 16, 128, int64_t{1} << 31, int64_t{1} << 62, kMax),
                        rc::gen::inRange<int64_t>(0, 300));
}

rc::Gen<int64_t> gen_stride() {
  return rc::gen::oneOf(rc::gen::element<int64_t>(0, 1, -1, 2, -7, 3, int64_t{1} << 40, -(int64_t{1} << 40), kMax, kMin),
                        rc::gen::inRange<int64_t>(-300, 300));
}

rc::Gen<TensorSpec> gen_wild_tensor() {
  return rc::gen::exec([] {
    TensorSpec t;
    const int rank = *rc::gen::inRange(0, 6);
    for (int d = 0; d < rank; ++d) t.shape.push_back(*gen_size());
    t.null_strides = *rc::gen::arbitrary<bool>();
    if (!t.null_strides)
      for (int d = 0; d < rank; ++d) t.strides.push_back(*gen_stride());
    t.dtype.code = *rc::gen::oneOf(rc::gen::element<uint8_t>(kDLInt, kDLUInt, kDLFloat, kDLBfloat),
                                   rc::gen::arbitrary<uint8_t>());
    t.dtype.bits = *rc::gen::element<uint8_t>(0, 1, 8, 16, 32, 64, 128, 255);
    t.dtype.lanes = *rc::gen::element<uint16_t>(1, 1, 1, 0, 2, 4);
    // DLDeviceType holds 0..15 only (its enumerators end at 13): anything else is UB to store.
    t.device.device_type = static_cast<DLDeviceType>(*rc::gen::element<int>(kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged, 0, 15));
    t.device.device_id = *rc::gen::element<int32_t>(0, 1, -1, std::numeric_limits<int32_t>::max());
    return t;
  });
}

RC_GTEST_PROP(ContractHardening, AnyMetadataGivesACatalogErrorOrPasses, ()) {
  const CallConfig config = *testing::gen_call_config(engine::limits::contract_calls()).as("config");
  CallSpec spec = make_valid_spec(config);
  const int replaced = *rc::gen::inRange(1, 5).as("tensors replaced");
  for (int i = 0; i < replaced; ++i) {
    // Resized to the nominal size: every tensor and every wild value at every point of the run.
    const int which = *rc::gen::resize(100, rc::gen::inRange(0, 13)).as("which tensor (12 = force_flush)");
    spec.set(engine::kReplaySSMTensors[which], *rc::gen::resize(100, gen_wild_tensor()));
  }
  spec.backend = *rc::gen::element(Backend::Any, Backend::Cpu, Backend::Cuda);
  BuiltCall call(spec);
  // Any metadata survives the JSON form (`kda-harness validate` input, golden error cases).
  const auto json = call_metadata_json(engine::step_args(call));
  RC_ASSERT(call_metadata_json(parse_call_metadata(std::string_view(json.dump())).args()) == json);
  try {
    validate(engine::step_args(call), spec.backend);
    RC_TAG(std::string("accepted"));
  } catch (const ContractError& e) {
    RC_TAG(e.id());
    RC_ASSERT(catalog_ids_matching(e.what()) == std::vector<std::string>{e.id()});
  }
}

TEST(ContractMisuse, NullOrMalformedTensorsAreInvalidArguments) {
  for (int which = 0; which < 12; ++which) {
    BuiltCall call(engine::make_valid_spec(CallConfig{}));
    StepArgs args = engine::step_args(call);
    const DLTensor** slots[] = {&args.mixed_qkv, &args.a, &args.b, &args.A_log, &args.dt_bias,
                                const_cast<const DLTensor**>(&args.initial_state),
                                const_cast<const DLTensor**>(&args.d_cache), const_cast<const DLTensor**>(&args.k_cache),
                                const_cast<const DLTensor**>(&args.g_cache), const_cast<const DLTensor**>(&args.out),
                                &args.ssm_state_indices, &args.write_pos};
    *slots[which] = nullptr;
    EXPECT_THROW(validate(args), std::invalid_argument) << which;
  }
  BuiltCall call(engine::make_valid_spec(CallConfig{}));
  StepArgs args = engine::step_args(call);
  args.force_flush = nullptr;  // optional: absent is fine
  EXPECT_NO_THROW(validate(args));
  call.tensor("b")->shape[0] = -3;
  EXPECT_THROW(validate(engine::step_args(call)), std::invalid_argument);
  call.tensor("b")->shape[0] = 3;
  call.tensor("force_flush")->ndim = -1;
  EXPECT_THROW(validate(engine::step_args(call)), std::invalid_argument);
  call.tensor("force_flush")->ndim = 1;
  call.tensor("force_flush")->shape = nullptr;
  EXPECT_THROW(validate(engine::step_args(call)), std::invalid_argument);
}

}  // namespace
}  // namespace kda::test
