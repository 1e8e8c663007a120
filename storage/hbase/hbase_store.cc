// The hbase backend: Store operations as THBaseService calls.
#include "storage/hbase_store.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "storage/hbase/absl_compat.h"
#include "storage/hbase/convert.h"
#include "storage/hbase/options.h"
#include "storage/hbase/transport.h"
#include "storage/hbase/wire.h"

namespace rtb::storage {
namespace {

namespace asio = boost::asio;
namespace t2 = ::rtb::storage::thrift2;
using hbase::Reply;
using hbase::ReplyCallback;
using hbase::Transport;
using Client = t2::THBaseServiceClient;
using Clock = std::chrono::steady_clock;

void CountOutcome(HBaseStoreStats& stats, const absl::Status& status) {
  if (status.ok()) return;
  if (absl::IsDeadlineExceeded(status)) {
    stats.deadline_exceeded.fetch_add(1, std::memory_order_relaxed);
  } else {
    stats.errors.fetch_add(1, std::memory_order_relaxed);
  }
}

void CountStale(HBaseStoreStats& stats, const RowResult& row) {
  if (row.stale) stats.stale_results.fetch_add(1, std::memory_order_relaxed);
}

absl::StatusOr<std::vector<RowResult>> RowsFromThrift(HBaseStoreStats& stats,
                                                      std::vector<t2::TResult>&& results) {
  std::vector<RowResult> rows;
  rows.reserve(results.size());
  for (t2::TResult& r : results) {
    rows.push_back(hbase::FromThrift(std::move(r), ""));
    CountStale(stats, rows.back());
  }
  return rows;
}

absl::StatusOr<RowResult> DecodeGet(HBaseStoreStats& stats, std::string& reply,
                                    std::string_view table, std::string_view row) {
  t2::TResult result;
  absl::Status s = hbase::DecodeReply("get", reply, [&](Client& c) { c.recv_get(result); });
  if (!s.ok()) return hbase::NameUnknownTable(s, table);
  RowResult out = hbase::FromThrift(std::move(result), row);
  CountStale(stats, out);
  return out;
}

absl::StatusOr<std::vector<RowResult>> DecodeScan(HBaseStoreStats& stats, std::string& reply,
                                                  std::string_view table) {
  std::vector<t2::TResult> results;
  absl::Status s = hbase::DecodeReply("getScannerResults", reply,
                                      [&](Client& c) { c.recv_getScannerResults(results); });
  if (!s.ok()) return hbase::NameUnknownTable(s, table);
  return RowsFromThrift(stats, std::move(results));
}

// Rows Store::Scan asks HBase for in one call.
int32_t ScanRows(int limit) { return limit > 0 ? std::min(limit, kMaxScanRows) : kMaxScanRows; }

// One TIMELINE Get sent to a second gateway when the first has not answered
// within the hedge delay (or failed). The first answer wins.
struct HedgedGet {
  explicit HedgedGet(asio::io_context& io) : timer(io) {}

  absl::Mutex mutex;
  bool finished ABSL_GUARDED_BY(mutex) = false;
  bool hedge_sent ABSL_GUARDED_BY(mutex) = false;
  int outstanding ABSL_GUARDED_BY(mutex) = 0;
  ReplyCallback done ABSL_GUARDED_BY(mutex);
  std::shared_ptr<const std::string> request;
  Deadline deadline;
  size_t primary = 0;
  asio::steady_timer timer;
};

class HBaseScanner final : public Scanner {
 public:
  HBaseScanner(std::shared_ptr<Transport> transport, std::chrono::milliseconds call_timeout,
               size_t endpoint, int32_t scanner_id, int limit)
      : transport_(std::move(transport)),
        call_timeout_(call_timeout),
        endpoint_(endpoint),
        scanner_id_(scanner_id),
        remaining_(limit > 0 ? limit : -1) {}

  // A scanner over nothing.
  HBaseScanner() : done_(true), closed_(true) {}

