#include "storage/server/filter_language.h"

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace rtb::storage::server {
namespace {

// One argument of a filter, with where it starts for error messages.
struct Argument {
  enum class Kind { kString, kNumber, kBool, kOperator };
  Kind kind;
  std::string text;  // the string's bytes, the number's digits, the operator
  int64_t number = 0;
  bool boolean = false;
  size_t position = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  absl::StatusOr<std::unique_ptr<Filter>> Parse() {
    absl::StatusOr<std::unique_ptr<Filter>> filter = ParseOr();
    if (!filter.ok()) return filter;
    SkipSpaces();
    if (pos_ != text_.size()) return Error("unexpected text after the filter");
    return filter;
  }

 private:
  absl::Status Error(std::string_view what) const { return ErrorAt(what, pos_); }
  absl::Status ErrorAt(std::string_view what, size_t position) const {
    return absl::InvalidArgumentError(
        absl::StrCat("filter string: ", std::string(what), " at position ", position));
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }

  // True, consuming it, when the keyword stands here as a word of its own.
  bool Keyword(std::string_view word) {
    SkipSpaces();
    if (!text_.substr(pos_).starts_with(word)) return false;
    const size_t end = pos_ + word.size();
    if (end < text_.size() &&
        (absl::ascii_isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
      return false;
    }
    pos_ = end;
    return true;
  }

  absl::StatusOr<std::unique_ptr<Filter>> ParseOr() {
    std::vector<std::unique_ptr<Filter>> operands;
    absl::StatusOr<std::unique_ptr<Filter>> first = ParseAnd();
    if (!first.ok()) return first;
    operands.push_back(*std::move(first));
    while (Keyword("OR")) {
      absl::StatusOr<std::unique_ptr<Filter>> next = ParseAnd();
      if (!next.ok()) return next;
      operands.push_back(*std::move(next));
    }
    if (operands.size() == 1) return std::move(operands.front());
    return NewFilterList(false, std::move(operands));
  }

  absl::StatusOr<std::unique_ptr<Filter>> ParseAnd() {
    std::vector<std::unique_ptr<Filter>> operands;
    absl::StatusOr<std::unique_ptr<Filter>> first = ParseUnary();
    if (!first.ok()) return first;
    operands.push_back(*std::move(first));
    while (Keyword("AND")) {
      absl::StatusOr<std::unique_ptr<Filter>> next = ParseUnary();
      if (!next.ok()) return next;
      operands.push_back(*std::move(next));
    }
    if (operands.size() == 1) return std::move(operands.front());
    return NewFilterList(true, std::move(operands));
  }

  absl::StatusOr<std::unique_ptr<Filter>> ParseUnary() {
    if (Keyword("SKIP")) {
      absl::StatusOr<std::unique_ptr<Filter>> inner = ParseUnary();
      if (!inner.ok()) return inner;
      return NewSkipFilter(*std::move(inner));
    }
    if (Keyword("WHILE")) {
      absl::StatusOr<std::unique_ptr<Filter>> inner = ParseUnary();
      if (!inner.ok()) return inner;
      return NewWhileMatchFilter(*std::move(inner));
    }
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      ++pos_;
      absl::StatusOr<std::unique_ptr<Filter>> inner = ParseOr();
      if (!inner.ok()) return inner;
      SkipSpaces();
      if (pos_ >= text_.size() || text_[pos_] != ')') return Error("expected ')'");
      ++pos_;
      return inner;
    }
    return ParseSimple();
  }

  absl::StatusOr<std::unique_ptr<Filter>> ParseSimple() {
    SkipSpaces();
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (absl::ascii_isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == start) return Error("expected a filter name");
    const std::string name(text_.substr(start, pos_ - start));
    SkipSpaces();
    if (pos_ >= text_.size() || text_[pos_] != '(') return Error("expected '(' after " + name);
    ++pos_;
    std::vector<Argument> args;
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == ')') {
      ++pos_;
    } else {
      for (;;) {
        absl::StatusOr<Argument> arg = ParseArgument();
        if (!arg.ok()) return arg.status();
        args.push_back(*std::move(arg));
        SkipSpaces();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ')') {
          ++pos_;
          break;
        }
        return Error("expected ',' or ')'");
      }
    }
    return Build(name, start, args);
  }

  absl::StatusOr<Argument> ParseArgument() {
    SkipSpaces();
    Argument arg;
    arg.position = pos_;
    if (pos_ >= text_.size()) return Error("expected an argument");
    const char c = text_[pos_];
    if (c == '\'') {
      ++pos_;
      arg.kind = Argument::Kind::kString;
      for (;;) {
        if (pos_ >= text_.size()) return ErrorAt("unterminated quoted argument", arg.position);
        if (text_[pos_] == '\'') {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '\'') {
            arg.text.push_back('\'');
            pos_ += 2;
            continue;
          }
          ++pos_;
          return arg;
        }
        arg.text.push_back(text_[pos_++]);
      }
    }
    for (std::string_view op : {"<=", ">=", "!=", "<", ">", "="}) {
      if (text_.substr(pos_).starts_with(op)) {
        arg.kind = Argument::Kind::kOperator;
        arg.text = std::string(op);
        pos_ += op.size();
        return arg;
      }
    }
    size_t end = pos_;
    while (end < text_.size() && text_[end] != ',' && text_[end] != ')' &&
           !absl::ascii_isspace(static_cast<unsigned char>(text_[end]))) {
      ++end;
    }
    const std::string word(text_.substr(pos_, end - pos_));
    const std::string lower = absl::AsciiStrToLower(word);
    if (lower == "true" || lower == "false") {
      arg.kind = Argument::Kind::kBool;
      arg.boolean = lower == "true";
    } else if (absl::SimpleAtoi(word, &arg.number)) {
      arg.kind = Argument::Kind::kNumber;
    } else {
      return Error("expected a quoted string, a number, true, false or a compare operator");
    }
    arg.text = word;
    pos_ = end;
    return arg;
  }

  // ---- Arguments of the filters ----

  absl::Status Count(const std::string& name, size_t start, const std::vector<Argument>& args,
                     std::initializer_list<size_t> allowed) const {
    for (size_t n : allowed) {
      if (args.size() == n) return absl::OkStatus();
    }
    return ErrorAt(
        absl::StrCat(name, " takes ", *allowed.begin(), allowed.size() > 1 ? " or more" : "",
                     " arguments, got ", args.size()),
        start);
  }

  absl::StatusOr<std::string> String(const Argument& arg) const {
    if (arg.kind != Argument::Kind::kString)
      return ErrorAt("expected a quoted string", arg.position);
    return arg.text;
  }
  absl::StatusOr<int64_t> Number(const Argument& arg) const {
    if (arg.kind != Argument::Kind::kNumber) return ErrorAt("expected a number", arg.position);
    return arg.number;
  }
  absl::StatusOr<bool> Bool(const Argument& arg) const {
    if (arg.kind != Argument::Kind::kBool) return ErrorAt("expected true or false", arg.position);
    return arg.boolean;
  }
  absl::StatusOr<CompareOperator> Operator(const Argument& arg) const {
    if (arg.kind == Argument::Kind::kOperator) {
      if (arg.text == "<") return CompareOperator::kLess;
      if (arg.text == "<=") return CompareOperator::kLessOrEqual;
      if (arg.text == "=") return CompareOperator::kEqual;
      if (arg.text == "!=") return CompareOperator::kNotEqual;
      if (arg.text == ">=") return CompareOperator::kGreaterOrEqual;
      if (arg.text == ">") return CompareOperator::kGreater;
    }
    return ErrorAt("expected a compare operator", arg.position);
  }
  absl::StatusOr<Comparator> ComparatorOf(const Argument& arg, CompareOperator op) const {
    absl::StatusOr<std::string> text = String(arg);
    if (!text.ok()) return text.status();
    const size_t colon = text->find(':');
    if (colon == std::string::npos) {
      return ErrorAt("expected a comparator 'type:value'", arg.position);
    }
    const std::string type = absl::AsciiStrToLower(text->substr(0, colon));
    Comparator out;
    out.value = text->substr(colon + 1);
    if (type == "binary") {
      out.kind = Comparator::Kind::kBinary;
    } else if (type == "binaryprefix") {
      out.kind = Comparator::Kind::kBinaryPrefix;
    } else if (type == "substring") {
      out.kind = Comparator::Kind::kSubstring;
      if (op != CompareOperator::kEqual && op != CompareOperator::kNotEqual) {
        return ErrorAt("a substring comparator can only be used with = and !=", arg.position);
      }
    } else {
      return ErrorAt(absl::StrCat("unsupported comparator type '", type, "'"), arg.position);
    }
    return out;
  }

  // A compare filter: (op, 'comparator').
  template <typename Make>
  absl::StatusOr<std::unique_ptr<Filter>> Compare(const std::string& name, size_t start,
                                                  const std::vector<Argument>& args, Make make) {
    if (absl::Status s = Count(name, start, args, {2}); !s.ok()) return s;
    absl::StatusOr<CompareOperator> op = Operator(args[0]);
    if (!op.ok()) return op.status();
    absl::StatusOr<Comparator> comparator = ComparatorOf(args[1], *op);
    if (!comparator.ok()) return comparator.status();
    return make(*op, *std::move(comparator));
  }

  absl::StatusOr<std::unique_ptr<Filter>> Build(const std::string& name, size_t start,
                                                const std::vector<Argument>& args) {
    if (name == "KeyOnlyFilter") return KeyOnly(name, start, args);
    if (name == "FirstKeyOnlyFilter") {
      if (absl::Status s = Count(name, start, args, {0}); !s.ok()) return s;
      return NewFirstKeyOnlyFilter();
    }
    if (name == "PrefixFilter" || name == "ColumnPrefixFilter" || name == "InclusiveStopFilter") {
      if (absl::Status s = Count(name, start, args, {1}); !s.ok()) return s;
      absl::StatusOr<std::string> text = String(args[0]);
      if (!text.ok()) return text.status();
      if (name == "PrefixFilter") return NewPrefixFilter(*std::move(text));
      if (name == "ColumnPrefixFilter") return NewColumnPrefixFilter(*std::move(text));
      return NewInclusiveStopFilter(*std::move(text));
    }
    if (name == "MultipleColumnPrefixFilter") return MultipleColumnPrefix(args);
    if (name == "ColumnRangeFilter") return ColumnRange(name, start, args);
    if (name == "ColumnCountGetFilter" || name == "PageFilter") return Counted(name, start, args);
    if (name == "RowFilter") return Compare(name, start, args, NewRowFilter);
    if (name == "QualifierFilter") return Compare(name, start, args, NewQualifierFilter);
    if (name == "FamilyFilter") return Compare(name, start, args, NewFamilyFilter);
    if (name == "ValueFilter") return Compare(name, start, args, NewValueFilter);
    if (name == "SingleColumnValueFilter") return SingleColumnValue(name, start, args);
    if (name == "TimestampsFilter") return Timestamps(args);
    return ErrorAt(absl::StrCat("filter ", name, " is not supported"), start);
  }

  // KeyOnlyFilter([lenAsVal])
  absl::StatusOr<std::unique_ptr<Filter>> KeyOnly(const std::string& name, size_t start,
                                                  const std::vector<Argument>& args) {
    if (absl::Status s = Count(name, start, args, {0, 1}); !s.ok()) return s;
    bool length = false;
    if (args.size() == 1) {
      absl::StatusOr<bool> b = Bool(args[0]);
      if (!b.ok()) return b.status();
      length = *b;
    }
    return NewKeyOnlyFilter(length);
  }

  // MultipleColumnPrefixFilter('prefix', ...)
  absl::StatusOr<std::unique_ptr<Filter>> MultipleColumnPrefix(const std::vector<Argument>& args) {
    std::set<std::string> prefixes;
    for (const Argument& a : args) {
      absl::StatusOr<std::string> text = String(a);
      if (!text.ok()) return text.status();
      prefixes.insert(*std::move(text));
    }
    return NewMultipleColumnPrefixFilter(std::move(prefixes));
  }

  // ColumnRangeFilter('min', minInclusive, 'max', maxInclusive)
  absl::StatusOr<std::unique_ptr<Filter>> ColumnRange(const std::string& name, size_t start,
                                                      const std::vector<Argument>& args) {
    if (absl::Status s = Count(name, start, args, {4}); !s.ok()) return s;
    absl::StatusOr<std::string> min = String(args[0]);
    absl::StatusOr<bool> min_inclusive = Bool(args[1]);
    absl::StatusOr<std::string> max = String(args[2]);
    absl::StatusOr<bool> max_inclusive = Bool(args[3]);
    for (const absl::Status& s :
         {min.status(), min_inclusive.status(), max.status(), max_inclusive.status()}) {
      if (!s.ok()) return s;
    }
    return NewColumnRangeFilter(*min, *min_inclusive, *max, *max_inclusive);
  }

  // ColumnCountGetFilter(n), PageFilter(n)
  absl::StatusOr<std::unique_ptr<Filter>> Counted(const std::string& name, size_t start,
                                                  const std::vector<Argument>& args) {
    if (absl::Status s = Count(name, start, args, {1}); !s.ok()) return s;
    absl::StatusOr<int64_t> n = Number(args[0]);
    if (!n.ok()) return n.status();
    if (*n < 0) return ErrorAt(absl::StrCat(name, " needs a count >= 0"), args[0].position);
    if (name == "PageFilter") return NewPageFilter(*n);
    return NewColumnCountGetFilter(static_cast<int>(*n));
  }

  // SingleColumnValueFilter('family', 'qualifier', op, 'comparator'
  //                         [, filterIfMissing, latestVersionOnly])
  absl::StatusOr<std::unique_ptr<Filter>> SingleColumnValue(const std::string& name, size_t start,
                                                            const std::vector<Argument>& args) {
    if (absl::Status s = Count(name, start, args, {4, 6}); !s.ok()) return s;
    absl::StatusOr<std::string> family = String(args[0]);
    absl::StatusOr<std::string> qualifier = String(args[1]);
    absl::StatusOr<CompareOperator> op = Operator(args[2]);
    for (const absl::Status& s : {family.status(), qualifier.status(), op.status()}) {
      if (!s.ok()) return s;
    }
    absl::StatusOr<Comparator> comparator = ComparatorOf(args[3], *op);
    if (!comparator.ok()) return comparator.status();
    bool if_missing = false, latest_only = true;
    if (args.size() == 6) {
      absl::StatusOr<bool> a = Bool(args[4]);
      absl::StatusOr<bool> b = Bool(args[5]);
      if (!a.ok()) return a.status();
      if (!b.ok()) return b.status();
      if_missing = *a;
      latest_only = *b;
    }
    return NewSingleColumnValueFilter(*family, *qualifier, *op, *std::move(comparator), if_missing,
                                      latest_only);
  }

  // TimestampsFilter(ts, ...)
  absl::StatusOr<std::unique_ptr<Filter>> Timestamps(const std::vector<Argument>& args) {
    std::vector<int64_t> timestamps;
    for (const Argument& a : args) {
      absl::StatusOr<int64_t> n = Number(a);
      if (!n.ok()) return n.status();
      if (*n < 0) return ErrorAt("timestamps must be >= 0", a.position);
      timestamps.push_back(*n);
    }
    return NewTimestampsFilter(std::move(timestamps));
  }

  const std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Filter>> ParseFilterString(std::string_view text) {
  return Parser(text).Parse();
}

}  // namespace rtb::storage::server
