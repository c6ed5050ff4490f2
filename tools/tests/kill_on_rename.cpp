// A test shim (LD_PRELOAD) that kills its process with SIGKILL at the Nth rename(2) it makes
// (N = $KDA_KILL_AT_RENAME), before that rename happens: the way to stop `golden regen` at a
// chosen point of its commit, as a power cut or the OOM killer would.
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace {
std::atomic<long> renames{0};

void maybe_die() {
  const char* at = std::getenv("KDA_KILL_AT_RENAME");
  if (at && ++renames == std::atol(at)) ::kill(::getpid(), SIGKILL);
}
}  // namespace

extern "C" int rename(const char* from, const char* to) {
  maybe_die();
  using Fn = int (*)(const char*, const char*);
  static const Fn real = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, "rename"));
  return real(from, to);
}

extern "C" int renameat(int from_dir, const char* from, int to_dir, const char* to) {
  maybe_die();
  using Fn = int (*)(int, const char*, int, const char*);
  static const Fn real = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, "renameat"));
  return real(from_dir, from, to_dir, to);
}
