#include "bidder/http/gzip_response.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace rtb::bidder {
namespace {

std::string_view TrimWhitespace(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return absl::ascii_tolower(static_cast<unsigned char>(x)) ==
                  absl::ascii_tolower(static_cast<unsigned char>(y));
         });
}

// Calls `each` with every `separator`-separated element of `list`, trimmed.
template <typename Each>
void ForEachElement(std::string_view list, char separator, Each each) {
  while (!list.empty()) {
    const size_t end = std::min(list.find(separator), list.size());
    each(TrimWhitespace(list.substr(0, end)));
    list.remove_prefix(std::min(end + 1, list.size()));
  }
}

// The q-value of one Accept-Encoding element's parameters (";q=0.5"): 1 when
// absent, 0 when malformed (an element we cannot read is not an offer).
double QValue(std::string_view parameters) {
  double q = 1;
  bool malformed = false;
  ForEachElement(parameters, ';', [&](std::string_view parameter) {
    if (parameter.size() < 2 || !EqualsIgnoringCase(parameter.substr(0, 2), "q=")) return;
    const std::string_view digits = TrimWhitespace(parameter.substr(2));
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), q);
    if (error != std::errc() || end != digits.data() + digits.size() || q < 0 || q > 1) {
      malformed = true;
    }
  });
  return malformed ? 0 : q;
}

// Window of 32 KiB (15 bits) plus 16: the gzip wrapper; zlib's default
// memory level. On the corpus's answers a smaller window (4 KiB) or hash
// (memory level 5) was no faster, and memory level 3 was half again slower.
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemLevel = 8;

// One thread's deflate state, kept from answer to answer.
class Deflater {
 public:
  Deflater() = default;
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  ~Deflater() {
    if (level_ != 0) deflateEnd(&stream_);
  }

  absl::Status Compress(std::string_view in, int level, std::string* out) {
    if (level != level_) {
      if (level_ != 0) deflateEnd(&stream_);
      level_ = 0;
      stream_ = z_stream{};
      if (deflateInit2(&stream_, level, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                       Z_DEFAULT_STRATEGY) != Z_OK) {
        return absl::InternalError("gzip: deflateInit2 failed");
      }
      level_ = level;
    } else if (deflateReset(&stream_) != Z_OK) {
      return absl::InternalError("gzip: deflateReset failed");
    }
    // deflateBound is enough for one deflate(Z_FINISH) call to finish.
    out->resize(deflateBound(&stream_, static_cast<uLong>(in.size())));
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    stream_.avail_in = static_cast<uInt>(in.size());
    stream_.next_out = reinterpret_cast<Bytef*>(out->data());
    stream_.avail_out = static_cast<uInt>(out->size());
    const int result = deflate(&stream_, Z_FINISH);
    if (result != Z_STREAM_END) {
      return absl::InternalError(absl::StrCat("gzip: deflate returned ", result));
    }
    out->resize(out->size() - stream_.avail_out);
    return absl::OkStatus();
  }

 private:
  z_stream stream_{};
  int level_ = 0;  // 0: not initialised
};

}  // namespace

bool AcceptsGzip(std::string_view accept_encoding) {
  std::optional<double> gzip;
  double any = 0;
  ForEachElement(accept_encoding, ',', [&](std::string_view element) {
    if (element.empty()) return;
    const size_t semicolon = std::min(element.find(';'), element.size());
    const std::string_view coding = TrimWhitespace(element.substr(0, semicolon));
    const double q = QValue(element.substr(semicolon));
    if (EqualsIgnoringCase(coding, "gzip") || EqualsIgnoringCase(coding, "x-gzip")) {
      gzip = std::max(gzip.value_or(0), q);
    } else if (coding == "*") {
      any = std::max(any, q);
    }
  });
  return gzip.has_value() ? *gzip > 0 : any > 0;
}

absl::Status GzipInPlace(std::string* body, int level) {
  if (level < 1 || level > 9) {
    return absl::InvalidArgumentError(absl::StrCat("gzip: level ", level, " is not in 1-9"));
  }
  if (body->size() > std::numeric_limits<uInt>::max() / 2) {
    return absl::InvalidArgumentError("gzip: body too large");
  }
  thread_local Deflater deflater;
  thread_local std::string compressed;
  if (absl::Status status = deflater.Compress(*body, level, &compressed); !status.ok()) {
    return status;
  }
  body->swap(compressed);
  return absl::OkStatus();
}

}  // namespace rtb::bidder
