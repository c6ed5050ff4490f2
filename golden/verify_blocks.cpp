#include "golden/verify_blocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "contract/ring_protocol.hpp"
#include "contract/tensor_view.hpp"
#include "reference/compare.hpp"
#include "reference/plain_recurrence.hpp"

namespace kda::golden {

using reference::Comparison;

namespace {

const std::byte* element_ptr(const HostTensor& t, const std::vector<int64_t>& index) {
  return t.storage().data() + element_offset(t.dl(), index.data()) * size_of(t.type());
}

double value_at(const DLTensor& t, const std::vector<int64_t>& index) {
  const ScalarType type = *scalar_type_of(t.dtype);
  return load_element(static_cast<const std::byte*>(t.data) + t.byte_offset + element_offset(t, index.data()) * size_of(type),
                      type);
}

std::vector<int64_t> read_ints(const DLTensor* t, int64_t n, int64_t fallback) {
  std::vector<int64_t> v(n, fallback);
  if (t)
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(value_at(*t, {i}));
  return v;
}

}  // namespace

std::vector<double> out_head(const HostTensor& out, int64_t row, int64_t hv) {
  std::vector<double> v(out.shape()[3]);
  for (int64_t i = 0; i < out.shape()[3]; ++i) v[i] = out.get({row, 0, hv, i});
  return v;
}

std::vector<double> state_block(const HostTensor& state, int64_t slot, int64_t hv) {
  const int64_t V = state.shape()[2], K = state.shape()[3];
  std::vector<double> v;
  v.reserve(V * K);
  for (int64_t i = 0; i < V; ++i)
    for (int64_t k = 0; k < K; ++k) v.push_back(state.get({slot, hv, i, k}));
  return v;
}

std::vector<double> checkpoint_values(const HostTensor& checkpoint, int64_t hv) {
  const int64_t V = checkpoint.shape()[1], K = checkpoint.shape()[2];
  std::vector<double> v;
  v.reserve(V * K);
  for (int64_t i = 0; i < V; ++i)
    for (int64_t k = 0; k < K; ++k) v.push_back(checkpoint.get({hv, i, k}));
  return v;
}

std::vector<double> record(const HostTensor& ring, int64_t slot, int64_t head, int64_t j) {
  if (ring.shape().size() == 3) return {ring.get({slot, head, j})};
  std::vector<double> v(ring.shape()[3]);
  for (int64_t i = 0; i < ring.shape()[3]; ++i) v[i] = ring.get({slot, head, j, i});
  return v;
}

bool same_elements(const HostTensor& x, const HostTensor& y) {
  if (x.shape() != y.shape() || x.type() != y.type()) return false;
  const std::size_t size = size_of(x.type());
  const auto ox = element_offsets(x.shape(), x.strides()), oy = element_offsets(y.shape(), y.strides());
  for (std::size_t i = 0; i < ox.size(); ++i)
    if (std::memcmp(x.storage().data() + ox[i] * size, y.storage().data() + oy[i] * size, size) != 0) return false;
  return true;
}

int64_t changed_elements(const HostTensor& x, const HostTensor& y, int64_t i0, int64_t i1, int64_t i2) {
  const std::size_t size = size_of(x.type());
  const int64_t lo2 = i2 < 0 ? 0 : i2, hi2 = i2 < 0 ? x.shape()[2] : i2 + 1;
  const bool scalar_records = x.shape().size() == 3;
  int64_t changed = 0;
  for (int64_t j = lo2; j < hi2; ++j)
    for (int64_t e = 0; e < (scalar_records ? 1 : x.shape()[3]); ++e) {
      const std::vector<int64_t> at = scalar_records ? std::vector<int64_t>{i0, i1, j} : std::vector<int64_t>{i0, i1, j, e};
      changed += std::memcmp(element_ptr(x, at), element_ptr(y, at), size) != 0;
    }
  return changed;
}

std::vector<double> StepExpectation::model_out(int64_t row, int64_t hv, int64_t V) const {
  const RowStep& r = rows[row];
  return r.slot < 0 ? std::vector<double>(V, 0.0) : r.heads[hv].o;
}

StepArgs ModelTracker::kda_args(const StepArgs& args) { return as_kda_ ? as_kda_(args, d_, view_storage_) : args; }

ModelTracker::ModelTracker(const StepArgs& call, const Dims& dims, engine::KdaCallView as_kda)
    : d_(dims),
      as_kda_(as_kda),
      params_(reference::load_params<double>(kda_args(call), dims)),
      model_(reference::ReplayModel<double>::from_tensors(kda_args(call), dims)),
      out_type_(*scalar_type_of(call.out->dtype)),
      state_type_(*scalar_type_of(call.initial_state->dtype)) {
  const StepArgs args = kda_args(call);
  // Gate mass of the records present at step 0: the sum over records of max_c |g|.
  const auto slots = read_ints(args.ssm_state_indices, dims.B, -1);
  const auto cursors = read_ints(args.write_pos, dims.B, 0);
  for (int64_t row = 0; row < dims.B; ++row) {
    if (slots[row] < 0) continue;
    for (int64_t hv = 0; hv < dims.HV; ++hv) {
      double mass = 0;
      for (int64_t j = 0; j < cursors[row]; ++j) {
        double m = 0;
        for (int64_t c = 0; c < dims.K; ++c) m = std::max(m, std::abs(value_at(*args.g_cache, {slots[row], hv, j, c})));
        mass += m;
      }
      ring_mass_[{slots[row], hv}] = seen_mass_[{slots[row], hv}] = mass;
    }
  }
}

StepExpectation ModelTracker::step(const StepArgs& call) {
  const StepArgs args = kda_args(call);
  const auto token = reference::load_token<double>(args, d_);
  const auto write_pos = read_ints(args.write_pos, d_.B, 0);
  const auto force = read_ints(args.force_flush, d_.B, 0);
  const bool circular = call.circular_replay && call.cache_base;  // the view holds the rings in logical order
  const auto bases = read_ints(circular ? call.cache_base : nullptr, d_.B, 0);
  StepExpectation x;
  x.rows.resize(d_.B);
  for (int64_t row = 0; row < d_.B; ++row) {
    RowStep& rs = x.rows[row];
    rs.slot = token.slot[row];
    if (rs.slot < 0) continue;
    rs.cursor = write_pos[row];
    const RingCursor ring{circular, d_.L, rs.cursor, bases[row]};
    const RingStep kind = ring.step(force[row] != 0);
    rs.flush = kind == RingStep::Full;
    rs.history = kind == RingStep::History;
    rs.record = ring.phys(rs.cursor);
    for (int64_t hv = 0; hv < d_.HV; ++hv) {
      HeadStep h;
      const auto head = reference::prepare_head(params_, token, row, hv);
      reference::Matrix<double> S = model_.rebuilt_state(rs.slot, hv, rs.cursor);
      const double decayed = (S * head.g.array().exp().matrix().asDiagonal()).norm();
      if (rs.history) h.state_after.assign(S.data(), S.data() + S.size());  // the state before the token
      h.d_floor = std::abs(head.beta) * std::max(head.v.norm(), decayed * head.k.norm() / std::sqrt(static_cast<double>(d_.K)));
      const reference::Vector<double> o = reference::plain_head_update(S, head);  // S: the state after the token
      h.o.assign(o.data(), o.data() + o.size());
      h.out_floor = reference::output_floor(S.norm(), head.q_scaled.norm(), d_.K, d_.V, out_type_);
      h.state_floor = reference::state_floor(d_.V, d_.K, state_type_);
      if (rs.flush) h.state_after.assign(S.data(), S.data() + S.size());  // row-major [V, K]
      const std::pair<int64_t, int64_t> key{rs.slot, hv};
      const double g = head.g.cwiseAbs().maxCoeff();
      seen_mass_[key] = std::max(seen_mass_[key], ring_mass_[key] + g);
      ring_mass_[key] = rs.flush ? 0.0 : rs.history ? g : ring_mass_[key] + g;
      h.mass = seen_mass_[key];
      rs.heads.push_back(std::move(h));
    }
  }
  model_.step(params_, token, write_pos, force, args.circular_replay);
  return x;
}

const HostTensor& FinalCheck::expected(const std::string& name, const HostTensor& actual) const {
  return c.at(model_mode ? name : "expected." + name, actual.type(), actual.shape());
}

void FinalCheck::state(const HostTensor& actual, const std::map<Key, Judge>& written, const Dims& d) {
  const HostTensor& e = expected("initial_state", actual);
  if (!model_mode) {
    ++r.tensors_compared;
    r.tensors_bit_exact += same_elements(e, actual);
  }
  for (int64_t slot = 0; slot < d.slots; ++slot)
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      auto it = written.find({slot, hv, -1});
      if (it == written.end()) {
        r.untouched_changed += changed_elements(e, actual, slot, hv, -1);
      } else if (!model_mode) {
        Comparison cmp = reference::compare(state_block(e, slot, hv), state_block(actual, slot, hv), d.V * d.K,
                                            it->second.tolerance, {&it->second.floor, 1});
        cmp.where = fmt::format("end: initial_state[{}, {}] (slot {}, hv {}; written at {})", slot, hv, slot, hv,
                                it->second.writer);
        r.state.merge(cmp);
      }
    }
}

