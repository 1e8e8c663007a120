// argon2id hashes for test operators, with the cheapest parameters: tests
// count answers and refusals, not cost.
#ifndef RTB_TESTS_BIDDER_SESSIONS_TEST_PASSWORD_HASH_H_
#define RTB_TESTS_BIDDER_SESSIONS_TEST_PASSWORD_HASH_H_

#include <sodium.h>

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace rtb::bidder::sessions::testing {

inline std::string TestPasswordHash(std::string_view password) {
  EXPECT_GE(sodium_init(), 0);
  char hash[crypto_pwhash_STRBYTES];
  EXPECT_EQ(crypto_pwhash_str(hash, password.data(), password.size(), crypto_pwhash_OPSLIMIT_MIN,
                              crypto_pwhash_MEMLIMIT_MIN),
            0);
  return hash;
}

}  // namespace rtb::bidder::sessions::testing

#endif  // RTB_TESTS_BIDDER_SESSIONS_TEST_PASSWORD_HASH_H_
