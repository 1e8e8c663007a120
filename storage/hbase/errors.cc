#include "storage/hbase/errors.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "boost/asio/error.hpp"
#include "storage/hbase/absl_compat.h"
#include "storage/thrift/hbase_types.h"
#include "thrift/TApplicationException.h"
#include "thrift/protocol/TProtocolException.h"
#include "thrift/transport/TTransportException.h"

namespace rtb::storage::hbase {
namespace {

// HBase messages can be long Java traces; the first line is what matters.
absl::string_view FirstLine(std::string_view message) {
  size_t end = message.find('\n');
  absl::string_view line = AsAbsl(end == std::string_view::npos ? message : message.substr(0, end));
  if (line.size() > 512) line = line.substr(0, 512);
  return line;
}

bool ContainsAny(std::string_view text, std::initializer_list<std::string_view> needles) {
  for (std::string_view n : needles) {
    if (text.find(n) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

absl::Status StatusFromHBaseError(std::string_view call, std::string_view message,
                                  std::optional<bool> can_retry) {
  const std::string text = absl::StrCat("hbase ", AsAbsl(call), ": ", FirstLine(message));
  if (ContainsAny(message, {"TableExistsException"})) return absl::AlreadyExistsError(text);
  if (ContainsAny(message,
                  {"TableNotFoundException", "NoSuchColumnFamilyException",
                   "does not exist in region", "Field is not a long", "IllegalArgumentException",
                   "TableNotEnabledException", "TableNotDisabledException"})) {
    return absl::InvalidArgumentError(text);
  }
  if (ContainsAny(message, {"CallTimeoutException", "SocketTimeoutException",
                            "OperationTimeoutException"})) {
    return absl::DeadlineExceededError(text);
  }
  if (ContainsAny(message, {"DoNotRetryIOException"})) return absl::InvalidArgumentError(text);
  if (can_retry.has_value()) {
    return *can_retry ? absl::UnavailableError(text) : absl::InvalidArgumentError(text);
  }
  // HBase before 2.5 does not say; most of what remains is a cluster in
  // transition (regions moving, servers restarting).
  return absl::UnavailableError(text);
}

absl::Status StatusFromThriftException(std::exception_ptr error, std::string_view call) {
  namespace at = ::apache::thrift;
  try {
    std::rethrow_exception(error);
  } catch (const thrift2::TIllegalArgument& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("hbase ", AsAbsl(call), ": ", FirstLine(e.message)));
  } catch (const thrift2::TIOError& e) {
    std::optional<bool> can_retry;
    if (e.__isset.canRetry) can_retry = e.canRetry;
    return StatusFromHBaseError(call, e.message, can_retry);
  } catch (const at::TApplicationException& e) {
    if (e.getType() == at::TApplicationException::UNKNOWN_METHOD) {
      return absl::UnimplementedError(
          absl::StrCat("hbase gateway does not know ", AsAbsl(call), ": ", e.what()));
    }
    return absl::InternalError(absl::StrCat("hbase gateway failed ", AsAbsl(call), ": ", e.what()));
  } catch (const at::protocol::TProtocolException& e) {
    return absl::InternalError(absl::StrCat("malformed reply to ", AsAbsl(call), ": ", e.what()));
  } catch (const at::transport::TTransportException& e) {
    return absl::InternalError(absl::StrCat("malformed reply to ", AsAbsl(call), ": ", e.what()));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("hbase ", AsAbsl(call), ": ", e.what()));
  } catch (...) {
    return absl::InternalError(absl::StrCat("hbase ", AsAbsl(call), ": unknown exception"));
  }
}

absl::Status NameUnknownTable(absl::Status status, std::string_view table) {
  if (!absl::IsInvalidArgument(status) || table.empty()) return status;
  std::string_view message = AsStd(status.message());
  const std::string suffix = absl::StrCat(": ", AsAbsl(table));
  if (message.size() < suffix.size() || message.substr(message.size() - suffix.size()) != suffix) {
    return status;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown table '", AsAbsl(table), "'"));
}

absl::Status StatusFromNetworkError(boost::system::error_code error, std::string_view what) {
  const std::string text = absl::StrCat(AsAbsl(what), ": ", error.message());
  if (error == boost::asio::error::timed_out) return absl::DeadlineExceededError(text);
  return absl::UnavailableError(text);
}

}  // namespace rtb::storage::hbase