void FinalCheck::ring(const std::string& name, const HostTensor& actual, const std::map<Key, Judge>& written,
                      reference::Comparison& into) {
  const HostTensor& e = expected(name, actual);
  if (!model_mode) {
    ++r.tensors_compared;
    r.tensors_bit_exact += same_elements(e, actual);
  }
  for (int64_t slot = 0; slot < e.shape()[0]; ++slot)
    for (int64_t head = 0; head < e.shape()[1]; ++head)
      for (int64_t j = 0; j < e.shape()[2]; ++j) {
        auto it = written.find({slot, head, j});
        if (it == written.end()) {
          r.untouched_changed += changed_elements(e, actual, slot, head, j);
        } else if (!model_mode) {
          const std::vector<double> expected_record = record(e, slot, head, j);
          Comparison cmp = reference::compare(expected_record, record(actual, slot, head, j),
                                              static_cast<int64_t>(expected_record.size()), it->second.tolerance,
                                              {&it->second.floor, 1});
          cmp.where = fmt::format("end: {}[{}, {}, {}] (slot {}, {} {}, record {}; written at {})", name, slot, head, j, slot,
                                  name == "k_cache" ? "query head" : "hv", head, j, it->second.writer);
          into.merge(cmp);
        }
      }
}

}  // namespace kda::golden
