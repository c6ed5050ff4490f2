#include "tools/argument_checks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace kda::cli {

namespace {

// A finite number in (0, max], or [0, max] with zero allowed.
CLI::Validator finite_at_most(double max, bool zero) {
  return CLI::Validator(
      [max, zero](std::string& text) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) return "not a number: " + text;
        if (!std::isfinite(x) || x < 0 || (x == 0 && !zero) || x > max)
          return std::string("must be a finite number ") + (zero ? "from 0" : "above 0") + " and at most " +
                 CLI::detail::to_string(max) + ", not " + text;
        return "";
      },
      (zero ? "NONNEGATIVE<=" : "POSITIVE<=") + CLI::detail::to_string(max));
}

}  // namespace

CLI::Validator finite_positive_at_most(double max) { return finite_at_most(max, false); }

CLI::Validator finite_non_negative_at_most(double max) { return finite_at_most(max, true); }

std::optional<uint64_t> parse_seed(const std::string& text) {
  uint64_t seed = 0;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return seed;
}

CLI::Option* add_seed_option(CLI::App* cmd, uint64_t& seed, const std::string& help) {
  return cmd->add_option_function<std::string>(
                "--seed",
                [&seed](const std::string& text) {
                  const std::optional<uint64_t> s = parse_seed(text);
                  if (!s) throw CLI::ValidationError("--seed", "takes 0 .. 18446744073709551615 (decimal), not " + text);
                  seed = *s;
                },
                help);
}

ReadStatus read_bounded(const std::string& path, std::string& text, std::size_t limit) {
  const bool stdin_input = path == "-";
  const int fd = stdin_input ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ReadStatus::Unreadable;
  const auto done = [&](ReadStatus s) {
    if (!stdin_input) ::close(fd);
    return s;
  };
  if (struct stat st {}; ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > limit)
    return done(ReadStatus::TooLarge);
  text.clear();
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return done(ReadStatus::Unreadable);
    if (n == 0) return done(ReadStatus::Ok);
    if (text.size() + static_cast<std::size_t>(n) > limit) return done(ReadStatus::TooLarge);
    text.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace kda::cli
