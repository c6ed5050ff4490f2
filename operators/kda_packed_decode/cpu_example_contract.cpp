// The shared KDA CPU example built as kda_packed_decode checks its call with
// validate_packed_decode() (spec/packed-decode.md).
#include "operators/kda_common/cpu_example_contract.hpp"

#include "operators/kda_packed_decode/contract.hpp"

namespace kda::example {

Dims validate_call(const StepArgs& args) { return validate_packed_decode(args, Backend::Cpu); }

}  // namespace kda::example
