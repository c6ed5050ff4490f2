#include "tools/contract_catalogue_suite.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>

#include "cases/rng.hpp"
#include "contract/validate.hpp"
#include "property_tests/contract_mutations.hpp"

namespace kda::cli {
namespace {

constexpr auto kCatalogueStream = static_cast<rng::Stream>(0xC0A9);

// The same ranges as the contract property's gen_valid_config (contract_generators.cpp).
test::ValidCallConfig draw_config(const rng::Counter& r, uint64_t& e) {
  auto in = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(r.below(e++, static_cast<uint64_t>(hi - lo + 1))); };
  auto coin = [&] { return r.bernoulli(e++, 0.5); };
  const ScalarType floats[] = {ScalarType::BFloat16, ScalarType::Float32, ScalarType::Float16};
  test::ValidCallConfig c;
  c.B = in(1, 64);
  c.H = in(1, 8);
  c.group = in(1, 8);
  c.K = int64_t{16} << in(0, 4);
  c.V = int64_t{16} << in(0, 4);
  c.L = in(1, 64);
  c.slots = in(0, c.B) + in(0, 3);
  c.a_3d = coin();
  c.dt_2d = coin();
  c.force_flush = coin();
  c.envelope_pad = coin() ? 0 : in(1, 300);
  const int64_t unit[] = {1, 3, 5, 7, 13};
  c.unit_stride = unit[in(0, 4)];
  c.null_strides = coin();
  c.act = floats[in(0, 2)];
  c.state = floats[in(0, 2)];
  c.ring = floats[in(0, 2)];
  c.out = floats[in(0, 2)];
  c.index = coin() ? ScalarType::Int32 : ScalarType::Int64;
  const DLDevice devices[] = {{kDLCPU, 0}, {kDLCUDA, 0}, {kDLCUDA, 3}};
  c.device = devices[in(0, 2)];
  c.backend = coin() ? Backend::Any : c.device.device_type == kDLCPU ? Backend::Cpu : Backend::Cuda;
  return c;
}

std::string shown(const test::ValidCallConfig& c) {
  std::ostringstream s;
  test::showValue(c, s);
  return s.str();
}

}  // namespace

CatalogueResult contract_catalogue_case(uint64_t seed, uint64_t index, int mutation_sets) {
  const rng::Counter r(seed, kCatalogueStream, index);
  uint64_t e = 0;
  const test::ValidCallConfig config = draw_config(r, e);
  CatalogueResult out;
  out.config = shown(config);
  const test::CallSpec valid = test::make_valid_spec(config);
  try {
    test::BuiltCall built(valid);
    const Dims d = validate(built.args(), valid.backend);
    if (d != config.dims()) {
      out.pass = false;
      out.detail = "valid call: validate() returned other dims";
      return out;
    }
  } catch (const std::exception& ex) {
    out.pass = false;
    out.detail = std::string("valid call rejected: ") + ex.what();
    return out;
  }
  for (int set = 0; set < mutation_sets; ++set) {
    std::vector<test::Mutation> mutations;
    const int n = 1 + static_cast<int>(r.below(e++, 4));
    for (int i = 0; i < n; ++i) {
      test::Mutation m{static_cast<test::Check>(r.below(e++, test::kCheckCount)), static_cast<uint32_t>(r.below(e++, 64))};
      if (std::none_of(mutations.begin(), mutations.end(), [&](const test::Mutation& x) { return x.check == m.check; }))
        mutations.push_back(m);
    }
    test::MutationTarget target{valid, config, config.B};
    const test::MutationResult applied = test::apply_mutations(target, mutations);
    if (!applied.expected) continue;  // none of them could break its check on this call
    std::vector<std::string> names;
    for (const auto& m : applied.applied) names.push_back(test::check_name(m.check));
    try {
      test::BuiltCall built(target.spec);
      validate(built.args(), target.spec.backend);
      out.pass = false;
      out.detail = fmt::format("mutations {}: accepted, expected {}", fmt::join(names, " + "), applied.expected->id);
      return out;
    } catch (const ContractError& ex) {
      if (ex.id() != applied.expected->id || ex.what() != applied.expected->message) {
        out.pass = false;
        out.detail = fmt::format("mutations {}: raised {} \"{}\", expected {} \"{}\"", fmt::join(names, " + "), ex.id(),
                                 ex.what(), applied.expected->id, applied.expected->message);
        return out;
      }
    } catch (const std::exception& ex) {
      out.pass = false;
      out.detail = fmt::format("mutations {}: threw a non-contract error: {}", fmt::join(names, " + "), ex.what());
      return out;
    }
  }
  return out;
}

}  // namespace kda::cli
