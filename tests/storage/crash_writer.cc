// Writes one row to an embedded store with a given durability, reports it
// written, then dies by SIGKILL: the parent test checks what survived.
//   storage_crash_writer <path> <sync|async|skip>
// With `increment`, the write is instead an Increment of t/row f:n by 1 with
// nonce 0x5eed (SYNC_WAL), which a client would retry after the crash.
#include <csignal>
#include <cstdio>
#include <cstring>

#include "storage/embedded_store.h"

int main(int argc, char** argv) {
  using namespace rtb::storage;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <path> <sync|async|skip|increment>\n", argv[0]);
    return 2;
  }
  EmbeddedStoreOptions options;
  options.path = argv[1];
  options.async_wal_flush_interval_ms = 60000;  // nothing flushes in the background
  auto store = OpenEmbeddedStore(options);
  if (!store.ok()) return 3;
  TableSchema schema;
  schema.name = "t";
  schema.families = {FamilyOptions{.name = "f"}};
  if (!(*store)->CreateTable(schema).ok()) return 4;
  if (std::strcmp(argv[2], "increment") == 0) {
    Increment inc{"row", {{"f", "n", 1}}};
    inc.durability = Durability::kSyncWal;
    inc.nonce = 0x5eed;
    if (!(*store)->Increment("t", inc).ok()) return 5;
    std::printf("written\n");
    std::fflush(stdout);
    std::raise(SIGKILL);
    return 6;
  }
  Put put;
  put.row = "row";
  put.values.push_back(PutValue{"f", "q", std::string("value-") + argv[2], std::nullopt});
  if (std::strcmp(argv[2], "sync") == 0) {
    put.durability = Durability::kSyncWal;
  } else if (std::strcmp(argv[2], "async") == 0) {
    put.durability = Durability::kAsyncWal;
  } else {
    put.durability = Durability::kSkipWal;
  }
  if (!(*store)->Put("t", put).ok()) return 5;
  std::printf("written\n");
  std::fflush(stdout);
  std::raise(SIGKILL);
  return 6;
}
