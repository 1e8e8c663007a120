// Where an absl::Status of the store becomes what an HBase client expects on
// the wire. It mirrors what HBase's gateway sends, so storage/hbase/errors.h
// (and any HBase client) reads the same meaning back:
//
// - InvalidArgument "unknown table 't'": TIOError "t", the bare name HBase's
//   client gives a TableNotFoundException it raises itself;
// - InvalidArgument "table 't' has no family 'f'": TIOError
//   "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: ...";
// - other InvalidArgument: TIllegalArgument with the message where the call
//   declares it, else TIOError "org.apache.hadoop.hbase.DoNotRetryIOException: ...";
// - FailedPrecondition "table 't' is disabled": TIOError "t is disabled.",
//   the words of the TableNotEnabledException HBase's client raises itself;
// - AlreadyExists: TIOError "org.apache.hadoop.hbase.TableExistsException: ...";
// - NotFound: TIOError "org.apache.hadoop.hbase.TableNotFoundException: ...";
// - Unavailable, DeadlineExceeded, ResourceExhausted, Aborted: TIOError
//   "java.io.IOException: ..." with canRetry true;
// - anything else: TIOError "java.io.IOException: ...".
//
// canRetry is false except where noted, as HBase sets it for
// DoNotRetryIOExceptions.
#ifndef RTB_STORAGE_SERVER_ERRORS_H_
#define RTB_STORAGE_SERVER_ERRORS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "storage/thrift/hbase_types.h"

namespace rtb::storage::server {

inline constexpr char kTableNotFound[] = "org.apache.hadoop.hbase.TableNotFoundException";
inline constexpr char kTableExists[] = "org.apache.hadoop.hbase.TableExistsException";
inline constexpr char kTableNotEnabled[] = "org.apache.hadoop.hbase.TableNotEnabledException";
inline constexpr char kTableNotDisabled[] = "org.apache.hadoop.hbase.TableNotDisabledException";
inline constexpr char kNoSuchColumnFamily[] =
    "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException";
inline constexpr char kInvalidFamilyOperation[] =
    "org.apache.hadoop.hbase.InvalidFamilyOperationException";
inline constexpr char kNamespaceNotFound[] = "org.apache.hadoop.hbase.NamespaceNotFoundException";
inline constexpr char kNamespaceExist[] = "org.apache.hadoop.hbase.NamespaceExistException";
inline constexpr char kConstraint[] = "org.apache.hadoop.hbase.constraint.ConstraintException";
inline constexpr char kDoNotRetry[] = "org.apache.hadoop.hbase.DoNotRetryIOException";
inline constexpr char kIOException[] = "java.io.IOException";

// The status a read of a disabled table fails with, found out late (at the
// first read of a scanner, as HBase's client finds out):
// FailedPrecondition kTableDisabledPrefix + table + kTableDisabledSuffix.
inline constexpr char kTableDisabledPrefix[] = "table '";
inline constexpr char kTableDisabledSuffix[] = "' is disabled";

// Whether the failing call lists TIllegalArgument among its exceptions
// (getScannerRows and closeScanner do); throwing it from another call would
// reach the client as an opaque TApplicationException.
enum class IllegalArgument { kNotDeclared, kDeclared };

thrift2::TIOError IOErrorFromStatus(const absl::Status& status);

// Throws the Thrift exception for a failed `status` (which must not be OK).
[[noreturn]] void ThrowStatus(const absl::Status& status, IllegalArgument declared);

// TIOError whose message is the table name alone, as HBase's client words
// a TableNotFoundException it raises itself.
[[noreturn]] void ThrowTableNotFound(std::string_view table);

// TIOError "<java_class>: <message>".
[[noreturn]] void ThrowIOError(std::string_view java_class, std::string_view message,
                               bool can_retry);

}  // namespace rtb::storage::server

#endif  // RTB_STORAGE_SERVER_ERRORS_H_
