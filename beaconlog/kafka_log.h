// The beacon log on Apache Kafka (librdkafka): one topic, records keyed by
// impression id, written by every bidder's producer and read by the stream
// workers as one consumer group.
//
// Writing (OpenKafkaLogWriter): a producer with acks=all and
// enable.idempotence=true. A record's partition is the murmur2 hash of its
// key (the Java client's partitioner, so producers of either language agree),
// so the records of one impression stay in one partition, in the order they
// were appended. Append hands the record to librdkafka's local queue and
// returns; its Done runs on the writer's own thread once the broker has
// acknowledged it: on every in-sync replica (acks=all), written to the
// brokers' log files, not fsynced (a record survives a broker's crash when
// another replica has it: a production topic has replication factor 3 and
// min.insync.replicas=2; the test broker has one replica). Done gets:
//   OK                 the record is in the log;
//   ResourceExhausted  at once, inside Append, when librdkafka's local queue
//                      is full (queue.buffering.max.messages/.kbytes):
//                      nothing was kept;
//   InvalidArgument    at once, for a record over kMaxRecordBytes;
//   Unavailable        the record was not acknowledged within
//                      delivery_timeout_ms (its message names the broker's
//                      or the client's error), or the writer is closing. It
//                      may still be in the log: applying it twice is
//                      harmless (beacon_log.h).
// A broker restart (or a leader moving) is invisible to the callers while it
// lasts less than delivery_timeout_ms: librdkafka keeps the records and
// retries them, and idempotence (a producer id and a sequence number per
// partition) keeps them in order and written once within the producer's
// session; only the records still unacknowledged at the deadline fail. An
// idempotent producer that hits a fatal error (the broker lost its producer
// state, say) fails every later append (Unavailable) until it is reopened.
//
// Reading (OpenKafkaLogReader): a member of the consumer group `group_id`
// subscribed to the topic. The group's coordinator spreads the topic's
// partitions over the members (librdkafka's range/roundrobin assignors: each
// partition to exactly one member), and moves them when a member joins,
// leaves or stops answering (session.timeout.ms): a rebalance. Offsets are
// committed only by Commit, synchronously, for what Poll returned (per
// partition the last offset + 1), never automatically; a reader starts each
// newly assigned partition after the group's committed offset, or at the
// oldest record when the group has none. When a rebalance takes a partition
// away, whatever this reader polled from it and not yet committed is
// dropped from its next Commit: the partition's new owner reads those
// records again from the committed offset (at least once). A broker restart
// shows in Poll as a wait: librdkafka reconnects, finds the coordinator and
// goes on fetching by itself; a Commit waits for the coordinator at most
// request_timeout, then fails (Unavailable), and the next one commits the
// same offsets and more; when the broker was away longer than
// session.timeout.ms, the group rebalances instead and the records polled
// since the last commit are read again.
//
// Lag: records = the sum over this reader's assigned partitions of (high
// watermark - the group's committed offset, asked of the coordinator; the
// low watermark when nothing is committed). The high watermark is the one
// the last fetch response carried (fetches go on all the time, so it is a
// fraction of a second old), asked of the leader when there is none yet.
// bytes = 0: Kafka does not tell without reading the records. A reader with
// no partition assigned yet reports 0.
//
// The topic is created at open (both sides) when it is missing, through the
// admin API, with `partitions` partitions and `replication_factor` replicas;
// an existing topic is left as it is. Opening fails (Unavailable) when no
// broker answers within request_timeout.
//
// Thread-safety: as beacon_log.h: the writer from any thread, a reader from
// one thread at a time (its rebalances are handled inside Poll and Commit).
#ifndef RTB_BEACONLOG_KAFKA_LOG_H_
#define RTB_BEACONLOG_KAFKA_LOG_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "beaconlog/beacon_log.h"

namespace rtb::beaconlog {

struct KafkaLogOptions {
  // bootstrap.servers: host:port[,host:port...], e.g. "127.0.0.1:9092".
  std::string brokers;
  std::string topic;
  // The consumer group of the readers (the writer ignores it).
  std::string group_id = "rtb-stream";
  // client.id, in the brokers' logs and quotas.
  std::string client_id = "rtb-bidder";
  // For a missing topic, created at open.
  int partitions = 8;
  int replication_factor = 1;
  // How long librdkafka keeps retrying a record before its Done gets
  // Unavailable (delivery.timeout.ms). Default 30 s.
  int delivery_timeout_ms = 30000;
  // Bounds opening (topic creation, metadata), each Commit and each Lag.
  absl::Duration request_timeout = absl::Seconds(15);
  // More librdkafka configuration properties, set last (so they may
  // override the ones above, except those the guarantees rest on: acks,
  // enable.idempotence, enable.auto.commit and enable.auto.offset.store are
  // refused here).
  std::map<std::string, std::string> properties;
};

absl::StatusOr<std::unique_ptr<LogWriter>> OpenKafkaLogWriter(const KafkaLogOptions& options);
absl::StatusOr<std::unique_ptr<LogReader>> OpenKafkaLogReader(const KafkaLogOptions& options);

}  // namespace rtb::beaconlog

#endif  // RTB_BEACONLOG_KAFKA_LOG_H_
