// The fixture of the tests that run the storage-server binary: each test has
// its own directory, which its server and any other processes it starts live
// in, and which is removed once the server is stopped. Apart from
// server_process.h, which benchmarks use without gtest.
#ifndef RTB_TESTS_STORAGE_SERVER_SERVER_PROCESS_FIXTURE_H_
#define RTB_TESTS_STORAGE_SERVER_SERVER_PROCESS_FIXTURE_H_

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/storage/server/server_process.h"

namespace rtb::storage::testing {

class StorageServerFixture : public ::testing::Test {
 protected:
  // The directory is `directory_prefix` + pid + test name under the temp
  // directory: ctest runs each test as its own process, side by side.
  explicit StorageServerFixture(std::string directory_prefix)
      : directory_prefix_(std::move(directory_prefix)) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (directory_prefix_ + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Starts server_ in dir_/server (Start's arguments); fails the test when it
  // does not listen.
  void StartServer(const std::vector<std::string>& args = {}) {
    server_ = std::make_unique<StorageServerProcess>(dir_ / "server");
    ASSERT_TRUE(server_->Start(args)) << server_->Stderr();
  }

  std::filesystem::path dir_;
  std::unique_ptr<StorageServerProcess> server_;

 private:
  std::string directory_prefix_;
};

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_SERVER_SERVER_PROCESS_FIXTURE_H_
