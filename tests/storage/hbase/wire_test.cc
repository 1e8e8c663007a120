#include "storage/hbase/wire.h"

#include <string>

#include "gtest/gtest.h"
#include "thrift/TApplicationException.h"

namespace rtb::storage::hbase {
namespace {

namespace t2 = ::rtb::storage::thrift2;
namespace at = ::apache::thrift;
using Client = t2::THBaseServiceClient;

// A reply as a THBaseService server writes it.
template <typename Result>
std::string ServerReply(const std::string& call, const Result& result,
                        at::protocol::TMessageType type = at::protocol::T_REPLY) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  at::protocol::TBinaryProtocol protocol(buffer);
  protocol.writeMessageBegin(call, type, 0);
  result.write(&protocol);
  protocol.writeMessageEnd();
  return buffer->getBufferAsString();
}

std::string GetRequest() {
  t2::TGet get;
  get.row = std::string("\x00\x01row", 5);
  get.__set_maxVersions(2);
  absl::StatusOr<std::string> request =
      EncodeRequest("get", [&](Client& c) { c.send_get("profiles", get); });
  EXPECT_TRUE(request.ok());
  return *request;
}

TEST(HBaseWireTest, RequestIsAStrictBinaryCallMessage) {
  std::string request = GetRequest();
  ASSERT_GT(request.size(), 12u);
  EXPECT_EQ(static_cast<uint8_t>(request[0]), 0x80);  // version 1
  EXPECT_EQ(static_cast<uint8_t>(request[1]), 0x01);
  EXPECT_EQ(static_cast<uint8_t>(request[3]), 0x01);  // T_CALL
  EXPECT_EQ(request.substr(4, 7), std::string("\0\0\0\3get", 7));
}

TEST(HBaseWireTest, MessageSizeIsFoundOnlyWhenComplete) {
  std::string request = GetRequest();
  absl::StatusOr<size_t> full = CompleteMessageSize(request, 1 << 20);
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(*full, request.size());
  for (size_t n = 0; n < request.size(); ++n) {
    absl::StatusOr<size_t> part =
        CompleteMessageSize(std::string_view(request).substr(0, n), 1 << 20);
    ASSERT_TRUE(part.ok()) << n;
    EXPECT_EQ(*part, 0u) << n;
  }
  // Bytes after the message do not count.
  absl::StatusOr<size_t> more = CompleteMessageSize(request + "xyz", 1 << 20);
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(*more, request.size());
}

TEST(HBaseWireTest, ReplySizeWithNestedContainers) {
  t2::THBaseService_getMultiple_result result;
  for (int i = 0; i < 3; ++i) {
    t2::TResult r;
    r.__set_row("row" + std::to_string(i));
    for (int j = 0; j < 4; ++j) {
      t2::TColumnValue cv;
      cv.family = "f";
      cv.qualifier = "q" + std::to_string(j);
      cv.value = std::string(100, 'v');
      cv.__set_timestamp(j);
      r.columnValues.push_back(cv);
    }
    result.success.push_back(r);
  }
  result.__isset.success = true;
  std::string reply = ServerReply("getMultiple", result);
  absl::StatusOr<size_t> size = CompleteMessageSize(reply, 1 << 20);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, reply.size());
  EXPECT_EQ(*CompleteMessageSize(std::string_view(reply).substr(0, reply.size() - 1), 1 << 20), 0u);
}

TEST(HBaseWireTest, ScannerResumesAsBytesArrive) {
  t2::THBaseService_getMultiple_result result;
  for (int i = 0; i < 50; ++i) {
    t2::TResult r;
    r.__set_row("row" + std::to_string(i));
    t2::TColumnValue cv;
    cv.family = "f";
    cv.qualifier = "q";
    cv.value = std::string(i * 7, 'v');
    cv.__set_timestamp(i);
    cv.__set_tags(std::string(3, 't'));
    r.columnValues.push_back(cv);
    r.__set_stale(i % 2 == 0);
    result.success.push_back(r);
  }
  result.__isset.success = true;
  const std::string reply = ServerReply("getMultiple", result);
  for (size_t step : {size_t{1}, size_t{3}, size_t{64}, size_t{4096}}) {
    MessageScanner scanner(1 << 20);
    size_t found = 0;
    for (size_t n = step; found == 0; n = std::min(reply.size(), n + step)) {
      absl::StatusOr<size_t> s = scanner.Scan(std::string_view(reply).substr(0, n));
      ASSERT_TRUE(s.ok()) << s.status();
      if (*s == 0) {
        ASSERT_LT(n, reply.size()) << "step " << step;
      }
      found = *s;
    }
    EXPECT_EQ(found, reply.size()) << "step " << step;
  }
}

