#include "contract/catalog_message.hpp"

#include <stdexcept>

#include "contract/error_catalog.hpp"

namespace kda {

std::string catalog_message(std::string_view id, std::initializer_list<MessageArg> args) {
  const CatalogEntry* entry = find_catalog_entry(id);
  if (!entry) throw std::logic_error("catalog_message: no catalog entry " + std::string(id));
  const std::string& text = entry->message;
  std::string out;
  std::vector<bool> used(args.size(), false);
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    if (open == std::string::npos) {
      out.append(text, i, std::string::npos);
      break;
    }
    // A placeholder may hold one pair of parentheses with commas, "(B, 1, HV, V)", but no braces.
    const std::size_t close = text.find('}', open);
    if (close == std::string::npos) throw std::logic_error("catalog_message: unclosed placeholder in " + entry->id);
    out.append(text, i, open - i);
    const std::string_view name(text.data() + open + 1, close - open - 1);
    std::size_t k = 0;
    for (const MessageArg& a : args) {
      if (a.name == name) break;
      ++k;
    }
    if (k == args.size())
      throw std::logic_error("catalog_message: no value for {" + std::string(name) + "} of " + entry->id);
    used[k] = true;
    out += (args.begin() + k)->value;
    i = close + 1;
  }
  for (std::size_t k = 0; k < used.size(); ++k)
    if (!used[k])
      throw std::logic_error("catalog_message: " + entry->id + " has no placeholder {" +
                             std::string((args.begin() + k)->name) + "}");
  return out;
}

}  // namespace kda
