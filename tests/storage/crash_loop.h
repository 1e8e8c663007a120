// What the crash-loop writer (crash_loop_writer.cc) and its test
// (embedded_crash_loop_test.cc) share: the tables, the rows and the lines the
// writer prints.
//
// Tables (all SYNC_WAL writes):
//   acid      families a and b, four columns each (c0..c3). Every write puts
//             one token into all eight columns, so a reader that sees two
//             different values in one row saw a torn write.
//             Rows `o<thread>-<k>` are overwritten again and again (by Put and
//             by CheckAndMutate on the current token); rows
//             `l<cycle>-<thread>-<seq>` are written once each.
//   counters  families a and b, column n: every Increment adds the same
//             amount to both, with a nonce unique to the operation.
//
// Lines on stdout, one write(2) each so none is torn:
//   ready
//   B <op> P <row> <token>                 a Put begins
//   B <op> C <row> <token> <expected>      a CheckAndMutate begins (expected
//                                          "-" when the row is new)
//   B <op> I <row> <nonce> <amount>        an Increment begins
//   A <op>                                 acknowledged: the store said OK
//   E <op> <message>                       the store said no (a failure)
//   R <reads> <torn>                       the readers' running totals
// An operation begins only after the previous one of its thread ended.
#ifndef RTB_TESTS_STORAGE_CRASH_LOOP_H_
#define RTB_TESTS_STORAGE_CRASH_LOOP_H_

#include <array>
#include <string>

#include "storage/types.h"

namespace rtb::storage::testing::crash_loop {

inline constexpr char kAcidTable[] = "acid";
inline constexpr char kCountersTable[] = "counters";
inline constexpr std::array<const char*, 2> kFamilies = {"a", "b"};
inline constexpr std::array<const char*, 4> kColumns = {"c0", "c1", "c2", "c3"};
inline constexpr char kCounterColumn[] = "n";
inline constexpr int kWriterThreads = 3;
inline constexpr int kOverwrittenRowsPerThread = 4;
inline constexpr int kCounterRows = 4;

inline std::string OverwrittenRow(int thread, int k) {
  return "o" + std::to_string(thread) + "-" + std::to_string(k);
}
inline std::string LogRowPrefix(int cycle) { return "l" + std::to_string(cycle) + "-"; }
inline std::string CounterRow(int k) { return "n" + std::to_string(k); }

inline TableSchema AcidSchema() {
  TableSchema t;
  t.name = kAcidTable;
  for (const char* f : kFamilies) t.families.push_back(FamilyOptions{.name = f});
  return t;
}

inline TableSchema CountersSchema() {
  TableSchema t;
  t.name = kCountersTable;
  for (const char* f : kFamilies) t.families.push_back(FamilyOptions{.name = f});
  return t;
}

// The Put that writes `token` into every column of `row`.
inline Put WholeRow(const std::string& row, const std::string& token) {
  Put put;
  put.row = row;
  put.durability = Durability::kSyncWal;
  for (const char* f : kFamilies) {
    for (const char* c : kColumns) put.values.push_back(PutValue{f, c, token, std::nullopt});
  }
  return put;
}

// The token every column of `row` holds: "" when the row is absent, nullopt
// when the columns disagree or some are missing (a torn row).
inline std::optional<std::string> WholeRowToken(const RowResult& row) {
  if (row.empty()) return std::string();
  std::optional<std::string> token;
  for (const char* f : kFamilies) {
    for (const char* c : kColumns) {
      std::optional<std::string_view> v = row.Value(f, c);
      if (!v) return std::nullopt;
      if (!token) token = std::string(*v);
      if (*token != *v) return std::nullopt;
    }
  }
  if (row.cells.size() != kFamilies.size() * kColumns.size()) return std::nullopt;
  return token;
}

}  // namespace rtb::storage::testing::crash_loop

#endif  // RTB_TESTS_STORAGE_CRASH_LOOP_H_