  ~HBaseScanner() override { Close(); }

  absl::StatusOr<std::vector<RowResult>> Next(int max_rows) override {
    if (max_rows <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Scanner::Next: max_rows must be > 0, got ", max_rows));
    }
    if (!failure_.ok()) return failure_;
    if (done_) return std::vector<RowResult>();
    int32_t wanted = remaining_ > 0 ? std::min(max_rows, remaining_) : max_rows;
    absl::StatusOr<std::string> request = hbase::EncodeRequest(
        "getScannerRows", [&](Client& c) { c.send_getScannerRows(scanner_id_, wanted); });
    if (!request.ok()) return Fail(request.status());
    auto shared = std::make_shared<const std::string>(*std::move(request));
    const Deadline deadline = Clock::now() + call_timeout_;
    Transport* transport = transport_.get();
    size_t endpoint = endpoint_;
    Reply reply = Transport::Wait(deadline, [&](ReplyCallback done) {
      // Not idempotent: a second getScannerRows would skip rows.
      transport->Send(shared, deadline, false, endpoint, std::move(done));
    });
    if (!reply.ok()) return Fail(reply.status());
    std::vector<t2::TResult> results;
    absl::Status s = hbase::DecodeReply("getScannerRows", *reply,
                                        [&](Client& c) { c.recv_getScannerRows(results); });
    if (!s.ok()) return Fail(s);
    absl::StatusOr<std::vector<RowResult>> rows =
        RowsFromThrift(transport_->stats(), std::move(results));
    if (!rows.ok()) return Fail(rows.status());
    if (remaining_ > 0) remaining_ -= static_cast<int>(rows->size());
    // HBase hands back fewer rows than asked only when the scan is over.
    if (static_cast<int32_t>(rows->size()) < wanted || remaining_ == 0) {
      done_ = true;
      Close();
    }
    return rows;
  }

 private:
  absl::Status Fail(absl::Status status) {
    CountOutcome(transport_->stats(), status);
    failure_ = status;
    done_ = true;
    Close();
    return status;
  }

  // Frees the gateway's scanner without waiting for the answer.
  void Close() {
    if (closed_) return;
    closed_ = true;
    absl::StatusOr<std::string> request =
        hbase::EncodeRequest("closeScanner", [&](Client& c) { c.send_closeScanner(scanner_id_); });
    if (!request.ok()) return;
    transport_->Send(std::make_shared<const std::string>(*std::move(request)),
                     Clock::now() + call_timeout_, false, endpoint_, [](Reply) {});
  }

  std::shared_ptr<Transport> transport_;
  std::chrono::milliseconds call_timeout_{0};
  size_t endpoint_ = 0;
  int32_t scanner_id_ = 0;
  int remaining_ = -1;  // -1: no limit
  bool done_ = false;
  bool closed_ = false;
  absl::Status failure_;
};

class HBaseStore final : public Store {
 public:
  HBaseStore(const HBaseStoreOptions& options, std::shared_ptr<Transport> transport)
      : options_(options),
        transport_(std::move(transport)),
        stats_(transport_->stats()),
        call_timeout_(options.call_timeout_ms),
        admin_timeout_(options.admin_timeout_ms),
        hedge_delay_(options.hedge_delay_ms) {}

  // ---- Admin ----

