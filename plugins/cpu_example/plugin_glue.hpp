// The plugin ABI's error convention for the CPU examples (kda_harness/plugin.h): a step returns
// 0, or 1 with last_error() saying why. Each example's step body runs inside guarded(), which
// turns an exception into that; the text is kept per thread, as the ABI asks.
#pragma once
#include <cstdint>
#include <exception>
#include <string>

namespace kda::example {

inline std::string& last_error_text() {
  thread_local std::string text;
  return text;
}

inline const char* last_error(void*) { return last_error_text().c_str(); }

template <class Body>
int32_t guarded(Body&& body) {
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    last_error_text() = e.what();
    return 1;
  }
}

}  // namespace kda::example
