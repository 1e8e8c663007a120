// What a thread of the project may say about itself to the kernel: its name
// (as top -H and perf show it) and a lower CPU priority, for the threads
// whose work may wait while the bid path's may not (the HTTP server's intake,
// the beacon stream worker).
#ifndef RTB_THREADS_THREADS_H_
#define RTB_THREADS_THREADS_H_

#include <string_view>

namespace rtb::threads {

// Names the calling thread; the kernel keeps the first 15 bytes.
void NameThisThread(std::string_view name);

// Raises the calling thread's nice value by `steps` (Linux keeps a nice
// value per thread), to at most 19. Lowering a priority needs no privilege;
// should it fail all the same, the thread runs at the process's priority,
// as it would with steps = 0.
void LowerThisThreadPriority(int steps);

}  // namespace rtb::threads

#endif  // RTB_THREADS_THREADS_H_
