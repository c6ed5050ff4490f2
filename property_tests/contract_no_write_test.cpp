// validate() is metadata only: on real tensors with data, neither an accepted call nor a
// rejected one changes a byte of any tensor.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>

#include "contract/tensor_view.hpp"
#include "contract/validate.hpp"
#include "property_tests/contract_generators.hpp"

namespace kda::test {
namespace {

// SplitMix64: the harness's tests draw bytes from their own generator, never std::.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Every tensor of a CallSpec backed by its own buffer (sized to the strided extent, any
// dtype, negative strides included), filled with random bytes.
class DataCall {
 public:
  DataCall(const CallSpec& spec, uint64_t seed) {
    CallSpec copy = spec;
    for (TensorSpec* t : copy.all()) {
      shapes_.push_back(t->shape);
      strides_.push_back(t->null_strides ? compact_strides(t->shape) : t->strides);
    }
    for (std::size_t i = 0; i < shapes_.size(); ++i) {
      const TensorSpec& t = *copy.all()[i];
      DLTensor dl{};
      dl.ndim = static_cast<int32_t>(shapes_[i].size());
      dl.shape = shapes_[i].data();
      dl.strides = strides_[i].data();
      dl.dtype = t.dtype;
      dl.device = t.device;
      const int64_t elem = std::max<int64_t>(1, (int64_t{t.dtype.bits} * t.dtype.lanes + 7) / 8);
      const OffsetRange r = offset_range(dl);
      buffers_.emplace_back(static_cast<std::size_t>((r.hi - r.lo + 1) * elem));
      for (auto& byte : buffers_.back()) byte = static_cast<std::byte>(splitmix64(seed));
      dl.data = buffers_.back().data() - r.lo * elem;  // offsets lo..hi land inside the buffer
      dls_.push_back(dl);
    }
    has_force_flush_ = spec.force_flush.has_value();
  }
  StepArgs args() {
    StepArgs s;
    s.mixed_qkv = &dls_[0];
    s.a = &dls_[1];
    s.b = &dls_[2];
    s.A_log = &dls_[3];
    s.dt_bias = &dls_[4];
    s.initial_state = &dls_[5];
    s.d_cache = &dls_[6];
    s.k_cache = &dls_[7];
    s.g_cache = &dls_[8];
    s.out = &dls_[9];
    s.ssm_state_indices = &dls_[10];
    s.write_pos = &dls_[11];
    s.force_flush = has_force_flush_ ? &dls_[12] : nullptr;
    return s;
  }
  const std::vector<std::vector<std::byte>>& buffers() const { return buffers_; }

 private:
  std::vector<std::vector<int64_t>> shapes_, strides_;
  std::vector<std::vector<std::byte>> buffers_;
  std::vector<DLTensor> dls_;
  bool has_force_flush_ = false;
};

RC_GTEST_PROP(ContractNoWrite, ValidationNeverChangesTensorData, ()) {
  const ValidCallConfig config = *gen_valid_config(8, 32, 8).as("config");
  const MutationSet mutations = *gen_mutation_set().as("mutations");
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>().as("byte seed");
  MutationTarget target{make_valid_spec(config), config, config.B};
  const MutationResult result = apply_mutations(target, mutations.items);

  DataCall call(target.spec, seed);
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
