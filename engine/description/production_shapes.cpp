#include "engine/description/production_shapes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace kda::engine {
namespace {

const std::vector<ModelInfo> kModels = {
    {"kimi-linear-48b", "moonshotai/Kimi-Linear-48B-A3B-Instruct", false, 32, 32, 128, 128,
     "config.json linear_attn_config: num_heads 32, head_dim 128 (keys and values)"},
    {"qwen3-next-80b", "Qwen/Qwen3-Next-80B-A3B-Instruct", true, 16, 32, 128, 128,
     "config.json: linear_num_key_heads 16, linear_num_value_heads 32, linear_key_head_dim 128, "
     "linear_value_head_dim 128"},
};

constexpr int64_t kTensorParallel[] = {1, 2, 4, 8};

// The production layouts without a model: every model's heads at every tensor parallelism.
std::vector<ProductionShape> all_layouts() {
  std::vector<ProductionShape> out;
  for (const ModelInfo& m : kModels)
    for (int64_t tp : kTensorParallel)
      if (m.H % tp == 0 && m.HV % tp == 0)
        out.push_back({fmt::format("{}:tp={}", m.name, tp), m.H / tp, m.HV / tp, m.K, m.V});
  return out;
}

// Decode batches: CUDA-graph buckets (1, 2, 4, 8, 12, then every 8 up to 256, as SGLang
// captures them) and any size in between, small batches likelier (a server at low load).
constexpr WeightedRange kBatches[] = {{{1, 8}, 3}, {{9, 63}, 2}, {{64, 256}, 2}};
constexpr int64_t kBuckets[] = {1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128,
                                136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256};
constexpr int64_t kLargeBatch = 64, kMostRows = 256;
// Ring lengths a ReplaySSM layer runs with: short rings, and a long one now and then.
constexpr WeightedRange kRings[] = {{{1, 1}, 1}, {{2, 16}, 8}, {{17, 64}, 2}};
constexpr double kPadFractions[] = {0.0, 0.1, 0.25};

template <class T, std::size_t N>
std::span<const T> all(const T (&a)[N]) {
  return {a, N};
}

}  // namespace

const std::vector<ModelInfo>& model_table() { return kModels; }

std::string model_table_text() {
  std::string out = fmt::format("{:<18} {:<5} {:>4} {:>4} {:>4} {:>4}  {}\n", "model", "gate", "H", "HV", "K", "V",
                                "per GPU at tp=1,2,4,8 (H/HV)");
  for (const ModelInfo& m : kModels) {
    std::string per_gpu;
    for (int64_t tp : kTensorParallel)
      per_gpu += fmt::format("{}{}", per_gpu.empty() ? "" : " ",
                             m.H % tp == 0 && m.HV % tp == 0 ? fmt::format("{}/{}", m.H / tp, m.HV / tp) : "-");
    out += fmt::format("{:<18} {:<5} {:>4} {:>4} {:>4} {:>4}  {}\n", m.name, m.gate_per_head ? "head" : "key", m.H,
                       m.HV, m.K, m.V, per_gpu);
    out += fmt::format("{:<18} from {} {}\n", "", m.model, m.source);
  }
  return out;
}

ProductionShape parse_model(std::string_view text, bool gate_per_head) {
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  int64_t tp = 1;
  if (colon != std::string_view::npos) {
    const std::string_view rest = text.substr(colon + 1);
    const bool numbered = rest.rfind("tp=", 0) == 0;
    const auto [end, ec] = numbered ? std::from_chars(rest.data() + 3, rest.data() + rest.size(), tp)
                                    : std::from_chars_result{rest.data(), std::errc::invalid_argument};
    if (ec != std::errc() || end != rest.data() + rest.size())
      throw std::invalid_argument(fmt::format("--model {}: after the name comes :tp=N (N = 1, 2, 4 or 8)", text));
  }
  const auto m = std::find_if(kModels.begin(), kModels.end(), [&](const ModelInfo& i) { return i.name == name; });
  if (m == kModels.end()) {
    std::string known;
    for (const ModelInfo& i : kModels) known += (known.empty() ? "" : ", ") + std::string(i.name);
    throw std::invalid_argument(fmt::format("--model {}: unknown model (known: {}; --list-models)", name, known));
  }
  if (m->gate_per_head != gate_per_head)
    throw std::invalid_argument(fmt::format("--model {}: its layers gate per {}, this operator per {}", name,
                                            m->gate_per_head ? "head (GDN)" : "key channel (KDA)",
                                            gate_per_head ? "head (GDN)" : "key channel (KDA)"));
  if (std::find(std::begin(kTensorParallel), std::end(kTensorParallel), tp) == std::end(kTensorParallel) ||
      m->H % tp != 0 || m->HV % tp != 0)
    throw std::invalid_argument(fmt::format("--model {}: tp={} does not divide its {} query and {} value heads "
                                            "(tp is 1, 2, 4 or 8)",
                                            text, tp, m->H, m->HV));
  return {fmt::format("{}:tp={}", m->name, tp), m->H / tp, m->HV / tp, m->K, m->V};
}

void draw_production_batch(Chooser& ch, uint64_t index, const ProductionShape* shape, int64_t l_max, CaseConfig& c) {
  static const std::vector<ProductionShape> layouts = all_layouts();
  const ProductionShape& heads = shape != nullptr ? *shape : choose(ch, std::span<const ProductionShape>(layouts));
  c.H = heads.H, c.HV = heads.HV;
  if (index % kLargeBatchEvery == 0) c.B = ch.integer(kLargeBatch, kMostRows);
  else if (ch.coin()) c.B = choose(ch, all(kBuckets));
  else c.B = choose_in(ch, all(kBatches), {1, kMostRows});
  c.slots = c.B + ch.integer(1, std::min<int64_t>(c.B, 8));
  c.pad_fraction = c.B > 1 ? choose(ch, all(kPadFractions)) : 0.0;
  c.L = choose_in(ch, all(kRings), {1, l_max > 0 ? std::min<int64_t>(l_max, 64) : 64});
  c.steps = ch.integer(1, 3);
}

}  // namespace kda::engine
