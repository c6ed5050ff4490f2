// The shared KDA CPU example built as kda_replayssm checks its call with validate() (contract.md).
#include "operators/kda_common/cpu_example_contract.hpp"

#include "contract/validate.hpp"

namespace kda::example {

Dims validate_call(const StepArgs& args) { return validate(args, Backend::Cpu); }

}  // namespace kda::example
