// The boundary: every C entry point runs its body through guarded(), which turns whatever the
// harness throws into a status code and a kda_error, so no exception crosses the C ABI.
#pragma once
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "capi/kda_capi.h"
#include "contract/contract_error.hpp"

namespace kda::capi {

inline void set_error(kda_error* err, const std::string& id, const std::string& message) {
  if (err == nullptr) return;
  std::snprintf(err->id, sizeof err->id, "%s", id.c_str());
  std::snprintf(err->message, sizeof err->message, "%s", message.c_str());
}

template <class Body>
int32_t guarded(kda_error* err, Body&& body) noexcept {
  set_error(err, "", "");
  try {
    return body();
  } catch (const ContractError& e) {
    set_error(err, e.id(), e.what());
    return KDA_CONTRACT_ERROR;
  } catch (const std::invalid_argument& e) {
    set_error(err, "", e.what());
    return KDA_BAD_ARGUMENT;
  } catch (const std::exception& e) {
    set_error(err, "", e.what());
    return KDA_INTERNAL_ERROR;
  } catch (...) {
    set_error(err, "", "unknown C++ exception");
    return KDA_INTERNAL_ERROR;
  }
}

}  // namespace kda::capi
