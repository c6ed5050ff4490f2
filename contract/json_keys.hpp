// Duplicate keys in JSON text, found in one linear pass.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace kda {

// The first key that one object of `text` holds twice, or nullopt (also for text that is no
// JSON: the parse that follows says why). JSON leaves duplicate keys undefined and nlohmann
// keeps the last one silently, so the harness's readers refuse them. A SAX pass over the text,
// linear in it: nlohmann's parser callback, the other way to see each object's keys, scans
// the enclosing object again at the end of every object in it, quadratic in an object of many
// objects (a safetensors header of 40k tensors took 14 s).
std::optional<std::string> duplicate_json_key(std::string_view text);

}  // namespace kda
