#include "storage/server/errors.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "storage/hbase/absl_compat.h"

namespace rtb::storage::server {
namespace {

using hbase::AsAbsl;
using hbase::AsStd;

// HBase's client raises TableNotFoundException with the bare table name as
// its message, and the gateway sends the message alone.
thrift2::TIOError BareIOError(std::string_view message) {
  thrift2::TIOError error;
  error.__set_message(std::string(message));
  error.__set_canRetry(false);
  return error;
}

thrift2::TIOError MakeIOError(std::string_view java_class, std::string_view message,
                              bool can_retry) {
  thrift2::TIOError error;
  error.__set_message(absl::StrCat(AsAbsl(java_class), ": ", AsAbsl(message)));
  error.__set_canRetry(can_retry);
  return error;
}

// The embedded engine names a missing table as "unknown table 'name'";
// HBase names it by the bare table name in a TableNotFoundException.
bool UnknownTable(std::string_view message, std::string_view* table) {
  constexpr std::string_view kPrefix = "unknown table '";
  if (!message.starts_with(kPrefix) || !message.ends_with("'")) return false;
  *table = message.substr(kPrefix.size(), message.size() - kPrefix.size() - 1);
  return true;
}

// The engine's "table 't' has no family 'f'": HBase's region server raises
// NoSuchColumnFamilyException for it.
bool UnknownFamily(std::string_view message, std::string_view* table, std::string_view* family) {
  constexpr std::string_view kTable = "table '";
  constexpr std::string_view kFamily = "' has no family '";
  const size_t at = message.find(kTable);
  const size_t mid = message.find(kFamily);
  if (at == std::string_view::npos || mid == std::string_view::npos || mid < at ||
      !message.ends_with("'")) {
    return false;
  }
  *table = message.substr(at + kTable.size(), mid - at - kTable.size());
  *family = message.substr(mid + kFamily.size(), message.size() - mid - kFamily.size() - 1);
  return true;
}

bool DisabledTable(std::string_view message, std::string_view* table) {
  const std::string_view prefix = kTableDisabledPrefix, suffix = kTableDisabledSuffix;
  if (!message.starts_with(prefix) || !message.ends_with(suffix)) return false;
  *table = message.substr(prefix.size(), message.size() - prefix.size() - suffix.size());
  return true;
}

}  // namespace

thrift2::TIOError IOErrorFromStatus(const absl::Status& status) {
  const std::string_view message = AsStd(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument: {
      std::string_view table, family;
      if (UnknownTable(message, &table)) return BareIOError(table);
      if (UnknownFamily(message, &table, &family)) {
        return MakeIOError(kNoSuchColumnFamily,
                           absl::StrCat("Column family ", AsAbsl(family),
                                        " does not exist in table '", AsAbsl(table), "'"),
                           false);
      }
      return MakeIOError(kDoNotRetry, message, false);
    }
    case absl::StatusCode::kFailedPrecondition: {
      std::string_view table;
      if (DisabledTable(message, &table)) {
        return BareIOError(absl::StrCat(AsAbsl(table), " is disabled."));
      }
      return MakeIOError(kIOException, message, false);
    }
    case absl::StatusCode::kAlreadyExists:
      return MakeIOError(kTableExists, message, false);
    case absl::StatusCode::kNotFound:
      return MakeIOError(kTableNotFound, message, false);
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kAborted:
      return MakeIOError(kIOException, message, true);
    default:
      return MakeIOError(kIOException, message, false);
  }
}

void ThrowStatus(const absl::Status& status, IllegalArgument declared) {
  std::string_view unused;
  if (declared == IllegalArgument::kDeclared && absl::IsInvalidArgument(status) &&
      !UnknownTable(AsStd(status.message()), &unused)) {
    thrift2::TIllegalArgument error;
    error.__set_message(std::string(status.message()));
    throw error;
  }
  throw IOErrorFromStatus(status);
}

void ThrowTableNotFound(std::string_view table) { throw BareIOError(table); }

void ThrowIOError(std::string_view java_class, std::string_view message, bool can_retry) {
  throw MakeIOError(java_class, message, can_retry);
}

}  // namespace rtb::storage::server