TEST(HBaseWireTest, OversizedOrGarbageRepliesAreErrors) {
  std::string request = GetRequest();
  EXPECT_EQ(CompleteMessageSize(request, 16).status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(CompleteMessageSize(std::string("\x81\x02\x00\x01", 4), 1 << 20).status().code(),
            absl::StatusCode::kInternal);
  // A string that claims 2 GiB.
  std::string huge("\x80\x01\x00\x02\x7f\xff\xff\xff", 8);
  EXPECT_EQ(CompleteMessageSize(huge, 1 << 20).status().code(), absl::StatusCode::kInternal);
}

TEST(HBaseWireTest, OldNonStrictMessagesAreSized) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  at::protocol::TBinaryProtocol protocol(buffer, 0, 0, /*strict_read=*/false,
                                         /*strict_write=*/false);
  t2::THBaseService_tableExists_result result;
  result.success = true;
  result.__isset.success = true;
  protocol.writeMessageBegin("tableExists", at::protocol::T_REPLY, 0);
  result.write(&protocol);
  protocol.writeMessageEnd();
  std::string reply = buffer->getBufferAsString();
  absl::StatusOr<size_t> size = CompleteMessageSize(reply, 1 << 20);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, reply.size());
}

TEST(HBaseWireTest, DecodesAResult) {
  t2::THBaseService_get_result result;
  result.success.__set_row("r1");
  t2::TColumnValue cv;
  cv.family = "seg";
  cv.qualifier = "s1";
  cv.value = std::string("\0\x7f", 2);
  cv.__set_timestamp(99);
  result.success.columnValues.push_back(cv);
  result.success.__set_stale(true);
  result.__isset.success = true;
  std::string reply = ServerReply("get", result);

  t2::TResult decoded;
  absl::Status s = DecodeReply("get", reply, [&](Client& c) { c.recv_get(decoded); });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(decoded.row, "r1");
  ASSERT_EQ(decoded.columnValues.size(), 1u);
  EXPECT_EQ(decoded.columnValues[0].value, std::string("\0\x7f", 2));
  EXPECT_TRUE(decoded.stale);
}

TEST(HBaseWireTest, DeclaredExceptionsBecomeStatuses) {
  t2::THBaseService_get_result result;
  result.io.__set_message("org.apache.hadoop.hbase.TableNotFoundException: t");
  result.__isset.io = true;
  std::string reply = ServerReply("get", result);
  t2::TResult decoded;
  absl::Status s = DecodeReply("get", reply, [&](Client& c) { c.recv_get(decoded); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST(HBaseWireTest, ApplicationExceptionsBecomeStatuses) {
  at::TApplicationException e(at::TApplicationException::UNKNOWN_METHOD, "Invalid method name");
  std::string reply = ServerReply("get", e, at::protocol::T_EXCEPTION);
  t2::TResult decoded;
  absl::Status s = DecodeReply("get", reply, [&](Client& c) { c.recv_get(decoded); });
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
}

TEST(HBaseWireTest, TruncatedRepliesAreErrorsNotCrashes) {
  t2::THBaseService_get_result result;
  result.success.__set_row("r1");
  result.__isset.success = true;
  std::string reply = ServerReply("get", result);
  for (size_t n = 0; n < reply.size(); ++n) {
    std::string cut = reply.substr(0, n);
    t2::TResult decoded;
    absl::Status s = DecodeReply("get", cut, [&](Client& c) { c.recv_get(decoded); });
    EXPECT_FALSE(s.ok()) << n;
  }
}

TEST(HBaseWireTest, FrameHeaderIsBigEndian) {
  std::array<uint8_t, 4> h = FrameHeader(0x01020304);
  EXPECT_EQ(h[0], 1);
  EXPECT_EQ(h[3], 4);
  EXPECT_EQ(ReadFrameHeader(h.data()), 0x01020304u);
}

}  // namespace
}  // namespace rtb::storage::hbase
