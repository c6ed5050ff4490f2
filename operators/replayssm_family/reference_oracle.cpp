#include "operators/replayssm_family/reference_oracle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "cases/case_tensors.hpp"
#include "contract/tensor_view.hpp"
#include "engine/oracles/spare_cores.hpp"
#include "engine/reports/element_note.hpp"
#include "engine/reports/phase_times.hpp"
#include "operators/replayssm_family/replayssm_driver.hpp"
#include "reference/layer_inputs.hpp"
#include "reference/replayssm_model.hpp"
#include "reference/tolerance.hpp"

namespace kda::engine {
namespace {

using reference::Comparison;

// Values of the 4-D tensor t at [i0, i1, i2, 0..n) (a "record" or a state row), or the one
// value at [i0, i1, i2] of a 3-D t (a ring of one scalar gate per record).
void append_record(std::vector<double>& to, const HostTensor& t, int64_t i0, int64_t i1, int64_t i2) {
  const bool scalar = t.dl().ndim == 3;
  const int64_t n = scalar ? 1 : t.shape()[3], first[4] = {i0, i1, i2, 0};
  const ScalarType type = t.type();
  const int64_t esize = static_cast<int64_t>(size_of(type)), step = scalar ? 0 : stride(t.dl(), 3) * esize;
  const std::byte* p = t.storage().data() + element_offset(t.dl(), first) * esize;
  for (int64_t e = 0; e < n; ++e, p += step) to.push_back(load_element(p, type));
}

// Blocks of one tensor, each with its own bound and labelled with where it is and who
// wrote it, so that a report names the tensor, the index, the row and the step of its worst
// block, and the worst element in it.
struct Blocks {
  const HostTensor &ref_tensor, &gpu_tensor;
  const std::vector<unsigned char>* before;  // gpu_tensor's bytes before the step
  int64_t block;
  std::vector<double> ref, gpu, floors, tolerances;
  std::vector<std::string> labels;
  std::vector<std::array<int64_t, 3>> places;  // [i0, i1, i2] of each block; i2 = -1: a whole [V, K] state
  Blocks(const HostTensor& r, const HostTensor& g, const std::vector<unsigned char>* b, int64_t size)
      : ref_tensor(r), gpu_tensor(g), before(b), block(size) {}
  void add_record(int64_t i0, int64_t i1, int64_t i2, double floor, double tolerance, std::string label) {
    append_record(ref, ref_tensor, i0, i1, i2);
    append_record(gpu, gpu_tensor, i0, i1, i2);
    places.push_back({i0, i1, i2});
    floors.push_back(floor);
    tolerances.push_back(tolerance);
    labels.push_back(std::move(label));
  }
  void add_state(int64_t slot, int64_t hv, double floor, double tolerance, std::string label) {
    for (int64_t v = 0; v < ref_tensor.shape()[2]; ++v) {
      append_record(ref, ref_tensor, slot, hv, v);
      append_record(gpu, gpu_tensor, slot, hv, v);
    }
    places.push_back({slot, hv, -1});
    floors.push_back(floor);
    tolerances.push_back(tolerance);
    labels.push_back(std::move(label));
  }
  Comparison compare() const {
    Comparison all;
    for (std::size_t b = 0; b < labels.size(); ++b) {
      const std::size_t at = b * static_cast<std::size_t>(block), n = static_cast<std::size_t>(block);
      Comparison c = reference::compare(std::span(ref).subspan(at, n), std::span(gpu).subspan(at, n), block,
                                        tolerances[b], std::span(floors).subspan(b, 1));
      c.worst_block = static_cast<int64_t>(b);
      c.where = labels[b];
      if (!c.pass) {
        const auto& p = places[b];
        if (std::string w = worst_element(ref_tensor, gpu_tensor, before, p[0], p[1], p[2]); !w.empty()) c.where += "; " + w;
      }
      all.merge(c);
    }
    return all;
  }
};

// What one accepted (row, hv) may differ by this step, per written block: a tolerance
// relative to a floor (compare.hpp), both from the float64 step on the same stored tensors.
struct HeadBound {
  double out_floor = 0, out = 0;
  double state_floor = 0, state = 0;
  double d_floor = 0, d = 0;
};

// The step-by-step bound (docs/error-analysis.md "The step-by-step suite"): the backend and
// the reference compute the step from the SAME stored checkpoint and ring records and the
// same inputs, so each lies within its own one-step running budget of the float64 step on
// those tensors (the budget of the truth suite, started from exact records), and the two
// within the sum of the two budgets of each other. A delta record adds each side's store.
class StepBudgets {
 public:
  StepBudgets(const CaseConfig& c, Profile profile, bool directed)
      : backend_(reference::rounding_rates(c, profile == Profile::Triton, directed)),
        reference_(reference::rounding_rates(c)) {}

