#include "engine/reference_oracle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "cases/case_tensors.hpp"
#include "contract/tensor_view.hpp"
#include "engine/element_note.hpp"
#include "engine/phase_times.hpp"
#include "reference/layer_inputs.hpp"
#include "reference/replayssm_model.hpp"
#include "reference/tolerance.hpp"

namespace kda::engine {
namespace {

using reference::Comparison;

// Values of the 4-D tensor t at [i0, i1, i2, 0..n) (a "record" or a state row), or the one
// value at [i0, i1, i2] of a 3-D t (a ring of one scalar gate per record: gdn_replayssm's).
void append_record(std::vector<double>& to, const HostTensor& t, int64_t i0, int64_t i1, int64_t i2) {
  const bool scalar = t.dl().ndim == 3;
  const int64_t n = scalar ? 1 : t.shape()[3], first[4] = {i0, i1, i2, 0};
  const ScalarType type = t.type();
  const int64_t esize = static_cast<int64_t>(size_of(type)), step = scalar ? 0 : stride(t.dl(), 3) * esize;
  const std::byte* p = t.storage().data() + element_offset(t.dl(), first) * esize;
  for (int64_t e = 0; e < n; ++e, p += step) to.push_back(load_element(p, type));
}

// Blocks of one tensor, each labelled with where it is and who wrote it, so that a report
// names the tensor, the index, the row and the step of its worst block, and the worst
// element in it.
struct Blocks {
  const HostTensor &ref_tensor, &gpu_tensor;
  const std::vector<unsigned char>* before;  // gpu_tensor's bytes before the step, or nullptr
  int64_t block;
  std::vector<double> ref, gpu, floors;
  std::vector<std::string> labels;
  std::vector<std::array<int64_t, 3>> places;  // [i0, i1, i2] of each block; i2 = -1: a whole [V, K] state
  Blocks(const HostTensor& r, const HostTensor& g, const std::vector<unsigned char>* b, int64_t size)
      : ref_tensor(r), gpu_tensor(g), before(b), block(size) {}
  void add_record(int64_t i0, int64_t i1, int64_t i2, double floor, std::string label) {
    append_record(ref, ref_tensor, i0, i1, i2);
    append_record(gpu, gpu_tensor, i0, i1, i2);
    places.push_back({i0, i1, i2});
    floors.push_back(floor);
    labels.push_back(std::move(label));
  }
  void add_state(int64_t slot, int64_t hv, double floor, std::string label) {
    for (int64_t v = 0; v < ref_tensor.shape()[2]; ++v) {
      append_record(ref, ref_tensor, slot, hv, v);
      append_record(gpu, gpu_tensor, slot, hv, v);
    }
    places.push_back({slot, hv, -1});
    floors.push_back(floor);
    labels.push_back(std::move(label));
  }
  Comparison compare(double tol) const {
    Comparison c = reference::compare(ref, gpu, block, tol, floors);
    if (c.worst_block >= 0 && c.worst_block < static_cast<int64_t>(labels.size())) {
      c.where = labels[c.worst_block];
      if (!c.pass) {
        const auto& p = places[c.worst_block];
        if (std::string w = worst_element(ref_tensor, gpu_tensor, before, p[0], p[1], p[2]); !w.empty()) c.where += "; " + w;
      }
    }
    return c;
  }
};

// Who last wrote each checkpoint and ring record ("token 3 row 1"), for the end-of-rollout
// comparison; absent: it holds what the case started with.
struct Writers {
  std::map<std::array<int64_t, 4>, std::string> by;  // {tensor 0..3, slot, head, record}
  std::string of(int tensor, int64_t slot, int64_t head, int64_t j) const {
    const auto it = by.find({tensor, slot, head, j});
    return it == by.end() ? "as the case started" : "written at " + it->second;
  }
};
enum WrittenTensor { kState = 0, kD = 1, kK = 2, kG = 3 };

// The natural scale of what one accepted (row, hv) computes this step, from the reference's
// tensors before the step, in float64 (compare.hpp's floors: a quantity that cancels is
// judged against the size of its terms), and the gate mass G of its rebuild (tolerance.hpp).
struct HeadScale {
  double out_floor = 0, d_floor = 0, gate_mass = 0;
  double state_terms = 0;  // the state after the token, S + d k^T: max(its norm, ||S||_F, ||d|| ||k||)
};

// The size of the parts the state of (slot, hv) is rebuilt from, decayed to after the token's
// gate g: ||S0 diag(exp(total + g))|| + sum_j ||d_j|| ||k_j * exp(total - prefix_j + g)||.
double rebuild_parts(CaseTensors& ref, const Dims& d, int64_t slot, int64_t hv, int64_t cursor,
                     const reference::Vector<double>& g) {
  const int64_t h = hv / (d.HV / d.H);
  std::vector<double> decay(static_cast<std::size_t>(d.K));  // exp(total - prefix_j + g), from j = cursor down
  for (int64_t c = 0; c < d.K; ++c) decay[c] = std::exp(g[c]);
  double records = 0;
  for (int64_t j = cursor - 1; j >= 0; --j) {
    double dn = 0, wn = 0;
    for (int64_t e = 0; e < d.V; ++e) dn += std::pow(ref.d_cache.get({slot, hv, j, e}), 2);
    for (int64_t c = 0; c < d.K; ++c) wn += std::pow(ref.k_cache.get({slot, h, j, c}) * decay[c], 2);
    records += std::sqrt(dn * wn);
    for (int64_t c = 0; c < d.K; ++c)
      decay[c] *= std::exp(ref.g_cache.dl().ndim == 3 ? ref.g_cache.get({slot, hv, j}) : ref.g_cache.get({slot, hv, j, c}));
  }
  double checkpoint = 0;
  for (int64_t e = 0; e < d.V; ++e)
    for (int64_t c = 0; c < d.K; ++c) checkpoint += std::pow(ref.initial_state.get({slot, hv, e, c}) * decay[c], 2);
  return std::sqrt(checkpoint) + records;
}

std::vector<HeadScale> head_scales(CaseTensors& ref, const Dims& d, const std::vector<RowPlan>& plans,
                                   KdaCallView as_kda, std::vector<HostTensor>& storage) {
  using reference::Matrix;
  const StepArgs args = as_kda ? as_kda(ref.args(), d, storage) : ref.args();
  std::vector<int64_t> slots;  // only the accepted rows' slots are rebuilt
  for (const RowPlan& p : plans)
    if (p.accepted()) slots.push_back(p.slot);
  const auto model = reference::ReplayModel<double>::from_tensors(args, d, slots);
  const auto params = reference::load_params<double>(args, d);
  const auto inputs = reference::load_token<double>(args, d);
  std::vector<HeadScale> scales(d.B * d.HV);
  std::vector<double> record;
  for (int64_t row = 0; row < d.B; ++row) {
    const RowPlan& p = plans[row];
    if (!p.accepted()) continue;
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      const auto h = reference::prepare_head(params, inputs, row, hv);
      const Matrix<double> S = model.rebuilt_state(p.slot, hv, p.cursor) * h.g.array().exp().matrix().asDiagonal();
      const reference::Vector<double> delta = h.beta * (h.v - S * h.k);
      const Matrix<double> after = S + delta * h.k.transpose();
      HeadScale& sc = scales[row * d.HV + hv];
      // S + d k^T cancels where beta k.k is near 1 (the delta rule removes S's component
      // along k): its rounding errors, and those of o = (S + d k^T) q, scale with the terms.
      // So does the rebuilt S where its parts (the decayed checkpoint and the records) cancel:
      // each side rounds the parts, not their sum (the conditioning term, docs/error-analysis.md).
      const double parts = rebuild_parts(ref, d, p.slot, hv, p.cursor, h.g);
      sc.state_terms = std::max({after.norm(), S.norm(), delta.norm() * h.k.norm(), parts});
      sc.out_floor = reference::output_floor(sc.state_terms, h.q_scaled.norm(), d.K, d.V, ref.config.out_dtype);
      sc.d_floor = std::abs(h.beta) * std::max(h.v.norm(), std::max(S.norm(), parts) * h.k.norm() /
                                                              std::sqrt(static_cast<double>(d.K)));
      sc.gate_mass = h.g.cwiseAbs().maxCoeff();
      for (int64_t j = 0; j < p.cursor; ++j) {
        record.clear();
        append_record(record, ref.g_cache, p.slot, hv, j);
        double worst = 0;
        for (const double x : record) worst = std::max(worst, std::abs(x));
        sc.gate_mass += worst;
      }
    }
  }
  return scales;
}

// Compares out and what the plans say the step wrote; with `all_records`, every checkpoint
// and k/g ring record that the accepted rows still depend on instead (end of rollout; d
// records were compared, against their floors, when written, and the footprint check shows
// that nothing moved them since). checkpoint_terms[slot * HV + hv]: the term size of the
// checkpoint's last flush (0: never flushed), set by a step's flushes, used by all_records.
// `before`: the backend's bytes before the step (nullptr at the end of the rollout).
void compare_step(CaseTensors& ref, StepTensors& gpu, const Dims& dims, const std::vector<RowPlan>& plans,
                  const std::vector<HeadScale>& scales, bool all_records, std::vector<double>& checkpoint_terms,
                  const ProfileBounds& rb, CaseReport& r, const std::string& where, const WrittenBytes* before,
                  Writers& writers) {
  for (const HeadScale& sc : scales) r.max_gate_mass = std::max(r.max_gate_mass, sc.gate_mass);
  const double out_bound = rb.output_at(r.max_gate_mass), state_bound = rb.state_at(r.max_gate_mass);
  const reference::RecordBounds rec = rb.records(out_bound);
  const double s_floor = reference::state_floor(dims.V, dims.K, ref.config.state_dtype);
  const int64_t gates = ref.g_cache.dl().ndim == 3 ? 1 : dims.K;  // per g record
  const double g_floor = reference::record_floor(gates, ScalarType::Float32);
  const double k_floor = reference::record_floor(dims.K, ref.config.ring_dtype);
  const double d_floor = reference::record_floor(dims.V, ref.config.ring_dtype);

  Blocks state(ref.initial_state, gpu.initial_state, before ? &before->of("initial_state") : nullptr, dims.V * dims.K),
      d(ref.d_cache, gpu.d_cache, before ? &before->of("d_cache") : nullptr, dims.V),
      k(ref.k_cache, gpu.k_cache, before ? &before->of("k_cache") : nullptr, dims.K),
      g(ref.g_cache, gpu.g_cache, before ? &before->of("g_cache") : nullptr, gates);
  const int64_t group = dims.HV / dims.H;
  // "(token 3 row 1: slot 4, value head 2, record 0)"; at the end: "(end of rollout: slot 4,
  // value head 2, record 0, written at token 1 row 1)".
  const auto label = [&](int tensor, const std::string& head, int64_t row, int64_t slot, int64_t h, int64_t j) {
    const std::string record = j >= 0 ? fmt::format(", record {}", j) : (all_records ? "" : ", flush");
    if (all_records) return fmt::format("({}: slot {}, {} {}{}, {})", where, slot, head, h, record, writers.of(tensor, slot, h, j));
    writers.by[{tensor, slot, h, j}] = fmt::format("{} row {}", where, row);
    return fmt::format("({} row {}: slot {}, {} {}{})", where, row, slot, head, h, record);
  };
  for (int64_t row = 0; row < dims.B; ++row) {
    const RowPlan& p = plans[row];
    if (!p.accepted()) continue;
    for (int64_t hv = 0; hv < dims.HV; ++hv) {
      if (all_records || p.flush) {
        double& terms = checkpoint_terms[p.slot * dims.HV + hv];
        if (!all_records) terms = scales[row * dims.HV + hv].state_terms;
        state.add_state(p.slot, hv, std::max(s_floor, terms),
                        fmt::format("initial_state[{}, {}] {}", p.slot, hv, label(kState, "value head", row, p.slot, hv, -1)));
      }
      const int64_t lo = all_records ? 0 : p.cursor, hi = all_records ? p.cursor : (p.flush ? 0 : p.cursor + 1);
      for (int64_t j = lo; j < hi; ++j) {
        if (!all_records)
          d.add_record(p.slot, hv, j, std::max(scales[row * dims.HV + hv].d_floor, d_floor),
                       fmt::format("d_cache[{}, {}, {}] {}", p.slot, hv, j, label(kD, "value head", row, p.slot, hv, j)));
        g.add_record(p.slot, hv, j, g_floor,
                     fmt::format("g_cache[{}, {}, {}] {}", p.slot, hv, j, label(kG, "value head", row, p.slot, hv, j)));
        if (hv % group == 0)
          k.add_record(p.slot, hv / group, j, k_floor,
                       fmt::format("k_cache[{}, {}, {}] {}", p.slot, hv / group, j,
                                   label(kK, "query head", row, p.slot, hv / group, j)));
      }
    }
  }
  auto fold = [](Comparison& into, const Comparison& c) { into.merge(c); };
  if (!all_records) {
    std::vector<double> out_floors(dims.B * dims.HV);  // padding / rejected rows: 0, exact zeros
    for (std::size_t i = 0; i < out_floors.size(); ++i) out_floors[i] = scales[i].out_floor;
    Comparison o = reference::compare(ref.out, gpu.out, dims.V, out_bound, out_floors);
    if (o.worst_block >= 0) {
      const int64_t row = o.worst_block / dims.HV, hv = o.worst_block % dims.HV;
      const RowPlan& p = plans[row];
      o.where = p.accepted() ? fmt::format("out[{}, 0, {}] ({} row {}: slot {}, value head {})", row, hv, where, row, p.slot, hv)
                             : fmt::format("out[{}, 0, {}] ({} row {}: a padding or rejected row, value head {}: expected "
                                           "zeros)",
                                           row, hv, where, row, hv);
      if (!o.pass)
        if (std::string w = worst_element(ref.out, gpu.out, before ? &before->of("out") : nullptr, row, 0, hv); !w.empty())
          o.where += "; " + w;
    }
    fold(r.out, o);
  }
  fold(r.state, state.compare(state_bound));
  fold(r.d_ring, d.compare(rec.d));
  fold(r.k_ring, k.compare(rec.k));
  fold(r.g_ring, g.compare(rec.g));
}

// The reference's view of an adversarial step: every row the plan rejects becomes padding.
void copy_indices_as_reference_sees(const StepTensors& gpu, CaseTensors& ref, const std::vector<RowPlan>& plans) {
  ref.ssm_state_indices.copy_bytes_from(gpu.ssm_state_indices);
  ref.write_pos.copy_bytes_from(gpu.write_pos);
  for (std::size_t row = 0; row < plans.size(); ++row)
    if (plans[row].status != 0) ref.ssm_state_indices.set_linear(static_cast<int64_t>(row), -1);
}

class ReferenceOracle final : public Oracle {
 public:
  ReferenceOracle(const CaseTensors& materialized, const OperatorDescription& op, Profile profile, bool directed)
      : op_(op), bounds_(bounds_vs_reference(materialized.config, profile, directed)), ref_(materialized),
        checkpoint_terms_(static_cast<std::size_t>(materialized.config.slots * materialized.config.HV), 0.0) {}

