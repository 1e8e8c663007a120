// The `storage` section: which backend the Store is, and its options.
// Part of config/config.h, which includes it; see there for the loading rules.
#ifndef RTB_CONFIG_STORAGE_CONFIG_H_
#define RTB_CONFIG_STORAGE_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace rtb::config {

// ---------------------------------------------------------------------------
// storage: which backend the Store is, and its options.

enum class StorageBackend {
  kEmbedded,       // "embedded": RocksDB engine inside the process
  kHBase,          // "hbase": Apache HBase through its Thrift2 gateways
  kStorageServer,  // "storage-server": our storage server; speaks HBase
                   // Thrift2, so it is reached through `hbase` below
};

enum class ThriftTransport {
  kBuffered,  // "buffered"
  kFramed,    // "framed"
};

struct EmbeddedStorageConfig {
  // Database directory; created when missing. Default "./data".
  std::string path = "./data";
  // Shared block cache of all families, MiB. Default 256. Range [1, 1048576].
  int64_t block_cache_mib = 256;
  // Share of the block cache reserved for IN_MEMORY families (HBase's
  // in-memory priority). Default 0.25. Range [0, 0.9].
  double in_memory_cache_fraction = 0.25;
  // Cache of hot rows' stored cells in front of RocksDB (whole-family reads,
  // such as a bid's profile read, are answered from it), MiB; 0 turns it
  // off. Sized to hold the hot part of the device population: a profile of
  // about 90 cells takes some 2.6 KiB in it (packed). Default 64. Range
  // [0, 1048576].
  int64_t row_cache_mib = 64;
  // Memtable size per family, MiB. Default 32. Range [1, 4096].
  int64_t write_buffer_mib = 32;
  // All families' memtables together, MiB, charged to the block cache so the
  // store's memory stays near block_cache_mib (see EmbeddedStoreOptions).
  // 0 turns the shared budget off. Default (-1): a third of the block
  // cache's share for families that are not IN_MEMORY, 64 for the defaults.
  // Range [-1, that share].
  int64_t memtable_budget_mib = -1;
  // How often ASYNC_WAL writes are pushed to the OS, ms: a process kill loses
  // at most about this much of them. Default 100. Range [1, 60000].
  int async_wal_flush_interval_ms = 100;
};

struct HBaseStorageConfig {
  // Thrift2 gateways as "host:port" or "[v6addr]:port". Required (at least
  // one) for the hbase and storage-server backends.
  std::vector<std::string> endpoints;
  // Framing; must match the gateway (HBase's thrift2 -f). Default buffered.
  ThriftTransport transport = ThriftTransport::kBuffered;
  // TCP connect timeout, ms. Default 1000. Range [1, 60000].
  int connect_timeout_ms = 1000;
  // Deadline of blocking data calls, ms. Default 5000. Range [1, 600000].
  int call_timeout_ms = 5000;
  // Connections kept per gateway. Default 8. Range [1, 1024].
  int pool_size = 8;
  // Wait before a TIMELINE Get is also sent to the next gateway, ms; 0 turns
  // hedging off (it needs two endpoints anyway). Default 10.
  // Range [0, call_timeout_ms).
  int hedge_delay_ms = 10;
  // I/O threads of the client. Default 1. Range [1, 64].
  int io_threads = 1;
};

struct StorageConfig {
  // Default embedded.
  StorageBackend backend = StorageBackend::kEmbedded;
  // Used by the embedded backend; ignored by the others.
  EmbeddedStorageConfig embedded;
  // Used by the hbase and storage-server backends; ignored by embedded.
  HBaseStorageConfig hbase;
};

}  // namespace rtb::config

#endif  // RTB_CONFIG_STORAGE_CONFIG_H_
