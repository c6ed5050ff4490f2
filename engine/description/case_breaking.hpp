// Error inputs on a case with data (golden's error cases, the C library's contract suite):
// the input edits the case's metadata, and every tensor it changed is rebuilt in its new
// dtype, shape and strides with fresh storage, every byte 0xFF (what the case generator
// leaves in unused records); an optional tensor (force_flush, cache_base) is added or dropped
// as the input says.
#pragma once
#include <optional>

#include "cases/case_tensors.hpp"
#include "engine/description/error_inputs.hpp"
#include "engine/description/operator.hpp"

namespace kda::engine {

// What the broken call must raise; nullopt (the case untouched) where the input declines on
// this case or breaks it in a way host tensors cannot hold (a dtype outside the five the
// harness stores, another device, a negative stride or elements that share memory).
// `m` indexes the operator's error inputs (OperatorDescription::error_inputs); the case's
// tensors hold the operator's call (a case config the operator fitted), its tensors by the
// names of its signature.
std::optional<Expected> break_case(const OperatorDescription& op, CaseTensors& t, const Mutation& m);

}  // namespace kda::engine
