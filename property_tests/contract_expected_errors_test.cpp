// Hand-written expectations: for every catalog entry at least one input that raises exactly
// it, with the message of a templated entry rendered out by hand (the catalog's fixed
// messages are taken from the catalog), plus edge cases of PyTorch's semantics (flattened
// views, tuple repr, the W3 ruling, huge sizes). The last test fails if some catalog entry
// has no input here.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "contract/error_catalog.hpp"
#include "contract/validate.hpp"
#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"
#include "engine/description/operator.hpp"
#include "operators/replayssm_family/valid_call.hpp"
#include "property_tests/contract_runtime_rows.hpp"

namespace kda::test {
namespace {

using engine::BuiltCall;
using engine::CallSpec;

struct Row {
  const char* name;
  std::function<void(CallSpec&)> edit;  // applied to the default valid call (see below)
  const char* id;                       // "" = accepted
  const char* message;                  // kCatalogMessage: the catalog's fixed message for id
};

constexpr const char* kCatalogMessage = nullptr;

std::string expected_message(const Row& row) {
  if (row.message) return row.message;
  const CatalogEntry* e = find_catalog_entry(row.id);
  if (!e || e->is_template()) return std::string("no fixed catalog message for ") + row.id;
  return e->message;
}

// The default call: B=3 H=2 HV=4 K=128 V=128 L=4 slots=5, on the CPU, force_flush present.
CallSpec base() { return engine::make_valid_spec(engine::CallConfig{}); }

constexpr DLDevice kCuda0{kDLCUDA, 0};
constexpr int64_t k2p62 = int64_t{1} << 62;

void huge_heads(CallSpec& s) {  // HV = K = 2^31, so HV*K = 2^62 fits but products beyond do not
  const int64_t big = int64_t{1} << 31;
  s.at("initial_state").shape = {5, big, 128, big};  // null strides: compact strides overflow int64
  s.at("initial_state").null_strides = true;
  s.at("a").shape = {3, k2p62};
  s.at("a").null_strides = true;
  s.at("b").reshape({3, big});
  s.at("A_log").reshape({big});
}

const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      {"valid default", [](CallSpec&) {}, "", ""},
      {"P0: 0-d mixed_qkv", [](CallSpec& s) { s.at("mixed_qkv").reshape({}); }, "V1",
       "`mixed_qkv` must be a 2D tensor (got ndim=0)."},
      {"W1: 4-D a", [](CallSpec& s) { s.at("a").reshape({3, 4, 128, 1}); }, "W1", kCatalogMessage},
      {"W1: padded rows", [](CallSpec& s) { s.at("a").reshape({3, 512}).strides = {1024, 1}; }, "W1", kCatalogMessage},
      {"W2: 3-D dt_bias", [](CallSpec& s) { s.at("dt_bias").reshape({1, 4, 128}); }, "W2", kCatalogMessage},
      {"V1: 3-D mixed_qkv", [](CallSpec& s) { s.at("mixed_qkv").reshape({3, 1, 1024}); }, "V1",
       "`mixed_qkv` must be a 2D tensor (got ndim=3)."},
      {"V2: last stride 2", [](CallSpec& s) { s.at("mixed_qkv").reshape({3, 1024}).strides = {2048, 2}; }, "V2", kCatalogMessage},
      {"V2 passes: padded row stride", [](CallSpec& s) { s.at("mixed_qkv").reshape({3, 1024}).strides = {2048, 1}; }, "", ""},
      {"V3: 3-D b", [](CallSpec& s) { s.at("b").reshape({3, 4, 1}); }, "V3",
       "`a` and `b` must be 2D tensors (got a.ndim=2, b.ndim=3)."},
      {"V3: a is flattened, so a 3-D a prints ndim=2", [](CallSpec& s) { s.at("a").reshape({3, 4, 128}); s.at("b").reshape({3}); },
       "V3", "`a` and `b` must be 2D tensors (got a.ndim=2, b.ndim=1)."},
      {"V4: b last stride 2", [](CallSpec& s) { s.at("b").reshape({3, 4}).strides = {8, 2}; }, "V4", kCatalogMessage},
      {"V4: a [3,1,1] keeps its last stride 7 through view()", [](CallSpec& s) { s.at("a").reshape({3, 1, 1}).strides = {1, 5, 7}; },
       "V4", kCatalogMessage},
      {"V5: 2-D A_log", [](CallSpec& s) { s.at("A_log").reshape({4, 1}); }, "V5", kCatalogMessage},
      {"V6: A_log stride 2", [](CallSpec& s) { s.at("A_log").reshape({4}).strides = {2}; }, "V6", kCatalogMessage},
      {"V6: dt_bias [1,1] keeps stride 5 through view(-1)", [](CallSpec& s) { s.at("dt_bias").reshape({1, 1}).strides = {3, 5}; },
       "V6", kCatalogMessage},
      {"V7: 2-D indices", [](CallSpec& s) { s.at("ssm_state_indices").reshape({3, 1}); }, "V7",
       "`ssm_state_indices` must be 1D for packed decode (got ndim=2)."},
      {"V8: token slice of a [B, 2, HV, V] buffer", [](CallSpec& s) { s.at("out").reshape({3, 1, 4, 128}).strides = {1024, 512, 128, 1}; },
       "V8", kCatalogMessage},
      {"V8 passes: any stride on the size-1 token dim", [](CallSpec& s) { s.at("out").reshape({3, 1, 4, 128}).strides = {512, 99, 128, 1}; },
       "", ""},
      {"V9: indices on cuda:0", [](CallSpec& s) { s.at("ssm_state_indices").device = kCuda0; }, "V9", kCatalogMessage},
      {"V9: cuda:0 vs cuda:1", [](CallSpec& s) { for (auto* t : s.all()) t->device = kCuda0; s.at("out").device = {kDLCUDA, 1}; },
       "V9", kCatalogMessage},
      {"V10: b has 4 rows", [](CallSpec& s) { s.at("b").reshape({4, 4}); }, "V10",
       "Mismatched batch sizes: mixed_qkv.shape[0]=3, a.shape[0]=3, b.shape[0]=4."},
      {"V10 passes: a [1, B*HV*K] views as (B, HV*K)", [](CallSpec& s) { s.at("a").reshape({1, 1536}); }, "", ""},
      {"V11: 4 indices", [](CallSpec& s) { s.at("ssm_state_indices").reshape({4}); }, "V11",
       "`ssm_state_indices` must have shape [B] (got (4,); expected (3,))."},
      {"V12: 3-D state", [](CallSpec& s) { s.at("initial_state").reshape({5, 4, 16384}); }, "V12",
       "`initial_state` must be a 4D tensor (got ndim=3)."},
      {"V13: state stored [.., K, V]", [](CallSpec& s) { s.at("initial_state").reshape({5, 4, 128, 128}).strides = {65536, 16384, 1, 128}; },
       "V13", kCatalogMessage},
      {"V14: V = 96", [](CallSpec& s) { s.at("initial_state").reshape({5, 4, 96, 128}); }, "V14",
       "Helion KDA decode requires power-of-two key and value head dimensions (got K=128, V=96)."},
      {"V14: K = 0", [](CallSpec& s) { s.at("initial_state").reshape({5, 4, 128, 0}); }, "V14",
       "Helion KDA decode requires power-of-two key and value head dimensions (got K=0, V=128)."},
      {"V15: a [3, 4, 64]", [](CallSpec& s) { s.at("a").reshape({3, 4, 64}); }, "V15",
       "`a` must have shape [B, HV*K] with HV=4, K=128 (got a.shape=(3, 256))."},
      {"V15: HV*K beyond int64", [](CallSpec& s) {
         s.at("initial_state").shape = {5, int64_t{1} << 40, 128, int64_t{1} << 40};
         s.at("initial_state").null_strides = true; },
       "V15", "`a` must have shape [B, HV*K] with HV=1099511627776, K=1099511627776 (got a.shape=(3, 512))."},
      {"V16: b for H heads", [](CallSpec& s) { s.at("b").reshape({3, 2}); }, "V16",
       "`b` must have shape [B, HV] with HV=4 (got b.shape=(3, 2))."},
      {"V17: A_log for H heads", [](CallSpec& s) { s.at("A_log").reshape({2}); }, "V17", "`A_log` must have 4 elements (got 2)."},
      {"V18: per-head dt_bias", [](CallSpec& s) { s.at("dt_bias").reshape({4}); }, "V18", "`dt_bias` must have 512 elements (got 4)."},
      {"V18: 2^63 elements", [](CallSpec& s) { huge_heads(s); s.at("dt_bias").shape = {k2p62, 2}; s.at("dt_bias").null_strides = true; },
       "V18", "`dt_bias` must have 4611686018427387904 elements (got 9223372036854775808)."},
      {"V19: out without the token dim", [](CallSpec& s) { s.at("out").reshape({3, 4, 128}); }, "V19",
       "`out` must have shape (3, 1, 4, 128) (got out.shape=(3, 4, 128))."},
      {"V19: 0-d out", [](CallSpec& s) { s.at("out").reshape({}); }, "V19",
       "`out` must have shape (3, 1, 4, 128) (got out.shape=())."},
      {"V19: 1-d out", [](CallSpec& s) { s.at("out").reshape({7}); }, "V19",
       "`out` must have shape (3, 1, 4, 128) (got out.shape=(7,))."},
      {"V20: v only", [](CallSpec& s) { s.at("mixed_qkv").reshape({3, 512}); }, "V20",
       "Invalid packed `mixed_qkv` last dim=512 for HV=4, V=128."},
      {"V20: narrower than v", [](CallSpec& s) { s.at("mixed_qkv").reshape({3, 100}); }, "V20",
       "Invalid packed `mixed_qkv` last dim=100 for HV=4, V=128."},
      {"V20: odd q+k", [](CallSpec& s) { s.at("mixed_qkv").reshape({3, 1025}); }, "V20",
       "Invalid packed `mixed_qkv` last dim=1025 for HV=4, V=128."},
      {"V21: q size 260", [](CallSpec& s) { s.at("mixed_qkv").reshape({3, 1032}); }, "V21",
       "Invalid packed Q size 260: must be divisible by K=128. KDA packed decode requires num_q_heads == "
       "num_k_heads and head_q_dim == head_k_dim."},
      {"V22: H = 3 does not divide HV = 4", [](CallSpec& s) { s.at("mixed_qkv").reshape({3, 1280}); }, "V22",
       "Invalid head config inferred from mixed_qkv: H=3, HV=4."},
      {"V22: mixed_qkv last dim 2^62", [](CallSpec& s) { s.at("mixed_qkv").reshape({3, k2p62}); }, "V22",
       "Invalid head config inferred from mixed_qkv: H=18014398509481982, HV=4."},
      {"R1: int64 cursors", [](CallSpec& s) { s.at("write_pos").dtype = to_dl(ScalarType::Int64); }, "R1", kCatalogMessage},
      {"R2: 4 cursors", [](CallSpec& s) { s.at("write_pos").reshape({4}); }, "R2", "`write_pos` must have shape (3,)."},
      {"R3: int64 force_flush", [](CallSpec& s) { s.at("force_flush").dtype = to_dl(ScalarType::Int64); }, "R3", kCatalogMessage},
      {"R3 passes: force_flush absent", [](CallSpec& s) { s.erase("force_flush"); }, "", ""},
      {"R4: L = 0", [](CallSpec& s) { s.at("d_cache").reshape({5, 4, 0, 128}); }, "R4", kCatalogMessage},
      {"R4: 2-D d_cache raises R5's message", [](CallSpec& s) { s.at("d_cache").reshape({5, 4}); }, "R5", kCatalogMessage},
      {"R5: d ring with H heads", [](CallSpec& s) { s.at("d_cache").reshape({5, 2, 4, 128}); }, "R5", kCatalogMessage},
      {"R6: k ring with HV heads (GQA)", [](CallSpec& s) { s.at("k_cache").reshape({5, 4, 4, 128}); }, "R6", kCatalogMessage},
      {"R6: k ring longer than d ring", [](CallSpec& s) { s.at("k_cache").reshape({5, 2, 8, 128}); }, "R6", kCatalogMessage},
      {"R6: k ring sharded on another head axis (TP)", [](CallSpec& s) { s.at("k_cache").reshape({5, 1, 4, 128}); }, "R6", kCatalogMessage},
      {"R7: g ring with H heads", [](CallSpec& s) { s.at("g_cache").reshape({5, 2, 4, 128}); }, "R7", kCatalogMessage},
      {"R8: bf16 g ring", [](CallSpec& s) { s.at("g_cache").dtype = to_dl(ScalarType::BFloat16); }, "R8", kCatalogMessage},
      {"R9: d ring on cuda:0", [](CallSpec& s) { s.at("d_cache").device = kCuda0; }, "R9", kCatalogMessage},
      {"R10: force_flush on cuda:0", [](CallSpec& s) { s.at("force_flush").device = kCuda0; }, "R10", kCatalogMessage},
      {"X-VIEW-A: a [1, 1537]", [](CallSpec& s) { s.at("a").reshape({1, 1537}); }, "X-VIEW-A", kCatalogMessage},
      {"X-VIEW-A: empty batch", [](CallSpec& s) {
         s.at("mixed_qkv").reshape({0, 1024}); s.at("b").reshape({0, 4}); s.at("out").reshape({0, 1, 4, 128});
         s.at("ssm_state_indices").reshape({0}); s.at("write_pos").reshape({0}); s.at("force_flush").reshape({0}); },
       "X-VIEW-A", kCatalogMessage},
      {"W3 ruling: V15 skipped, a later documented check still wins", [](CallSpec& s) { s.at("a").reshape({2, 512}); s.at("b").reshape({3, 2}); },
       "V16", "`b` must have shape [B, HV] with HV=4 (got b.shape=(3, 2))."},
      {"W3 ruling: documented R6 before X-VIEW-A", [](CallSpec& s) { s.at("a").reshape({2, 512}); s.at("k_cache").reshape({5, 4, 4, 128}); },
       "R6", kCatalogMessage},
      {"X-DTYPE-FLOAT: float64 A_log", [](CallSpec& s) { s.at("A_log").dtype = {kDLFloat, 64, 1}; }, "X-DTYPE-FLOAT", kCatalogMessage},
      {"X-DTYPE-INDEX: uint8 indices", [](CallSpec& s) { s.at("ssm_state_indices").dtype = {kDLUInt, 8, 1}; }, "X-DTYPE-INDEX", kCatalogMessage},
      {"X-RING-SLOTS: g ring with 4 slots", [](CallSpec& s) { s.at("g_cache").reshape({4, 4, 4, 128}); }, "X-RING-SLOTS", kCatalogMessage},
      {"X-STRIDES: negative stride on out's token dim", [](CallSpec& s) { s.at("out").explicit_strides()[1] = -1; }, "X-STRIDES", kCatalogMessage},
      {"X-STRIDES: state broadcast over slots", [](CallSpec& s) { s.at("initial_state").explicit_strides()[0] = 0; }, "X-STRIDES", kCatalogMessage},
      {"X-STRIDES passes: zero stride on a size-1 dim", [](CallSpec& s) { s.at("out").explicit_strides()[1] = 0; }, "", ""},
      {"X-EXTENTS: 2^63-1 slots", [](CallSpec& s) {
         const int64_t n = INT64_MAX;
         s.at("initial_state").reshape({n, 4, 128, 128}); s.at("d_cache").reshape({n, 4, 4, 128}); s.at("k_cache").reshape({n, 2, 4, 128});
         s.at("g_cache").reshape({n, 4, 4, 128}); },
       "X-EXTENTS", kCatalogMessage},
      {"X-EXTENTS: 2^61 float32 elements, 2^63 bytes", [](CallSpec& s) {
         const int64_t n = int64_t{1} << 45;
         s.at("initial_state").reshape({n, 4, 128, 128}); s.at("d_cache").reshape({n, 4, 4, 128}); s.at("k_cache").reshape({n, 2, 4, 128});
         s.at("g_cache").reshape({n, 4, 4, 128}); },
       "X-EXTENTS", kCatalogMessage},
      {"X-EXTENTS passes: 2^40 slots", [](CallSpec& s) {
         const int64_t n = int64_t{1} << 40;
         s.at("initial_state").reshape({n, 4, 128, 128}); s.at("d_cache").reshape({n, 4, 4, 128}); s.at("k_cache").reshape({n, 2, 4, 128});
         s.at("g_cache").reshape({n, 4, 4, 128}); },
       "", ""},
      {"X-BACKEND-CPU", [](CallSpec& s) { for (auto* t : s.all()) t->device = kCuda0; s.backend = Backend::Cpu; },
       "X-BACKEND-CPU", kCatalogMessage},
      {"X-BACKEND-CUDA", [](CallSpec& s) { s.backend = Backend::Cuda; }, "X-BACKEND-CUDA", kCatalogMessage},
      {"X-BACKEND-CUDA passes on cuda:1", [](CallSpec& s) { for (auto* t : s.all()) t->device = {kDLCUDA, 1}; s.backend = Backend::Cuda; },
       "", ""},
  };
  return r;
}

