#include "storage/buffered_mutator.h"

#include <thread>

#include "tests/storage/test_store.h"

namespace rtb::storage::testing {
namespace {

class BufferedMutatorTest : public EmbeddedStoreTest {
 protected:
  void SetUp() override {
    EmbeddedStoreTest::SetUp();
    Create(Schema("t", {Fam("d")}));
  }
};

TEST_F(BufferedMutatorTest, NothingIsWrittenBeforeAFlush) {
  BufferedMutator m(store_.get(), "t", {.max_buffer_bytes = 1 << 20, .flush_interval_ms = 0});
  ASSERT_TRUE(m.Mutate(PutOf("r1", "d", "q", "v")).ok());
  EXPECT_TRUE(MustGet("t", "r1").empty());
  ASSERT_TRUE(m.Flush().ok());
  EXPECT_EQ(MustGet("t", "r1").Value("d", "q"), "v");
}

TEST_F(BufferedMutatorTest, FullBufferFlushesItself) {
  BufferedMutator m(store_.get(), "t", {.max_buffer_bytes = 200, .flush_interval_ms = 0});
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(m.Mutate(PutOf("r" + std::to_string(i), "d", "q", std::string(40, 'x'))).ok());
  }
  EXPECT_FALSE(MustGet("t", "r0").empty());
  EXPECT_LT(m.buffered_bytes(), 200u);
}

TEST_F(BufferedMutatorTest, FlushIntervalWritesWithoutAnExplicitFlush) {
  BufferedMutator m(store_.get(), "t", {.max_buffer_bytes = 1 << 20, .flush_interval_ms = 20});
  ASSERT_TRUE(m.Mutate(PutOf("r", "d", "q", "v")).ok());
  bool seen = false;
  for (int i = 0; i < 250 && !seen; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    seen = !MustGet("t", "r").empty();
  }
  EXPECT_TRUE(seen);
}

TEST_F(BufferedMutatorTest, PutsAndDeletesKeepTheirOrder) {
  BufferedMutator m(store_.get(), "t", {.max_buffer_bytes = 1 << 20, .flush_interval_ms = 0});
  ASSERT_TRUE(m.Mutate(PutOf("r", "d", "q", "first", kNow - 10)).ok());
  ASSERT_TRUE(m.Mutate(Delete{"r"}).ok());
  ASSERT_TRUE(m.Mutate(PutOf("r", "d", "q2", "after", kNow + 10)).ok());
  ASSERT_TRUE(m.Flush().ok());
  RowResult r = MustGet("t", "r");
  EXPECT_FALSE(r.Value("d", "q").has_value());
  EXPECT_EQ(r.Value("d", "q2"), "after");
}

TEST_F(BufferedMutatorTest, InvalidMutationIsReportedAndDoesNotTakeValidOnesWithIt) {
  BufferedMutator m(store_.get(), "t", {.max_buffer_bytes = 1 << 20, .flush_interval_ms = 0});
  ASSERT_TRUE(m.Mutate(PutOf("good1", "d", "q", "v")).ok());
  ASSERT_TRUE(m.Mutate(PutOf("bad", "no-such-family", "q", "v")).ok());
  ASSERT_TRUE(m.Mutate(PutOf("good2", "d", "q", "v")).ok());
  absl::Status s = m.Flush();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(MustGet("t", "good1").empty());
  EXPECT_FALSE(MustGet("t", "good2").empty());
  EXPECT_TRUE(m.Flush().ok()) << "the error is reported once";
}

TEST_F(BufferedMutatorTest, DestructorFlushesWhatIsLeft) {
  {
    BufferedMutator m(store_.get(), "t", {.max_buffer_bytes = 1 << 20, .flush_interval_ms = 0});
    ASSERT_TRUE(m.Mutate(PutOf("r", "d", "q", "v")).ok());
  }
  EXPECT_FALSE(MustGet("t", "r").empty());
}

}  // namespace
}  // namespace rtb::storage::testing
