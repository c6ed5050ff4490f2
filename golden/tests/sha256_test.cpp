// SHA-256 against the test vectors of FIPS 180-4's examples (NIST CSRC "Examples with
// intermediate values": one-block "abc", two-block 448-bit message) and the long vector of
// a million 'a' (NIST SHAVS / FIPS 180-2 appendix B.3), plus the empty message.
#include <gtest/gtest.h>

#include <string>

#include "golden/sha256.hpp"

namespace kda::golden {
namespace {

TEST(Sha256, EmptyMessage) {
  EXPECT_EQ(sha256_hex(std::string_view("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, OneBlockMessage) {
  EXPECT_EQ(sha256_hex(std::string_view("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, TwoBlockMessage) {
  EXPECT_EQ(sha256_hex(std::string_view("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, MillionA) {
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Lengths around the padding boundary (55, 56 and 64 bytes need one, two and two blocks of
// padding): every length hashes differently and the same input hashes the same.
TEST(Sha256, PaddingBoundariesAreDistinctAndStable) {
  std::string previous;
  for (std::size_t n : {54, 55, 56, 57, 63, 64, 65, 119, 120}) {
    const std::string h = sha256_hex(std::string(n, 'x'));
    EXPECT_EQ(h.size(), 64u);
    EXPECT_NE(h, previous);
    EXPECT_EQ(h, sha256_hex(std::string(n, 'x')));
    previous = h;
  }
}

}  // namespace
// A message given in pieces of any sizes hashes as given whole (a file is hashed as it is read).
TEST(Sha256, PiecesHashAsTheWhole) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text.push_back(static_cast<char>('a' + i % 26));
  for (std::size_t piece : {1, 3, 55, 63, 64, 65, 200, 1000}) {
    Sha256 h;
    for (std::size_t at = 0; at < text.size(); at += piece)
      h.update(std::as_bytes(std::span<const char>(text.data() + at, std::min(piece, text.size() - at))));
    EXPECT_EQ(h.hex(), sha256_hex(std::string_view(text))) << "pieces of " << piece;
  }
}

}  // namespace kda::golden
