// The words an operator's reports use, read from its tensors (OperatorDescription::tensors):
// rings, ring lengths, cursors, appends and flushes only for an operator that has a ring
// (takes d_cache), force_flush only for one that takes it. Config lines, case summaries, the
// envelope in the banner and --stats speak of what the operator has and of nothing else.
#pragma once
#include <string>
#include <string_view>

#include "cases/case_config.hpp"
#include "engine/description/operator.hpp"

namespace kda::engine {

bool has_ring(const OperatorDescription& op);
bool has_force_flush(const OperatorDescription& op);

// Whether a config line key (cases/case_config.hpp's to_string) names something the operator
// has: the ring's keys (L, ring, flush, rcur, circ, pgc) only with a ring, ff only with force_flush.
bool speaks_of_key(const OperatorDescription& op, std::string_view key);

// The case's config line in the operator's words: to_string() without the keys it does not
// speak of, naming the operator (op=NAME first) unless it is the default, so that the line
// alone replays the case. parse_case_line reads the left-out keys back as defaults, which the
// operator's fit_case makes the same config again (engine/operator_words_test keeps it so).
std::string config_line(const CaseConfig& c, const OperatorDescription& op);
// config_line for the operator of that name; to_string() where the table has no such operator.
std::string config_line(const CaseConfig& c, std::string_view op);

}  // namespace kda::engine
