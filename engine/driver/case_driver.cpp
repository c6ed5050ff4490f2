#include "engine/driver/case_driver.hpp"

#include <stdexcept>

namespace kda::engine {

const CaseDriver& driver_of(const OperatorDescription& op) {
  if (op.case_driver == nullptr) throw std::logic_error(std::string(op.name) + "'s description names no case driver");
  return *op.case_driver;
}

CaseTensors materialize_case(const OperatorDescription& op, const CaseConfig& config) {
  return driver_of(op).materialize(config);
}

}  // namespace kda::engine
