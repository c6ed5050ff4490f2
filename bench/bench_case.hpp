// One benchmark configuration: a production shape of the decode step (bfloat16 activations
// and out, the ring dtype chosen per run, the state dtype varies), of one operator of the
// harness's table (bench_operators.hpp), and its bytes-moved model.
#pragma once
#include <cstdint>
#include <string>

#include "bench/bench_operators.hpp"
#include "engine/reports/bytes_model.hpp"
#include "contract/scalar_type.hpp"

namespace kda::bench {

// The bytes model is the engine's (engine/reports/bytes_model.hpp), shared with `check --time`.
using engine::ModelShape;
using engine::RowStep;
using engine::StepBytes;
using engine::cycle_average_bytes;
using engine::plain_decode_bytes;
using engine::uniform_step_bytes;

struct BenchCase {
  int64_t H = 32, HV = 32, K = 128, V = 128, B = 1, L = 1;
  ScalarType state = ScalarType::Float32;
  ScalarType act = ScalarType::BFloat16;   // mixed_qkv, a, b, A_log, dt_bias
  ScalarType ring = ScalarType::BFloat16;  // d_cache, k_cache (g_cache is float32)
  ScalarType out = ScalarType::BFloat16;
  BenchOperator op = bench_operators().front();  // the operator stepped (its layout, the rows timed)

  // "H32/HV32 B256 L8 f32", "gdn H16/HV32 B256 L8 f32", "packed H32/HV32 B256 L1 f32"
  std::string label() const;
  // The model's shape of this case (engine::model_shape; force_flush present: the benchmark passes it).
  ModelShape model() const;
};

// The cursor at which append steps are timed (all rows there): the middle of the ring.
inline int64_t append_cursor(const BenchCase& c) { return c.L / 2; }

}  // namespace kda::bench
