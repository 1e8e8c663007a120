// The GPP string layout (IAB Tech Lab, "Global Privacy Platform String",
// v1): the header, then the sections it lists, joined by '~':
//
//   <header>~<section of the first id>~<section of the second id>...
//
// Header, base64url (internal/bit_reader.h), widths in bits:
//
//   Type          6   3, "GPP header"
//   Version       6   1
//   NumEntries   12   then that many entries of:
//     IsRange     1
//     Offset      Fibonacci   first (or only) id minus the previous entry's
//                             last id (0 before the first entry)
//     Length      Fibonacci   present only when IsRange = 1: last id minus
//                             first id
//
// e.g. "DBACNY": 000011 000001 000000000010 0 011 0 1011 (padding)
//      = type 3, version 1, 2 entries: id 0+2 = 2, then id 2+4 = 6.
//
// Offsets are at least 1, so the ids come out strictly ascending. Each
// section is encoded as its own specification says (see gpp_string.h).
#include "bidder/privacy/gpp_string.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bidder/privacy/internal/bit_reader.h"
#include "bidder/privacy/internal/us_sections.h"

namespace rtb::bidder::privacy {
namespace {

constexpr int kHeaderType = 3;
constexpr int kGppVersion = 1;
// Bounds on what a header may list: the registry has a few dozen ids. A
// Fibonacci range could otherwise name billions.
constexpr uint32_t kMaxSectionId = 255;
constexpr size_t kMaxSections = 64;

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("GPP string: ", what));
}

absl::Status ReadHeader(std::string_view header, GppString* out) {
  internal::BitReader reader;
  if (header.empty()) return Malformed("empty header");
  if (!reader.Reset(header)) return Malformed("a character outside base64url in the header");
  const int type = static_cast<int>(reader.Read(6));
  out->version = static_cast<int>(reader.Read(6));
  const int entries = static_cast<int>(reader.Read(12));
  if (reader.failed()) return Malformed("ends inside the header");
  if (type != kHeaderType) return Malformed(absl::StrCat("header type ", type, ", expected 3"));
  if (out->version != kGppVersion) {
    return Malformed(absl::StrCat("version ", out->version, ", only version 1 is read"));
  }
  uint32_t last = 0;
  for (int i = 0; i < entries; ++i) {
    const bool is_range = reader.ReadBool();
    uint32_t offset = 0;
    uint32_t length = 0;
    if (!reader.ReadFibonacci(&offset) || (is_range && !reader.ReadFibonacci(&length))) {
      return Malformed("ends inside the section id list");
    }
    const uint64_t first = uint64_t{last} + offset;
    const uint64_t end = first + length;
    if (end > kMaxSectionId) return Malformed("a section id above 255");
    if (out->section_ids.size() + (end - first + 1) > kMaxSections) {
      return Malformed("more than 64 sections");
    }
    for (uint64_t id = first; id <= end; ++id) out->section_ids.push_back(static_cast<int>(id));
    last = static_cast<uint32_t>(end);
  }
  return absl::OkStatus();
}

// Reads section `id` into `out` and sets *state. A malformed section is an
// error with *state kMalformed; the caller records it and goes on.
absl::Status ReadSection(int id, std::string_view text, GppString* out, GppSectionState* state) {
  *state = GppSectionState::kMalformed;
  if (text.empty()) return Malformed(absl::StrCat("section ", id, " is empty"));
  if (id == kGppTcfEuV2) {
    absl::Status s = DecodeTcString(text, &out->tcf_eu_v2.emplace());
    if (!s.ok()) {
      out->tcf_eu_v2.reset();
      return Malformed(absl::StrCat("section 2: ", s.message()));
    }
  } else if (id == kGppUsPrivacy) {
    absl::StatusOr<UsPrivacy> usp = DecodeUsPrivacy(text);
    if (!usp.ok()) return Malformed(absl::StrCat("section 6: ", usp.status().message()));
    out->us_privacy = *usp;
  } else if (internal::IsDecodedUsSection(id)) {
    absl::Status s = internal::DecodeUsSection(id, text, &out->us_sections.emplace_back());
    if (!s.ok()) {
      out->us_sections.pop_back();
      // A version this decoder does not read is not a broken section.
      if (absl::IsUnimplemented(s)) {
        *state = GppSectionState::kNotRead;
        return absl::OkStatus();
      }
      return Malformed(s.message());
    }
  } else {
    *state = GppSectionState::kNotRead;
    return absl::OkStatus();
  }
  *state = GppSectionState::kDecoded;
  return absl::OkStatus();
}

}  // namespace

bool GppString::HasSection(int id) const {
  return std::find(section_ids.begin(), section_ids.end(), id) != section_ids.end();
}

std::optional<GppSectionState> GppString::StateOf(int id) const {
  for (size_t i = 0; i < section_ids.size() && i < section_states.size(); ++i) {
    if (section_ids[i] == id) return section_states[i];
  }
  return std::nullopt;
}

const UsSection* GppString::FindUsSection(int id) const {
  for (const UsSection& section : us_sections) {
    if (section.section_id == id) return &section;
  }
  return nullptr;
}

absl::Status DecodeGppString(std::string_view text, GppString* out) {
  out->version = 0;
  // resize(0), not clear(): clear() frees a heap buffer a reused value keeps.
  out->section_ids.resize(0);
  out->section_states.resize(0);
  out->first_section_error = absl::OkStatus();
  out->tcf_eu_v2.reset();
  out->us_privacy.reset();
  out->us_sections.resize(0);

  size_t tilde = text.find('~');
  if (absl::Status s = ReadHeader(text.substr(0, tilde), out); !s.ok()) return s;
  size_t index = 0;
  while (tilde != std::string_view::npos) {
    text.remove_prefix(tilde + 1);
    tilde = text.find('~');
    if (index == out->section_ids.size()) {
      return Malformed(
          absl::StrCat("more sections than the ", out->section_ids.size(), " the header lists"));
    }
    const int id = out->section_ids[index++];
    GppSectionState state;
    absl::Status s = ReadSection(id, text.substr(0, tilde), out, &state);
    out->section_states.push_back(state);
    if (!s.ok() && out->first_section_error.ok()) out->first_section_error = std::move(s);
  }
  if (index != out->section_ids.size()) {
    return Malformed(absl::StrCat(index, " sections, the header lists ", out->section_ids.size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<GppString> DecodeGppString(std::string_view text) {
  GppString decoded;
  if (absl::Status s = DecodeGppString(text, &decoded); !s.ok()) return s;
  return decoded;
}

}  // namespace rtb::bidder::privacy
