// Memory for one request's header fields. Beast's field list allocates once
// per field; a connection's arena instead hands out one block front to back
// and takes it back whole when the connection's next request begins, so a
// request's headers cost no allocation up to kBlockBytes. Larger header sets
// take the rest from the heap. The block is allocated at the connection's
// first request (a connection that never sends one costs nothing) and kept
// until it closes.
//
// Thread-safety: none; an arena belongs to one connection, on its thread.
#ifndef RTB_BIDDER_HTTP_HEADER_ARENA_H_
#define RTB_BIDDER_HTTP_HEADER_ARENA_H_

#include <cstddef>
#include <memory>
#include <new>

namespace rtb::bidder {

class HeaderArena {
 public:
  static constexpr size_t kBlockBytes = 2048;

  HeaderArena() = default;
  HeaderArena(const HeaderArena&) = delete;
  HeaderArena& operator=(const HeaderArena&) = delete;

  void* Allocate(size_t bytes, size_t alignment) {
    if (block_ == nullptr) block_ = std::make_unique<Block>();
    const size_t start = (used_ + alignment - 1) / alignment * alignment;
    if (alignment > alignof(std::max_align_t) || start + bytes > kBlockBytes) {
      return ::operator new(bytes, std::align_val_t(alignment));
    }
    used_ = start + bytes;
    return block_->bytes + start;
  }
  void Deallocate(void* memory, size_t /*bytes*/, size_t alignment) {
    if (Owns(memory)) return;  // taken back whole by Reset
    FreeFromHeap(memory, alignment);
  }
  // Takes every block byte back: only once nothing allocated here is in use.
  void Reset() { used_ = 0; }
  // Block bytes handed out since the last Reset.
  size_t used() const { return used_; }

 private:
  struct Block {
    alignas(std::max_align_t) char bytes[kBlockBytes];
  };
  // Out of line: inlined, the compiler cannot tell that a block pointer
  // never gets here, and warns of freeing one.
  [[gnu::noinline]] static void FreeFromHeap(void* memory, size_t alignment) {
    ::operator delete(memory, std::align_val_t(alignment));
  }
  bool Owns(const void* memory) const {
    const char* p = static_cast<const char*>(memory);
    return block_ != nullptr && p >= block_->bytes && p < block_->bytes + kBlockBytes;
  }

  std::unique_ptr<Block> block_;
  size_t used_ = 0;
};

// Allocates from an arena, or from the heap when it has none (default
// constructed: header fields built outside a connection, as in tests).
template <typename T>
class HeaderAllocator {
 public:
  using value_type = T;

  HeaderAllocator() = default;
  explicit HeaderAllocator(HeaderArena* arena) : arena_(arena) {}
  template <typename U>
  HeaderAllocator(const HeaderAllocator<U>& other) : arena_(other.arena()) {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    if (arena_ == nullptr) return std::allocator<T>().allocate(n);
    return static_cast<T*>(arena_->Allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* memory, size_t n) {
    if (arena_ == nullptr) return std::allocator<T>().deallocate(memory, n);
    arena_->Deallocate(memory, n * sizeof(T), alignof(T));
  }

  HeaderArena* arena() const { return arena_; }
  template <typename U>
  bool operator==(const HeaderAllocator<U>& other) const {
    return arena_ == other.arena();
  }

 private:
  HeaderArena* arena_ = nullptr;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_HTTP_HEADER_ARENA_H_
