#include "storage/server/scanner_registry.h"

#include <memory>

#include "gtest/gtest.h"

namespace rtb::storage::server {
namespace {

// Hands out `rows` rows one per Next call, counting its own destruction.
class CountingScanner final : public Scanner {
 public:
  CountingScanner(int rows, int* destroyed) : rows_(rows), destroyed_(destroyed) {}
  ~CountingScanner() override { ++*destroyed_; }
  absl::StatusOr<std::vector<RowResult>> Next(int max_rows) override {
    std::vector<RowResult> out;
    while (rows_ > 0 && static_cast<int>(out.size()) < max_rows) {
      out.push_back(RowResult{"r" + std::to_string(rows_--), {}, false});
    }
    return out;
  }

 private:
  int rows_;
  int* destroyed_;
};

class ScannerRegistryTest : public ::testing::Test {
 protected:
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(1000);
  int destroyed_ = 0;
};

TEST_F(ScannerRegistryTest, IdsCountUpFromZeroAndServeTheirScanner) {
  ScannerRegistry registry(10, 60000, clock_);
  absl::StatusOr<int32_t> first = registry.Add(std::make_unique<CountingScanner>(3, &destroyed_));
  absl::StatusOr<int32_t> second = registry.Add(std::make_unique<CountingScanner>(1, &destroyed_));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*first, 0);
  EXPECT_EQ(*second, 1);
  EXPECT_EQ(registry.Next(*first, 2)->size(), 2u);
  EXPECT_EQ(registry.Next(*first, 2)->size(), 1u);
  EXPECT_EQ(registry.Next(*first, 2)->size(), 0u);
  EXPECT_EQ(registry.Next(*second, 0)->size(), 0u) << "zero rows asked, none given";
}

TEST_F(ScannerRegistryTest, ClosedAndUnknownIdsAreNotFound) {
  ScannerRegistry registry(10, 60000, clock_);
  int32_t id = *registry.Add(std::make_unique<CountingScanner>(3, &destroyed_));
  EXPECT_TRUE(registry.Close(id));
  EXPECT_EQ(destroyed_, 1);
  EXPECT_FALSE(registry.Close(id));
  EXPECT_TRUE(absl::IsNotFound(registry.Next(id, 1).status()));
  EXPECT_TRUE(absl::IsNotFound(registry.Next(12345, 1).status()));
}

TEST_F(ScannerRegistryTest, IdleScannersExpireAndReadingKeepsThemAlive) {
  ScannerRegistry registry(10, 5000, clock_);
  int32_t idle = *registry.Add(std::make_unique<CountingScanner>(9, &destroyed_));
  int32_t busy = *registry.Add(std::make_unique<CountingScanner>(9, &destroyed_));
  clock_->Advance(4000);
  ASSERT_TRUE(registry.Next(busy, 1).ok());
  clock_->Advance(2000);
  EXPECT_EQ(registry.ExpireIdle(), 1);
  EXPECT_EQ(destroyed_, 1);
  EXPECT_TRUE(absl::IsNotFound(registry.Next(idle, 1).status()));
  EXPECT_TRUE(registry.Next(busy, 1).ok());
  EXPECT_EQ(registry.open_count(), 1u);
}

TEST_F(ScannerRegistryTest, TheLimitHoldsUnlessIdleOnesCanGo) {
  ScannerRegistry registry(2, 5000, clock_);
  ASSERT_TRUE(registry.Add(std::make_unique<CountingScanner>(1, &destroyed_)).ok());
  ASSERT_TRUE(registry.Add(std::make_unique<CountingScanner>(1, &destroyed_)).ok());
  absl::StatusOr<int32_t> third = registry.Add(std::make_unique<CountingScanner>(1, &destroyed_));
  EXPECT_TRUE(absl::IsResourceExhausted(third.status())) << third.status();
  clock_->Advance(6000);
  third = registry.Add(std::make_unique<CountingScanner>(1, &destroyed_));
  EXPECT_TRUE(third.ok()) << "the idle ones made room";
  EXPECT_EQ(registry.open_count(), 1u);
}

}  // namespace
}  // namespace rtb::storage::server
