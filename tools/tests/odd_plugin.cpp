// Plugins that are wrong in one way each (KDA_ODD_PLUGIN_* picks it), for the tests of what a
// loader must refuse and how a report carries what a plugin says: an empty or reversed
// envelope, a null step or operator, an unknown profile; or one that loads and refuses every
// call with a name and message that are not valid UTF-8.
#include <kda_harness/plugin.h>

namespace {

[[maybe_unused]] int32_t refuse(void*, const kda_call*) { return 1; }
const char* last_error(void*) { return "refused: \xff\xfe not UTF-8 \xc3"; }

constexpr kda_envelope kEverything = {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS,
                                      KDA_DT_ALL_INDICES, 1, 256, 1, 256, 0, 1, kDLCPU};

constexpr kda_envelope envelope() {
  kda_envelope e = kEverything;
#if defined(KDA_ODD_PLUGIN_EMPTY_ENVELOPE)
  e.out_dtypes = 0;  // no out dtype at all
#elif defined(KDA_ODD_PLUGIN_REVERSED_ENVELOPE)
  e.k_min = 128, e.k_max = 16;
#endif
  return e;
}

const kda_plugin kPlugin = {
    KDA_PLUGIN_ABI_VERSION,
#if defined(KDA_ODD_PLUGIN_BAD_UTF8)
    "odd-\xff\xfe-name-\xef\xbf\xbe\xef\xbf\xbf",  // invalid UTF-8, then U+FFFE and U+FFFF (no XML characters)
#else
    "odd",
#endif
#if defined(KDA_ODD_PLUGIN_NULL_OP)
    nullptr,
#else
    "kda_replayssm",
#endif
#if defined(KDA_ODD_PLUGIN_UNKNOWN_PROFILE)
    7,
#else
    KDA_PROFILE_HELION,
#endif
    envelope(),
    nullptr,
#if defined(KDA_ODD_PLUGIN_NULL_STEP)
    nullptr,
#else
    refuse,
#endif
    last_error,
};

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) { return &kPlugin; }
