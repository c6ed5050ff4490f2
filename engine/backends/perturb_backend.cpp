#include "engine/backends/perturb_backend.hpp"

#include <cmath>
#include <stdexcept>

#include "contract/ring_protocol.hpp"
#include "contract/tensor_view.hpp"
#include "reference/tensor_io.hpp"

namespace kda::engine {
namespace {

enum class How { Scale, Offset, Ulp };

struct Perturbation {
  std::string tensor;  // out, state, d, k, g
  How how = How::Scale;
  double k = 0;
};

// The elements one step wrote to a tensor: blocks of n elements at a start offset with an
// element stride.
struct WrittenBlock {
  int64_t offset, n, stride;
};

// One ulp of x in the dtype (its spacing at |x|; the subnormal spacing below the normal range).
double ulp_of(double x, ScalarType t) {
  const double normal = smallest_normal_of(t), u = unit_roundoff_of(t);
  const double a = std::fabs(x);
  if (a < normal) return 2 * u * normal;
  int exponent = 0;
  std::frexp(a, &exponent);
  return std::ldexp(2 * u, exponent - 1);
}

void perturb_block(DLTensor& t, const WrittenBlock& b, const Perturbation& p) {
  using reference::Matrix;
  const reference::io::Block block{b.offset, 1, 0, b.n, b.stride};
  Matrix<double> m;
  reference::io::gather(t, block, m);
  const ScalarType dtype = *scalar_type_of(t.dtype);
  const double u = unit_roundoff_of(dtype);
  switch (p.how) {
    case How::Scale: m *= 1 + p.k * u; break;
    case How::Offset: m.array() += p.k * u * m.norm() / std::sqrt(static_cast<double>(b.n)); break;
    case How::Ulp: m(0, 0) += p.k * ulp_of(m(0, 0), dtype); break;
  }
  reference::io::scatter(t, block, m);
}

class PerturbBackend final : public Backend {
 public:
  PerturbBackend(std::string spec, Perturbation p, std::unique_ptr<Backend> inner)
      : spec_(std::move(spec)), p_(std::move(p)), inner_(std::move(inner)) {}
  std::string name() const override { return "perturb:" + spec_; }
  const Envelope& envelope() const override { return inner_->envelope(); }
  Profile profile() const override { return inner_->profile(); }
  bool rounds_directed() const override { return inner_->rounds_directed(); }
  const OperatorDescription& op() const override { return inner_->op(); }
  std::optional<std::vector<int32_t>> row_status() override { return inner_->row_status(); }
  bool guards_intact() const override { return inner_->guards_intact(); }

  void step(const StepArgs& host) override {
    // Which rows write what, read before the inner step (it leaves indices and cursors as they are).
    const std::vector<WrittenBlock> blocks = written(host);
    inner_->step(host);
    DLTensor* t = target(host);
    if (!t) return;
    for (const WrittenBlock& b : blocks) {
      perturb_block(*t, b, p_);
      if (p_.how == How::Ulp) break;  // one element per step
    }
  }

 private:
  DLTensor* target(const StepArgs& a) const {
    if (p_.tensor == "out") return a.out;
    if (p_.tensor == "state") return a.initial_state;
    if (p_.tensor == "d") return a.d_cache;
    if (p_.tensor == "k") return a.k_cache;
    return a.g_cache;
  }

