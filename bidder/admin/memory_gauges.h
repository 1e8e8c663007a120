// Memory gauges, read afresh at each scrape of the metrics endpoint, so an
// operator (and the soak run) can tell a cache filling up to its bound from
// memory that grows without one:
//   bidder_process_resident_bytes     the process's resident memory
//   bidder_store_memory_bytes{part}   Store::MemoryUsage of the bidder's
//                                     store (the embedded engine's parts,
//                                     storage/embedded_store.h; none for a
//                                     remote backend)
//   bidder_heap_bytes{state}          the C allocator's arenas: "in_use"
//                                     (allocated), "free" (address space
//                                     the allocator holds; the process's
//                                     AllocatorTrimmer gives its whole
//                                     pages back to the system), "mmapped"
//                                     (large blocks)
//   bidder_store_row_cache_reads_total{result}
//                                     Store::RowCacheReadCounts: "hit" and
//                                     "miss" (whole-family reads the row
//                                     cache did not hold), brought up to
//                                     date at each scrape; what
//                                     row_cache_mib is sized by
//
// Thread-safety: Refresh may run on several threads at once.
#ifndef RTB_BIDDER_ADMIN_MEMORY_GAUGES_H_
#define RTB_BIDDER_ADMIN_MEMORY_GAUGES_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "storage/store.h"

namespace rtb::bidder {

class MemoryGauges {
 public:
  // `registry` and `store` must outlive this.
  MemoryGauges(prometheus::Registry& registry, storage::Store& store);
  MemoryGauges(const MemoryGauges&) = delete;
  MemoryGauges& operator=(const MemoryGauges&) = delete;

  void Refresh();

 private:
  storage::Store& store_;
  prometheus::Gauge& resident_;
  prometheus::Family<prometheus::Gauge>& store_parts_;
  prometheus::Family<prometheus::Gauge>& heap_;
  prometheus::Gauge& heap_in_use_;
  prometheus::Gauge& heap_free_;
  prometheus::Gauge& heap_mmapped_;
  prometheus::Family<prometheus::Counter>& row_cache_reads_;
  prometheus::Counter& row_cache_hits_;
  prometheus::Counter& row_cache_misses_;
  absl::Mutex mu_;
  // The store's counts at the last refresh: the counters grow by the rest.
  storage::Store::RowCacheReads row_cache_counted_ ABSL_GUARDED_BY(mu_);
  // The store's parts by name, declared on first sight.
  absl::flat_hash_map<std::string, prometheus::Gauge*> parts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_ADMIN_MEMORY_GAUGES_H_
