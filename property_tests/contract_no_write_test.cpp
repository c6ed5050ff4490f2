// validate() is metadata only: on real tensors with data, neither an accepted call nor a
// rejected one changes a byte of any tensor.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <optional>

#include "contract/tensor_view.hpp"
#include "contract/validate.hpp"
#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"
#include "operators/kda_replayssm/error_inputs.hpp"
#include "operators/replayssm_family/valid_call.hpp"
#include "property_tests/rc_chooser.hpp"

namespace kda::test {
namespace {

using engine::CallSpec;
using engine::TensorSpec;

// SplitMix64: the harness's tests draw bytes from their own generator, never std::.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Every tensor of a CallSpec backed by its own buffer (sized to the strided extent, any
// dtype, negative strides included), filled with random bytes. A call with a tensor too large
// to back (X-EXTENTS makes tensors that cannot exist) throws TooLarge.
class DataCall {
 public:
  struct TooLarge {};
  static constexpr int64_t kMaxBytes = int64_t{1} << 26;

  DataCall(const CallSpec& spec, uint64_t seed) {
    for (const auto& [name, t] : spec.tensors) {
      names_.push_back(name);
      shapes_.push_back(t.shape);
      strides_.push_back(t.null_strides ? compact_strides(t.shape) : t.strides);
    }
    for (std::size_t i = 0; i < shapes_.size(); ++i) {
      const TensorSpec& t = spec.tensors[i].second;
      DLTensor dl{};
      dl.ndim = static_cast<int32_t>(shapes_[i].size());
      dl.shape = shapes_[i].data();
      dl.strides = strides_[i].data();
      dl.dtype = t.dtype;
      dl.device = t.device;
      const int64_t elem = std::max<int64_t>(1, (int64_t{t.dtype.bits} * t.dtype.lanes + 7) / 8);
      const OffsetRange r = offset_range(dl);
      if (r.hi - r.lo >= kMaxBytes / elem) throw TooLarge{};
      buffers_.emplace_back(static_cast<std::size_t>((r.hi - r.lo + 1) * elem));
      for (auto& byte : buffers_.back()) byte = static_cast<std::byte>(splitmix64(seed));
      dl.data = buffers_.back().data() - r.lo * elem;  // offsets lo..hi land inside the buffer
      dls_.push_back(dl);
    }
  }
  StepArgs args() {
    return engine::step_args([this](std::string_view name) -> DLTensor* {
      for (std::size_t i = 0; i < names_.size(); ++i)
        if (names_[i] == name) return &dls_[i];
      return nullptr;
    });
  }
  const std::vector<std::vector<std::byte>>& buffers() const { return buffers_; }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<int64_t>> shapes_, strides_;
  std::vector<std::vector<std::byte>> buffers_;
  std::vector<DLTensor> dls_;
};

RC_GTEST_PROP(ContractNoWrite, ValidationNeverChangesTensorData, ()) {
  engine::SampleLimits limits = engine::limits::contract_calls();  // small enough to hold real data
  limits.rows = {1, 8};
  limits.K = limits.V = {16, 32};
  limits.ring_length = {1, 8};
  const engine::CallConfig config = *testing::gen_call_config(limits).as("config");
  const testing::MutationSet mutations = *testing::gen_mutation_set().as("mutations");
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>().as("byte seed");
  engine::MutationTarget target{engine::make_valid_spec(config), config.dims(), config.B};
  const engine::MutationResult result =
      engine::apply_mutations(engine::replayssm_error_inputs(), target, mutations.items);

  std::optional<DataCall> made;
  try {
    made.emplace(target.spec, seed);
  } catch (const DataCall::TooLarge&) {
    RC_DISCARD("a tensor too large to back with memory");
  }
  DataCall& call = *made;
  const std::vector<std::vector<std::byte>> before = call.buffers();
  bool raised = false;
  try {
    validate(call.args(), target.spec.backend);
  } catch (const ContractError& e) {
    raised = true;
    RC_ASSERT(result.expected.has_value());
    RC_ASSERT(e.id() == result.expected->id);
  }
  RC_ASSERT(raised == result.expected.has_value());
  RC_ASSERT(call.buffers() == before);
}

}  // namespace
}  // namespace kda::test
