// Where errors of the Thrift library, of HBase and of the network become
// absl::Status. Exceptions thrown by Thrift code are caught next to the call
// and handed to StatusFromThriftException, the only place that looks at
// them; nothing thrown ever leaves the backend.
#ifndef RTB_STORAGE_HBASE_ERRORS_H_
#define RTB_STORAGE_HBASE_ERRORS_H_

#include <exception>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "boost/system/error_code.hpp"

namespace rtb::storage::hbase {

// `error` is what a catch (...) around generated Thrift code caught; `call`
// names the THBaseService method for the message. Mapping:
//   TIllegalArgument                              -> InvalidArgument
//   TIOError, see StatusFromHBaseError
//   TApplicationException UNKNOWN_METHOD          -> Unimplemented
//   other TApplicationException (server bug)      -> Internal
//   TProtocolException, TTransportException       -> Internal (malformed reply)
//   anything else                                 -> Internal
absl::Status StatusFromThriftException(std::exception_ptr error, std::string_view call);

// What an HBase TIOError means for the caller, from its message and its
// canRetry flag (set by HBase 2.5 and later):
//   unknown table or family, a counter that is not 8 bytes wide, and other
//   DoNotRetryIOExceptions                          -> InvalidArgument
//   the table exists already                        -> AlreadyExists
//   retriable (region moving, server busy, ...)     -> Unavailable
absl::Status StatusFromHBaseError(std::string_view call, std::string_view message,
                                  std::optional<bool> can_retry);

// HBase reports a missing table by its bare name; this says what it means.
absl::Status NameUnknownTable(absl::Status status, std::string_view table);

// A socket error: timeouts are DeadlineExceeded, the rest Unavailable.
absl::Status StatusFromNetworkError(boost::system::error_code error, std::string_view what);

}  // namespace rtb::storage::hbase

#endif  // RTB_STORAGE_HBASE_ERRORS_H_
