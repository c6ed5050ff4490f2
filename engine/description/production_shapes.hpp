// Production shapes: the head layouts of the models these kernels serve, per GPU at a tensor
// parallelism, and the decode batches a server runs them at. `check --model NAME[:tp=N]`
// (Python: model=) restricts the backend suites to one model's shapes; a restriction that pins
// K and V (K=128,V=128) draws the same batches over the production head layouts of every model.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cases/case_config.hpp"
#include "engine/description/chooser.hpp"
#include "engine/description/sample_space.hpp"

namespace kda::engine {

// One model's linear-attention layer, as its published config gives it (whole model, tp = 1).
struct ModelInfo {
  std::string_view name;     // what --model takes: "kimi-linear-48b"
  std::string_view model;    // the checkpoint: "moonshotai/Kimi-Linear-48B-A3B-Instruct"
  bool gate_per_head;        // one scalar gate per value head (GDN) or one per key channel (KDA)
  int64_t H, HV, K, V;       // query (and key) heads, value heads, head dims
  std::string_view source;   // the config fields the numbers are
};
const std::vector<ModelInfo>& model_table();
// The table as text (`check --list-models`): one line per model and its per-GPU heads at
// tp = 1, 2, 4, 8, then its source.
std::string model_table_text();

// One model at one tensor parallelism: the heads one GPU holds.
struct ProductionShape {
  std::string model;  // "kimi-linear-48b:tp=2"
  int64_t H = 0, HV = 0, K = 0, V = 0;
};
// "NAME" or "NAME:tp=N" (N in 1, 2, 4, 8 dividing both head counts) for an operator whose gate is
// per head (`gate_per_head`) or per key channel. Throws std::invalid_argument saying what is
// wrong (an unknown name lists the known ones; a model of the other gate kind names it).
ProductionShape parse_model(std::string_view text, bool gate_per_head);

// The heads and batch of a production case (B, slots, pad_fraction, L, steps), drawn with `ch`
// for case `index`: B over the decode batches a server runs (1..256, CUDA-graph buckets
// included; one case in kLargeBatchEvery at B >= 64), slots above B, padding, a ring of at
// most `l_max` (0: no limit), 1 to 3 tokens. Heads from `shape` when given, else one of the
// production layouts. K and V are the caller's.
inline constexpr int64_t kLargeBatchEvery = 4;
void draw_production_batch(Chooser& ch, uint64_t index, const ProductionShape* shape, int64_t l_max, CaseConfig& c);

}  // namespace kda::engine
