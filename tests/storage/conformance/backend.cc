#include "tests/storage/conformance/backend.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "storage/clock.h"
#include "storage/embedded_store.h"
#include "storage/hbase_store.h"
#include "tests/storage/server/server_process.h"

namespace rtb::storage::conformance {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

FamilyOptions Family(const std::string& name, int versions, int64_t ttl_seconds = kForever,
                     int min_versions = 0) {
  FamilyOptions f;
  f.name = name;
  f.max_versions = versions;
  f.ttl_seconds = ttl_seconds;
  f.min_versions = min_versions;
  return f;
}

std::filesystem::path ScratchDir(const std::string& what) {
  return std::filesystem::temp_directory_path() /
         absl::StrCat("rtb-conformance-", what, "-", getpid());
}

int64_t SystemNow() { return SystemClock()->NowMillis(); }

class EmbeddedBackend final : public Backend {
 public:
  absl::Status Open() {
    dir_ = ScratchDir("embedded");
    std::filesystem::remove_all(dir_);
    clock_ = std::make_shared<ManualClock>(SystemNow());
    EmbeddedStoreOptions o;
    o.path = dir_.string();
    o.clock = clock_;
    o.block_cache_bytes = 8 << 20;
    o.write_buffer_bytes = 4 << 20;
    o.memtable_budget_bytes = 4 << 20;
    absl::StatusOr<std::unique_ptr<Store>> store = OpenEmbeddedStore(o);
    if (!store.ok()) return store.status();
    store_ = *std::move(store);
    return store_->CreateTable(ConformanceSchema());
  }
  ~EmbeddedBackend() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  Store& store() override { return *store_; }
  int64_t NowMillis() override { return clock_->NowMillis(); }
  void Pass(int64_t ms) override { clock_->Advance(ms); }
  bool RealTime() const override { return false; }

 private:
  std::filesystem::path dir_;
  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<Store> store_;
};

class RemoteBackend : public Backend {
 public:
  Store& store() override { return *store_; }
  int64_t NowMillis() override { return SystemNow(); }
  void Pass(int64_t ms) override { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }
  bool RealTime() const override { return true; }

 protected:
  absl::Status Connect(const std::string& endpoint, ThriftTransport transport) {
    HBaseStoreOptions o;
    o.endpoints = {endpoint};
    o.transport = transport;
    o.call_timeout_ms = 30000;
    absl::StatusOr<std::unique_ptr<Store>> store = OpenHBaseStore(o);
    if (!store.ok()) return store.status();
    store_ = *std::move(store);
    return store_->CreateTable(ConformanceSchema());
  }
  std::unique_ptr<Store> store_;
};

class ServerBackend final : public RemoteBackend {
 public:
  explicit ServerBackend(ThriftTransport transport)
      : transport_(transport),
        dir_(ScratchDir(transport == ThriftTransport::kFramed ? "framed" : "buffered")),
        process_(dir_) {}
  absl::Status Open() {
    std::filesystem::remove_all(dir_);
    const bool framed = transport_ == ThriftTransport::kFramed;
    if (!process_.Start({"--transport", framed ? "framed" : "buffered", "--threads", "8"})) {
      return absl::UnavailableError(
          absl::StrCat("storage-server did not start: ", process_.Stderr()));
    }
    return Connect(process_.endpoint(), transport_);
  }
  ~ServerBackend() override {
    store_.reset();
    process_.Stop();
    std::filesystem::remove_all(dir_);
  }

 private:
  ThriftTransport transport_;
  std::filesystem::path dir_;
  testing::StorageServerProcess process_;
};

class HBaseBackend final : public RemoteBackend {
 public:
  absl::Status Open(const std::string& endpoint, ThriftTransport transport) {
    return Connect(endpoint, transport);
  }
};

struct Registry {
  std::map<std::string, std::unique_ptr<Backend>> open;
  std::map<std::string, absl::Status> failed;
};

Registry& Backends() {
  static Registry* registry = new Registry;
  return *registry;
}

// Closes the backends (stops server processes) before the process exits.
class CloseBackends : public ::testing::Environment {
 public:
  void TearDown() override { Backends().open.clear(); }
};
[[maybe_unused]] ::testing::Environment* const kCloseBackends =
    ::testing::AddGlobalTestEnvironment(new CloseBackends);

}  // namespace

TableSchema ConformanceSchema() {
  TableSchema s;
  s.name = kTable;
  s.families = {Family("f", 1),
                Family("v", 3),
                Family("t", 3, 24 * 3600),
                Family("m", 3, 24 * 3600, 1),
                Family("s", 1, kShortTtlSeconds),
                Family("c", 1)};
  return s;
}

absl::Status GetBackend(const std::string& name, Backend** backend, bool* skip) {
  *skip = false;
  Registry& r = Backends();
  if (auto it = r.open.find(name); it != r.open.end()) {
    *backend = it->second.get();
    return absl::OkStatus();
  }
  if (auto it = r.failed.find(name); it != r.failed.end()) return it->second;
  absl::Status status;
  std::unique_ptr<Backend> created;
  if (name == "embedded") {
    auto b = std::make_unique<EmbeddedBackend>();
    status = b->Open();
    created = std::move(b);
  } else if (name == "server_buffered" || name == "server_framed") {
    auto b = std::make_unique<ServerBackend>(name == "server_framed" ? ThriftTransport::kFramed
                                                                     : ThriftTransport::kBuffered);
    status = b->Open();
    created = std::move(b);
  } else if (name == "hbase") {
    const std::string endpoint = Env("RTB_HBASE_THRIFT");
    if (endpoint.empty()) {
      // Skipped outside CI only: under CI=true HBase must have started.
      *skip = Env("CI") != "true";
      return absl::FailedPreconditionError(
          *skip ? "RTB_HBASE_THRIFT is not set; run deploy/hbase/hbase.sh start && "
                  "deploy/hbase/hbase.sh wait and export it"
                : "RTB_HBASE_THRIFT is not set under CI=true: HBase did not start "
                  "(deploy/hbase/hbase.sh start && wait)");
    }
    auto b = std::make_unique<HBaseBackend>();
    status = b->Open(endpoint, Env("RTB_HBASE_THRIFT_TRANSPORT") == "framed"
                                   ? ThriftTransport::kFramed
                                   : ThriftTransport::kBuffered);
    created = std::move(b);
  } else {
    status = absl::InvalidArgumentError(absl::StrCat("no conformance backend named ", name));
  }
  if (!status.ok()) {
    r.failed[name] = status;
    return status;
  }
  *backend = created.get();
  r.open[name] = std::move(created);
  return absl::OkStatus();
}

}  // namespace rtb::storage::conformance
