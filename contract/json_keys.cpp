#include "contract/json_keys.hpp"

#include <nlohmann/json.hpp>

#include <unordered_set>
#include <vector>

namespace kda {
namespace {

// Tracks the keys of every object open at the parse's position; stops at the first repeated one.
class KeyTracker final : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::optional<std::string> duplicate;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    open_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (open_.back().insert(k).second) return true;
    duplicate = k;
    return false;
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  std::vector<std::unordered_set<std::string>> open_;
};

}  // namespace

std::optional<std::string> duplicate_json_key(std::string_view text) {
  KeyTracker tracker;
  nlohmann::json::sax_parse(text.begin(), text.end(), &tracker);
  return tracker.duplicate;
}

}  // namespace kda
