// Where one connection's request header fields (HttpHeaders) live: a bump
// arena over one block that the connection takes at its first header field
// and keeps, emptied when a request is done. Fields beyond the block come
// from the heap until then. So a request's headers cost no call to the heap
// once its connection has served one, and a connection that never completes
// a header line holds no block.
//
// Thread-safety: none; one session's.
#ifndef RTB_BIDDER_HTTP_INTERNAL_HEADER_ARENA_H_
#define RTB_BIDDER_HTTP_INTERNAL_HEADER_ARENA_H_

#include <cstddef>
#include <memory>
#include <memory_resource>

#include "bidder/http/http_server.h"

namespace rtb::bidder::internal {

class HeaderArena {
 public:
  HeaderArena() = default;
  HeaderArena(const HeaderArena&) = delete;
  HeaderArena& operator=(const HeaderArena&) = delete;

  HttpHeaders::allocator_type allocator() { return HttpHeaders::allocator_type(&arena_); }
  // Frees every field at once; no parser may hold any.
  void Reset() { arena_.release(); }

 private:
  // The arena's first chunk, and the block that holds it with the arena's
  // bookkeeping: room for the usual dozen header lines.
  static constexpr size_t kFirstChunkBytes = 1024;
  static constexpr size_t kBlockBytes = 2048;

  // Hands the arena the same block each time it asks for no more than the
  // block holds, and anything larger, or a second chunk, from the heap.
  class KeptBlock : public std::pmr::memory_resource {
   private:
    void* do_allocate(size_t bytes, size_t alignment) override;
    void do_deallocate(void* p, size_t bytes, size_t alignment) override;
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
      return this == &other;
    }

    std::unique_ptr<std::byte[]> block_;
    bool lent_ = false;
  };

  KeptBlock block_;
  std::pmr::monotonic_buffer_resource arena_{kFirstChunkBytes, &block_};
};

}  // namespace rtb::bidder::internal

#endif  // RTB_BIDDER_HTTP_INTERNAL_HEADER_ARENA_H_
