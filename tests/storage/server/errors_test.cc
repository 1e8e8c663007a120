// Statuses of the store reach clients as HBase's gateway would send them,
// and the hbase backend reads the same meaning back.
#include "storage/server/errors.h"

#include <exception>

#include "gtest/gtest.h"
#include "storage/hbase/errors.h"

namespace rtb::storage::server {
namespace {

namespace t2 = ::rtb::storage::thrift2;

// What the hbase backend makes of what ThrowStatus throws.
absl::Status RoundTrip(const absl::Status& status, IllegalArgument declared) {
  try {
    ThrowStatus(status, declared);
  } catch (...) {
    return hbase::NameUnknownTable(
        hbase::StatusFromThriftException(std::current_exception(), "get"), "profiles");
  }
  return absl::OkStatus();
}

TEST(ServerErrorsTest, UnknownTableIsHBasesTableNotFound) {
  t2::TIOError e = IOErrorFromStatus(absl::InvalidArgumentError("unknown table 'profiles'"));
  // HBase's client words it with the bare name, and the gateway sends that.
  EXPECT_EQ(e.message, "profiles");
  EXPECT_FALSE(e.canRetry);
  absl::Status back =
      RoundTrip(absl::InvalidArgumentError("unknown table 'profiles'"), IllegalArgument::kDeclared);
  EXPECT_TRUE(absl::IsInvalidArgument(back)) << back;
  EXPECT_EQ(back.message(), "unknown table 'profiles'");
}

TEST(ServerErrorsTest, InvalidArgumentIsDoNotRetryOrIllegalArgumentWhereDeclared) {
  const absl::Status bad = absl::InvalidArgumentError("table 't' holds no 'x'");
  t2::TIOError e = IOErrorFromStatus(bad);
  EXPECT_EQ(e.message, "org.apache.hadoop.hbase.DoNotRetryIOException: table 't' holds no 'x'");
  EXPECT_EQ(IOErrorFromStatus(absl::InvalidArgumentError("table 't' has no family 'x'")).message,
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: Column family x "
            "does not exist in table 't'");
  EXPECT_FALSE(e.canRetry);
  EXPECT_THROW(ThrowStatus(bad, IllegalArgument::kDeclared), t2::TIllegalArgument);
  EXPECT_THROW(ThrowStatus(bad, IllegalArgument::kNotDeclared), t2::TIOError);
  EXPECT_TRUE(absl::IsInvalidArgument(RoundTrip(bad, IllegalArgument::kNotDeclared)));
  EXPECT_TRUE(absl::IsInvalidArgument(RoundTrip(bad, IllegalArgument::kDeclared)));
}

TEST(ServerErrorsTest, ClientsReadTheSameCodeBack) {
  EXPECT_TRUE(absl::IsAlreadyExists(
      RoundTrip(absl::AlreadyExistsError("t"), IllegalArgument::kNotDeclared)));
  EXPECT_TRUE(absl::IsUnavailable(
      RoundTrip(absl::UnavailableError("busy"), IllegalArgument::kNotDeclared)));
  EXPECT_TRUE(absl::IsUnavailable(
      RoundTrip(absl::ResourceExhaustedError("too many scanners"), IllegalArgument::kNotDeclared)));
  t2::TIOError internal = IOErrorFromStatus(absl::InternalError("disk"));
  EXPECT_EQ(internal.message, "java.io.IOException: disk");
  EXPECT_FALSE(internal.canRetry);
  EXPECT_TRUE(IOErrorFromStatus(absl::AbortedError("race")).canRetry);
}

}  // namespace
}  // namespace rtb::storage::server
