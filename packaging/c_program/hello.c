/* A C program built with nothing but `pkg-config --cflags --libs kda_harness_capi` and run as
 * built, without LD_LIBRARY_PATH (the .pc file's rpath finds the library): the C library's
 * version, its operators and the defaults every entry point takes. Exit 0 when the library it
 * loaded is the version its header declares. packaging/consumer_check.cmake (an installed
 * tree) and packaging/wheel_check.sh (the wheel) build and run it. */
#include <stdio.h>

#include "kda_harness/kda_capi.h"

int main(void) {
  const int32_t version = kda_capi_version();
  printf("kda_harness C library version %d (header %d)\n", (int)version, KDA_CAPI_VERSION);
  printf("operators: %s\n", kda_operators());
  printf("defaults: %s\n", kda_defaults());
  return version == KDA_CAPI_VERSION ? 0 : 1;
}
