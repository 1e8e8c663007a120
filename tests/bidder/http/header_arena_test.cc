#include "bidder/http/header_arena.h"

#include <string>

#include "bidder/http/http_server.h"
#include "gtest/gtest.h"

namespace rtb::bidder {
namespace {

TEST(HeaderArenaTest, HandsOutItsBlockFrontToBackAndStartsOverOnReset) {
  HeaderArena arena;
  void* first = arena.Allocate(100, 8);
  void* second = arena.Allocate(100, 8);
  EXPECT_EQ(static_cast<char*>(second) - static_cast<char*>(first), 104);
  EXPECT_EQ(arena.used(), 204u);
  arena.Deallocate(second, 100, 8);
  arena.Deallocate(first, 100, 8);
  arena.Reset();
  EXPECT_EQ(arena.used(), 0u);
  EXPECT_EQ(arena.Allocate(100, 8), first);
}

TEST(HeaderArenaTest, WhatDoesNotFitComesFromTheHeapAndGoesBackThere) {
  HeaderArena arena;
  void* in_block = arena.Allocate(HeaderArena::kBlockBytes - 16, 8);
  void* too_big = arena.Allocate(64, 8);
  EXPECT_EQ(arena.used(), HeaderArena::kBlockBytes - 16);
  const char* block = static_cast<const char*>(in_block);
  const char* heap = static_cast<const char*>(too_big);
  EXPECT_TRUE(heap < block || heap >= block + HeaderArena::kBlockBytes);
  arena.Deallocate(too_big, 64, 8);  // a leak or a bad free shows under the sanitizers
  arena.Deallocate(in_block, HeaderArena::kBlockBytes - 16, 8);
}

TEST(HeaderArenaTest, FieldsInAnArenaReadAsAnyFields) {
  HeaderArena arena;
  {
    HttpHeaders fields{HeaderAllocator<char>(&arena)};
    fields.set("Host", "bidder.example");
    fields.set("x-openrtb-version", "2.6");
    fields.set(std::string(40, 'n'), std::string(3000, 'v'));  // beyond the block
    EXPECT_EQ(fields["x-openrtb-version"], "2.6");
    EXPECT_EQ(fields[std::string(40, 'n')].size(), 3000u);
    EXPECT_GT(arena.used(), 0u);
  }
  arena.Reset();
  HttpHeaders without_arena;
  without_arena.set("Host", "bidder.example");
  EXPECT_EQ(without_arena["Host"], "bidder.example");
}

}  // namespace
}  // namespace rtb::bidder
