#include "property_tests/contract_generators.hpp"

#include <algorithm>

namespace kda::test {

// RapidCheck scales integer ranges by its size parameter (small values first); the
// generators below are resized to the nominal size so every value of a range is drawn at
// every point of the run. Shrinking still heads for the smallest values.
rc::Gen<ValidCallConfig> gen_valid_config(int64_t max_B, int64_t max_head, int64_t max_L) {
  return rc::gen::resize(100, rc::gen::exec([=] {
    ValidCallConfig c;
    std::vector<int64_t> pow2;
    for (int64_t p = 16; p <= max_head; p *= 2) pow2.push_back(p);
    c.B = *rc::gen::inRange<int64_t>(1, max_B + 1);
    c.H = *rc::gen::inRange<int64_t>(1, 9);
    c.group = *rc::gen::inRange<int64_t>(1, 9);
    c.K = *rc::gen::elementOf(pow2);
    c.V = *rc::gen::elementOf(pow2);
    c.L = *rc::gen::inRange<int64_t>(1, max_L + 1);
    const int64_t live_rows = *rc::gen::inRange<int64_t>(0, c.B + 1);
    c.slots = live_rows + *rc::gen::inRange<int64_t>(0, 4);
    c.a_3d = *rc::gen::arbitrary<bool>();
    c.dt_2d = *rc::gen::arbitrary<bool>();
    c.force_flush = *rc::gen::arbitrary<bool>();
    c.envelope_pad = *rc::gen::oneOf(rc::gen::just<int64_t>(0), rc::gen::inRange<int64_t>(1, 301));
    c.unit_stride = *rc::gen::element<int64_t>(1, 3, 5, 7, 13);
    c.null_strides = *rc::gen::arbitrary<bool>();
    const auto floating = rc::gen::element(ScalarType::BFloat16, ScalarType::Float32, ScalarType::Float16);
    c.act = *floating;
    c.state = *floating;
    c.ring = *floating;
    c.out = *floating;
    c.index = *rc::gen::element(ScalarType::Int32, ScalarType::Int64);
    c.device = *rc::gen::element(DLDevice{kDLCPU, 0}, DLDevice{kDLCUDA, 0}, DLDevice{kDLCUDA, 3});
    const bool tie_backend = *rc::gen::arbitrary<bool>();
    c.backend = !tie_backend ? Backend::Any : c.device.device_type == kDLCPU ? Backend::Cpu : Backend::Cuda;
    return c;
  }));
}

void showValue(const MutationSet& s, std::ostream& os) {
  os << "{";
  for (std::size_t i = 0; i < s.items.size(); ++i) {
    if (i) os << ", ";
    showValue(s.items[i], os);
  }
  os << "}";
}

rc::Gen<MutationSet> gen_mutation_set(int max_size) {
  return rc::gen::resize(100, rc::gen::exec([=] {
    MutationSet s;
    const int n = *rc::gen::inRange(0, max_size + 1);
    for (int i = 0; i < n; ++i) {
      Mutation m;
      m.check = static_cast<Check>(*rc::gen::inRange(0, kCheckCount));
      m.variant = *rc::gen::inRange<uint32_t>(0, 64);
      const bool taken = std::any_of(s.items.begin(), s.items.end(), [&](const Mutation& x) { return x.check == m.check; });
      if (!taken) s.items.push_back(m);
    }
    return s;
  }));
}

}  // namespace kda::test
