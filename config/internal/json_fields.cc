#include "config/internal/json_fields.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rtb::config::internal {
namespace {

using nlohmann::json;

// Walks a document that failed to parse only to learn where and why; every
// event is accepted so the first syntax error is the one reported.
class SyntaxErrorFinder : public nlohmann::json_sax<json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const json::exception& ex) override {
    position_ = position;
    message_ = ex.what();
    return false;
  }

  // nlohmann's text is "[json.exception.parse_error.101] parse error at line
  // L, column C: <reason>; last read: '<text>'". The reason is fixed wording;
  // the last-read text is the document's own bytes (possibly a secret), so
  // it is cut off.
  std::string Describe() const {
    std::string_view text = message_;
    size_t bracket = text.find("] ");
    if (bracket != std::string_view::npos) text.remove_prefix(bracket + 2);
    size_t last_read = text.find("; last read:");
    if (last_read != std::string_view::npos) text = text.substr(0, last_read);
    constexpr std::string_view kPrefix = "parse error";
    if (text.substr(0, kPrefix.size()) == kPrefix) {
      text.remove_prefix(kPrefix.size());
      return absl::StrCat("invalid JSON", std::string(text));
    }
    // Not a syntax error but a value JSON cannot represent here (a number
    // beyond double range); nlohmann gives no line for those.
    return absl::StrCat("invalid JSON at byte ", position_, ": ", std::string(text));
  }

 private:
  size_t position_ = 0;
  std::string message_;
};

// Where the parser is, to name repeated keys. One frame per open container.
struct Frame {
  bool is_array = false;
  size_t index = 0;  // arrays: index of the next element
  std::string key;   // objects: the key being read
  std::set<std::string> keys;
};

std::string FramesPath(const std::vector<Frame>& frames) {
  std::string path;
  for (const Frame& frame : frames) {
    path = frame.is_array ? ElementPath(path, frame.index) : MemberPath(path, Printable(frame.key));
  }
  return path;
}

std::string MustBe(const char* what, const json& value) {
  return absl::StrCat("must be ", what, ", got ", value.type_name());
}

bool DecodeInteger(const json& value, const std::string& path, ErrorList* errors, int64_t min,
                   int64_t max, int64_t* out) {
  if (!value.is_number_integer()) {
    errors->Add(path, value.is_number_float()
                          ? "must be an integer (written without a decimal point or exponent)"
                          : MustBe("an integer", value));
    return false;
  }
  if (value.is_number_unsigned()) {
    uint64_t number = value.get<uint64_t>();
    if (number > static_cast<uint64_t>(max)) {
      errors->Add(path, absl::StrCat("must be at most ", max));
      return false;
    }
    *out = static_cast<int64_t>(number);
    return true;
  }
  int64_t number = value.get<int64_t>();
  if (number < min) {
    errors->Add(path, absl::StrCat("must be at least ", min));
    return false;
  }
  if (number > max) {
    errors->Add(path, absl::StrCat("must be at most ", max));
    return false;
  }
  *out = number;
  return true;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

bool ParseJsonDocument(std::string_view text, json* out, ErrorList* errors) {
  std::vector<Frame> frames;
  bool duplicate = false;
  json::parser_callback_t track = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        frames.push_back(Frame{});
        break;
      case json::parse_event_t::array_start:
        frames.push_back(Frame{.is_array = true});
        break;
      case json::parse_event_t::key:
        if (!frames.empty()) {
          Frame& frame = frames.back();
          frame.key = parsed.is_string() ? parsed.get<std::string>() : std::string();
          if (!frame.keys.insert(frame.key).second) {
            errors->Add(FramesPath(frames), "key given more than once");
            duplicate = true;
          }
        }
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames.empty()) frames.pop_back();
        if (!frames.empty() && frames.back().is_array) ++frames.back().index;
        break;
      case json::parse_event_t::value:
        if (!frames.empty() && frames.back().is_array) ++frames.back().index;
        break;
    }
    return true;
  };
  json parsed = json::parse(text.begin(), text.end(), track, /*allow_exceptions=*/false,
                            /*ignore_comments=*/false);
  if (parsed.is_discarded()) {
    SyntaxErrorFinder finder;
    json::sax_parse(text.begin(), text.end(), &finder);
    errors->Add("", finder.Describe());
    return false;
  }
  if (duplicate) return false;
  *out = std::move(parsed);
  return true;
}

std::string MemberPath(const std::string& parent, std::string_view key) {
  std::string path = parent;
  if (!path.empty()) path += '.';
  path.append(key.data(), key.size());
  return path;
}

std::string ElementPath(const std::string& parent, size_t index) {
  return absl::StrCat(parent, "[", index, "]");
}

std::string Printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