std::pair<std::string, std::string> raise(const Row& row) {
  CallSpec spec = base();
  row.edit(spec);
  BuiltCall call(spec);
  try {
    validate(engine::step_args(call), spec.backend);
    return {"", ""};
  } catch (const ContractError& e) {
    return {e.id(), e.what()};
  }
}

TEST(ContractExpectedErrors, EachRowRaisesItsExactError) {
  for (const Row& row : rows()) {
    const auto [id, message] = raise(row);
    EXPECT_EQ(id, row.id) << row.name;
    EXPECT_EQ(message, expected_message(row)) << row.name;
    if (!id.empty()) {
      EXPECT_EQ(catalog_ids_matching(message), std::vector<std::string>{id}) << row.name;
    }
  }
}

// Fails when a catalog entry of kda_replayssm has no input above (or in the runtime-value
// rows) raising it. gdn_replayssm's entries: operators/gdn_replayssm/contract_test.cpp.
TEST(ContractExpectedErrors, EveryCatalogEntryIsRaisedByAnInput) {
  std::set<std::string> raised;
  for (const Row& row : rows()) raised.insert(raise(row).first);
  for (const RuntimeRow& row : runtime_rows()) raised.insert(raise_runtime(row).first);
  for (const CatalogEntry& e : error_catalog()) {
    if (engine::raises(engine::find_operator("kda_replayssm"), e.id)) {
      EXPECT_TRUE(raised.count(e.id)) << "no input raises " << e.id;
    }
  }
}

}  // namespace
}  // namespace kda::test
