// Internal to golden verification (golden_verify.cpp): reading blocks of the state and rings,
// byte-level comparisons, the float64 model that gives each step's floors, gate masses and
// (for a file without expected results) the expected values, and the end-of-case check.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/profile.hpp"
#include "engine/reports/case_report.hpp"
#include "golden/golden_case.hpp"
#include "operators/replayssm_family/truth_oracle.hpp"
#include "reference/compare.hpp"
#include "reference/layer_inputs.hpp"
#include "reference/replayssm_model.hpp"
#include "reference/tolerance.hpp"

namespace kda::golden {

std::vector<double> out_head(const HostTensor& out, int64_t row, int64_t hv);       // out[row, 0, hv, :]
std::vector<double> state_block(const HostTensor& state, int64_t slot, int64_t hv);  // state[slot, hv, :, :]
std::vector<double> checkpoint_values(const HostTensor& checkpoint, int64_t hv);     // [HV, V, K] -> [hv, :, :]
// ring[slot, head, j, :] of a 4-D ring; [ring[slot, head, j]] of a 3-D one (one scalar gate per record).
std::vector<double> record(const HostTensor& ring, int64_t slot, int64_t head, int64_t j);

// Every logical element of x has the same bytes as the element of y at the same index.
bool same_elements(const HostTensor& x, const HostTensor& y);
// How many elements of block [i0, i1, (i2 or all when < 0), :] differ in their bytes (of a
// 3-D tensor: [i0, i1, i2 or all]).
int64_t changed_elements(const HostTensor& x, const HostTensor& y, int64_t i0, int64_t i1, int64_t i2);

struct HeadStep {
  double mass = 0;        // the largest gate mass G (slot, hv) has reached (tolerance.hpp)
  double out_floor = 0;   // reference::output_floor of the head
  double state_floor = 0; // reference::state_floor
  double d_floor = 0;     // the natural scale of the delta: |beta| max(||v||, ||S|| ||k|| / sqrt(K))
  std::vector<double> o, state_after;  // the float64 model's output and (on a checkpoint) the state stored
};
struct RowStep {
  int64_t slot = -1, cursor = 0;
  bool flush = false;    // a full checkpoint
  bool history = false;  // a circular ring's history checkpoint (the state before the token) and an append
  int64_t record = 0;    // the physical ring slot an append writes
  bool checkpoint() const { return flush || history; }
  std::vector<HeadStep> heads;  // per hv (empty for padding rows)
};
struct StepExpectation {
  std::vector<RowStep> rows;
  std::vector<double> model_out(int64_t row, int64_t hv, int64_t V) const;  // zeros for padding rows
};

// The float64 ReplaySSM model run alongside the backend, from the case's inputs: the call as
// kda_replayssm's function reads it (the operator's as_kda_call view, when it has one).
class ModelTracker {
 public:
  ModelTracker(const StepArgs& args, const Dims& dims, engine::KdaCallView as_kda);
  // Before the backend's step on `args`: the row plan, the floors and the model's values.
  StepExpectation step(const StepArgs& args);

 private:
  // args as kda_replayssm's call; valid until the next call.
  StepArgs kda_args(const StepArgs& args);

  Dims d_;
  engine::KdaCallView as_kda_;
  std::vector<HostTensor> view_storage_;
  reference::LayerParams<double> params_;
  reference::ReplayModel<double> model_;
  ScalarType out_type_, state_type_;
  // Gate mass of the records in each (slot, hv)'s ring, and the largest one seen.
  std::map<std::pair<int64_t, int64_t>, double> ring_mass_, seen_mass_;
};

// The tolerances of a comparison with a reference (golden_verify.hpp), at gate mass G.
struct VerifyBounds {
  engine::ProfileBounds profile;  // its config's ring_dtype: the wider of d_cache's and k_cache's
  ScalarType ring_dtype = ScalarType::Float32;
  double out(double G) const { return profile.output_at(G); }
  double state(double G) const { return profile.state_at(G); }
  reference::RecordBounds records(double G) const { return profile.records(out(G)); }
};

// How one written block is judged: its floor (compare.hpp) and tolerance.
struct Judge {
  double floor = 0, tolerance = 0;
  std::string writer;  // the step and row that wrote it last: "step 2 row 1"
};

// The end of a step case: blocks a step wrote within tolerance of the final expected
// tensors, every other element bit for bit (against the expected tensor, or the input one
// when the file has no expected results).
struct FinalCheck {
  const GoldenCase& c;
  bool model_mode;
  engine::CaseReport& r;

  using Key = std::array<int64_t, 3>;
  // written: the blocks the steps wrote, and how each is judged.
  void state(const HostTensor& actual, const std::map<Key, Judge>& written, const Dims& d);
  void ring(const std::string& name, const HostTensor& actual, const std::map<Key, Judge>& written,
            reference::Comparison& into);

 private:
  // The final expected tensor of that name, checked to have actual's dtype and shape.
  const HostTensor& expected(const std::string& name, const HostTensor& actual) const;
};

}  // namespace kda::golden
