#include "storage/hbase/errors.h"

#include <string>

#include "boost/asio/error.hpp"
#include "gtest/gtest.h"
#include "storage/thrift/hbase_types.h"
#include "thrift/TApplicationException.h"
#include "thrift/protocol/TProtocolException.h"
#include "thrift/transport/TTransportException.h"

namespace rtb::storage::hbase {
namespace {

namespace t2 = ::rtb::storage::thrift2;
namespace at = ::apache::thrift;

template <typename E>
absl::Status Convert(const E& e) {
  return StatusFromThriftException(std::make_exception_ptr(e), "get");
}

TEST(HBaseErrorsTest, IllegalArgumentIsInvalidArgument) {
  t2::TIllegalArgument e;
  e.__set_message("Invalid scanner Id");
  absl::Status s = Convert(e);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("Invalid scanner Id"), std::string::npos);
}

TEST(HBaseErrorsTest, IoErrorsMapByMeaning) {
  t2::TIOError e;
  e.__set_message("org.apache.hadoop.hbase.TableNotFoundException: nope");
  EXPECT_EQ(Convert(e).code(), absl::StatusCode::kInvalidArgument);
  e.__set_message(
      "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: Column family x does "
      "not exist in region t,,1");
  EXPECT_EQ(Convert(e).code(), absl::StatusCode::kInvalidArgument);
  e.__set_message("org.apache.hadoop.hbase.TableExistsException: t");
  EXPECT_EQ(Convert(e).code(), absl::StatusCode::kAlreadyExists);
  e.__set_message(
      "org.apache.hadoop.hbase.DoNotRetryIOException: Field is not a long, it's 3 bytes wide");
  EXPECT_EQ(Convert(e).code(), absl::StatusCode::kInvalidArgument);
  e.__set_message("org.apache.hadoop.hbase.NotServingRegionException: region moving");
  e.__set_canRetry(true);
  EXPECT_EQ(Convert(e).code(), absl::StatusCode::kUnavailable);
  e.__set_message("something odd");
  e.__set_canRetry(false);
  EXPECT_EQ(Convert(e).code(), absl::StatusCode::kInvalidArgument);
  t2::TIOError old;  // HBase before 2.5 sends no canRetry
  old.__set_message("Failed after attempts=1");
  EXPECT_EQ(Convert(old).code(), absl::StatusCode::kUnavailable);
}

TEST(HBaseErrorsTest, OnlyTheFirstLineOfATraceIsKept) {
  absl::Status s = StatusFromHBaseError("put", "first line\n\tat org.apache.Foo\n", true);
  EXPECT_EQ(std::string(s.message()), "hbase put: first line");
}

TEST(HBaseErrorsTest, ApplicationExceptions) {
  EXPECT_EQ(
      Convert(at::TApplicationException(at::TApplicationException::UNKNOWN_METHOD, "x")).code(),
      absl::StatusCode::kUnimplemented);
  EXPECT_EQ(
      Convert(at::TApplicationException(at::TApplicationException::INTERNAL_ERROR, "x")).code(),
      absl::StatusCode::kInternal);
}

TEST(HBaseErrorsTest, MalformedRepliesAreInternal) {
  EXPECT_EQ(
      Convert(at::protocol::TProtocolException(at::protocol::TProtocolException::INVALID_DATA))
          .code(),
      absl::StatusCode::kInternal);
  EXPECT_EQ(
      Convert(at::transport::TTransportException(at::transport::TTransportException::END_OF_FILE))
          .code(),
      absl::StatusCode::kInternal);
  EXPECT_EQ(Convert(std::runtime_error("boom")).code(), absl::StatusCode::kInternal);
  EXPECT_EQ(StatusFromThriftException(std::make_exception_ptr(42), "get").code(),
            absl::StatusCode::kInternal);
}

TEST(HBaseErrorsTest, ABareTableNameMeansAnUnknownTable) {
  absl::Status s = NameUnknownTable(absl::InvalidArgumentError("hbase get: rtb_x"), "rtb_x");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()), "unknown table 'rtb_x'");
  absl::Status other = absl::InvalidArgumentError("hbase get: Column family f does not exist");
  EXPECT_EQ(NameUnknownTable(other, "rtb_x"), other);
  absl::Status unavailable = absl::UnavailableError("hbase get: rtb_x");
  EXPECT_EQ(NameUnknownTable(unavailable, "rtb_x"), unavailable);
}

TEST(HBaseErrorsTest, NetworkErrors) {
  EXPECT_EQ(StatusFromNetworkError(boost::asio::error::timed_out, "reading").code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(StatusFromNetworkError(boost::asio::error::connection_refused, "connecting").code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace rtb::storage::hbase
