// Which backend a call is validated for: decides the device extension checks.
#pragma once

namespace kda {

enum class Backend { Any, Cpu, Cuda };

}  // namespace kda