  // The float64 step of (slot, hv) from `model`'s stored tensors, up to the row's cursor.
  HeadBound head(const reference::ReplayModel<double>& model, const Dims& dims, const RowPlan& p, int64_t hv,
                 const reference::HeadToken<double>& h, double& max_gate_mass) const {
    using reference::Matrix;
    const Matrix<double> before = model.rebuilt_state(p.slot, hv, p.cursor);
    const Matrix<double> decayed = before * h.g.array().exp().matrix().asDiagonal();
    const reference::Vector<double> delta = h.beta * (h.v - decayed * h.k);
    const Matrix<double> after = decayed + delta * h.k.transpose();
    std::array<reference::ErrorBudget::TokenBounds, 2> b;
    for (int side = 0; side < 2; ++side) {
      reference::ErrorBudget budget(reference::from_stored_records(side == 0 ? backend_ : reference_), dims);
      budget.start(p.slot, hv, model.checkpoint(p.slot, hv), model.d_records(p.slot, hv), model.k_records(p.slot, hv),
                   model.g_records(p.slot, hv), p.cursor);
      b[side] = budget.token(p.slot, hv, before, h, after, p.flush, nullptr, p.history ? &before : nullptr);
      max_gate_mass = std::max(max_gate_mass, budget.max_gate_mass());
    }
    HeadBound r;
    r.out_floor = b[0].output_scale;  // both budgets judge against the same float64 step
    r.out = b[0].output + b[1].output;
    r.state_floor = b[0].state_scale;
    r.state = b[0].state + b[1].state;
    // Each side's store of its delta: a relative step of its ring unit, or in the ring's
    // subnormal range an absolute one per element (fact (a)).
    const ScalarType ring = backend_.ring_dtype;
    const double stores = backend_.ring + reference_.ring;
    const double d_error = b[0].delta_error + b[1].delta_error + stores * b[0].delta_norm +
                           std::sqrt(static_cast<double>(dims.V)) * stores * reference::smallest_normal(ring);
    r.d_floor = std::max(b[0].delta_norm, reference::record_floor(dims.V, ring));
    r.d = r.d_floor > 0 ? d_error / r.d_floor : 0;
    return r;
  }

