#include "golden/call_tensors.hpp"

#include "contract/step_fields.hpp"
#include "engine/description/operator.hpp"

namespace kda::golden {

bool per_step_input(std::string_view name) {
  return name == "mixed_qkv" || name == "a" || name == "b" || name == "write_pos" || name == "force_flush" ||
         name == "cache_base" || name == "q" || name == "k" || name == "v" || name == "g" || name == "beta" ||
         name == "num_accepted_tokens";
}

std::vector<std::pair<std::string_view, HostTensor*>> held_tensors(StepTensors& call) {
  const StepArgs args = call.args();
  std::vector<std::pair<std::string_view, HostTensor*>> held;
  for (const TensorField& f : kStepTensors)
    if (f.get(args)) held.emplace_back(f.name, &call.at(f.name));
  return held;
}

std::vector<std::pair<std::string, HostTensor*>> written_tensors(StepTensors& call) {
  std::vector<std::pair<std::string, HostTensor*>> written;
  for (const TensorField& f : kStepTensors)
    if (f.written()) written.emplace_back(std::string(f.name), &call.at(f.name));
  return written;
}

void copy_bytes(const HostTensor& src, HostTensor& dst) {
  if (!src.same_layout(dst))
    throw SafetensorsError("golden case: a per-step tensor differs in dtype, shape or strides from step 0's");
  dst.copy_bytes_from(src);
}

StepTensors load_call(const GoldenCase& c) {
  StepTensors call;
  const engine::OperatorDescription& op = c.op.empty() ? engine::default_operator() : engine::find_operator(c.op);
  for (const TensorField& f : kStepTensors) {
    const std::string name = per_step_input(f.name) ? step_name(c, 0, std::string(f.name)) : std::string(f.name);
    // Absent (None), or an argument of another operator's signature the file does not hold.
    if ((optional_tensor(f.name) || !engine::takes(op, f.name)) && !c.has(name)) continue;
    call.at(f.name) = c.at(name);
  }
  call.scale = c.scale;
  call.use_qk_l2norm_in_kernel = c.l2norm;
  call.lower_bound = c.lower_bound;
  call.circular_replay = c.circular_replay;
  call.prefix_gate_cache = c.prefix_gate_cache;
  call.predecayed_k_cache = c.predecayed_k_cache;
  call.use_gate_in_kernel = c.use_gate_in_kernel;
  call.use_beta_sigmoid_in_kernel = c.use_beta_sigmoid_in_kernel;
  call.allow_neg_eigval = c.allow_neg_eigval;
  call.state_v_first = c.state_v_first;
  return call;
}

void load_step_inputs(const GoldenCase& c, int64_t t, StepTensors& call) {
  for (auto& [name, tensor] : held_tensors(call))  // the per-step inputs the file's call holds
    if (per_step_input(name) && c.has(step_name(c, 0, std::string(name))))
      copy_bytes(c.at(step_name(c, t, std::string(name))), *tensor);
  copy_bytes(c.at("out"), call.out);
}

}  // namespace kda::golden
