/* The tracer of scripts/case-path.sh: linked into a build compiled with -finstrument-functions,
 * it writes the first entry of each instrumented function, in order, from the first entry of
 * the function at CASE_PATH_START (hex, its offset in the main program) on, one line each:
 * "E MODULE ADDRESS MODULE_BASE" into CASE_PATH_OUT; and "C MODULE ADDRESS MODULE_BASE" the
 * first time a function is seen calling another instrumented one (directly or through
 * uninstrumented code such as std::function: its thread's innermost active instrumented
 * function is the caller), which scripts/case_path_count.py's --spine keeps. Every thread
 * counts; nothing is written where either variable is unset. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NO_TRACE __attribute__((no_instrument_function))
#define SLOTS (1u << 18) /* more than the functions of the program */

static uintptr_t start_address;
static int started;
static FILE* out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void* seen[SLOTS];    /* entered */
static void* callers[SLOTS]; /* seen calling another */
#define DEPTH 4096
static __thread void* active[DEPTH]; /* the thread's instrumented calls now active, innermost last */
static __thread int depth;

NO_TRACE static int main_program(struct dl_phdr_info* info, size_t size, void* bias) {
  (void)size;
  *(uintptr_t*)bias = info->dlpi_addr; /* the first object listed is the main program */
  return 1;
}

NO_TRACE __attribute__((constructor)) static void open_trace(void) {
  const char* start = getenv("CASE_PATH_START");
  const char* path = getenv("CASE_PATH_OUT");
  if (start == NULL || path == NULL) return;
  uintptr_t bias = 0;
  dl_iterate_phdr(main_program, &bias);
  start_address = bias + (uintptr_t)strtoull(start, NULL, 16);
  out = fopen(path, "w");
}

/* 1 the first time fn is added to the set, else 0. */
NO_TRACE static int first_in(void** set, void* fn) {
  size_t slot = (size_t)((((uintptr_t)fn >> 4) * 0x9E3779B97F4A7C15ull) >> 46) & (SLOTS - 1);
  while (set[slot] != NULL) {
    if (set[slot] == fn) return 0;
    slot = (slot + 1) & (SLOTS - 1);
  }
  set[slot] = fn;
  return 1;
}

NO_TRACE static void write_line(char kind, void* fn) {
  Dl_info info;
  if (dladdr(fn, &info) && info.dli_fname != NULL) {
    fprintf(out, "%c %s %lx %lx\n", kind, info.dli_fname, (unsigned long)(uintptr_t)fn,
            (unsigned long)(uintptr_t)info.dli_fbase);
    fflush(out); /* the process may end by _exit */
  }
}

NO_TRACE void __cyg_profile_func_enter(void* fn, void* call_site) {
  (void)call_site;
  if (out == NULL) return;
  void* caller = depth > 0 && depth <= DEPTH ? active[depth - 1] : NULL;
  if (depth < DEPTH) active[depth] = fn;
  ++depth;
  if (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) {
    if ((uintptr_t)fn != start_address) return;
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    caller = NULL; /* what called the start is not on the path */
  }
  pthread_mutex_lock(&lock);
  if (caller != NULL && first_in(callers, caller)) write_line('C', caller);
  if (first_in(seen, fn)) write_line('E', fn);
  pthread_mutex_unlock(&lock);
}

NO_TRACE void __cyg_profile_func_exit(void* fn, void* call_site) {
  (void)fn;
  (void)call_site;
  if (out != NULL && depth > 0) --depth;
}
