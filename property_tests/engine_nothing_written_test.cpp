// The one check that a refused call wrote nothing (engine/description/row_plan.hpp's any_change, which
// the driver, refusal_problem, golden error cases, the C library's contract suite and the fuzz
// oracle call) sees a write to any one tensor of any operator's call, and names it: for each
// operator of the table and each argument of contract/step_fields.hpp's table that the
// operator's call holds, one element changed is reported as that tensor and element.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "contract/step_fields.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/row_plan.hpp"
#include "operators/replayssm_family/case_tensors.hpp"

namespace kda::engine {
namespace {

std::string index_text(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

// A case of the operator with every optional tensor it takes present (cache_base, which no
// case config makes, as a [B] int32 tensor of zeros).
CaseTensors full_case(const OperatorDescription& op) {
  CaseTensors t = materialize_replayssm_case(op.fit_case(parse_case_config("B=2 H=1 HV=2 K=4 V=4 L=3 slots=3 ff=1 steps=1 seed=5")));
  for (const TensorField& f : kStepTensors)
    if (takes(op, f.name) && f.get(t.args()) == nullptr) {
      HostTensor made(ScalarType::Int32, {t.config.B});
      for (int64_t i = 0; i < made.numel(); ++i) made.set_linear(i, 0.0);
      t.at(f.name) = made;
    }
  return t;
}

TEST(NothingWritten, NamesAWriteToAnyOneTensorOfEachOperator) {
  for (const OperatorDescription* op : operators()) {
    CaseTensors t = full_case(*op);
    const StepArgs args = op->bind(t.args());
    const WrittenBytes before = snapshot_written(args);
    ASSERT_EQ(any_change(before, args), "") << op->name;
    std::set<std::string_view> seen;
    for (const TensorField& f : kStepTensors) {
      if (f.get(args) == nullptr) continue;  // an argument the operator does not take
      HostTensor& h = t.at(f.name);
      std::vector<int64_t> last;
      for (int64_t n : h.shape()) last.push_back(n - 1);
      const std::vector<std::byte> kept = h.storage();
      h.set(last, h.get(last) == 1.0 ? 2.0 : 1.0);  // NaN (an unread element) becomes 1
      const std::string m = any_change(before, args);
      EXPECT_NE(m.find(std::string(f.name) + index_text(last) + " ("), std::string::npos)
          << op->name << ", " << f.name << ": " << m;
      EXPECT_NE(m.find("a refused call must write nothing"), std::string::npos) << op->name << ": " << m;
      std::copy(kept.begin(), kept.end(), h.storage().begin());
      EXPECT_EQ(any_change(before, args), "") << op->name << ", " << f.name << " restored";
      seen.insert(f.name);
    }
    for (std::string_view name : op->tensors) EXPECT_TRUE(seen.count(name)) << op->name << " takes " << name;
  }
}

// A byte between the elements of a strided layout (a gap no step may write) is named too.
TEST(NothingWritten, NamesAByteInAGapOfAStridedLayout) {
  const OperatorDescription& op = default_operator();
  CaseTensors t = materialize_replayssm_case(op.fit_case(parse_case_config("B=2 H=1 HV=2 K=4 V=4 L=3 slots=3 env=1 steps=1 seed=5")));
  const StepArgs args = op.bind(t.args());
  const WrittenBytes before = snapshot_written(args);
  // initial_state's slot stride is its slot size + 257 elements: the element just past slot 0.
  const int64_t slot_size = t.initial_state.shape()[1] * t.initial_state.shape()[2] * t.initial_state.shape()[3];
  ASSERT_EQ(t.initial_state.strides()[0], slot_size + 257);
  t.initial_state.storage()[static_cast<std::size_t>(slot_size * 4)] ^= std::byte{1};
  const std::string m = any_change(before, args);
  EXPECT_NE(m.find("initial_state byte " + std::to_string(slot_size * 4) + " changed: it lies in a gap"),
            std::string::npos)
      << m;
}

}  // namespace
}  // namespace kda::engine
