#include "engine/description/row_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <stdexcept>

#include "contract/host_tensor.hpp"
#include "contract/scalar_type.hpp"
#include "contract/step_fields.hpp"
#include "contract/tensor_view.hpp"

namespace kda::engine {
namespace {

// The storage bytes of t: from its first element to the end of the last one its strides reach
// (none for a tensor without elements, whatever its strides).
struct Bytes {
  const unsigned char* data;
  std::size_t size;
};
Bytes bytes_of(const DLTensor& t) {
  const auto* base = static_cast<const unsigned char*>(t.data) + t.byte_offset;
  int64_t hi = 0;
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 0) return {base, 0};
    hi += (t.shape[d] - 1) * stride(t, d);
  }
  return {base, static_cast<std::size_t>((hi + 1) * (t.dtype.bits / 8))};
}
void copy_into(std::vector<unsigned char>& to, const DLTensor& t) {
  const Bytes b = bytes_of(t);
  to.assign(b.data, b.data + b.size);  // keeps the vector's capacity from the last step
}

// The first byte where `before` and `after` differ outside `allowed` (nullptr: nowhere
// allowed), or -1. Most steps change only a few rows' bytes: chunks that did not change are
// passed with memcmp; in the others the allowed ranges are skipped and the rest compared word
// by word.
int64_t first_forbidden_change(const std::vector<unsigned char>& before, const Bytes& after, const WriteMask* allowed) {
  const std::size_t n = before.size();
  if (n == 0) return -1;  // an empty tensor: no bytes, and memcmp must not see its null data
  if (allowed == nullptr) {
    if (std::memcmp(before.data(), after.data, n) == 0) return -1;
    for (std::size_t b = 0; b < n; ++b)
      if (before[b] != after.data[b]) return static_cast<int64_t>(b);
    return -1;
  }
  const auto& ranges = allowed->ranges;
  std::size_t r = 0;  // the first range that ends past the byte looked at
  constexpr std::size_t kWord = sizeof(uint64_t), kChunk = 4096;
  for (std::size_t chunk = 0; chunk < n; chunk += kChunk) {
    const std::size_t end = std::min(n, chunk + kChunk);
    if (std::memcmp(before.data() + chunk, after.data + chunk, end - chunk) == 0) continue;
    std::size_t b = chunk;
    while (b < end) {
      while (r < ranges.size() && ranges[r].second <= b) ++r;
      if (r < ranges.size() && ranges[r].first <= b) {  // inside an allowed range: past it
        b = std::min(end, ranges[r].second);
        continue;
      }
      const std::size_t stop = r < ranges.size() ? std::min(end, ranges[r].first) : end;  // no byte allowed before it
      for (; b + kWord <= stop; b += kWord)
        if (std::memcmp(before.data() + b, after.data + b, kWord) != 0) break;
      for (; b < stop; ++b)
        if (before[b] != after.data[b]) return static_cast<int64_t>(b);
    }
  }
  return -1;
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

// The first byte that changed and is not allowed, described: the tensor, the element's index,
// whose it is, its value before and after, and why the step may not write it (`why_not`; none:
// a refused call, which may write nothing). `allowed` nullptr: no byte may change.
std::string first_violation(const char* name, const DLTensor& t, const std::vector<unsigned char>& before,
                            const Bytes& after, const WriteMask* allowed, const WhyNotWritable* why_not,
                            const char* rule = nullptr) {
  if (before.size() != after.size) return std::string(name) + ": storage size changed";
  const int64_t b = first_forbidden_change(before, after, allowed);
  if (b < 0) return "";
  bool inside = false;
  const std::vector<int64_t> idx = element_at(t, b, inside);
  if (!inside)
    return fmt::format("{} byte {} changed: it lies in a gap of the strided layout{}, which no step may write", name, b,
                       idx.empty() ? std::string()
                                   : fmt::format(" just past {}{} ({})", name, index_text(idx), owner_of(name, idx)));
  const std::string why = rule ? rule : why_not ? (*why_not)(idx) : "a refused call must write nothing";
  const std::vector<unsigned char> now(after.data, after.data + after.size);
  return fmt::format("{}{} ({}) changed from {:.6g} to {:.6g}: {}", name, index_text(idx), owner_of(name, idx),
                     value_in(before, t, idx), value_in(now, t, idx), why);
}

}  // namespace

const std::vector<unsigned char>& WrittenBytes::of(std::string_view name) const {
  for (std::size_t i = 0; i < kStepTensors.size(); ++i)
    if (kStepTensors[i].name == name) return tensors[i];
  throw std::invalid_argument(fmt::format("no tensor argument is named '{}'", name));
}

WrittenBytes snapshot_written(const StepArgs& a) {
  WrittenBytes w;
  snapshot_written(a, w);
  return w;
}

void snapshot_written(const StepArgs& a, WrittenBytes& w) {
  for (std::size_t i = 0; i < kStepTensors.size(); ++i) {
    if (const DLTensor* t = kStepTensors[i].get(a)) copy_into(w.tensors[i], *t);
    else w.tensors[i].clear();
  }
}

std::string input_change(const WrittenBytes& before, const StepArgs& a) {
  for (std::size_t i = 0; i < kStepTensors.size(); ++i) {
    const TensorField& f = kStepTensors[i];
    const DLTensor* t = f.get(a);
    if (f.written() || t == nullptr) continue;
    if (std::string v = first_violation(f.name.data(), *t, before.tensors[i], bytes_of(*t), nullptr, nullptr,
                                        "a step may not write its inputs");
        !v.empty())
      return v;
  }
  return "";
}

std::size_t storage_size(const DLTensor& t) { return bytes_of(t).size; }

void allow_row(WriteMask& mask, const DLTensor& t, int64_t i0, int64_t i1, int64_t i2) {
  const bool scalar = t.ndim == 3;
  const int64_t esize = t.dtype.bits / 8, n = scalar ? 1 : size(t, 3), last = scalar ? 1 : stride(t, 3);
  const int64_t idx[4] = {i0, i1, i2, 0};
  const int64_t first = element_offset(t, idx) * esize;
  if (last == 1) {
    mask.mark(static_cast<std::size_t>(first), static_cast<std::size_t>(n * esize));
    return;
  }
  for (int64_t e = 0; e < n; ++e) mask.mark(static_cast<std::size_t>(first + e * last * esize), static_cast<std::size_t>(esize));
}

std::string first_write_outside(const char* name, const DLTensor& t, const std::vector<unsigned char>& before,
                                const WriteMask& allowed, const WhyNotWritable& why_not) {
  return first_violation(name, t, before, bytes_of(t), &allowed, &why_not);
}

std::string any_change(const WrittenBytes& before, const StepArgs& a) {
  for (std::size_t i = 0; i < kStepTensors.size(); ++i) {
    const char* name = kStepTensors[i].name.data();
    const DLTensor* t = kStepTensors[i].get(a);
    if (t == nullptr) continue;  // an argument the call leaves out
    if (std::string v = first_violation(name, *t, before.tensors[i], bytes_of(*t), nullptr, nullptr); !v.empty()) return v;
  }
  return "";
}

}  // namespace kda::engine
