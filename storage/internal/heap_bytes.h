// What a string holds outside itself, for the memory accounting of caches.
#ifndef RTB_STORAGE_INTERNAL_HEAP_BYTES_H_
#define RTB_STORAGE_INTERNAL_HEAP_BYTES_H_

#include <cstddef>
#include <string>

namespace rtb::storage::internal {

// Nothing while the text fits in place (the small-string buffer).
inline size_t HeapBytes(const std::string& s) {
  return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
}

}  // namespace rtb::storage::internal

#endif  // RTB_STORAGE_INTERNAL_HEAP_BYTES_H_
