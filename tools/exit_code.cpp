#include "tools/exit_code.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "contract/error_catalog.hpp"

namespace kda::cli {
namespace {
int g_exit_code = kPass;
}

void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }

int finish_stdout(int code) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (std::cout.good() && flushed && !std::ferror(stdout)) return code;
  const int err = errno;
  std::cerr << "kda-harness: cannot write to standard output" << (err ? std::string(": ") + std::strerror(err) : "")
            << "\n";
  return kUsage;
}

std::string version_text() {
  return fmt::format("kda-harness {} (CUDA kernel {}, {} error catalog entries)", KDA_HARNESS_VERSION,
                     KDA_HARNESS_WITH_CUDA ? "compiled" : "not compiled", error_catalog().size());
}

}  // namespace kda::cli
