#include "tools/sweep_mutations.hpp"

#include <fmt/format.h>

#include "contract/error_catalog.hpp"
#include "contract/tensor_view.hpp"

namespace kda::cli {
namespace {

using D = SweepDims;

DLDevice other_device(const DLDevice& d) { return d.device_type == kDLCPU ? DLDevice{kDLCUDA, 0} : DLDevice{kDLCPU, 0}; }

std::string catalog_message(const char* id) { return find_catalog_entry(id)->message; }

// Every stride doubled: no dim of size > 1 keeps its compact stride.
void double_strides(TensorMeta& t) {
  auto& s = t.explicit_strides();
  for (auto& x : s) x *= 2;
}

std::vector<SweepMutation> build() {
  std::vector<SweepMutation> m;
  int order = 0;
  auto add = [&](std::string label, std::string id, std::string target, std::function<bool(MetaCall&)> apply,
                 std::function<std::string(const D&)> message) {
    m.push_back({order++, std::move(label), std::move(id), std::move(target), std::move(apply), std::move(message)});
  };
  auto fixed = [](std::string text) { return [text](const D&) { return text; }; };
  add("P0", "V1", "mixed_qkv", [](MetaCall& c) { c.mixed_qkv.reshape({}); return true; },
      fixed("`mixed_qkv` must be a 2D tensor (got ndim=0)."));
  add("W1", "W1", "a", [](MetaCall& c) { c.a.reshape({c.dims.B, 1, c.dims.HV, c.dims.K}); return true; },
      fixed("KDA `a` must be a contiguous 2D or 3D tensor."));
  add("W2", "W2", "dt_bias", [](MetaCall& c) { c.dt_bias.reshape({c.dims.HV, c.dims.K, 1}); return true; },
      fixed("KDA `dt_bias` must be a contiguous 1D or 2D tensor."));
  add("V1", "V1", "mixed_qkv",
      [](MetaCall& c) { c.mixed_qkv.reshape({c.dims.B, 1, c.mixed_qkv.shape[1]}); return true; },
      fixed("`mixed_qkv` must be a 2D tensor (got ndim=3)."));
  add("V2", "V2", "mixed_qkv", [](MetaCall& c) { double_strides(c.mixed_qkv); return true; },
      fixed("`mixed_qkv` must be contiguous in the last dim."));
  add("V3", "V3", "b", [](MetaCall& c) { c.b.reshape({c.dims.B, c.dims.HV, 1}); return true; },
      fixed("`a` and `b` must be 2D tensors (got a.ndim=2, b.ndim=3)."));
  add("V4", "V4", "b", [](MetaCall& c) { double_strides(c.b); return true; },
      fixed("`a`/`b` must be contiguous in the last dim."));
  add("V5", "V5", "A_log", [](MetaCall& c) { c.A_log.reshape({c.dims.HV, 1}); return true; },
      fixed("`A_log`/`dt_bias` must be 1D tensors."));
  add("V6", "V6", "A_log", [](MetaCall& c) { double_strides(c.A_log); return true; },
      fixed("`A_log`/`dt_bias` must be contiguous."));
  add("V7", "V7", "ssm_state_indices", [](MetaCall& c) { c.ssm_state_indices.reshape({c.dims.B, 1}); return true; },
      fixed("`ssm_state_indices` must be 1D for packed decode (got ndim=2)."));
  add("V8", "V8", "out",
      [](MetaCall& c) {
        if (c.dims.B * c.dims.HV * c.dims.V <= 1) return false;  // a single element is always contiguous
        double_strides(c.out);
        return true;
      },
      fixed("`out` must be contiguous."));
  add("V9", "V9", "a", [](MetaCall& c) { c.a.device = other_device(c.mixed_qkv.device); return true; },
      fixed("All inputs must be on the same device."));
  add("V10", "V10", "b", [](MetaCall& c) { c.b.reshape({c.dims.B + 1, c.dims.HV}); return true; },
      [](const D& d) {
        return fmt::format("Mismatched batch sizes: mixed_qkv.shape[0]={}, a.shape[0]={}, b.shape[0]={}.", d.B, d.B,
                           d.B + 1);
      });
  add("V11", "V11", "ssm_state_indices", [](MetaCall& c) { c.ssm_state_indices.reshape({c.dims.B + 1}); return true; },
      [](const D& d) {
        return fmt::format("`ssm_state_indices` must have shape [B] (got {}; expected {}).", tuple_repr({d.B + 1}),
                           tuple_repr({d.B}));
      });
  add("V12", "V12", "initial_state",
      [](MetaCall& c) {
        const D& d = c.dims;
        c.initial_state.reshape({d.slots, d.HV, d.V, d.K, 1});
        return true;
      },
      fixed("`initial_state` must be a 4D tensor (got ndim=5)."));
  add("V13", "V13", "initial_state", [](MetaCall& c) { double_strides(c.initial_state); return true; },
      fixed("`initial_state` must be contiguous in the last dim."));
  add("V14", "V14", "initial_state",
      [](MetaCall& c) {
        const D& d = c.dims;
        c.initial_state.reshape({d.slots, d.HV, d.V, 3 * d.K});
        return true;
      },
      [](const D& d) {
        return fmt::format("Helion KDA decode requires power-of-two key and value head dimensions (got K={}, V={}).",
                           3 * d.K, d.V);
      });
  add("V15", "V15", "a", [](MetaCall& c) { c.a.reshape({c.dims.B, 2 * c.dims.HV * c.dims.K}); return true; },
      [](const D& d) {
        return fmt::format("`a` must have shape [B, HV*K] with HV={}, K={} (got a.shape={}).", d.HV, d.K,
                           tuple_repr({d.B, 2 * d.HV * d.K}));
      });
  add("V16", "V16", "b", [](MetaCall& c) { c.b.reshape({c.dims.B, c.dims.HV + 1}); return true; },
      [](const D& d) {
        return fmt::format("`b` must have shape [B, HV] with HV={} (got b.shape={}).", d.HV, tuple_repr({d.B, d.HV + 1}));
      });
  add("V17", "V17", "A_log", [](MetaCall& c) { c.A_log.reshape({c.dims.HV + 1}); return true; },
      [](const D& d) { return fmt::format("`A_log` must have {} elements (got {}).", d.HV, d.HV + 1); });
  add("V18", "V18", "dt_bias", [](MetaCall& c) { c.dt_bias.reshape({c.dims.HV * c.dims.K + 1}); return true; },
      [](const D& d) { return fmt::format("`dt_bias` must have {} elements (got {}).", d.HV * d.K, d.HV * d.K + 1); });
  add("V19", "V19", "out", [](MetaCall& c) { c.out.reshape({c.dims.B, 2, c.dims.HV, c.dims.V}); return true; },
      [](const D& d) {
        return fmt::format("`out` must have shape {} (got out.shape={}).", tuple_repr({d.B, 1, d.HV, d.V}),
                           tuple_repr({d.B, 2, d.HV, d.V}));
      });
  add("V20", "V20", "mixed_qkv", [](MetaCall& c) { c.mixed_qkv.reshape({c.dims.B, c.dims.HV * c.dims.V + 1}); return true; },
      [](const D& d) {
        return fmt::format("Invalid packed `mixed_qkv` last dim={} for HV={}, V={}.", d.HV * d.V + 1, d.HV, d.V);
      });
  add("V21", "V21", "mixed_qkv",
      [](MetaCall& c) {
        const D& d = c.dims;
        if (d.K < 2) return false;  // every q size is divisible by K = 1
        c.mixed_qkv.reshape({d.B, d.HV * d.V + 2 * (d.H * d.K + 1)});
        return true;
      },
      [](const D& d) {
        return fmt::format("Invalid packed Q size {}: must be divisible by K={}. KDA packed decode requires "
                           "num_q_heads == num_k_heads and head_q_dim == head_k_dim.",
                           d.H * d.K + 1, d.K);
      });
  add("V22", "V22", "mixed_qkv",
      [](MetaCall& c) {
        const D& d = c.dims;
        c.mixed_qkv.reshape({d.B, d.HV * d.V + 2 * (d.HV + 1) * d.K});
        return true;
      },
      [](const D& d) { return fmt::format("Invalid head config inferred from mixed_qkv: H={}, HV={}.", d.HV + 1, d.HV); });
  add("R1", "R1", "write_pos", [](MetaCall& c) { c.write_pos.dtype = {kDLInt, 64, 1}; return true; },
      fixed("`write_pos` must be a 1D int32 tensor."));
  add("R2", "R2", "write_pos", [](MetaCall& c) { c.write_pos.reshape({c.dims.B + 1}); return true; },
      [](const D& d) { return fmt::format("`write_pos` must have shape {}.", tuple_repr({d.B})); });
  add("R3", "R3", "force_flush",
      [](MetaCall& c) {
        if (!c.force_flush) return false;
        c.force_flush->dtype = {kDLInt, 64, 1};
        return true;
      },
      fixed("`force_flush` must be a length-B int32 tensor or None."));
  add("R4 (d_cache below 3 dims)", "R5", "d_cache",
      [](MetaCall& c) { c.d_cache.reshape({c.dims.slots, c.dims.HV}); return true; },
      fixed("`d_cache` must have shape [slots, HV, L, V]."));
  add("R4", "R4", "d_cache",
      [](MetaCall& c) { c.d_cache.reshape({c.dims.slots, c.dims.HV, 0, c.dims.V}); return true; },
      fixed("ReplaySSM cache length must be at least 1."));
  add("R5", "R5", "d_cache",
      [](MetaCall& c) { c.d_cache.reshape({c.dims.slots, c.dims.HV + 1, c.dims.L, c.dims.V}); return true; },
      fixed("`d_cache` must have shape [slots, HV, L, V]."));
  add("R6", "R6", "k_cache",
      [](MetaCall& c) {
        const D& d = c.dims;
        c.k_cache.reshape({d.slots, d.H == d.HV ? d.H + 1 : d.HV, d.L, d.K});  // HV heads where they differ
        return true;
      },
      fixed("`k_cache` must have shape [slots, H, L, K]."));
  add("R7", "R7", "g_cache",
      [](MetaCall& c) { c.g_cache.reshape({c.dims.slots, c.dims.HV, c.dims.L + 1, c.dims.K}); return true; },
      fixed("`g_cache` must have shape [slots, HV, L, K]."));
  add("R8", "R8", "g_cache", [](MetaCall& c) { c.g_cache.dtype = {kDLBfloat, 16, 1}; return true; },
      fixed("`g_cache` must have dtype torch.float32."));
  add("R9", "R9", "d_cache", [](MetaCall& c) { c.d_cache.device = other_device(c.mixed_qkv.device); return true; },
      fixed("ReplaySSM inputs must be on the same device."));
  add("R10", "R10", "force_flush",
      [](MetaCall& c) {
        if (!c.force_flush) return false;
        c.force_flush->device = other_device(c.mixed_qkv.device);
        return true;
      },
      fixed("`force_flush` must be on the same device as the inputs."));
  add("X-DTYPE-FLOAT", "X-DTYPE-FLOAT", "initial_state",
      [](MetaCall& c) { c.initial_state.dtype = {kDLFloat, 64, 1}; return true; },
      [](const D&) { return catalog_message("X-DTYPE-FLOAT"); });
  add("X-DTYPE-INDEX", "X-DTYPE-INDEX", "ssm_state_indices",
      [](MetaCall& c) { c.ssm_state_indices.dtype = {kDLInt, 16, 1}; return true; },
      [](const D&) { return catalog_message("X-DTYPE-INDEX"); });
  add("X-RING-SLOTS", "X-RING-SLOTS", "k_cache",
      [](MetaCall& c) { c.k_cache.reshape({c.dims.slots + 1, c.dims.H, c.dims.L, c.dims.K}); return true; },
      [](const D&) { return catalog_message("X-RING-SLOTS"); });
  add("X-STRIDES", "X-STRIDES", "initial_state",
      [](MetaCall& c) {
        auto& s = c.initial_state.explicit_strides();
        s[0] = -s[0];
        return true;
      },
      [](const D&) { return catalog_message("X-STRIDES"); });
  add("X-BACKEND-CUDA", "X-BACKEND-CUDA", "backend",
      [](MetaCall& c) {
        if (c.mixed_qkv.device.device_type != kDLCPU) return false;
        c.backend = Backend::Cuda;
        return true;
      },
      [](const D&) { return catalog_message("X-BACKEND-CUDA"); });
  add("X-BACKEND-CPU", "X-BACKEND-CPU", "backend",
      [](MetaCall& c) {
        if (c.mixed_qkv.device.device_type != kDLCUDA) return false;
        c.backend = Backend::Cpu;
        return true;
      },
      [](const D&) { return catalog_message("X-BACKEND-CPU"); });
  return m;
}

}  // namespace

const std::vector<SweepMutation>& sweep_mutations() {
  static const std::vector<SweepMutation> table = build();
  return table;
}

}  // namespace kda::cli
