#include "property_tests/contract_mutations.hpp"

#include <algorithm>
#include <stdexcept>

#include "contract/error_catalog.hpp"
#include "contract/tensor_view.hpp"
#include "property_tests/contract_mutation_steps.hpp"

namespace kda::test {

const char* check_name(Check c) {
  static constexpr const char* names[] = {
      "P0",  "W1",  "W2",  "V1",  "V2",  "V3",  "V4",  "V5",  "V6",  "V7",      "V8", "V9", "V10", "V11",
      "V12", "V13", "V14", "V15", "V16", "V17", "V18", "V19", "V20", "V21",     "V22", "R1", "R2",  "R3",
      "R4-short", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "X-VIEW-A", "X-DTYPE-FLOAT", "X-DTYPE-INDEX",
      "X-RING-SLOTS", "X-STRIDES", "X-BACKEND"};
  static_assert(std::size(names) == kCheckCount);
  return names[static_cast<int>(c)];
}

void showValue(const Mutation& m, std::ostream& os) { os << check_name(m.check) << "#" << m.variant; }

std::optional<Expected> apply_mutation(MutationTarget& t, const Mutation& m) {
  const int i = static_cast<int>(m.check);
  if (i < 0 || i >= kCheckCount) throw std::out_of_range("apply_mutation: bad check");
  return i <= static_cast<int>(Check::V22) ? mutate_packed(t, m) : mutate_replayssm_or_extension(t, m);
}

MutationResult apply_mutations(MutationTarget& t, std::vector<Mutation> set) {
  // Latest check first, so the earliest is applied last and its expectation is final.
  std::sort(set.begin(), set.end(), [](const Mutation& x, const Mutation& y) { return x.check > y.check; });
  MutationResult r;
  for (const Mutation& m : set) {
    if (std::optional<Expected> e = apply_mutation(t, m)) {
      r.expected = std::move(e);
      r.applied.push_back(m);
    }
  }
  return r;
}

// Shared by the step files.
Expected fixed_message(const char* id) {
  const CatalogEntry* e = find_catalog_entry(id);
  if (!e || e->is_template()) throw std::logic_error(std::string("no fixed catalog message for ") + id);
  return {id, e->message};
}

DLDevice other_device(DLDevice d) {
  return d.device_type == kDLCPU ? DLDevice{kDLCUDA, 0} : DLDevice{kDLCUDA, d.device_id + 1};
}

std::string tuple_text(const std::vector<int64_t>& v) { return tuple_repr(v); }

}  // namespace kda::test
