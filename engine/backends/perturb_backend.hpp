// A backend that wraps another and changes, after each of its steps, what it wrote to one
// tensor by a rounding-sized amount: how small a deviation the suites notice is then a
// measured property (`kda-harness sensitivity`). The spec is
//   perturb:TENSOR-HOW:K:INNER      e.g. perturb:out-scale:4:reference
// TENSOR: out, state (the checkpoints a flush wrote), d, k, g (the ring records an append
// wrote); HOW: scale (every written element x -> x (1 + K u)), offset (every written
// element of a block -> x + K u rms(block)), ulp (the first written element moved by K
// ulps of its dtype); u the unit roundoff of the tensor's dtype. The result is stored in
// the tensor's dtype (round to nearest). INNER: any backend spec (make_backend).
#pragma once
#include <memory>
#include <string>

#include "engine/backends/backend.hpp"

namespace kda::engine {

// spec: "TENSOR-HOW:K:INNER" (without "perturb:"). Throws std::invalid_argument for a spec
// that is not one.
std::unique_ptr<Backend> make_perturb_backend(const std::string& spec, const OperatorDescription& op);

}  // namespace kda::engine
