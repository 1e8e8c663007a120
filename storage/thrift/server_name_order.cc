// Thrift declares operator< for structs kept in a set<> but leaves its
// definition to the program; TServerName is one (the slow-log calls take a
// set of them). Ordered by host, then port, then start code.
#include <tuple>

#include "storage/thrift/hbase_types.h"

namespace rtb::storage::thrift2 {

bool TServerName::operator<(const TServerName& other) const {
  return std::tie(hostName, port, startCode) <
         std::tie(other.hostName, other.port, other.startCode);
}

}  // namespace rtb::storage::thrift2
