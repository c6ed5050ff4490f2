// kda-harness's exit status: the subcommand's verdict, stored by its callback, and the
// check that everything it printed reached standard output.
#pragma once
#include <string>

namespace kda::cli {

inline constexpr int kPass = 0;
inline constexpr int kFail = 1;   // a check failed
inline constexpr int kUsage = 2;  // usage error, bad input, failed write, unexpected exception
// check judged nothing (every suite skipped): not a pass, not a failure of what was judged;
// 77 is what ctest (SKIP_RETURN_CODE) and Automake's test driver read as "skipped".
inline constexpr int kNothingJudged = 77;

void set_exit_code(int code);
int exit_code();

// Flushes standard output; when any write to it failed (a full disk, a closed pipe, /dev/full)
// prints why on stderr and returns kUsage, else returns code.
int finish_stdout(int code);

// "kda-harness 0.1.0 (CUDA kernel compiled | not compiled, N catalog entries)".
std::string version_text();

}  // namespace kda::cli
