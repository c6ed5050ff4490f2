#include "engine/plugin_backend.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "contract/contract_error.hpp"
#include "contract/error_catalog.hpp"
#include "engine/cuda_backend.hpp"
#include "engine/plugin_call.hpp"

namespace kda::engine {

namespace {

[[noreturn]] void raise_refusal(const std::string& backend, const std::string& message) {
  // A refusal whose text is a catalog message (a plugin that validates as SGLang's wrapper
  // does) is that contract error; any other text is the plugin's own refusal.
  const std::vector<std::string> ids = catalog_ids_matching(message);
  if (!ids.empty()) throw ContractError(fmt::format("{}", fmt::join(ids, "|")), message);
  throw BackendRefusal(fmt::format("{} refused the call: {}", backend, message));
}

}  // namespace

void call_plugin(const kda_plugin& plugin, const std::string& backend, const StepArgs& args, void* stream) {
  const PluginCall call(args, stream, plugin.op);
  if (plugin.step(plugin.state, call.get()) != 0) {
    const char* why = plugin.last_error(plugin.state);
    raise_refusal(backend, why ? why : "(no message)");
  }
}

namespace {

void check_description(const kda_plugin* p, const std::string& what) {
  if (p == nullptr) throw std::runtime_error(what + ": kda_plugin_describe() returned NULL");
  if (p->abi_version != KDA_PLUGIN_ABI_VERSION)
    throw std::runtime_error(fmt::format("{}: plugin ABI version {}, this harness speaks {}", what, p->abi_version,
                                         KDA_PLUGIN_ABI_VERSION));
  if (p->step == nullptr || p->last_error == nullptr) throw std::runtime_error(what + ": step or last_error is NULL");
  if (!known_plugin_op(p->op))
    throw std::runtime_error(fmt::format("{}: implements operator '{}', not one of {}", what, p->op ? p->op : "(null)",
                                         operator_names(", ")));
  if (p->profile != KDA_PROFILE_HELION && p->profile != KDA_PROFILE_TRITON)
    throw std::runtime_error(fmt::format("{}: unknown rounding profile {}", what, p->profile));
  if (p->envelope.device_type != kDLCPU && p->envelope.device_type != kDLCUDA)
    throw std::runtime_error(fmt::format("{}: envelope device_type {} is neither kDLCPU nor kDLCUDA", what,
                                         p->envelope.device_type));
}

class CpuPluginBackend final : public Backend {
 public:
  CpuPluginBackend(const kda_plugin& p, std::string what)
      : p_(p), what_(what), name_(fmt::format("plugin:{}", p.name ? p.name : what)), envelope_(Envelope::from_c(p.envelope, find_operator(p.op))) {}
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
  check_description(&description, what);
  if (description.envelope.device_type == kDLCUDA) return cuda_plugin_backend(description, what);
  return std::make_unique<CpuPluginBackend>(description, what);
}

std::unique_ptr<Backend> load_plugin_backend(const std::string& path) {
  // RTLD_LOCAL: two plugins (or a plugin and the harness) may define the same symbols.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) throw std::runtime_error(fmt::format("plugin {}: {}", path, dlerror()));
  auto describe = reinterpret_cast<kda_plugin_describe_fn>(dlsym(lib, KDA_PLUGIN_DESCRIBE_SYMBOL));
  if (describe == nullptr)
    throw std::runtime_error(fmt::format("plugin {}: no symbol {}", path, KDA_PLUGIN_DESCRIBE_SYMBOL));
  const kda_plugin* p = describe();
  check_description(p, "plugin " + path);
  return plugin_backend(*p, path);
}

}  // namespace kda::engine
