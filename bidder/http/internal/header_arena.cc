#include "bidder/http/internal/header_arena.h"

#include <cstddef>

namespace rtb::bidder::internal {

void* HeaderArena::KeptBlock::do_allocate(size_t bytes, size_t alignment) {
  if (lent_ || bytes > kBlockBytes || alignment > alignof(std::max_align_t)) {
    return std::pmr::new_delete_resource()->allocate(bytes, alignment);
  }
  if (block_ == nullptr) block_ = std::make_unique<std::byte[]>(kBlockBytes);
  lent_ = true;
  return block_.get();
}

void HeaderArena::KeptBlock::do_deallocate(void* p, size_t bytes, size_t alignment) {
  if (p == block_.get()) {
    lent_ = false;
    return;
  }
  std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
}

}  // namespace rtb::bidder::internal