  absl::Status CreateTable(const TableSchema& schema) override {
    absl::StatusOr<t2::TTableDescriptor> descriptor = hbase::ToThrift(schema);
    if (!descriptor.ok()) return descriptor.status();
    const Deadline deadline = AdminDeadline();
    absl::StatusOr<bool> exists = Exists(schema.name, deadline);
    if (!exists.ok()) return exists.status();
    if (!*exists) {
      absl::Status created =
          Roundtrip("createTable", "",
                    hbase::EncodeRequest(
                        "createTable",
                        [&](Client& c) { c.send_createTable(*descriptor, schema.split_keys); }),
                    deadline, false, [](Client& c) { c.recv_createTable(); });
      // Someone else may have created it meanwhile; compare with theirs.
      if (!absl::IsAlreadyExists(created)) return created;
    }
    t2::TTableDescriptor existing;
    t2::TTableName name = hbase::ToThriftTableName(schema.name);
    absl::Status read =
        Roundtrip("getTableDescriptor", "",
                  hbase::EncodeRequest("getTableDescriptor",
                                       [&](Client& c) { c.send_getTableDescriptor(name); }),
                  deadline, true, [&](Client& c) { c.recv_getTableDescriptor(existing); });
    if (!read.ok()) return read;
    if (!hbase::SameDefinition(schema, hbase::FromThrift(existing))) {
      return absl::AlreadyExistsError(
          absl::StrCat("table '", schema.name, "' exists in hbase with a different definition"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<bool> TableExists(std::string_view table) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    return Exists(table, CallDeadline());
  }

  absl::Status DeleteTable(std::string_view table) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    const Deadline deadline = AdminDeadline();
    absl::StatusOr<bool> exists = Exists(table, deadline);
    if (!exists.ok()) return exists.status();
    if (!*exists) {
      return absl::NotFoundError(absl::StrCat("table '", hbase::AsAbsl(table), "' does not exist"));
    }
    const t2::TTableName name = hbase::ToThriftTableName(table);
    bool enabled = false;
    absl::Status s = Roundtrip(
        "isTableEnabled", "",
        hbase::EncodeRequest("isTableEnabled", [&](Client& c) { c.send_isTableEnabled(name); }),
        deadline, true, [&](Client& c) { enabled = c.recv_isTableEnabled(); });
    if (!s.ok()) return s;
    if (enabled) {
      s = Roundtrip(
          "disableTable", "",
          hbase::EncodeRequest("disableTable", [&](Client& c) { c.send_disableTable(name); }),
          deadline, false, [](Client& c) { c.recv_disableTable(); });
      if (!s.ok()) return s;
    }
    return Roundtrip(
        "deleteTable", "",
        hbase::EncodeRequest("deleteTable", [&](Client& c) { c.send_deleteTable(name); }), deadline,
        false, [](Client& c) { c.recv_deleteTable(); });
  }

  // ---- Reads ----

  absl::StatusOr<RowResult> Get(std::string_view table, const storage::Get& get) override {
    absl::StatusOr<std::string> request = EncodeGet(table, get);
    if (!request.ok()) return request.status();
    auto shared = std::make_shared<const std::string>(*std::move(request));
    const Deadline deadline = CallDeadline();
    Reply reply = Transport::Wait(deadline, [&](ReplyCallback done) {
      SendGet(shared, get.consistency, deadline, std::move(done));
    });
    if (!reply.ok()) return Counted(reply.status());
    absl::StatusOr<RowResult> row = DecodeGet(stats_, *reply, table, get.row);
    CountOutcome(stats_, row.status());
    return row;
  }

  absl::StatusOr<std::vector<RowResult>> MultiGet(std::string_view table,
                                                  std::span<const storage::Get> gets) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    if (gets.empty()) return std::vector<RowResult>();
    std::vector<t2::TGet> tgets;
    tgets.reserve(gets.size());
    for (const storage::Get& g : gets) {
      absl::StatusOr<t2::TGet> tget = hbase::ToThrift(g);
      if (!tget.ok()) return tget.status();
      tgets.push_back(*std::move(tget));
    }
    std::vector<t2::TResult> results;
    const std::string name(table);
    absl::Status s = Roundtrip(
        "getMultiple", name,
        hbase::EncodeRequest("getMultiple", [&](Client& c) { c.send_getMultiple(name, tgets); }),
        CallDeadline(), true, [&](Client& c) { c.recv_getMultiple(results); });
    if (!s.ok()) return s;
    if (results.size() != gets.size()) {
      return Counted(absl::InternalError(absl::StrCat("hbase getMultiple answered ", results.size(),
                                                      " rows for ", gets.size(), " gets")));
    }
    std::vector<RowResult> rows;
    rows.reserve(results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      rows.push_back(hbase::FromThrift(std::move(results[i]), gets[i].row));
      CountStale(stats_, rows.back());
    }
    return rows;
  }

  absl::StatusOr<std::vector<RowResult>> Scan(std::string_view table,
                                              const storage::Scan& scan) override {
    absl::StatusOr<std::string> request;
    absl::StatusOr<bool> nothing = EncodeScan(table, scan, &request);
    if (!nothing.ok()) return nothing.status();
    if (*nothing) return std::vector<RowResult>();
    auto shared = std::make_shared<const std::string>(*std::move(request));
    const Deadline deadline = CallDeadline();
    Reply reply = Transport::Wait(deadline, [&](ReplyCallback done) {
      transport_->Send(shared, deadline, true, std::nullopt, std::move(done));
    });
    if (!reply.ok()) return Counted(reply.status());
    absl::StatusOr<std::vector<RowResult>> rows = DecodeScan(stats_, *reply, table);
    CountOutcome(stats_, rows.status());
    return rows;
  }

  absl::StatusOr<std::unique_ptr<Scanner>> OpenScanner(std::string_view table,
                                                       const storage::Scan& scan) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    absl::StatusOr<hbase::ScanPlan> plan = hbase::PlanScan(scan, /*collecting=*/false);
    if (!plan.ok()) return plan.status();
    if (plan->matches_nothing) return std::unique_ptr<Scanner>(new HBaseScanner());
    const std::string name(table);
    absl::StatusOr<std::string> request = hbase::EncodeRequest(
        "openScanner", [&](Client& c) { c.send_openScanner(name, plan->scan); });
    if (!request.ok()) return request.status();
    auto shared = std::make_shared<const std::string>(*std::move(request));
    const Deadline deadline = CallDeadline();
    // A scanner lives in the gateway that opened it; remember which one.
    size_t endpoint = transport_->PickEndpoint();
    Reply reply = absl::UnavailableError("no hbase gateway");
    for (size_t tried = 0; tried < transport_->endpoint_count(); ++tried) {
      reply = Transport::Wait(deadline, [&](ReplyCallback done) {
        transport_->Send(shared, deadline, false, endpoint, std::move(done));
      });
      if (reply.ok() || !absl::IsUnavailable(reply.status())) break;
      endpoint = (endpoint + 1) % transport_->endpoint_count();
    }
    if (!reply.ok()) return Counted(reply.status());
    int32_t id = 0;
    absl::Status s =
        hbase::DecodeReply("openScanner", *reply, [&](Client& c) { id = c.recv_openScanner(); });
    if (!s.ok()) return Counted(hbase::NameUnknownTable(s, table));
    return std::unique_ptr<Scanner>(
        new HBaseScanner(transport_, call_timeout_, endpoint, id, plan->limit));
  }

