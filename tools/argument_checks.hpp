// Checks of kda-harness's arguments and inputs that CLI11's own do not make: numbers that
// must be finite, positive and of a sane size (CLI11's PositiveNumber lets NaN through, and a
// budget of 1e300 disables the budget), seeds that must fit in 64 bits without wrapping
// ("-1" is not 2^64 - 1), and input read with a size limit (an endless stream or a huge
// file is refused before it is read, not held in memory).
#pragma once
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace kda::cli {

// The largest values the budget and scale options take: beyond them a budget no longer limits
// anything (a PiB of memory, 1e18 units of work: centuries), and a scale of 1e4 is 400 million cases.
inline constexpr double kMaxMemoryBudgetMiB = 1 << 30;
inline constexpr double kMaxWorkBudget = 1e18;
inline constexpr double kMaxScale = 1e4;

// A number in (0, max], finite.
CLI::Validator finite_positive_at_most(double max);
// A number in [0, max], finite (CLI11's NonNegativeNumber lets NaN through).
CLI::Validator finite_non_negative_at_most(double max);

// A seed: decimal digits only, at most 2^64 - 1; nullopt otherwise.
std::optional<uint64_t> parse_seed(const std::string& text);
// Adds `--seed` to cmd, parsed by parse_seed into seed.
CLI::Option* add_seed_option(CLI::App* cmd, uint64_t& seed, const std::string& help);

// The most a command reads from a file or stdin (a call's metadata is a few KiB).
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;
inline constexpr const char* kMaxInputText = "64 MiB";

enum class ReadStatus { Ok, Unreadable, TooLarge };
// Reads path ("-": stdin) into text, up to limit bytes: a regular file over the limit is
// refused by its size before any read, anything else once limit + 1 bytes arrived.
ReadStatus read_bounded(const std::string& path, std::string& text, std::size_t limit = kMaxInputBytes);

}  // namespace kda::cli
