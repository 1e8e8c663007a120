#include <charconv>
#include <string_view>

#include "bidder/openrtb/openrtb.h"

namespace rtb::openrtb {
namespace {

// The minor version of a "2.<minor>[...]" header ("2.5", "2.6", "2.6-202303"),
// or -1 when the header names no 2.x version.
int OpenRtb2MinorVersion(std::string_view header) {
  while (!header.empty() && (header.front() == ' ' || header.front() == '\t')) {
    header.remove_prefix(1);
  }
  if (header.size() < 3 || header[0] != '2' || header[1] != '.') return -1;
  int minor = -1;
  const char* begin = header.data() + 2;
  auto [end, error] = std::from_chars(begin, header.data() + header.size(), minor);
  if (error != std::errc() || end == begin) return -1;
  return minor;
}

}  // namespace

std::string_view ToString(OpenRtbVersion version) {
  return version == OpenRtbVersion::k2_6 ? "2.6" : "2.5";
}

OpenRtbVersion ResponseOpenRtbVersion(std::string_view request_header,
                                      OpenRtbVersion exchange_version) {
  int minor = OpenRtb2MinorVersion(request_header);
  if (minor >= 6) return OpenRtbVersion::k2_6;
  if (minor >= 0) return OpenRtbVersion::k2_5;
  return exchange_version;
}

}  // namespace rtb::openrtb