  void AsyncGet(std::string_view table, storage::Get get, Deadline deadline,
                asio::any_io_executor executor, GetCallback done) override {
    auto finish = [stats = &stats_, executor,
                   done = std::move(done)](absl::StatusOr<RowResult> result) {
      CountOutcome(*stats, result.status());
      asio::post(executor,
                 [done, result = std::move(result)]() mutable { done(std::move(result)); });
    };
    absl::StatusOr<std::string> request = EncodeGet(table, get);
    if (!request.ok()) return finish(request.status());
    if (Clock::now() >= deadline) {
      return finish(absl::DeadlineExceededError("AsyncGet: deadline passed before sending"));
    }
    SendGet(std::make_shared<const std::string>(*std::move(request)), get.consistency, deadline,
            [stats = &stats_, finish, name = std::string(table),
             row = std::move(get.row)](Reply reply) {
              if (!reply.ok()) return finish(reply.status());
              finish(DecodeGet(*stats, *reply, name, row));
            });
  }

  void AsyncScan(std::string_view table, storage::Scan scan, Deadline deadline,
                 asio::any_io_executor executor, ScanCallback done) override {
    auto finish = [stats = &stats_, executor,
                   done = std::move(done)](absl::StatusOr<std::vector<RowResult>> result) {
      CountOutcome(*stats, result.status());
      asio::post(executor,
                 [done, result = std::move(result)]() mutable { done(std::move(result)); });
    };
    absl::StatusOr<std::string> request;
    absl::StatusOr<bool> nothing = EncodeScan(table, scan, &request);
    if (!nothing.ok()) return finish(nothing.status());
    if (*nothing) return finish(std::vector<RowResult>());
    if (Clock::now() >= deadline) {
      return finish(absl::DeadlineExceededError("AsyncScan: deadline passed before sending"));
    }
    transport_->Send(std::make_shared<const std::string>(*std::move(request)), deadline, true,
                     std::nullopt,
                     [stats = &stats_, finish, name = std::string(table)](Reply reply) {
                       if (!reply.ok()) return finish(reply.status());
                       finish(DecodeScan(*stats, *reply, name));
                     });
  }

