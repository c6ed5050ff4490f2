#include "operators/replayssm_family/replayssm_driver.hpp"

#include <stdexcept>
#include <string>

#include "operators/replayssm_family/case_tensors.hpp"

namespace kda::engine {

const ReplaySSMDriver& replayssm_driver_of(const OperatorDescription& op) {
  const CaseDriver& driver = driver_of(op);
  // Only the family's drivers materialize its cases: the one check that `driver` is one.
  if (driver.materialize != &materialize_replayssm_case)
    throw std::logic_error(std::string(op.name) + " is no operator of the ReplaySSM family");
  return static_cast<const ReplaySSMDriver&>(driver);
}

}  // namespace kda::engine
