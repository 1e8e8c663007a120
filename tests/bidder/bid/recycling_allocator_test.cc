#include "bidder/bid/internal/recycling_allocator.h"

#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace rtb::bidder::internal {
namespace {

struct Large {
  char bytes[4096];
};
using Allocator = RecyclingAllocator<Large>;

TEST(RecyclingAllocatorTest, HandsAFreedBlockOutAgainOnTheSameThread) {
  Allocator allocator;
  Large* first = allocator.allocate(1);
  allocator.deallocate(first, 1);
  const size_t kept = Allocator::KeptOnThisThread();
  EXPECT_GE(kept, 1u);
  Large* second = allocator.allocate(1);
  EXPECT_EQ(second, first);
  EXPECT_EQ(Allocator::KeptOnThisThread(), kept - 1);
  allocator.deallocate(second, 1);
}

TEST(RecyclingAllocatorTest, KeepsAtMostItsLimitAndFreesTheRest) {
  Allocator allocator;
  std::vector<Large*> blocks;
  for (size_t i = 0; i < Allocator::kKeptBlocks + 10; ++i) blocks.push_back(allocator.allocate(1));
  for (Large* block : blocks) allocator.deallocate(block, 1);
  EXPECT_EQ(Allocator::KeptOnThisThread(), Allocator::kKeptBlocks);
}

TEST(RecyclingAllocatorTest, ArraysAreNeitherKeptNorTakenFromTheKeptBlocks) {
  Allocator allocator;
  allocator.deallocate(allocator.allocate(1), 1);
  const size_t kept = Allocator::KeptOnThisThread();
  Large* array = allocator.allocate(3);
  EXPECT_EQ(Allocator::KeptOnThisThread(), kept);
  allocator.deallocate(array, 3);
  EXPECT_EQ(Allocator::KeptOnThisThread(), kept);
}

TEST(RecyclingAllocatorTest, ABlockFreedOnAnotherThreadIsKeptThere) {
  Allocator allocator;
  Large* block = allocator.allocate(1);
  const size_t kept_here = Allocator::KeptOnThisThread();
  size_t kept_there = 0;
  std::thread([&] {
    allocator.deallocate(block, 1);
    kept_there = Allocator::KeptOnThisThread();
  }).join();
  EXPECT_EQ(kept_there, 1u);
  EXPECT_EQ(Allocator::KeptOnThisThread(), kept_here);
}

TEST(RecyclingAllocatorTest, SharedObjectsComeFromRecycledBlocks) {
  using SharedAllocator = RecyclingAllocator<std::vector<int>>;
  auto first = std::allocate_shared<std::vector<int>>(SharedAllocator(), 3, 7);
  const void* first_address = first.get();
  first.reset();
  auto second = std::allocate_shared<std::vector<int>>(SharedAllocator());
  EXPECT_EQ(static_cast<const void*>(second.get()), first_address);
  EXPECT_TRUE(second->empty());
}

}  // namespace
}  // namespace rtb::bidder::internal