  // The blocks of the target tensor this call writes: out rows of live rows; checkpoints of
  // flushing rows (a history checkpoint too); ring records where appending rows write them
  // (contract/ring_protocol.hpp; keys once per query head).
  std::vector<WrittenBlock> written(const StepArgs& a) const {
    std::vector<WrittenBlock> w;
    const DLTensor* t = target(a);
    if (!t) return w;
    const DLTensor& state = *a.initial_state;
    const int64_t slots = state.shape[0], HV = state.shape[1], V = state.shape[2], K = state.shape[3];
    const int64_t B = numel(*a.ssm_state_indices);
    const int64_t L = a.k_cache ? a.k_cache->shape[2] : 1, H = a.k_cache ? a.k_cache->shape[1] : HV;
    for (int64_t row = 0; row < B; ++row) {
      const int64_t slot = index_value(*a.ssm_state_indices, row);
      const int64_t cursor = a.write_pos ? index_value(*a.write_pos, row) : 0;
      if (slot < 0 || slot >= slots || cursor < 0 || cursor >= L) continue;  // padding or refused
      const bool circular = a.circular_replay && a.cache_base;
      const RingCursor ring{circular, L, cursor, circular ? index_value(*a.cache_base, row) : 0};
      if (ring.base < 0 || ring.base >= L) continue;  // refused
      const RingStep kind = ring.step(a.force_flush && index_value(*a.force_flush, row) != 0);
      const bool checkpoint = kind != RingStep::Append, flush = kind == RingStep::Full;
      const int64_t record = ring.phys(cursor);
      for (int64_t hv = 0; hv < HV; ++hv) {
        const int64_t heads = p_.tensor == "k" ? H : HV, head = p_.tensor == "k" ? hv / (HV / H) : hv;
        if (p_.tensor == "k" && hv % (HV / H) != 0) continue;
        if (p_.tensor == "out") w.push_back({(row * HV + hv) * V, V, 1});  // out is contiguous (V8)
        else if (p_.tensor == "state" && checkpoint)
          for (int64_t e = 0; e < V; ++e)
            w.push_back({slot * stride(state, 0) + hv * stride(state, 1) + e * stride(state, 2), K, stride(state, 3)});
        else if (p_.tensor != "state" && p_.tensor != "out" && !flush && head < heads) {
          const bool scalar_gates = t->ndim == 3;  // g_cache [slots, HV, L]: one gate per record
          const int64_t n = p_.tensor == "d" ? V : scalar_gates ? 1 : K;
          w.push_back({slot * stride(*t, 0) + head * stride(*t, 1) + record * stride(*t, 2), n,
                       scalar_gates ? 1 : stride(*t, 3)});
        }
      }
    }
    return w;
  }

  std::string spec_;
  Perturbation p_;
  std::unique_ptr<Backend> inner_;
};

}  // namespace

std::unique_ptr<Backend> make_perturb_backend(const std::string& spec, const OperatorDescription& op) {
  const auto bad = [&spec](const std::string& why) {
    return std::invalid_argument("not a perturbation: 'perturb:" + spec + "' (" + why +
                                 "; perturb:TENSOR-HOW:K:BACKEND, TENSOR out|state|d|k|g, HOW scale|offset|ulp)");
  };
  const std::size_t c1 = spec.find(':'), c2 = c1 == std::string::npos ? c1 : spec.find(':', c1 + 1);
  if (c2 == std::string::npos) throw bad("three fields");
  const std::string what = spec.substr(0, c1), k_text = spec.substr(c1 + 1, c2 - c1 - 1), inner = spec.substr(c2 + 1);
  const std::size_t dash = what.find('-');
  Perturbation p;
  p.tensor = what.substr(0, dash);
  const std::string how = dash == std::string::npos ? "" : what.substr(dash + 1);
  if (p.tensor != "out" && p.tensor != "state" && p.tensor != "d" && p.tensor != "k" && p.tensor != "g")
    throw bad("unknown tensor '" + p.tensor + "'");
  if (how == "scale") p.how = How::Scale;
  else if (how == "offset") p.how = How::Offset;
  else if (how == "ulp") p.how = How::Ulp;
  else throw bad("unknown way '" + how + "'");
  std::size_t used = 0;
  try {
    p.k = std::stod(k_text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != k_text.size() || !std::isfinite(p.k)) throw bad("K is not a number: '" + k_text + "'");
  if (inner.empty()) throw bad("no backend to wrap");
  auto wrapped = make_backend(inner, op);
  if (p.tensor != "out" && p.tensor != "state" && !takes(wrapped->op(), p.tensor == "d" ? "d_cache" : p.tensor == "k" ? "k_cache" : "g_cache"))
    throw bad(std::string(wrapped->op().name) + " has no ring");
  return std::make_unique<PerturbBackend>(spec, std::move(p), std::move(wrapped));
}

}  // namespace kda::engine
