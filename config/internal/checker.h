// The recorder of validation problems the config's sections share: each
// problem under its path in the config ("server.exchanges[0].seat"), with the
// range, list and duplicate checks every section makes.
#ifndef RTB_CONFIG_INTERNAL_CHECKER_H_
#define RTB_CONFIG_INTERNAL_CHECKER_H_

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "config/internal/error_list.h"
#include "config/internal/json_fields.h"

namespace rtb::config::internal {

// Records problems under paths relative to one object of the config.
class Checker {
 public:
  Checker(std::string path, ErrorList* errors) : path_(std::move(path)), errors_(errors) {}

  Checker Member(std::string_view key) const { return Checker(At(key), errors_); }
  Checker Element(std::string_view key, size_t index) const {
    return Checker(ElementPath(At(key), index), errors_);
  }
  std::string At(std::string_view key) const { return MemberPath(path_, key); }
  std::string ElementAt(std::string_view key, size_t index) const {
    return ElementPath(At(key), index);
  }

  void Fail(std::string_view key, const std::string& message) const {
    errors_->Add(key.empty() ? path_ : At(key), message);
  }

  // Whether min <= value <= max; records the problem if not.
  bool InRange(std::string_view key, int64_t value, int64_t min, int64_t max) const {
    if (value >= min && value <= max) return true;
    if (min == 1 && value < 1) {
      Fail(key, "must be > 0");
    } else {
      Fail(key, absl::StrCat("must be in [", min, ", ", max, "], got ", value));
    }
    return false;
  }

  // Whether min <= value <= max (a NaN is not); records the problem if not.
  // `min_open`: the minimum itself is excluded.
  bool InRealRange(std::string_view key, double value, double min, double max,
                   bool min_open = false) const {
    if (std::isfinite(value) && (min_open ? value > min : value >= min) && value <= max) {
      return true;
    }
    Fail(key, absl::StrCat("must be in ", min_open ? "(" : "[", min, ", ", max, "]"));
    return false;
  }

  // Each element of `values` must satisfy `valid`. The offending value is
  // shown (truncated): these lists hold no secrets.
  template <typename Valid>
  void EachString(std::string_view key, const std::vector<std::string>& values, Valid valid,
                  const std::string& requirement) const {
    for (size_t i = 0; i < values.size(); ++i) {
      if (!valid(values[i])) {
        errors_->Add(ElementAt(key, i),
                     absl::StrCat(requirement, "; got \"", Shown(values[i]), "\""));
      }
    }
  }

  // Flags repeated elements of `values`, naming the first occurrence.
  void NoDuplicates(std::string_view key, const std::vector<std::string>& values) const {
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < values.size(); ++i) {
      auto [it, inserted] = seen.emplace(values[i], i);
      if (!inserted) {
        Fail(ElementPath(std::string(key), i), DuplicateOf(ElementAt(key, it->second)));
      }
    }
  }

  static std::string Shown(const std::string& value) {
    constexpr size_t kShown = 64;
    std::string shown = Printable(value.substr(0, kShown));
    if (value.size() > kShown) shown += "...";
    return shown;
  }

  static std::string DuplicateOf(const std::string& path) {
    return absl::StrCat("duplicate of ", path);
  }

 private:
  std::string path_;
  ErrorList* errors_;
};

}  // namespace rtb::config::internal

#endif  // RTB_CONFIG_INTERNAL_CHECKER_H_
