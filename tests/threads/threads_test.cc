// A thread's name and nice value, as the kernel reports them in
// /proc/self/task/<tid>.
#include "threads/threads.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace rtb::threads {
namespace {

std::string NameOf(pid_t tid) {
  std::ifstream comm("/proc/self/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

int NiceOf(pid_t tid) {
  errno = 0;
  return ::getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
}

TEST(ThreadsTest, NamesTheCallingThreadKeepingFifteenBytes) {
  std::thread([] {
    NameThisThread("rtb-a-name-longer-than-fifteen");
    EXPECT_EQ(NameOf(::gettid()), "rtb-a-name-long");
  }).join();
}

TEST(ThreadsTest, LowersTheCallingThreadOnlyAndStopsAtNineteen) {
  const int main_nice = NiceOf(::gettid());
  std::thread([main_nice] {
    LowerThisThreadPriority(3);
    EXPECT_EQ(NiceOf(::gettid()), std::min(19, main_nice + 3));
    LowerThisThreadPriority(40);
    EXPECT_EQ(NiceOf(::gettid()), 19);
    LowerThisThreadPriority(0);
    EXPECT_EQ(NiceOf(::gettid()), 19);
  }).join();
  EXPECT_EQ(NiceOf(::gettid()), main_nice) << "another thread's nice value moved";
}

}  // namespace
}  // namespace rtb::threads
