// Reading a configuration document with nlohmann/json without exceptions:
// parsing (strict JSON, duplicate keys rejected), and typed reads of object
// members that record each problem in an ErrorList under the member's path and
// remember which keys were read, so that the rest can be reported as unknown.
//
// Messages name paths and JSON types, never values: a secret of the wrong
// type or in a malformed document does not leak into the error.
#ifndef RTB_CONFIG_INTERNAL_JSON_FIELDS_H_
#define RTB_CONFIG_INTERNAL_JSON_FIELDS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/internal/error_list.h"
#include "nlohmann/json.hpp"

namespace rtb::config::internal {

// Parses `text`. On a syntax error records "invalid JSON at line L, column C:
// <reason>" without the offending text ("at byte N" for a number beyond
// double range) and returns false; a key repeated in one object is recorded
// under its path and also fails the parse.
bool ParseJsonDocument(std::string_view text, nlohmann::json* out, ErrorList* errors);

// "a.b" from "a" and "b" (just "b" at the top); "a[3]" from "a" and 3.
std::string MemberPath(const std::string& parent, std::string_view key);
std::string ElementPath(const std::string& parent, size_t index);

// `text` with anything but printable ASCII escaped as \xNN, for keys from the
// document that go into messages.
std::string Printable(std::string_view text);

// Typed decoding of one value. On a type or representability mismatch,
// records the problem under `path`, leaves `*out` unchanged and returns false.
bool DecodeValue(const nlohmann::json& value, const std::string& path, ErrorList* errors,
                 std::string* out);
bool DecodeValue(const nlohmann::json& value, const std::string& path, ErrorList* errors,
                 bool* out);
bool DecodeValue(const nlohmann::json& value, const std::string& path, ErrorList* errors, int* out);
bool DecodeValue(const nlohmann::json& value, const std::string& path, ErrorList* errors,
                 int64_t* out);
bool DecodeValue(const nlohmann::json& value, const std::string& path, ErrorList* errors,
                 double* out);
bool DecodeValue(const nlohmann::json& value, const std::string& path, ErrorList* errors,
                 std::vector<std::string>* out);
bool DecodeValue(const nlohmann::json& value, const std::string& path, ErrorList* errors,
                 std::vector<int>* out);
// A JSON object of numbers.
bool DecodeValue(const nlohmann::json& value, const std::string& path, ErrorList* errors,
                 std::map<std::string, double>* out);

// Spelling of one enum value in JSON.
template <typename E>
struct EnumName {
  const char* name;
  E value;
};

// The members of one JSON object.
class ObjectFields {
 public:
  // When `value` is not an object the problem is recorded once and every read
  // finds nothing.
  ObjectFields(const nlohmann::json& value, std::string path, ErrorList* errors);

  ObjectFields(const ObjectFields&) = delete;
  ObjectFields& operator=(const ObjectFields&) = delete;

  bool is_object() const { return object_ != nullptr; }
  const std::string& path() const { return path_; }
  ErrorList* errors() const { return errors_; }
  std::string PathOf(std::string_view key) const { return MemberPath(path_, key); }

  // The member, or nullptr when absent. Marks `key` as known either way.
  const nlohmann::json* Find(std::string_view key);
  bool Has(std::string_view key) { return Find(key) != nullptr; }

  // Decodes the member into `*out` when present; an absent member leaves the
  // default. True when present and well-typed.
  template <typename T>
  bool Read(std::string_view key, T* out) {
    const nlohmann::json* value = Find(key);
    if (value == nullptr) return false;
    return DecodeValue(*value, PathOf(key), errors_, out);
  }

  // Same, for a string naming an enum value.
  template <typename E, size_t N>
  bool ReadEnum(std::string_view key, const EnumName<E> (&names)[N], E* out) {
    const nlohmann::json* value = Find(key);
    if (value == nullptr) return false;
    std::string text;
    if (!DecodeValue(*value, PathOf(key), errors_, &text)) return false;
    std::vector<const char*> spellings;
    for (const EnumName<E>& name : names) {
      if (text == name.name) {
        *out = name.value;
        return true;
      }
      spellings.push_back(name.name);
    }
    ReportBadEnum(PathOf(key), text, spellings);
    return false;
  }

  // Records every member that was never looked up as an unknown key, with the
  // closest known key as a suggestion. Call after all reads.
  void RejectUnknownKeys();

 private:
  void ReportBadEnum(const std::string& path, const std::string& text,
                     const std::vector<const char*>& spellings);

  const nlohmann::json* object_;
  std::string path_;
  ErrorList* errors_;
  std::set<std::string, std::less<>> known_;
};

}  // namespace rtb::config::internal

#endif  // RTB_CONFIG_INTERNAL_JSON_FIELDS_H_
