#include "bidder/admin/memory_gauges.h"

#include <malloc.h>

#include "storage/startup/startup.h"

namespace rtb::bidder {

MemoryGauges::MemoryGauges(prometheus::Registry& registry, storage::Store& store)
    : store_(store),
      resident_(prometheus::BuildGauge()
                    .Name("bidder_process_resident_bytes")
                    .Help("Resident memory of the bidder process")
                    .Register(registry)
                    .Add({})),
      store_parts_(prometheus::BuildGauge()
                       .Name("bidder_store_memory_bytes")
                       .Help("Memory the store holds in the bidder process, by part")
                       .Register(registry)),
      heap_(prometheus::BuildGauge()
                .Name("bidder_heap_bytes")
                .Help("The C allocator's memory: in use, free but held, mmapped")
                .Register(registry)),
      heap_in_use_(heap_.Add({{"state", "in_use"}})),
      heap_free_(heap_.Add({{"state", "free"}})),
      heap_mmapped_(heap_.Add({{"state", "mmapped"}})),
      row_cache_reads_(prometheus::BuildCounter()
                           .Name("bidder_store_row_cache_reads_total")
                           .Help("Whole-family reads the store's row cache answered (hit) or "
                                 "sent on to the engine (miss)")
                           .Register(registry)),
      row_cache_hits_(row_cache_reads_.Add({{"result", "hit"}})),
      row_cache_misses_(row_cache_reads_.Add({{"result", "miss"}})) {}

void MemoryGauges::Refresh() {
  resident_.Set(static_cast<double>(startup::ResidentBytes()));
  const struct mallinfo2 heap = ::mallinfo2();
  heap_in_use_.Set(static_cast<double>(heap.uordblks));
  heap_free_.Set(static_cast<double>(heap.fordblks));
  heap_mmapped_.Set(static_cast<double>(heap.hblkhd));
  const std::vector<storage::Store::MemoryPart> parts = store_.MemoryUsage();
  const storage::Store::RowCacheReads reads = store_.RowCacheReadCounts();
  absl::MutexLock lock(&mu_);
  // Counts only grow; a concurrent refresh may have counted further already.
  const auto catch_up = [](int64_t now, int64_t& counted, prometheus::Counter& counter) {
    if (now <= counted) return;
    counter.Increment(static_cast<double>(now - counted));
    counted = now;
  };
  catch_up(reads.hits, row_cache_counted_.hits, row_cache_hits_);
  catch_up(reads.misses, row_cache_counted_.misses, row_cache_misses_);
  for (const storage::Store::MemoryPart& part : parts) {
    prometheus::Gauge*& gauge = parts_[part.part];
    if (gauge == nullptr) gauge = &store_parts_.Add({{"part", part.part}});
    gauge->Set(static_cast<double>(part.bytes));
  }
}

}  // namespace rtb::bidder
