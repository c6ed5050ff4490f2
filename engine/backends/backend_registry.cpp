// The one table of backends: adding a backend is one entry here.
#include <functional>

#include "engine/backends/backend.hpp"
#include "engine/backends/cuda_backend.hpp"
#include "engine/backends/emulation_backend.hpp"
#include "engine/backends/perturb_backend.hpp"
#include "engine/backends/plugin_backend.hpp"
#include "engine/backends/reference_backend.hpp"

namespace kda::engine {
namespace {

struct Entry {
  BackendKind kind;
  std::string prefix;  // the spec starts with it ("cuda" also matches "cuda:1")
  std::function<std::unique_ptr<Backend>(const std::string& argument, const OperatorDescription& op)> make;
};

int device_of(const std::string& arg) {
  if (arg.empty()) return -1;
  std::size_t used = 0;
  const int d = std::stoi(arg, &used);
  if (used != arg.size() || d < 0) throw std::invalid_argument("not a GPU number: " + arg);
  return d;
}

const std::vector<Entry>& entries() {
  static const std::vector<Entry> e = {
      {{"reference", "the operator's Eigen reference step with the kernel's rounding points (CPU)"}, "reference",
       [](const std::string&, const OperatorDescription& op) {
         return make_reference_backend(reference::Rounding::Kernel, op);
       }},
      {{"reference-double", "the same step in float64 arithmetic, stores rounded (CPU)"}, "reference-double",
       [](const std::string&, const OperatorDescription& op) {
         return make_reference_backend(reference::Rounding::Off, op);
       }},
      {{"cuda[:N]", "this project's CUDA kernel on GPU N"}, "cuda",
       [](const std::string& arg, const OperatorDescription& op) { return make_cuda_backend(device_of(arg), op); }},
      {{"plugin:PATH", "a shared library exporting kda_plugin_describe (include/kda_harness/plugin.h)"}, "plugin",
       [](const std::string& arg, const OperatorDescription& op) {
         auto b = load_plugin_backend(arg);
         if (b->op().name != op.name)
           throw std::runtime_error("plugin " + arg + " implements " + std::string(b->op().name) + ", not " +
                                    std::string(op.name));
         return b;
       }},
      {{"emulate:PROFILE[:directed]", "the CPU emulation of a rounding profile (helion, triton); directed: every "
                                       "rounding point away from the exact value"},
       "emulate",
       [](const std::string& arg, const OperatorDescription& op) { return make_emulation_backend(arg, op); }},
      {{"perturb:TENSOR-HOW:K:BACKEND", "BACKEND with what it writes to one tensor (out, state, d, k, g) moved by K "
                                        "units of roundoff (scale, offset) or K ulps of one element (ulp)"},
       "perturb",
       [](const std::string& arg, const OperatorDescription& op) { return make_perturb_backend(arg, op); }},
  };
  return e;
}

}  // namespace

std::unique_ptr<Backend> make_backend(const std::string& spec, const OperatorDescription& op) {
  const std::size_t colon = spec.find(':');
  const std::string head = spec.substr(0, colon), arg = colon == std::string::npos ? "" : spec.substr(colon + 1);
  for (const Entry& e : entries())
    if (e.prefix == head) return e.make(arg, op);
  throw std::invalid_argument("unknown backend '" + spec + "' (reference, reference-double, cuda[:N], plugin:PATH, emulate:PROFILE[:directed], perturb:TENSOR-HOW:K:BACKEND)");
}

const OperatorDescription* operator_named_by(const std::string& spec) {
  if (spec.rfind("plugin:", 0) == 0) return &load_plugin_backend(spec.substr(7))->op();  // the table's entry
  if (spec.rfind("perturb:", 0) == 0) {  // perturb:TENSOR-HOW:K:BACKEND
    std::size_t at = 0;
    for (int field = 0; field < 3 && at != std::string::npos; ++field) at = spec.find(':', at + (field > 0 ? 1 : 0));
    if (at != std::string::npos) return operator_named_by(spec.substr(at + 1));
  }
  return nullptr;
}

const std::vector<BackendKind>& backend_kinds() {
  static const std::vector<BackendKind> kinds = [] {
    std::vector<BackendKind> k;
    for (const Entry& e : entries()) k.push_back(e.kind);
    return k;
  }();
  return kinds;
}

}  // namespace kda::engine