bool DecodeValue(const json& value, const std::string& path, ErrorList* errors, std::string* out) {
  if (!value.is_string()) {
    errors->Add(path, MustBe("a string", value));
    return false;
  }
  *out = value.get_ref<const std::string&>();
  return true;
}

bool DecodeValue(const json& value, const std::string& path, ErrorList* errors, bool* out) {
  if (!value.is_boolean()) {
    errors->Add(path, MustBe("true or false", value));
    return false;
  }
  *out = value.get<bool>();
  return true;
}

bool DecodeValue(const json& value, const std::string& path, ErrorList* errors, int* out) {
  int64_t number = 0;
  if (!DecodeInteger(value, path, errors, std::numeric_limits<int>::min(),
                     std::numeric_limits<int>::max(), &number)) {
    return false;
  }
  *out = static_cast<int>(number);
  return true;
}

bool DecodeValue(const json& value, const std::string& path, ErrorList* errors, int64_t* out) {
  return DecodeInteger(value, path, errors, std::numeric_limits<int64_t>::min(),
                       std::numeric_limits<int64_t>::max(), out);
}

bool DecodeValue(const json& value, const std::string& path, ErrorList* errors, double* out) {
  if (!value.is_number()) {
    errors->Add(path, MustBe("a number", value));
    return false;
  }
  *out = value.get<double>();
  return true;
}

bool DecodeValue(const json& value, const std::string& path, ErrorList* errors,
                 std::vector<std::string>* out) {
  if (!value.is_array()) {
    errors->Add(path, MustBe("an array of strings", value));
    return false;
  }
  std::vector<std::string> items(value.size());
  bool ok = true;
  for (size_t i = 0; i < value.size(); ++i) {
    ok = DecodeValue(value[i], ElementPath(path, i), errors, &items[i]) && ok;
  }
  if (ok) *out = std::move(items);
  return ok;
}

bool DecodeValue(const json& value, const std::string& path, ErrorList* errors,
                 std::vector<int>* out) {
  if (!value.is_array()) {
    errors->Add(path, MustBe("an array of integers", value));
    return false;
  }
  std::vector<int> items(value.size());
  bool ok = true;
  for (size_t i = 0; i < value.size(); ++i) {
    ok = DecodeValue(value[i], ElementPath(path, i), errors, &items[i]) && ok;
  }
  if (ok) *out = std::move(items);
  return ok;
}

bool DecodeValue(const json& value, const std::string& path, ErrorList* errors,
                 std::map<std::string, double>* out) {
  if (!value.is_object()) {
    errors->Add(path, MustBe("an object", value));
    return false;
  }
  std::map<std::string, double> items;
  bool ok = true;
  for (const auto& [key, member] : value.items()) {
    double number = 0;
    if (DecodeValue(member, MemberPath(path, Printable(key)), errors, &number)) {
      items[key] = number;
    } else {
      ok = false;
    }
  }
  if (ok) *out = std::move(items);
  return ok;
}

ObjectFields::ObjectFields(const json& value, std::string path, ErrorList* errors)
    : object_(value.is_object() ? &value : nullptr), path_(std::move(path)), errors_(errors) {
  if (object_ == nullptr) errors_->Add(path_, MustBe("an object", value));
}

const json* ObjectFields::Find(std::string_view key) {
  std::string name(key);
  known_.insert(name);
  if (object_ == nullptr) return nullptr;
  auto it = object_->find(name);
  return it == object_->end() ? nullptr : &*it;
}

void ObjectFields::RejectUnknownKeys() {
  if (object_ == nullptr) return;
  for (const auto& item : object_->items()) {
    const std::string& key = item.key();
    if (known_.count(key) != 0) continue;
    const std::string* closest = nullptr;
    size_t best = std::numeric_limits<size_t>::max();
    for (const std::string& candidate : known_) {
      size_t distance = EditDistance(key, candidate);
      if (distance < best) {
        best = distance;
        closest = &candidate;
      }
    }
    std::string message = "unknown key";
    if (closest != nullptr && best <= 2 && best < key.size()) {
      absl::StrAppend(&message, " (did you mean \"", *closest, "\"?)");
    } else {
      absl::StrAppend(&message, " (known keys: ", absl::StrJoin(known_, ", "), ")");
    }
    errors_->Add(MemberPath(path_, Printable(key)), message);
  }
}

void ObjectFields::ReportBadEnum(const std::string& path, const std::string& text,
                                 const std::vector<const char*>& spellings) {
  constexpr size_t kShown = 40;
  std::string shown = Printable(text.substr(0, kShown));
  if (text.size() > kShown) shown += "...";
  errors_->Add(path, absl::StrCat("must be one of ", absl::StrJoin(spellings, ", "), "; got \"",
                                  shown, "\""));
}

}  // namespace rtb::config::internal