 private:
  reference::RoundingRates backend_, reference_;
};

// `also`, if any, runs beside the heads' bounds, which by then read only their own copies of
// ref's tensors (the model, the parameters, the token's inputs).
std::vector<HeadBound> head_bounds(CaseTensors& ref, const Dims& d, const std::vector<RowPlan>& plans,
                                   KdaCallView as_kda, std::vector<HostTensor>& storage, const StepBudgets& budgets,
                                   double& max_gate_mass, const std::function<void()>& also) {
  const StepArgs args = as_kda ? as_kda(ref.args(), d, storage) : ref.args();
  std::vector<int64_t> slots;  // only the accepted rows' slots are rebuilt
  for (const RowPlan& p : plans)
    if (p.accepted()) slots.push_back(p.slot);
  const auto model = reference::ReplayModel<double>::from_tensors(args, d, slots);
  const auto params = reference::load_params<double>(args, d);
  const auto inputs = reference::load_token<double>(args, d);
  // Each head's bound on its own: on helper threads where cores are spare (the same values).
  // So StepBudgets::head and what it calls run on several threads at once: they may keep
  // nothing shared between calls (working buffers per thread or per call), and the reference
  // step (`also`) writes only ref's tensors.
  std::vector<HeadBound> bounds(d.B * d.HV);
  std::vector<double> gate_mass(bounds.size(), 0.0);
  const double work = static_cast<double>(d.B * d.HV * d.V * d.K) * static_cast<double>(d.L + 2);
  const int64_t heads = d.B * d.HV;
  for_each_item(heads + (also ? 1 : 0), work, [&](int64_t head) {
    if (head == heads) return also();
    const int64_t row = head / d.HV, hv = head % d.HV;
    if (!plans[row].accepted()) return;
    bounds[head] = budgets.head(model, d, plans[row], hv, reference::prepare_head(params, inputs, row, hv), gate_mass[head]);
  });
  for (double g : gate_mass) max_gate_mass = std::max(max_gate_mass, g);
  return bounds;
}

// Compares out and what the plans say the step wrote (checkpoints of flushed rows, the
// ring records of appending rows). `before`: the backend's bytes before the step.
void compare_step(CaseTensors& ref, StepTensors& gpu, const Dims& dims, const std::vector<RowPlan>& plans,
                  const std::vector<HeadBound>& bounds, const reference::RecordBounds& rec, CaseReport& r,
                  const std::string& where, const WrittenBytes& before) {
  const int64_t gates = ref.g_cache.dl().ndim == 3 ? 1 : dims.K;  // per g record
  const double g_floor = reference::record_floor(gates, ScalarType::Float32);
  const double k_floor = reference::record_floor(dims.K, ref.config.ring_dtype);

  Blocks out(ref.out, gpu.out, &before.of("out"), dims.V),
      state(ref.initial_state, gpu.initial_state, &before.of("initial_state"), dims.V * dims.K),
      d(ref.d_cache, gpu.d_cache, &before.of("d_cache"), dims.V), k(ref.k_cache, gpu.k_cache, &before.of("k_cache"), dims.K),
      g(ref.g_cache, gpu.g_cache, &before.of("g_cache"), gates);
  const int64_t group = dims.HV / dims.H;
  const auto label = [&](const std::string& head, int64_t row, int64_t slot, int64_t h, int64_t j) {
    const std::string record = j >= 0 ? fmt::format(", record {}", j) : ", flush";
    return fmt::format("({} row {}: slot {}, {} {}{})", where, row, slot, head, h, record);
  };
  for (int64_t row = 0; row < dims.B; ++row) {
    const RowPlan& p = plans[row];
    for (int64_t hv = 0; hv < dims.HV; ++hv) {
      if (!p.accepted()) {  // a padding or rejected row: floor 0 demands exact zeros
        out.add_record(row, 0, hv, 0.0, 1.0,
                       fmt::format("out[{}, 0, {}] ({} row {}: a padding or rejected row, value head {}: expected zeros)",
                                   row, hv, where, row, hv));
        continue;
      }
      const HeadBound& b = bounds[row * dims.HV + hv];
      out.add_record(row, 0, hv, b.out_floor, b.out,
                     fmt::format("out[{}, 0, {}] ({} row {}: slot {}, value head {})", row, hv, where, row, p.slot, hv));
      if (p.writes_checkpoint())
        state.add_state(p.slot, hv, b.state_floor, b.state,
                        fmt::format("initial_state[{}, {}] {}", p.slot, hv,
                                    label(p.history ? "history checkpoint, value head" : "value head", row, p.slot, hv, -1)));
      if (!p.appends()) continue;
      const int64_t j = p.record;
      d.add_record(p.slot, hv, j, b.d_floor, b.d,
                   fmt::format("d_cache[{}, {}, {}] {}", p.slot, hv, j, label("value head", row, p.slot, hv, j)));
      g.add_record(p.slot, hv, j, g_floor, rec.g,
                   fmt::format("g_cache[{}, {}, {}] {}", p.slot, hv, j, label("value head", row, p.slot, hv, j)));
      if (hv % group == 0)
        k.add_record(p.slot, hv / group, j, k_floor, rec.k,
                     fmt::format("k_cache[{}, {}, {}] {}", p.slot, hv / group, j,
                                 label("query head", row, p.slot, hv / group, j)));
    }
  }
  r.out.merge(out.compare());
  r.state.merge(state.compare());
  r.d_ring.merge(d.compare());
  r.k_ring.merge(k.compare());
  r.g_ring.merge(g.compare());
}

// The reference's view of an adversarial step: every row the plan rejects becomes padding.
void copy_indices_as_reference_sees(const StepTensors& gpu, CaseTensors& ref, const std::vector<RowPlan>& plans) {
  ref.ssm_state_indices.copy_bytes_from(gpu.ssm_state_indices);
  ref.write_pos.copy_bytes_from(gpu.write_pos);
  if (ref.cache_base) ref.cache_base->copy_bytes_from(*gpu.cache_base);
  for (std::size_t row = 0; row < plans.size(); ++row)
    if (plans[row].status != 0) ref.ssm_state_indices.set_linear(static_cast<int64_t>(row), -1);
}

class ReferenceOracle final : public Oracle {
 public:
  ReferenceOracle(const CaseTensors& materialized, const OperatorDescription& op, Profile profile, bool directed)
      : op_(op), as_kda_(replayssm_driver_of(op).as_kda_call), budgets_(materialized.config, profile, directed),
        records_(bounds_vs_reference(materialized.config, profile, directed).records(0)), ref_(materialized) {}

