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
      heap_mmapped_(heap_.Add({{"state", "mmapped"}})) {}

void MemoryGauges::Refresh() {
  resident_.Set(static_cast<double>(startup::ResidentBytes()));
  const struct mallinfo2 heap = ::mallinfo2();
  heap_in_use_.Set(static_cast<double>(heap.uordblks));
  heap_free_.Set(static_cast<double>(heap.fordblks));
  heap_mmapped_.Set(static_cast<double>(heap.hblkhd));
  const std::vector<storage::Store::MemoryPart> parts = store_.MemoryUsage();
  absl::MutexLock lock(&mu_);
  for (const storage::Store::MemoryPart& part : parts) {
    prometheus::Gauge*& gauge = parts_[part.part];
    if (gauge == nullptr) gauge = &store_parts_.Add({{"part", part.part}});
    gauge->Set(static_cast<double>(part.bytes));
  }
}

}  // namespace rtb::bidder
