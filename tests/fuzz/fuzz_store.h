// An embedded store for fuzz targets that need storage: opened once per
// process in a fresh directory under $TMPDIR (removed at exit), with small
// caches and the bidder's tables.
//
// Thread-safety: FuzzStore() may be called from any thread; the store is
// safe for concurrent use.
#ifndef RTB_TESTS_FUZZ_FUZZ_STORE_H_
#define RTB_TESTS_FUZZ_FUZZ_STORE_H_

#include "storage/store.h"

namespace rtb::fuzz {

// Aborts when the store cannot be opened.
storage::Store& FuzzStore();

}  // namespace rtb::fuzz

#endif  // RTB_TESTS_FUZZ_FUZZ_STORE_H_
