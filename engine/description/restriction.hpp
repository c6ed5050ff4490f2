// A restriction: where a user wants the backend suites to sample (their production K and V,
// their dtypes), as an Envelope, claiming nothing about the backend. The suites draw inside
// the backend's envelope narrowed by it; the envelope suite and the kernel suite's calls just
// outside still test the declared envelope alone (a backend need not refuse what a
// restriction leaves out).
#pragma once
#include <string>
#include <string_view>

#include "engine/description/envelope.hpp"

namespace kda::engine {

// What both allow: each dtype set intersected, the tighter K, V and L ranges, strided only
// where both take it; the envelope's device.
Envelope narrowed(const Envelope& envelope, const Envelope& restriction);

// A restriction from text, items separated by spaces or commas: K=128, K=32..128, V=..64,
// L=8 (the longest ring), act=bf16, state=f32|bf16, ring=..., out=..., idx=i32, compact.
// Dtypes by their names or short forms (float32, f32, ...). The empty text restricts nothing.
// Throws std::invalid_argument naming the item it cannot read.
Envelope parse_restriction(std::string_view text);

}  // namespace kda::engine
