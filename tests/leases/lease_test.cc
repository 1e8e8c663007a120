// Leases on the embedded store with a manual clock (so a TTL runs out when
// the test says): one holder at a time, a released name free at once, a
// crashed holder's name free only after its TTL, renewals that keep it and
// one that finds another holder losing it. The store's side (a CheckAndMutate
// null check passing once a cell's TTL ran out) is in the storage
// conformance tests, on every backend.
#include "leases/lease.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/schemas.h"
#include "tests/storage/hooked_store.h"
#include "tests/storage/test_store.h"

namespace rtb::leases {
namespace {

using ::testing::HasSubstr;

class LeaseTest : public storage::testing::EmbeddedStoreTest {
 protected:
  void SetUp() override {
    EmbeddedStoreTest::SetUp();
    Create(Schema(std::string(storage::kLeasesTable), {Fam("l")}));
  }

  static LeaseOptions Manual(int64_t ttl_ms = 10000) {
    return LeaseOptions{.ttl_ms = ttl_ms, .renew_every_ms = 0};
  }

  // The cell a holder that was killed left behind: its last renewal.
  void LeftByACrashedHolder(const std::string& name, int64_t ttl_ms) {
    storage::Put put = PutOf(name, "l", "h", "0123456789abcdef@elsewhere:1 rtb-bidder crashed");
    put.ttl_ms = ttl_ms;
    MustPut(std::string(storage::kLeasesTable), put);
  }

  void Advance(int64_t ms) { clock_->Advance(ms); }
};

TEST_F(LeaseTest, OneHolderAtATimeAndTheRefusalNamesIt) {
  auto first = Lease::Take(*store_, "worker/0", "rtb-bidder A", Manual());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE((*first)->Held());
  EXPECT_EQ((*first)->name(), "worker/0");
  auto second = Lease::Take(*store_, "worker/0", "rtb-bidder B", Manual());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("held by rtb-bidder A"));
  EXPECT_EQ(*Lease::HolderOf(*store_, "worker/0"), "rtb-bidder A");
  EXPECT_EQ(*Lease::HolderOf(*store_, "worker/1"), "");
}

TEST_F(LeaseTest, AReleasedNameIsFreeAtOnce) {
  {
    auto first = Lease::Take(*store_, "job/packer", "A", Manual());
    ASSERT_TRUE(first.ok()) << first.status();
  }
  EXPECT_EQ(*Lease::HolderOf(*store_, "job/packer"), "");
  EXPECT_TRUE(Lease::Take(*store_, "job/packer", "B", Manual()).ok());
}

TEST_F(LeaseTest, ACrashedHoldersNameIsFreeOnlyAfterItsTtl) {
  LeftByACrashedHolder("worker/3", 10000);
  Advance(9999);
  EXPECT_EQ(Lease::Take(*store_, "worker/3", "B", Manual()).status().code(),
            absl::StatusCode::kFailedPrecondition);
  Advance(2);
  auto taken = Lease::Take(*store_, "worker/3", "B", Manual());
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(*Lease::HolderOf(*store_, "worker/3"), "B");
}

TEST_F(LeaseTest, ARenewalStartsTheTtlAgain) {
  auto lease = Lease::Take(*store_, "worker/0", "A", Manual(10000));
  ASSERT_TRUE(lease.ok()) << lease.status();
  Advance(8000);
  ASSERT_TRUE((*lease)->Renew().ok());
  Advance(8000);
  EXPECT_EQ(Lease::Take(*store_, "worker/0", "B", Manual()).status().code(),
            absl::StatusCode::kFailedPrecondition)
      << "16 s after the take, 8 s after the renewal";
}

TEST_F(LeaseTest, ARenewalThatFindsAnotherHolderLosesTheLease) {
  std::atomic<int> lost = 0;
  LeaseOptions options = Manual();
  options.on_lost = [&] { ++lost; };
  auto lease = Lease::Take(*store_, "worker/0", "A", options);
  ASSERT_TRUE(lease.ok()) << lease.status();
  // As if this process had hung past its TTL and another had taken the id.
  LeftByACrashedHolder("worker/0", 10000);
  EXPECT_EQ((*lease)->Renew().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE((*lease)->Held());
  EXPECT_EQ((*lease)->Renew().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(lost.load(), 1);
  lease->reset();
  EXPECT_EQ(*Lease::HolderOf(*store_, "worker/0"), "rtb-bidder crashed")
      << "a lost lease is not released: it belongs to the other holder";
}

TEST_F(LeaseTest, TakeFirstFreeSkipsHeldNames) {
  const std::vector<std::string> names = {"worker/0", "worker/1", "worker/2"};
  auto a = Lease::TakeFirstFree(*store_, names, "A", Manual());
  auto b = Lease::TakeFirstFree(*store_, names, "B", Manual());
  LeftByACrashedHolder("worker/2", 10000);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->name(), "worker/0");
  EXPECT_EQ((*b)->name(), "worker/1");
  auto c = Lease::TakeFirstFree(*store_, names, "C", Manual());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  a->reset();
  c = Lease::TakeFirstFree(*store_, names, "C", Manual());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->name(), "worker/0");
}

TEST_F(LeaseTest, ItsThreadRenewsIt) {
  rtb::testing::HookedStore counted(*store_);
  std::atomic<int> writes = 0;
  counted.SetWriteHook([&](std::string_view, std::string_view op) {
    if (op == "CheckAndMutate") ++writes;
    return absl::OkStatus();
  });
  auto lease = Lease::Take(counted, "worker/0", "A", {.ttl_ms = 60000, .renew_every_ms = 20});
  ASSERT_TRUE(lease.ok()) << lease.status();
  for (int i = 0; i < 500 && writes.load() < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(writes.load(), 4) << "the take and three renewals";
  EXPECT_TRUE((*lease)->Held());
}

TEST_F(LeaseTest, RefusesWhatCannotWork) {
  EXPECT_EQ(Lease::Take(*store_, "", "A", Manual()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Lease::Take(*store_, "n", "", Manual()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Lease::Take(*store_, "n", "A", {.ttl_ms = 999}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      Lease::Take(*store_, "n", "A", {.ttl_ms = 5000, .renew_every_ms = 5000}).status().code(),
      absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rtb::leases
