// An operator's contract restated independently (OperatorDescription::restated_contract): its
// conditions written again from the spec, in a few lines each, on the raw DLPack metadata
// (engine/description/raw_metadata.hpp: wide integers, its own contiguity and stride rules, brute-force
// overlap search on small tensors), sharing no code path with the operator's validate(). The
// contract fuzzer's oracle (fuzz/contract_oracle.hpp) judges validate()'s answers by the
// catalog alone for an operator without one, and by these conditions too for one with it.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "contract/backend_kind.hpp"
#include "contract/step_args.hpp"
#include "engine/description/chooser.hpp"

namespace kda::engine {

struct ContractRestatement {
  // Whether check `id`'s own condition holds for the call; nullopt: not decided here (the
  // flattened views' strides, overlap of huge tensors, an id it does not restate).
  std::optional<bool> (*condition_holds)(std::string_view id, const StepArgs& args, Backend backend);
  // The exact message of check `id` rebuilt from the metadata (the catalog's templates that
  // print plain numbers and shapes); nullopt where it is not rebuilt.
  std::optional<std::string> (*expected_message)(std::string_view id, const StepArgs& args);
  // For an accepted call: "" when it satisfies every condition of the contract and its
  // extensions and `dims` are the ones its shapes give, else what is broken.
  std::string (*judge_acceptance)(const StepArgs& args, Backend backend, const Dims& dims);
  // For an accepted call (its metadata): the operator's reference step run on real tensors of
  // those layouts, with values and runtime arguments (slots, cursors, flags) from `choices`,
  // judged by the step's semantics restated ("" when it holds or the call is not run, else what
  // is broken). nullptr: the operator's step is not restated.
  std::string (*reference_step_holds)(const StepArgs& metadata, const Dims& dims, Chooser& choices) = nullptr;
};

}  // namespace kda::engine
