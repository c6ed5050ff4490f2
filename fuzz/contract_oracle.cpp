#include "fuzz/contract_oracle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "contract/error_catalog.hpp"
#include "engine/description/contract_restatement.hpp"

namespace kda::fuzz {

std::string judge_rejection(const engine::OperatorDescription& op, const StepArgs& args, Backend backend,
                            const ContractError& error) {
  const std::string message = error.what();
  const CatalogEntry* entry = find_catalog_entry(error.id());
  if (!entry) return fmt::format("id {} is not in the error catalog (message: {})", error.id(), message);
  if (!engine::raises(op, error.id()))
    return fmt::format("{}: {}'s description does not list it among the ids it raises", error.id(), op.name);
  const std::vector<std::string> ids = catalog_ids_matching(message);
  if (ids != std::vector<std::string>{error.id()})
    return fmt::format("{}: the message is matched by the messagePattern of [{}], not by exactly its own entry: {}",
                       error.id(), fmt::join(ids, ", "), message);
  if (!entry->is_template() && message != entry->message)
    return fmt::format("{}: message differs from the catalog's fixed message:\n  got      {}\n  catalog  {}", error.id(),
                       message, entry->message);
  const engine::ContractRestatement* restated = op.restated_contract;
  if (!restated) return "";
  if (const auto expected = restated->expected_message(error.id(), args); expected && *expected != message)
    return fmt::format("{}: message differs from the one rebuilt from the metadata:\n  got      {}\n  expected {}",
                       error.id(), message, *expected);
  if (const auto holds = restated->condition_holds(error.id(), args, backend); holds && !*holds)
    return fmt::format("{} raised, but its condition does not hold for this call: {}", error.id(), message);
  return "";
}

std::string judge_acceptance(const engine::OperatorDescription& op, const StepArgs& args, Backend backend,
                             const Dims& dims) {
  return op.restated_contract ? op.restated_contract->judge_acceptance(args, backend, dims) : "";
}

}  // namespace kda::fuzz