  // ---- Writes ----

  absl::Status Put(std::string_view table, const storage::Put& put) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    absl::StatusOr<t2::TPut> tput = hbase::ToThrift(put, options_.default_durability);
    if (!tput.ok()) return tput.status();
    const std::string name(table);
    // Resending a Put writes the same cells again: harmless.
    return Roundtrip("put", name,
                     hbase::EncodeRequest("put", [&](Client& c) { c.send_put(name, *tput); }),
                     CallDeadline(), true, [](Client& c) { c.recv_put(); });
  }

  absl::Status PutBatch(std::string_view table, std::span<const storage::Put> puts) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    if (puts.empty()) return absl::OkStatus();
    std::vector<t2::TPut> tputs;
    tputs.reserve(puts.size());
    for (const storage::Put& p : puts) {
      absl::StatusOr<t2::TPut> tput = hbase::ToThrift(p, options_.default_durability);
      if (!tput.ok()) return tput.status();
      tputs.push_back(*std::move(tput));
    }
    const std::string name(table);
    return Roundtrip(
        "putMultiple", name,
        hbase::EncodeRequest("putMultiple", [&](Client& c) { c.send_putMultiple(name, tputs); }),
        CallDeadline(), true, [](Client& c) { c.recv_putMultiple(); });
  }

