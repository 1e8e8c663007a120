// Heap allocations of a benchmark program, counted by replacing the global
// operator new: a program that links bench_heap_allocations and calls
// HeapAllocations() counts every thread's operator new calls from its start.
#ifndef RTB_LOADTEST_BENCH_HEAP_ALLOCATIONS_H_
#define RTB_LOADTEST_BENCH_HEAP_ALLOCATIONS_H_

#include <cstdint>

namespace rtb::bench {

// Calls of operator new so far, all threads.
uint64_t HeapAllocations();

}  // namespace rtb::bench

#endif  // RTB_LOADTEST_BENCH_HEAP_ALLOCATIONS_H_
