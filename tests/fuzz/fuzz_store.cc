#include "tests/fuzz/fuzz_store.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "storage/embedded_store.h"
#include "storage/schemas.h"
#include "storage/store.h"

namespace rtb::fuzz {
namespace {

std::string& StoreDirectory() {
  static std::string* directory = new std::string();
  return *directory;
}

storage::Store*& OpenedStore() {
  static storage::Store* store = nullptr;
  return store;
}

// At exit the store is closed first: RocksDB's background threads must not
// outlive its files (nor its own static objects, destroyed after this runs).
void CloseAndRemoveStore() {
  delete OpenedStore();
  OpenedStore() = nullptr;
  std::error_code ec;
  if (!StoreDirectory().empty()) std::filesystem::remove_all(StoreDirectory(), ec);
}

storage::Store* OpenStore() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/rtb-fuzz-store.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::fprintf(stderr, "fuzz store: cannot create a directory from %s\n", pattern.c_str());
    std::abort();
  }
  StoreDirectory() = pattern;
  storage::EmbeddedStoreOptions options;
  options.path = pattern;
  options.block_cache_bytes = int64_t{8} << 20;
  options.row_cache_bytes = int64_t{4} << 20;
  options.write_buffer_bytes = int64_t{4} << 20;
  options.memtable_budget_bytes = int64_t{4} << 20;
  options.default_durability = storage::Durability::kAsyncWal;
  options.async_threads = 1;
  absl::StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenEmbeddedStore(options);
  if (!store.ok() || !storage::ApplySchemas(**store, storage::BidderTables()).ok()) {
    std::fprintf(stderr, "fuzz store: cannot open the embedded store in %s\n", pattern.c_str());
    std::abort();
  }
  OpenedStore() = store->release();
  std::atexit(CloseAndRemoveStore);
  return OpenedStore();
}

}  // namespace

storage::Store& FuzzStore() {
  static storage::Store* store = OpenStore();
  return *store;
}

}  // namespace rtb::fuzz