  absl::Status Delete(std::string_view table, const storage::Delete& del) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    absl::StatusOr<std::vector<t2::TDelete>> tdeletes =
        hbase::ToThrift(del, options_.default_durability);
    if (!tdeletes.ok()) return tdeletes.status();
    const std::string name(table);
    if (tdeletes->size() == 1) {
      return Roundtrip(
          "deleteSingle", name,
          hbase::EncodeRequest("deleteSingle",
                               [&](Client& c) { c.send_deleteSingle(name, tdeletes->front()); }),
          CallDeadline(), true, [](Client& c) { c.recv_deleteSingle(); });
    }
    return MutateRow(name, del);
  }

  absl::Status DeleteBatch(std::string_view table,
                           std::span<const storage::Delete> deletes) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    const std::string name(table);
    std::vector<t2::TDelete> simple;
    std::vector<const storage::Delete*> mixed;  // need mutateRow to stay atomic
    for (const storage::Delete& d : deletes) {
      absl::StatusOr<std::vector<t2::TDelete>> parts =
          hbase::ToThrift(d, options_.default_durability);
      if (!parts.ok()) return parts.status();
      if (parts->size() == 1) {
        simple.push_back(std::move(parts->front()));
      } else {
        mixed.push_back(&d);
      }
    }
    if (!simple.empty()) {
      std::vector<t2::TDelete> ignored;
      absl::Status s =
          Roundtrip("deleteMultiple", name,
                    hbase::EncodeRequest("deleteMultiple",
                                         [&](Client& c) { c.send_deleteMultiple(name, simple); }),
                    CallDeadline(), true, [&](Client& c) { c.recv_deleteMultiple(ignored); });
      if (!s.ok()) return s;
    }
    for (const storage::Delete* d : mixed) {
      if (absl::Status s = MutateRow(name, *d); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<RowResult> Increment(std::string_view table,
                                      const storage::Increment& increment) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    absl::StatusOr<t2::TIncrement> tincrement =
        hbase::ToThrift(increment, options_.default_durability);
    if (!tincrement.ok()) return tincrement.status();
    const std::string name(table);
    t2::TResult result;
    // Never resent: Thrift2 carries no nonce, so a second send would count twice.
    absl::Status s = Roundtrip(
        "increment", name,
        hbase::EncodeRequest("increment", [&](Client& c) { c.send_increment(name, *tincrement); }),
        CallDeadline(), false, [&](Client& c) { c.recv_increment(result); });
    if (!s.ok()) return s;
    return hbase::FromThrift(std::move(result), increment.row);
  }

  absl::StatusOr<bool> CheckAndMutate(std::string_view table,
                                      const storage::CheckAndMutate& cam) override {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    absl::StatusOr<hbase::CheckAndMutateRequest> request =
        hbase::ToThrift(cam, options_.default_durability);
    if (!request.ok()) return request.status();
    const std::string name(table);
    bool applied = false;
    absl::Status s =
        Roundtrip("checkAndMutate", name,
                  hbase::EncodeRequest("checkAndMutate",
                                       [&](Client& c) {
                                         c.send_checkAndMutate(name, cam.row, cam.family,
                                                               cam.qualifier, request->op,
                                                               request->value, request->mutations);
                                       }),
                  CallDeadline(), false, [&](Client& c) { applied = c.recv_checkAndMutate(); });
    if (!s.ok()) return s;
    return applied;
  }

  absl::Status Flush(std::string_view) override {
    return absl::UnimplementedError(
        "the hbase backend cannot flush: Thrift2 has no such call (use the HBase shell)");
  }

  absl::Status MajorCompact(std::string_view) override {
    return absl::UnimplementedError(
        "the hbase backend cannot compact: Thrift2 has no such call (use the HBase shell)");
  }

  absl::Status CheckHealth() override {
    t2::TTableName meta;
    meta.__set_ns("hbase");
    meta.qualifier = "meta";
    absl::StatusOr<std::string> request =
        hbase::EncodeRequest("tableExists", [&](Client& c) { c.send_tableExists(meta); });
    if (!request.ok()) return request.status();
    auto shared = std::make_shared<const std::string>(*std::move(request));
    absl::Status last;
    for (size_t e = 0; e < transport_->endpoint_count(); ++e) {
      const Deadline deadline = CallDeadline();
      Reply reply = Transport::Wait(deadline, [&](ReplyCallback done) {
        transport_->Send(shared, deadline, true, e, std::move(done));
      });
      if (reply.ok()) {
        bool exists = false;
        last = hbase::DecodeReply("tableExists", *reply,
                                  [&](Client& c) { exists = c.recv_tableExists(); });
        if (last.ok() && exists) return absl::OkStatus();
        if (last.ok()) last = absl::InternalError("hbase says hbase:meta does not exist");
      } else {
        last = reply.status();
      }
    }
    return absl::UnavailableError(absl::StrCat("no hbase gateway answers: ", last.message()));
  }

 private:
  Deadline CallDeadline() const { return Clock::now() + call_timeout_; }
  Deadline AdminDeadline() const { return Clock::now() + admin_timeout_; }

  absl::Status Counted(absl::Status status) {
    CountOutcome(stats_, status);
    return status;
  }

  // Sends, waits until the reply or the deadline, and reads the reply.
  // `table` names the table of a data call, for the error of a missing one.
  template <typename Receive>
  absl::Status Roundtrip(std::string_view call, std::string_view table,
                         absl::StatusOr<std::string> request, Deadline deadline, bool idempotent,
                         Receive&& receive) {
    if (!request.ok()) return request.status();
    auto shared = std::make_shared<const std::string>(*std::move(request));
    Reply reply = Transport::Wait(deadline, [&](ReplyCallback done) {
      transport_->Send(shared, deadline, idempotent, std::nullopt, std::move(done));
    });
    if (!reply.ok()) return Counted(reply.status());
    return Counted(hbase::NameUnknownTable(
        hbase::DecodeReply(call, *reply, std::forward<Receive>(receive)), table));
  }

  absl::StatusOr<bool> Exists(std::string_view table, Deadline deadline) {
    const t2::TTableName name = hbase::ToThriftTableName(table);
    bool exists = false;
    absl::Status s =
        Roundtrip("tableExists", "",
                  hbase::EncodeRequest("tableExists", [&](Client& c) { c.send_tableExists(name); }),
                  deadline, true, [&](Client& c) { exists = c.recv_tableExists(); });
    if (!s.ok()) return s;
    return exists;
  }

  absl::Status MutateRow(const std::string& table, const storage::Delete& del) {
    absl::StatusOr<t2::TRowMutations> mutations =
        hbase::ToRowMutations(del.row, {}, {&del, 1}, options_.default_durability);
    if (!mutations.ok()) return mutations.status();
    return Roundtrip(
        "mutateRow", table,
        hbase::EncodeRequest("mutateRow", [&](Client& c) { c.send_mutateRow(table, *mutations); }),
        CallDeadline(), true, [](Client& c) { c.recv_mutateRow(); });
  }

  absl::StatusOr<std::string> EncodeGet(std::string_view table, const storage::Get& get) {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    absl::StatusOr<t2::TGet> tget = hbase::ToThrift(get);
    if (!tget.ok()) return tget.status();
    const std::string name(table);
    return hbase::EncodeRequest("get", [&](Client& c) { c.send_get(name, *tget); });
  }

  // Fills `request` and answers false, or answers true when the scan cannot
  // match any row and needs no call.
  absl::StatusOr<bool> EncodeScan(std::string_view table, const storage::Scan& scan,
                                  absl::StatusOr<std::string>* request) {
    if (absl::Status s = hbase::CheckTableName(table); !s.ok()) return s;
    absl::StatusOr<hbase::ScanPlan> plan = hbase::PlanScan(scan, /*collecting=*/true);
    if (!plan.ok()) return plan.status();
    if (plan->matches_nothing) return true;
    const std::string name(table);
    const int32_t rows = ScanRows(scan.limit);
    *request = hbase::EncodeRequest(
        "getScannerResults", [&](Client& c) { c.send_getScannerResults(name, plan->scan, rows); });
    if (!request->ok()) return request->status();
    return false;
  }

  bool Hedges(Consistency consistency) const {
    return consistency == Consistency::kTimeline && hedge_delay_.count() > 0 &&
           transport_->endpoint_count() >= 2;
  }

  void SendGet(std::shared_ptr<const std::string> request, Consistency consistency,
               Deadline deadline, ReplyCallback done) {
    if (!Hedges(consistency)) {
      transport_->Send(std::move(request), deadline, true, std::nullopt, std::move(done));
      return;
    }
    auto h = std::make_shared<HedgedGet>(transport_->io());
    h->request = std::move(request);
    h->deadline = deadline;
    h->primary = transport_->PickEndpoint();
    {
      absl::MutexLock lock(&h->mutex);
      h->done = std::move(done);
    }
    Transport* transport = transport_.get();
    Launch(transport, h, /*hedge=*/false);
    h->timer.expires_at(std::min(deadline, Clock::now() + hedge_delay_));
    h->timer.async_wait([transport, h](const boost::system::error_code& error) {
      if (!error) LaunchHedge(transport, h);
    });
  }

  // The hedging steps run on I/O threads, possibly while the store is being
  // destroyed, so they reach only the transport (which outlives its threads).
  static void Launch(Transport* transport, const std::shared_ptr<HedgedGet>& h, bool hedge) {
    size_t endpoint = hedge ? (h->primary + 1) % transport->endpoint_count() : h->primary;
    {
      absl::MutexLock lock(&h->mutex);
      ++h->outstanding;
    }
    transport->Send(h->request, h->deadline, true, endpoint, [transport, h, hedge](Reply reply) {
      OnAnswer(transport, h, hedge, std::move(reply));
    });
  }

  static void LaunchHedge(Transport* transport, const std::shared_ptr<HedgedGet>& h) {
    {
      absl::MutexLock lock(&h->mutex);
      if (h->finished || h->hedge_sent || Clock::now() >= h->deadline) return;
      h->hedge_sent = true;
    }
    transport->stats().hedged_gets.fetch_add(1, std::memory_order_relaxed);
    Launch(transport, h, /*hedge=*/true);
  }

  static void OnAnswer(Transport* transport, const std::shared_ptr<HedgedGet>& h, bool hedge,
                       Reply reply) {
    HBaseStoreStats& stats = transport->stats();
    ReplyCallback done;
    bool fail_over = false;
    {
      absl::MutexLock lock(&h->mutex);
      --h->outstanding;
      if (h->finished) {
        stats.late_answers.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      if (reply.ok()) {
        h->finished = true;
        if (h->hedge_sent) {
          (hedge ? stats.hedge_wins : stats.primary_wins).fetch_add(1, std::memory_order_relaxed);
        }
        done = std::move(h->done);
      } else if (absl::IsUnavailable(reply.status()) && !h->hedge_sent &&
                 Clock::now() < h->deadline) {
        // The first gateway cannot be reached: ask the second one now.
        h->hedge_sent = true;
        fail_over = true;
      } else if (h->outstanding == 0) {
        h->finished = true;
        done = std::move(h->done);
      }
    }
    if (fail_over) {
      stats.hedged_gets.fetch_add(1, std::memory_order_relaxed);
      Launch(transport, h, /*hedge=*/true);
      return;
    }
    if (done) done(std::move(reply));
  }

  const HBaseStoreOptions options_;
  std::shared_ptr<Transport> transport_;
  HBaseStoreStats& stats_;
  const std::chrono::milliseconds call_timeout_;
  const std::chrono::milliseconds admin_timeout_;
  const std::chrono::milliseconds hedge_delay_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> OpenHBaseStore(const HBaseStoreOptions& options) {
  if (absl::Status s = ValidateHBaseStoreOptions(options); !s.ok()) return s;
  std::vector<hbase::HostPort> endpoints;
  for (const std::string& e : options.endpoints) {
    absl::StatusOr<hbase::HostPort> parsed = hbase::ParseEndpoint(e);
    if (!parsed.ok()) return parsed.status();
    endpoints.push_back(*std::move(parsed));
  }
  hbase::TransportSettings settings;
  settings.pool.framing = options.transport;
  settings.pool.connect_timeout = std::chrono::milliseconds(options.connect_timeout_ms);
  settings.pool.pool_size = options.pool_size_per_endpoint;
  settings.pool.max_message_bytes = static_cast<size_t>(options.max_message_bytes);
  settings.io_threads = options.io_threads;
  std::shared_ptr<HBaseStoreStats> stats =
      options.stats ? options.stats : std::make_shared<HBaseStoreStats>();
  absl::StatusOr<std::unique_ptr<Transport>> transport =
      Transport::Start(endpoints, settings, std::move(stats));
  if (!transport.ok()) return transport.status();
  return std::unique_ptr<Store>(
      new HBaseStore(options, std::shared_ptr<Transport>(*std::move(transport))));
}

}  // namespace rtb::storage
