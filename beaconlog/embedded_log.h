// The embedded beacon log: segment files in one directory of the bidder's
// local disk, one writer process and one reader (in the bidder, or
// rtb-stream on the same machine).
//
// Layout of `path`:
//   <20-digit start position>.seg  segments; a position is the byte offset
//                                  of a record in the whole log, and a
//                                  record never spans two segments
//   committed                      the reader's committed position (text),
//                                  replaced atomically (write, fsync, rename)
//   writer.lock, reader.lock       flock()s: a second writer or reader on the
//                                  same directory is refused at open
// A record is [u32 key length][u32 payload length][u32 CRC-32 of both
// lengths, the key and the payload][key][payload], little-endian.
//
// Durability (`sync`):
//   kEveryBatch  (default) appends are grouped: one write() and one
//                fdatasync() per group, and no record of the group is
//                acknowledged before its fdatasync returns. Survives the
//                process's and the machine's crash.
//   kNone        acknowledged once written to the kernel: survives the
//                process's crash (SIGKILL, OOM), not the machine's.
// An fdatasync costs about the same whether it carries one record or a
// hundred (on a virtual machine, two doorbell exits and a wake-up: 60-100 us
// of CPU), so under a light load, when each group is one beacon, it is most
// of a beacon's cost. group_wait_us trades latency for that: the writer
// waits that long after a group's first record for more before it writes
// and syncs, so every beacon's answer waits up to that much longer and each
// sync serves the beacons of the whole wait.
// A failed write or fdatasync breaks the writer: every later append fails
// (Unavailable) until the process reopens the log, because after a failed
// fdatasync the kernel may have dropped pages it reported written, and a
// retry cannot tell. At open the writer cuts a torn tail (an incomplete
// record or one whose CRC does not match) off the last segment; complete
// records written but never acknowledged stay and are read, which applying
// twice makes harmless.
//
// Bounded: the bytes between the committed position and the end, plus
// those taken and not yet written, stay below max_bytes; an append that
// would pass it is refused (ResourceExhausted) and nothing is dropped. The
// reader deletes the segments wholly before its committed position.
//
// Thread-safety: EmbeddedLogWriter as LogWriter (any thread); one thread at a
// time per EmbeddedLogReader.
#ifndef RTB_BEACONLOG_EMBEDDED_LOG_H_
#define RTB_BEACONLOG_EMBEDDED_LOG_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "beaconlog/beacon_log.h"

namespace rtb::beaconlog {

enum class SyncPolicy { kEveryBatch, kNone };

struct EmbeddedLogOptions {
  // The log's directory, created when missing.
  std::string path;
  // A new segment is started once the current one holds this many bytes.
  // Default 64 MiB.
  int64_t segment_bytes = int64_t{64} << 20;
  // Uncommitted bytes at most (see "Bounded"). Default 1 GiB.
  int64_t max_bytes = int64_t{1} << 30;
  SyncPolicy sync = SyncPolicy::kEveryBatch;
  // With kEveryBatch, how long a group's first record waits for others
  // before the group is written and synced, us. 0: none. Range [0, 100000].
  int group_wait_us = 0;
};

// The writer's side. Appends run on a thread of its own.
absl::StatusOr<std::unique_ptr<LogWriter>> OpenEmbeddedLogWriter(const EmbeddedLogOptions& options);

// The reader's side; `options.path` and `options.segment_bytes` are read
// (the rest belongs to the writer). The position starts after the committed
// one; without a committed position, at the oldest segment.
absl::StatusOr<std::unique_ptr<LogReader>> OpenEmbeddedLogReader(const EmbeddedLogOptions& options);

}  // namespace rtb::beaconlog

#endif  // RTB_BEACONLOG_EMBEDDED_LOG_H_