  void before_step(const StepView& v) override {
    if (v.token > 0) timed(Phase::Fill, [&] { copy_token(v.tensors, v.token); });
    copy_indices_as_reference_sees(v.tensors, ref_, v.plans);
    scales_ = head_scales(ref_, v.dims, v.plans, op_.as_kda_call, kda_storage_);
  }
  void judge_step(const StepView& v, CaseReport& r) override {
    timed(Phase::Reference, [&] { op_.reference_step(op_.bind(ref_.args()), reference::Rounding::Kernel); });
    compare_step(ref_, v.tensors, v.dims, v.plans, scales_, false, checkpoint_terms_, bounds_, r, v.where, &v.before,
                 writers_);
  }
  void finish(const StepView& v, CaseReport& r) override {
    compare_step(ref_, v.tensors, v.dims, v.plans, std::vector<HeadScale>(v.dims.B * v.dims.HV), true,
                 checkpoint_terms_, bounds_, r, "end of rollout", nullptr, writers_);
  }

 private:
  const OperatorDescription& op_;
  ProfileBounds bounds_;
  CaseTensors ref_;
  std::vector<double> checkpoint_terms_;
  std::vector<HeadScale> scales_;
  std::vector<HostTensor> kda_storage_;  // the re-laid tensors of the KDA view (head_scales)
  Writers writers_;

  // The token's inputs as the driver loaded them into the backend's tensors (fill_token:
  // the same values a fill of the reference's own would give, at a copy's cost). No step
  // writes them: the driver's footprint check ends a case whose backend wrote an input.
  void copy_token(const StepTensors& backend, int64_t token) {
    ref_.mixed_qkv.copy_bytes_from(backend.mixed_qkv);
    ref_.a.copy_bytes_from(backend.a);
    ref_.b.copy_bytes_from(backend.b);
    if (ref_.force_flush) ref_.force_flush->copy_bytes_from(*backend.force_flush);
    ref_.token = token;
  }
};

}  // namespace

std::unique_ptr<Oracle> reference_oracle(const CaseTensors& materialized, const OperatorDescription& op, Profile profile,
                                         bool directed) {
  return std::make_unique<ReferenceOracle>(materialized, op, profile, directed);
}

}  // namespace kda::engine
