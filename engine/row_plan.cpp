#include "engine/row_plan.hpp"

#include <fmt/format.h>

#include <map>

#include "contract/host_tensor.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "kernels/row_status.hpp"

namespace kda::engine {
namespace {

// The step's inputs that are present, by name.
std::vector<std::pair<const char*, const DLTensor*>> input_tensors(const StepArgs& a) {
  std::vector<std::pair<const char*, const DLTensor*>> v = {
      {"mixed_qkv", a.mixed_qkv}, {"a", a.a}, {"b", a.b}, {"A_log", a.A_log}, {"dt_bias", a.dt_bias},
      {"ssm_state_indices", a.ssm_state_indices}, {"write_pos", a.write_pos}, {"force_flush", a.force_flush}};
  std::erase_if(v, [](const auto& p) { return p.second == nullptr; });
  return v;
}

std::vector<unsigned char> bytes_of(const DLTensor& t) {
  const auto* base = static_cast<const unsigned char*>(t.data) + t.byte_offset;
  const auto shape = shape_of(t);
  const auto strides = strides_of(t);
  int64_t hi = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) hi += (shape[d] - 1) * strides[d];
  return std::vector<unsigned char>(base, base + (hi + 1) * (t.dtype.bits / 8));
}

// Marks the bytes of elements idx[0..2] x every index of the last dim.
void allow_row(std::vector<bool>& mask, const DLTensor& t, int64_t i0, int64_t i1, int64_t i2) {
  const int64_t esize = t.dtype.bits / 8, n = size(t, 3);
  for (int64_t e = 0; e < n; ++e) {
    const int64_t idx[4] = {i0, i1, i2, e};
    const int64_t at = element_offset(t, idx) * esize;
    for (int64_t b = 0; b < esize; ++b) mask[at + b] = true;
  }
}

// The logical index of the element that byte `at` of t's storage belongs to, or when it
// lies between elements (a gap of a strided layout) of the last element before it, with
// `inside` false. Searched element by element: only a failing check asks.
std::vector<int64_t> element_at(const DLTensor& t, int64_t at, bool& inside) {
  const auto shape = shape_of(t);
  const int64_t esize = t.dtype.bits / 8, n = numel(t);
  std::vector<int64_t> idx(shape.size(), 0), before;
  int64_t before_off = -1;
  for (int64_t e = 0; e < n; ++e) {
    int64_t rest = e;
    for (std::size_t d = shape.size(); d-- > 0;) idx[d] = rest % shape[d], rest /= shape[d];
    const int64_t off = element_offset(t, idx.data()) * esize;
    if (at >= off && at < off + esize) return inside = true, idx;
    if (off < at && off > before_off) before = idx, before_off = off;
  }
  inside = false;
  return before;
}

std::string index_text(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

double value_in(const std::vector<unsigned char>& bytes, const DLTensor& t, const std::vector<int64_t>& idx) {
  const int64_t at = element_offset(t, idx.data()) * (t.dtype.bits / 8);
  return load_element(reinterpret_cast<const std::byte*>(bytes.data() + at), *scalar_type_of(t.dtype));
}

// Which row, slot, head and record an element of a written tensor belongs to.
std::string owner_of(const std::string& name, const std::vector<int64_t>& i) {
  if (name == "out") return fmt::format("row {}, value head {}", i[0], i[2]);
  if (name == "initial_state") return fmt::format("slot {}, value head {}", i[0], i[1]);
  if (name == "k_cache") return fmt::format("slot {}, query head {}, record {}", i[0], i[1], i[2]);
  if (name == "d_cache" || name == "g_cache") return fmt::format("slot {}, value head {}, record {}", i[0], i[1], i[2]);
  return "an input of the step";
}

// Why the step may not write that element: what the rows naming its slot do this step.
std::string why_not(const std::string& name, const std::vector<int64_t>& i, const std::vector<RowPlan>& plans) {
  for (std::size_t row = 0; row < plans.size(); ++row) {
    const RowPlan& p = plans[row];
    if (!p.accepted() || p.slot != i[0]) continue;
    if (name == "initial_state") return fmt::format("row {} appends to slot {} (record {}): its checkpoint must not change", row, p.slot, p.cursor);
    if (p.flush) return fmt::format("row {} flushes slot {}: no ring record may change", row, p.slot);
    return fmt::format("row {} appends record {} of slot {}, not record {}", row, p.cursor, p.slot, i[2]);
  }
  return fmt::format("no accepted row names slot {} this step", i[0]);
}

// The first byte that changed and is not allowed, described: the tensor, the element's index,
// whose it is, its value before and after, and why the step may not write it (`plans`; none:
// a refused call, which may write nothing).
std::string first_violation(const char* name, const DLTensor& t, const std::vector<unsigned char>& before,
                            const std::vector<unsigned char>& after, const std::vector<bool>& allowed,
                            const std::vector<RowPlan>* plans, const char* rule = nullptr) {
  if (before.size() != after.size()) return std::string(name) + ": storage size changed";
  for (std::size_t b = 0; b < before.size(); ++b) {
    if (before[b] == after[b] || allowed[b]) continue;
    bool inside = false;
    const std::vector<int64_t> idx = element_at(t, static_cast<int64_t>(b), inside);
    if (!inside)
      return fmt::format("{} byte {} changed: it lies in a gap of the strided layout{}, which no step may write", name, b,
                         idx.empty() ? std::string()
                                     : fmt::format(" just past {}{} ({})", name, index_text(idx), owner_of(name, idx)));
    const std::string why = rule ? rule : plans ? why_not(name, idx, *plans) : "a refused call must write nothing";
    return fmt::format("{}{} ({}) changed from {:.6g} to {:.6g}: {}", name, index_text(idx), owner_of(name, idx),
                       value_in(before, t, idx), value_in(after, t, idx), why);
  }
  return "";
}

}  // namespace

std::vector<RowPlan> plan_rows(const StepArgs& a, const Dims& dims) {
  std::vector<RowPlan> plans(dims.B);
  std::map<int64_t, int> uses;
  for (int64_t r = 0; r < dims.B; ++r) {
    RowPlan& p = plans[r];
    p.slot = index_value(*a.ssm_state_indices, r);
    if (p.slot < 0) {
      p.status = cuda::kRowPadding;
      continue;
    }
    ++uses[p.slot];
    p.cursor = index_value(*a.write_pos, r);
    if (p.slot >= dims.slots) p.status |= cuda::kRowSlotOutOfRange;
    if (p.cursor < 0 || p.cursor >= dims.L) p.status |= cuda::kRowCursorOutOfRange;
    p.flush = p.cursor == dims.L - 1 || (a.force_flush != nullptr && index_value(*a.force_flush, r) != 0);
  }
  for (RowPlan& p : plans)
    if (p.slot >= 0 && uses[p.slot] > 1) p.status |= cuda::kRowDuplicateSlot;
  return plans;
}

WrittenBytes snapshot_written(const StepArgs& a) {
  WrittenBytes w{bytes_of(*a.out), bytes_of(*a.initial_state), bytes_of(*a.d_cache), bytes_of(*a.k_cache),
                 bytes_of(*a.g_cache), {}};
  for (const auto& [name, t] : input_tensors(a)) w.inputs.push_back(bytes_of(*t));
  return w;
}

std::string input_change(const WrittenBytes& before, const StepArgs& a) {
  const auto inputs = input_tensors(a);
  for (std::size_t i = 0; i < inputs.size() && i < before.inputs.size(); ++i) {
    const std::vector<unsigned char> now = bytes_of(*inputs[i].second);
    if (now != before.inputs[i])
      return first_violation(inputs[i].first, *inputs[i].second, before.inputs[i], now,
                             std::vector<bool>(now.size(), false), nullptr, "a step may not write its inputs");
  }
  return "";
}

std::string footprint_violation(const WrittenBytes& before, const StepArgs& a, const Dims& dims,
                                const std::vector<RowPlan>& plans) {
  const WrittenBytes after = snapshot_written(a);
  std::vector<bool> out(after.out.size(), true);  // out is written everywhere
  std::vector<bool> state(after.state.size()), d(after.d.size()), k(after.k.size()), g(after.g.size());
  const int64_t group = dims.HV / dims.H;
  for (const RowPlan& p : plans) {
    if (!p.accepted()) continue;
    for (int64_t hv = 0; hv < dims.HV; ++hv) {
      if (p.flush) {
        for (int64_t v = 0; v < dims.V; ++v) allow_row(state, *a.initial_state, p.slot, hv, v);
      } else {
        allow_row(d, *a.d_cache, p.slot, hv, p.cursor);
        allow_row(g, *a.g_cache, p.slot, hv, p.cursor);
        if (hv % group == 0) allow_row(k, *a.k_cache, p.slot, hv / group, p.cursor);
      }
    }
  }
  for (const std::string& v :
       {first_violation("out", *a.out, before.out, after.out, out, &plans),
        first_violation("initial_state", *a.initial_state, before.state, after.state, state, &plans),
        first_violation("d_cache", *a.d_cache, before.d, after.d, d, &plans),
        first_violation("k_cache", *a.k_cache, before.k, after.k, k, &plans),
        first_violation("g_cache", *a.g_cache, before.g, after.g, g, &plans), input_change(before, a)})
    if (!v.empty()) return v;
  return "";
}

std::string any_change(const WrittenBytes& before, const StepArgs& a) {
  const WrittenBytes after = snapshot_written(a);
  const auto none = [](const std::vector<unsigned char>& v) { return std::vector<bool>(v.size(), false); };
  for (const std::string& v :
       {first_violation("out", *a.out, before.out, after.out, none(after.out), nullptr),
        first_violation("initial_state", *a.initial_state, before.state, after.state, none(after.state), nullptr),
        first_violation("d_cache", *a.d_cache, before.d, after.d, none(after.d), nullptr),
        first_violation("k_cache", *a.k_cache, before.k, after.k, none(after.k), nullptr),
        first_violation("g_cache", *a.g_cache, before.g, after.g, none(after.g), nullptr), input_change(before, a)})
    if (!v.empty()) return v;
  return "";
}

}  // namespace kda::engine
