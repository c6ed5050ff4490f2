// A plugin that crashes on some calls, for the tests of `check --isolate` and of the fatal-
// signal report: it forwards every call to the CPU example plugin (KDA_CRASHING_PLUGIN_INNER,
// loaded with dlopen) except calls whose `out` has V = 2, on which it dies as
// KDA_CRASHING_PLUGIN_MODE says (an environment variable read at that call): "overflow"
// (a heap buffer overrun that glibc's free() aborts on, the default), "segv", "hang", "exit"
// (status 3) or "exit0" (status 0, as a plugin that gives up quietly); or "helper": it forks a
// helper process that sleeps until killed, holding every descriptor the process had (the result
// pipe of `check --isolate` included), writes the helper's pid as a line to the file
// KDA_CRASHING_PLUGIN_HELPERS names, and computes the call as the others; or "far": it
// computes the call, then writes one byte KDA_CRASHING_PLUGIN_REACH bytes past the end of the
// tensor KDA_CRASHING_PLUGIN_TENSOR names (the byte that many after its last element's).
#include <dlfcn.h>
#include <kda_harness/plugin.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

using Describe = const kda_plugin* (*)();

const kda_plugin& inner() {
  static const kda_plugin* p = [] {
    void* lib = dlopen(KDA_CRASHING_PLUGIN_INNER, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) std::abort();
    return reinterpret_cast<Describe>(dlsym(lib, "kda_plugin_describe"))();
  }();
  return *p;
}

bool crashes_on(const kda_call* call) {
  for (int32_t i = 0; i < call->num_tensors; ++i)
    if (std::strcmp(call->tensor_names[i], "out") == 0 && call->tensors[i] != nullptr) {
      const DLTensor* out = call->tensors[i];
      return out->ndim > 0 && out->shape[out->ndim - 1] == 2;
    }
  return false;
}

std::string_view mode() {
  const char* m = std::getenv("KDA_CRASHING_PLUGIN_MODE");
  return m == nullptr ? "overflow" : m;
}

[[noreturn]] void crash() {
  const std::string_view m = mode();
  if (m == "segv") {
    volatile int* nothing = nullptr;
    *nothing = 1;
  } else if (m == "hang") {
    for (;;) pause();
  } else if (m == "exit" || m == "exit0") {
    std::exit(m == "exit" ? 3 : 0);
  }
  // A write past the end of a heap block, then free(): glibc's heap checks abort the process.
  char* volatile block = static_cast<char*>(std::malloc(24));
  std::memset(block, 0x5A, 64);
  std::free(block);
  std::abort();  // in case the overrun went unnoticed
}

// Once per process: a helper that outlives the call, as a plugin's worker or server might.
void start_helper() {
  static bool started = false;
  if (started) return;
  started = true;
  if (fork() != 0) return;
  if (const char* list = std::getenv("KDA_CRASHING_PLUGIN_HELPERS")) {
    const int fd = open(list, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    char line[32];
    const int n = std::snprintf(line, sizeof line, "%d\n", static_cast<int>(getpid()));
    if (fd >= 0 && n > 0) (void)!write(fd, line, static_cast<std::size_t>(n));
  }
  for (;;) pause();
}

// A write far past a tensor, as a kernel with a wrong stride or slot might make.
void write_far_past(const kda_call* call) {
  const char* name = std::getenv("KDA_CRASHING_PLUGIN_TENSOR");
  const char* reach = std::getenv("KDA_CRASHING_PLUGIN_REACH");
  if (name == nullptr || reach == nullptr) std::abort();
  for (int32_t i = 0; i < call->num_tensors; ++i) {
    const DLTensor* t = call->tensors[i];
    if (std::strcmp(call->tensor_names[i], name) != 0 || t == nullptr) continue;
    int64_t last = 0;  // the last element's offset, in elements
    for (int d = 0; d < t->ndim; ++d) last += (t->shape[d] - 1) * (t->strides ? t->strides[d] : 1);
    if (t->strides == nullptr) {
      last = 1;
      for (int d = 0; d < t->ndim; ++d) last *= t->shape[d];
      last -= 1;
    }
    auto* end = static_cast<volatile char*>(t->data) + t->byte_offset + (last + 1) * (t->dtype.bits / 8);
    end[std::atoll(reach) - 1] = 0x5A;
  }
}

int32_t step(void*, const kda_call* call) {
  if (crashes_on(call) && mode() == "far") {
    const int32_t status = inner().step(inner().state, call);
    write_far_past(call);
    return status;
  }
  if (crashes_on(call)) {
    if (mode() != "helper") crash();
    start_helper();
  }
  return inner().step(inner().state, call);
}

const char* last_error(void*) { return inner().last_error(inner().state); }

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) {
  static const kda_plugin p = [] {
    kda_plugin q = inner();
    q.name = "crashing";
    q.step = step;
    q.last_error = last_error;
    return q;
  }();
  return &p;
}
