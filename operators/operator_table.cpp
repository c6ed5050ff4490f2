// The table of operators: the one place that names every operator folder. The first is the
// default (what a call, a command line or a file means when it names none).
#include "engine/description/operator.hpp"
#include "operators/kda_packed_decode/description.hpp"
#include "operators/gdn_replayssm/description.hpp"
#include "operators/fla_recurrent_gdn/description.hpp"
#include "operators/fla_recurrent_kda/description.hpp"
#include "operators/kda_replayssm/description.hpp"
#include "operators/kda_triton_replayssm/description.hpp"

namespace kda::engine {

const std::vector<const OperatorDescription*>& operators() {
  static const std::vector<const OperatorDescription*> table = {&kda_replayssm_operator(), &kda_packed_decode_operator(),
                                                                   &gdn_replayssm_operator(), &kda_triton_replayssm_operator(),
                                                                   &fla_recurrent_kda_operator(), &fla_recurrent_gdn_operator()};
  return table;
}

}  // namespace kda::engine
