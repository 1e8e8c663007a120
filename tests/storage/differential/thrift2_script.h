// One script of Thrift2 calls (HBase 2.6's THBaseService, through the client
// generated from storage/thrift/hbase.thrift) whose answers are written down
// call by call, so that two gateways can be compared: storage-server and
// HBase's. Every table and namespace the script makes starts with a prefix
// unique to the run, which the transcript writes as "$", so runs against a
// shared HBase neither collide nor differ.
//
// What legitimately differs between two servers is written in a form both
// share: timestamps the server assigned (ranked by order over the whole
// transcript, "S0", "S1", ...), scanner ids (by order of appearance), region
// servers' host, port and start code, the cluster id (its length), and error
// messages beyond the exception class except where clients match on the
// words (missing tables and namespaces, existing ones, family operations,
// enabled and disabled states).
#ifndef RTB_TESTS_STORAGE_DIFFERENTIAL_THRIFT2_SCRIPT_H_
#define RTB_TESTS_STORAGE_DIFFERENTIAL_THRIFT2_SCRIPT_H_

#include <string>
#include <vector>

#include "storage/thrift/THBaseService.h"

namespace rtb::storage::testing {

// Runs the script with `client` and answers one line per call:
// "<index> <call>: <answer>". `prefix` names the run's tables and namespaces.
std::vector<std::string> RunThrift2Script(thrift2::THBaseServiceClient& client,
                                          const std::string& prefix);

class Transcript;
// The parts of the script in thrift2_script_admin.cc.
void Namespaces(Transcript& s, const std::string& ns);
void Families(Transcript& s, const std::string& t1);
void Lifecycle(Transcript& s, const std::string& t1);
void AccessControl(Transcript& s, const std::string& t1);

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_DIFFERENTIAL_THRIFT2_SCRIPT_H_
