// An operator the harness judges, as one description in the style of PyTorch's OpInfo: its
// name (the plugin ABI's `op`, the CLI's --op), its tensor arguments, its contract, its
// reference step, its sample space (valid calls, and the case configs whose tensors it
// reads), its error inputs and its golden cases. The suites, fuzz targets and subcommands take a description
// and never branch on which one it is. Each operator is a folder of operators/ that defines
// its description (by field name); the table of them is operators/operator_table.cpp, the
// only place that names them all. engine/ includes nothing from operators/.
//
// Every operator takes its arguments as StepArgs by the specs' names; bind() leaves null
// the tensors the operator does not take (an operator without rings takes no write_pos or
// force_flush), so one materialized case serves every operator.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cases/case_config.hpp"
#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"
#include "contract/validate.hpp"
#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"
#include "engine/description/error_inputs.hpp"
#include "engine/description/sample_space.hpp"
#include "kda_harness/plugin.h"
#include "reference/rounding.hpp"

namespace kda::reference {
class ProfileEmulation;
}
namespace kda::golden {
struct GoldenSpec;  // engine/description/golden_spec.hpp
}

namespace kda::engine {

struct ContractRestatement;  // engine/description/contract_restatement.hpp
struct CaseDriver;           // engine/driver/case_driver.hpp

struct OperatorDescription {
  std::string_view name;                      // as --op and the plugin ABI's kda_call name it
  std::string_view summary;                   // one line
  std::span<const std::string_view> tensors;  // in the signature's order; force_flush optional
  std::span<const std::string_view> scalars;  // the scalar arguments it takes (contract/step_fields.hpp)
  StepArgs (*bind)(StepArgs args);            // null what the operator does not take
  Dims (*validate)(const StepArgs& args, kda::Backend backend);
  // The CPU reference: validates (the contract on the CPU, then the runtime values) and raises
  // before writing anything, else performs the step in place.
  Dims (*reference_step)(const StepArgs& args, reference::Rounding rounding);
  // The step under a rounding profile's emulation (reference/profile_emulation.hpp); null
  // where no emulation of the operator exists (`emulate:` backends then refuse it).
  Dims (*emulated_step)(reference::ProfileEmulation& emulation, const StepArgs& args) = nullptr;
  const std::vector<ErrorInput>& (*error_inputs)();
  // The error catalog's ids (contract/error_catalog.json) its contract and runtime checks raise,
  // in catalog order: the catalog's "raised by" (docs/errors.md, `kda-harness errors --op`) is
  // read from here, so an operator copied from another raises what its source raised.
  std::span<const std::string_view> raises;
  // Its sample space: a case within the limits (before fit_case: the driver fits what it draws,
  // after narrowing it to a backend's envelope), and a valid call within the limits, its
  // metadata and the dims validate() must return.
  CaseConfig (*sample_case)(Chooser& c, const SampleLimits& limits);
  CallConfig (*sample_call)(Chooser& c, const SampleLimits& limits);
  CallSpec (*valid_spec)(const CallConfig& c);
  Dims (*dims_of)(const CallConfig& c);
  // A case config made one of this operator's (the fields it has no use for neutral).
  CaseConfig (*fit_case)(CaseConfig c);
  // "ok B=3 H=2 HV=4 K=128 V=128 slots=5": what `validate` prints for an accepted call.
  std::string (*ok_line)(const Dims& d);
  // Its curated golden cases (engine/description/golden_spec.hpp), in the order the set lists them; null:
  // none. golden_specs() (golden/golden_catalog.hpp) walks the table for them.
  std::vector<golden::GoldenSpec> (*golden_cases)() = nullptr;
  // Its contract restated independently, for the contract fuzzer's oracle; null: its answers
  // are judged by the error catalog alone.
  const ContractRestatement* restated_contract = nullptr;
  // How the driver plays its cases: its tensors, rows, footprint, protocol and oracles
  // (engine/driver/case_driver.hpp; the ReplaySSM family's or its own).
  const CaseDriver* case_driver = nullptr;
  // The ring variants its calls have (plugin.h's KDA_RING_* bits) as a backend may or may not
  // serve them. A flag the operator ignores is no variant of it (GDN ReplaySSM accepts
  // prefix_gate_cache and reads raw gates either way): every backend of it serves that flag,
  // whatever its ring_modes say (Envelope::of_plugin).
  uint32_t ring_variants = KDA_RING_LINEAR;
};

// A config made one of the operator's cases: its fit_case applied once, by fit(); the driver
// plays such a case as it is (engine/driver/run_case.hpp).
struct OperatorCase {
  const OperatorDescription* op = nullptr;
  CaseConfig config;
};
OperatorCase fit(const OperatorDescription& op, const CaseConfig& c);

// Case `index` of `seed` drawn by the counter generator from the operator's sample space
// (before its fit_case): the same config on every machine.
CaseConfig draw_case(const OperatorDescription& op, uint64_t seed, uint64_t index, const SampleLimits& limits);

// Whether the operator's `raises` lists the catalog id.
bool raises(const OperatorDescription& op, std::string_view id);
// The operators whose `raises` lists the catalog id, in table order.
std::vector<std::string> operators_raising(std::string_view id);

// Whether the operator takes the named tensor (its signature, OperatorDescription::tensors).
bool takes(const OperatorDescription& op, std::string_view tensor);

// The table (operators/operator_table.cpp), the default first.
const std::vector<const OperatorDescription*>& operators();
// The operator a call names when it names none: the table's first.
const OperatorDescription& default_operator();
// Whether the table holds an operator of that name.
bool has_operator(std::string_view name);
// The named operator; std::invalid_argument naming the known ones otherwise.
const OperatorDescription& find_operator(std::string_view name);
// Every name of the table, the default first, joined by separator ("a|b|c").
std::string operator_names(std::string_view separator = "|");

}  // namespace kda::engine
