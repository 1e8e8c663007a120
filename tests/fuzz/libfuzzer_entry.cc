// libFuzzer's entry point for one target: compiled into each <target>_fuzzer
// with RTB_FUZZ_ENTRY naming the target's function (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_targets.h"

#ifndef RTB_FUZZ_ENTRY
#error "RTB_FUZZ_ENTRY must name the fuzz entry point"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return RTB_FUZZ_ENTRY(data, size);
}
