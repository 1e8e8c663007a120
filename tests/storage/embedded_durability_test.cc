// What survives a process kill, per durability level. The writer is a child
// process killed with SIGKILL right after its write is acknowledged.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "tests/storage/test_store.h"

namespace rtb::storage::testing {
namespace {

class DurabilityTest : public EmbeddedStoreTest {
 protected:
  void SetUp() override {
    path_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    clock_ = std::make_shared<ManualClock>(kNow);
  }
  // Runs the writer to its death; true when it acknowledged the write first.
  bool KillAfterWrite(const char* mode) {
    int out[2];
    if (pipe(out) != 0) return false;
    pid_t pid = fork();
    if (pid == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      execl(RTB_CRASH_WRITER, RTB_CRASH_WRITER, path_.c_str(), mode, static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    char buf[16] = {};
    ssize_t n = read(out[0], buf, sizeof(buf) - 1);
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    return n > 0 && std::string(buf).starts_with("written");
  }
};

TEST_F(DurabilityTest, SyncWalWriteSurvivesProcessKill) {
  ASSERT_TRUE(KillAfterWrite("sync"));
  Reopen();
  EXPECT_EQ(MustGet("t", "row").Value("f", "q"), "value-sync");
}

TEST_F(DurabilityTest, SkipWalWriteIsLostOnProcessKill) {
  ASSERT_TRUE(KillAfterWrite("skip"));
  Reopen();
  EXPECT_TRUE(MustGet("t", "row").empty()) << "nothing but the memtable held it";
}

TEST_F(DurabilityTest, AnIncrementRetriedWithItsNonceAfterAProcessKillCountsOnce) {
  // The writer's nonce record expires on the system clock.
  clock_ = std::make_shared<ManualClock>(SystemClock()->NowMillis());
  ASSERT_TRUE(KillAfterWrite("increment"));
  Reopen();
  ASSERT_EQ(MustGet("t", "row").Counter("f", "n"), 1);
  Increment retry{"row", {{"f", "n", 1}}};
  retry.nonce = 0x5eed;
  auto answer = store_->Increment("t", retry);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->Counter("f", "n"), 1) << "the first attempt's answer";
  EXPECT_EQ(MustGet("t", "row").Counter("f", "n"), 1);
  Reopen();
  EXPECT_EQ(MustGet("t", "row").Counter("f", "n"), 1);
  retry.nonce = 0x5eee;
  ASSERT_TRUE(store_->Increment("t", retry).ok());
  EXPECT_EQ(MustGet("t", "row").Counter("f", "n"), 2) << "another nonce is another increment";
}

}  // namespace
}  // namespace rtb::storage::testing
