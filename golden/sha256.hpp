// SHA-256 (FIPS 180-4), the content hash of the golden manifest. A small implementation of
// our own: the project takes no dependency beyond its Debian packages, and none of them
// exposes a hash to C++ without pulling in a crypto library.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kda::golden {

// Lower-case hex digest (64 characters) of the bytes.
std::string sha256_hex(std::span<const std::byte> bytes);
std::string sha256_hex(std::string_view text);

}  // namespace kda::golden
