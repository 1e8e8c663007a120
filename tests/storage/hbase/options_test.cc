#include "storage/hbase/options.h"

#include <string>

#include "gtest/gtest.h"
#include "storage/hbase_store.h"

namespace rtb::storage {
namespace {

using hbase::ParseEndpoint;

TEST(HBaseEndpointTest, ParsesHostAndPort) {
  absl::StatusOr<hbase::HostPort> e = ParseEndpoint("127.0.0.1:9090");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->host, "127.0.0.1");
  EXPECT_EQ(e->port, 9090);
}

TEST(HBaseEndpointTest, ParsesBracketedIpv6) {
  absl::StatusOr<hbase::HostPort> e = ParseEndpoint("[::1]:9095");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->host, "::1");
  EXPECT_EQ(e->port, 9095);
}

TEST(HBaseEndpointTest, RejectsMalformedEndpoints) {
  for (const char* bad : {"", "127.0.0.1", ":9090", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
                          "127.0.0.1:90x", "::1:9090", "[::1]9090", "[::1", "host:-1"}) {
    absl::StatusOr<hbase::HostPort> e = ParseEndpoint(bad);
    EXPECT_FALSE(e.ok()) << "accepted '" << bad << "'";
    if (!e.ok()) {
      EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

HBaseStoreOptions Valid() {
  HBaseStoreOptions o;
  o.endpoints = {"127.0.0.1:9090"};
  return o;
}

void ExpectBadField(const HBaseStoreOptions& o, const std::string& field) {
  absl::Status s = ValidateHBaseStoreOptions(o);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << field;
  EXPECT_NE(std::string(s.message()).find("HBaseStoreOptions." + field), std::string::npos)
      << s.message();
}

TEST(HBaseStoreOptionsTest, DefaultsWithOneEndpointAreValid) {
  EXPECT_TRUE(ValidateHBaseStoreOptions(Valid()).ok());
}

TEST(HBaseStoreOptionsTest, ErrorsNameTheField) {
  HBaseStoreOptions o = Valid();
  o.endpoints.clear();
  ExpectBadField(o, "endpoints");

  o = Valid();
  o.endpoints.push_back("nonsense");
  ExpectBadField(o, "endpoints[1]");

  o = Valid();
  o.connect_timeout_ms = 0;
  ExpectBadField(o, "connect_timeout_ms");

  o = Valid();
  o.call_timeout_ms = -5;
  ExpectBadField(o, "call_timeout_ms");

  o = Valid();
  o.admin_timeout_ms = 0;
  ExpectBadField(o, "admin_timeout_ms");

  o = Valid();
  o.pool_size_per_endpoint = 0;
  ExpectBadField(o, "pool_size_per_endpoint");

  o = Valid();
  o.hedge_delay_ms = -1;
  ExpectBadField(o, "hedge_delay_ms");

  o = Valid();
  o.io_threads = 0;
  ExpectBadField(o, "io_threads");

  o = Valid();
  o.max_message_bytes = 100;
  ExpectBadField(o, "max_message_bytes");
  o.max_message_bytes = int64_t{200} << 20;
  ExpectBadField(o, "max_message_bytes");

  o = Valid();
  o.transport = static_cast<ThriftTransport>(7);
  ExpectBadField(o, "transport");

  o = Valid();
  o.default_durability = static_cast<Durability>(42);
  ExpectBadField(o, "default_durability");
}

TEST(HBaseStoreOptionsTest, OpenRejectsInvalidOptions) {
  HBaseStoreOptions o = Valid();
  o.pool_size_per_endpoint = 0;
  absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(HBaseStoreOptionsTest, OpenDoesNotConnect) {
  // Nothing listens on port 1 of loopback; opening still succeeds and the
  // first call reports the gateway as unavailable.
  HBaseStoreOptions o;
  o.endpoints = {"127.0.0.1:1"};
  o.call_timeout_ms = 2000;
  absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<bool> exists = (*store)->TableExists("anything");
  EXPECT_EQ(exists.status().code(), absl::StatusCode::kUnavailable) << exists.status();
  EXPECT_EQ((*store)->CheckHealth().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace rtb::storage
