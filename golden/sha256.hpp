// SHA-256 (FIPS 180-4), the content hash of the golden manifest. A small implementation of
// our own: the project takes no dependency beyond its Debian packages, and none of them
// exposes a hash to C++ without pulling in a crypto library.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kda::golden {

// A digest over bytes given in pieces (a file read in parts).
class Sha256 {
 public:
  void update(std::span<const std::byte> bytes);
  // Lower-case hex digest (64 characters) of everything given; the object is spent.
  std::string hex();

 private:
  std::array<uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};  // FIPS 180-4, 5.3.3
  std::array<unsigned char, 64> block_{};
  std::size_t filled_ = 0;  // bytes in block_
  uint64_t length_ = 0;     // bytes given
};

// Lower-case hex digest (64 characters) of the bytes.
std::string sha256_hex(std::span<const std::byte> bytes);
std::string sha256_hex(std::string_view text);

}  // namespace kda::golden
