// What a failed case failed of, as one line shared by the failures of the same cause: the
// tensor whose values left the tolerance, or the non-numeric failure with its numbers,
// indices, values and descriptions taken out ("token #: d_cache[..] changed from # to #: row #
// flushes slot #: no ring record may change"; a check's id, "(G17)", stays). Reports group failures by it (tools/check_report.cpp), so
// forty failures of one bug read as one group with a count.
#pragma once
#include <string>

#include "engine/reports/case_report.hpp"

namespace kda::engine {

// "" for a case that passed.
std::string failure_cause(const CaseReport& r);

}  // namespace kda::engine
