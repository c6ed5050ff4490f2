#include "engine/backends/plugin_backend.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "contract/contract_error.hpp"
#include "contract/error_catalog.hpp"
#include "engine/backends/cuda_backend.hpp"
#include "engine/backends/plugin_call.hpp"

namespace kda::engine {

namespace {

// Bytes a report can carry: what a plugin says (its name, its errors) is not trusted to be
// UTF-8, which the JSON and JUnit reports must be; each byte outside a valid UTF-8 sequence
// becomes the text \xNN.
std::string escaped_utf8(std::string_view text) {
  std::string out;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len > 1) {  // no overlong forms, surrogates or code points past U+10FFFF
      uint32_t cp = c & (0xFF >> (len + 1));
      for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (p[i + k] & 0x3F);
      static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= kMin[len] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  return out;
}

[[noreturn]] void raise_refusal(const std::string& backend, const std::string& raw_message) {
  const std::string message = escaped_utf8(raw_message);
  // A refusal whose text is a catalog message (a plugin that validates as SGLang's wrapper
  // does) is that contract error; any other text is the plugin's own refusal.
  const std::vector<std::string> ids = catalog_ids_matching(message);
  if (!ids.empty()) throw ContractError(fmt::format("{}", fmt::join(ids, "|")), message);
  throw BackendRefusal(fmt::format("{} refused the call: {}", backend, message));
}

}  // namespace

void call_plugin(const kda_plugin& plugin, const std::string& backend, const StepArgs& args, void* stream) {
  const PluginCall call(args, stream, plugin.op, find_operator(plugin.op).scalars);
  if (plugin.step(plugin.state, call.get()) != 0) {
    const char* why = plugin.last_error(plugin.state);
    raise_refusal(backend, why ? why : "(no message)");
  }
}

namespace {

// A power of two in lo..hi (a head dim the envelope lets through).
bool holds_power_of_two(int64_t lo, int64_t hi) {
  for (int64_t x = 1; x > 0 && x <= hi; x *= 2)
    if (x >= lo) return true;
  return false;
}

// An envelope that admits no call would fail every case with nothing to replay: refused.
void check_envelope(const kda_envelope& e, const OperatorDescription& op, const std::string& what) {
  const auto need = [&](uint32_t set, uint32_t known, const char* which) {
    if ((set & known) == 0) throw std::runtime_error(fmt::format("{}: its envelope is empty: no {} dtype", what, which));
  };
  need(e.act_dtypes, KDA_DT_ALL_FLOATS, "activation");
  need(e.state_dtypes, KDA_DT_ALL_FLOATS, "state");
  if (takes(op, "d_cache")) need(e.ring_dtypes, KDA_DT_ALL_FLOATS, "ring");
  need(e.out_dtypes, KDA_DT_ALL_FLOATS, "out");
  need(e.index_dtypes, KDA_DT_ALL_INDICES, "index");
  if (!holds_power_of_two(e.k_min, e.k_max))
    throw std::runtime_error(fmt::format("{}: its envelope is empty: K {}..{} holds no power of two", what, e.k_min, e.k_max));
  if (!holds_power_of_two(e.v_min, e.v_max))
    throw std::runtime_error(fmt::format("{}: its envelope is empty: V {}..{} holds no power of two", what, e.v_min, e.v_max));
  if (e.l_max < 0) throw std::runtime_error(fmt::format("{}: its envelope's l_max {} is negative", what, e.l_max));
}

}  // namespace

kda_plugin read_plugin_description(const kda_plugin& p) {
  kda_plugin d{};  // a version 1 plugin's invalid_rows: KDA_INVALID_ROWS_NONE
  std::memcpy(&d, &p, p.abi_version >= 3   ? sizeof(kda_plugin)
                      : p.abi_version == 2 ? offsetof(kda_plugin, ring_modes)
                                           : offsetof(kda_plugin, invalid_rows));
  if (d.ring_modes == 0) d.ring_modes = KDA_RING_LINEAR;  // an older plugin, or none declared
  return d;
}

void check_plugin_description(const kda_plugin* p, const std::string& what) {
  if (p == nullptr) throw std::runtime_error(what + ": kda_plugin_describe() returned NULL");
  if (p->abi_version < KDA_PLUGIN_ABI_VERSION_MIN || p->abi_version > KDA_PLUGIN_ABI_VERSION)
    throw std::runtime_error(fmt::format("{}: plugin ABI version {}, this harness speaks {}..{}", what, p->abi_version,
                                         KDA_PLUGIN_ABI_VERSION_MIN, KDA_PLUGIN_ABI_VERSION));
  const kda_plugin d = read_plugin_description(*p);
  if (d.invalid_rows != KDA_INVALID_ROWS_NONE && d.invalid_rows != KDA_INVALID_ROWS_RAISE)
    throw std::runtime_error(fmt::format("{}: invalid_rows {} is neither KDA_INVALID_ROWS_NONE (0) nor "
                                         "KDA_INVALID_ROWS_RAISE (1)", what, d.invalid_rows));
  if ((d.ring_modes & ~KDA_RING_ALL) != 0)
    throw std::runtime_error(fmt::format("{}: ring_modes {:#x} holds bits that are no KDA_RING_*", what, d.ring_modes));
  if (p->step == nullptr || p->last_error == nullptr) throw std::runtime_error(what + ": step or last_error is NULL");
  if (p->op == nullptr || !has_operator(p->op))
    throw std::runtime_error(fmt::format("{}: implements operator '{}', not one of {}", what, p->op ? p->op : "(null)",
                                         operator_names(", ")));
  if (p->profile != KDA_PROFILE_HELION && p->profile != KDA_PROFILE_TRITON)
    throw std::runtime_error(fmt::format("{}: unknown rounding profile {}", what, p->profile));
  if (p->envelope.device_type != kDLCPU && p->envelope.device_type != kDLCUDA)
    throw std::runtime_error(fmt::format("{}: envelope device_type {} is neither kDLCPU nor kDLCUDA", what,
                                         p->envelope.device_type));
  check_envelope(p->envelope, find_operator(p->op), what);
}

namespace {

class CpuPluginBackend final : public Backend {
 public:
  CpuPluginBackend(const kda_plugin& p, std::string what)
      : p_(p), what_(what), name_(fmt::format("plugin:{}", escaped_utf8(p.name ? p.name : what))), envelope_(Envelope::of_plugin(p)) {}
  std::string name() const override { return name_; }
  std::string spec() const override { return "plugin:" + what_; }
  const Envelope& envelope() const override { return envelope_; }
  Profile profile() const override { return p_.profile == KDA_PROFILE_TRITON ? Profile::Triton : Profile::Helion; }
  const OperatorDescription& op() const override { return find_operator(p_.op); }
  void step(const StepArgs& host) override { call_plugin(p_, name_, host, nullptr); }

 private:
  kda_plugin p_;
  std::string what_, name_;
  Envelope envelope_;
};

}  // namespace

std::unique_ptr<Backend> plugin_backend(const kda_plugin& description, const std::string& what) {
  check_plugin_description(&description, what);
  const kda_plugin d = read_plugin_description(description);
  if (d.envelope.device_type == kDLCUDA) return cuda_plugin_backend(d, what);
  return std::make_unique<CpuPluginBackend>(d, what);
}

std::unique_ptr<Backend> load_plugin_backend(const std::string& path) {
  // RTLD_LOCAL: two plugins (or a plugin and the harness) may define the same symbols.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) throw std::runtime_error(fmt::format("plugin {}: {}", path, dlerror()));
  auto describe = reinterpret_cast<kda_plugin_describe_fn>(dlsym(lib, KDA_PLUGIN_DESCRIBE_SYMBOL));
  if (describe == nullptr)
    throw std::runtime_error(fmt::format("plugin {}: no symbol {}", path, KDA_PLUGIN_DESCRIBE_SYMBOL));
  const kda_plugin* p = describe();
  check_plugin_description(p, "plugin " + path);
  return plugin_backend(*p, path);
}

}  // namespace kda::engine
