// The working tensors of one call, built from a golden case: copies of the case's inputs
// (with their original strides) that a backend writes in place, step after step. Tensors are
// named as contract/step_fields.hpp names them.
#pragma once
#include <string_view>
#include <utility>
#include <vector>

#include "contract/step_tensors.hpp"
#include "golden/golden_case.hpp"

namespace kda::golden {

// The per-step inputs (mixed_qkv, a, b, write_pos, force_flush): stored for every step,
// prefixed by step_name. Every other tensor argument is stored once, as it is before step 0.
bool per_step_input(std::string_view name);

// Each tensor argument the call holds, by name, in contract/step_fields.hpp's order (an
// optional one that is absent is left out).
std::vector<std::pair<std::string_view, HostTensor*>> held_tensors(StepTensors& call);

// The tensors a step may write, by file name of their final expected value.
std::vector<std::pair<std::string, HostTensor*>> written_tensors(StepTensors& call);

// Step 0's call: every input of the case.
StepTensors load_call(const GoldenCase& c);
// Loads step t's per-step inputs into the working tensors, byte for byte (the storage stays
// where it is), and resets out to the case's out buffer. Throws SafetensorsError when the
// case lacks one or a shape differs.
void load_step_inputs(const GoldenCase& c, int64_t t, StepTensors& call);

// Copies src's storage bytes into dst (same dtype, shape and strides; checked).
void copy_bytes(const HostTensor& src, HostTensor& dst);

}  // namespace kda::golden
