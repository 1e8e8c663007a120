// How the differential test (thrift2_script.h) writes answers down: one
// line per call, in a form two servers share where they may legitimately
// differ (see thrift2_script.h), and the Transcript that runs the calls.
#ifndef RTB_TESTS_STORAGE_DIFFERENTIAL_THRIFT2_TRANSCRIPT_H_
#define RTB_TESTS_STORAGE_DIFFERENTIAL_THRIFT2_TRANSCRIPT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "storage/thrift/THBaseService.h"

namespace rtb::storage::testing {

// Printable bytes as they are, others as \xNN.
std::string Escape(const std::string& bytes);
// The first line of an error; past the exception class only where clients
// match on the words.
std::string ErrorText(const std::string& message);
std::string ResultText(const thrift2::TResult& r);
std::string ResultsText(const std::vector<thrift2::TResult>& rows);
std::string MapText(const std::map<std::string, std::string>& map);
std::string NameText(const thrift2::TTableName& n);
std::string DescriptorText(const thrift2::TTableDescriptor& d);
// A system table's descriptor in the parts that do not follow the cluster's
// configuration: the name, IS_META and every family field.
std::string SystemDescriptorText(const thrift2::TTableDescriptor& d);
// Without the region server's address and start code.
std::string LocationText(const thrift2::THRegionLocation& l);

// Runs calls and writes their answers down.
class Transcript {
 public:
  Transcript(thrift2::THBaseServiceClient& client, std::string prefix)
      : c_(client), prefix_(std::move(prefix)) {}

  // Runs one call; `call` answers its text or throws what the server sent.
  void Step(const std::string& name, const std::function<std::string()>& call);
  // Scanner ids by order of appearance.
  std::string ScannerText(int32_t id);
  // The lines, server-assigned timestamps ranked ("S0", "S1", ...).
  std::vector<std::string> Finish();

  thrift2::THBaseServiceClient& c_;
  const std::string prefix_;

 private:
  std::vector<std::string> lines_;
  std::map<int32_t, size_t> scanners_;
};

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_DIFFERENTIAL_THRIFT2_TRANSCRIPT_H_