  void before_step(const StepView& v) override {
    timed(Phase::Fill, [&] { copy_inputs_and_state(v.tensors, v.token); });
    copy_indices_as_reference_sees(v.tensors, ref_, v.plans);
    // Beside a backend's step in flight, the reference's step too (else only once judged:
    // a step the backend refuses as it must is not).
    stepped_ = v.step_in_flight;
    bounds_ = head_bounds(ref_, v.dims, v.plans, as_kda_, kda_storage_, budgets_, max_gate_mass_,
                          stepped_ ? std::function<void()>([this] { reference_step(); }) : nullptr);
  }
  void judge_step(const StepView& v, CaseReport& r) override {
    if (!std::exchange(stepped_, false)) timed(Phase::Reference, [&] { reference_step(); });
    r.max_gate_mass = max_gate_mass_;
    compare_step(ref_, v.tensors, v.dims, v.plans, bounds_, records_, r, v.where, v.before);
  }
  // Every step compared what it wrote; the footprint check shows nothing else moved.
  void finish(const StepView&, CaseReport&) override {}

 private:
  const OperatorDescription& op_;
  KdaCallView as_kda_;  // its calls as kda_replayssm's (its driver's view)
  StepBudgets budgets_;
  reference::RecordBounds records_;  // the k and g records' bounds (the d record's is per head)
  CaseTensors ref_;
  std::vector<HeadBound> bounds_;
  double max_gate_mass_ = 0;
  std::vector<HostTensor> kda_storage_;  // the re-laid tensors of the KDA view (head_bounds)
  bool stepped_ = false;                 // ref_ holds this step's results

  void reference_step() { op_.reference_step(op_.bind(ref_.args()), reference::Rounding::Kernel); }

  // The step's inputs as the driver loaded them into the backend's tensors (fill_token), and
  // the checkpoints and ring records the backend's earlier steps stored: the reference
  // computes the step from exactly what the backend reads. No step writes an input: the
  // driver's footprint check ends a case whose backend wrote one.
  void copy_inputs_and_state(const StepTensors& backend, int64_t token) {
    ref_.mixed_qkv.copy_bytes_from(backend.mixed_qkv);
    ref_.a.copy_bytes_from(backend.a);
    ref_.b.copy_bytes_from(backend.b);
    if (ref_.force_flush) ref_.force_flush->copy_bytes_from(*backend.force_flush);
    ref_.initial_state.copy_bytes_from(backend.initial_state);
    ref_.d_cache.copy_bytes_from(backend.d_cache);
    ref_.k_cache.copy_bytes_from(backend.k_cache);
    ref_.g_cache.copy_bytes_from(backend.g_cache);
    ref_.token = token;
  }
};

}  // namespace

std::unique_ptr<Oracle> reference_oracle(const CaseTensors& materialized, const OperatorDescription& op, Profile profile,
                                         bool directed) {
  return std::make_unique<ReferenceOracle>(materialized, op, profile, directed);
}

}  // namespace kda::engine
