// The fuzz entry points: one function per target, which takes any bytes,
// returns 0, and aborts when the code under test breaks a promise (ASan and
// UBSan report what they see on the way). libfuzzer_entry.cc makes each a
// libFuzzer target in the Fuzz build type; corpus_replay_test.cc runs every
// file of tests/fuzz/corpus/<target>/ through it in every build.
//
// Thread-safety: an entry point may keep state between calls (a server, a
// store) and is called from one thread at a time.
#ifndef RTB_TESTS_FUZZ_FUZZ_TARGETS_H_
#define RTB_TESTS_FUZZ_FUZZ_TARGETS_H_

#include <cstddef>
#include <cstdint>

namespace rtb::fuzz {

// Raw bytes from a client into one HTTP session (bidder/http): parser,
// router, body inflation, handlers, responses, pipelining and closing.
int FuzzHttpRequest(const uint8_t* data, size_t size);
// A bid request body into the bid-path parser (simdjson), against the
// nlohmann reader, then validation and the OpenRTB version choice.
int FuzzOpenRtbRequest(const uint8_t* data, size_t size);
// A beacon query into BeaconSigner::Verify for each beacon kind, and into
// VerifyClickToken, PercentDecode and FillMarkup.
int FuzzBeaconUrl(const uint8_t* data, size_t size);
// Thrift2 calls (binary protocol) into the storage server's processor and
// handler over an embedded store.
int FuzzThriftServer(const uint8_t* data, size_t size);
// A configuration document into ParseConfig.
int FuzzConfig(const uint8_t* data, size_t size);
// A Cookie header (and a CSRF header) into the operator session checks.
int FuzzSessionCookie(const uint8_t* data, size_t size);

}  // namespace rtb::fuzz

// Entry points that live beside the tests of their module.
namespace rtb::bidder::telemetry {
int FuzzGorillaBlock(const uint8_t* data, size_t size);
}
namespace rtb::bidder::privacy {
int FuzzTcString(const uint8_t* data, size_t size);
int FuzzGppString(const uint8_t* data, size_t size);
int FuzzUsPrivacy(const uint8_t* data, size_t size);
}  // namespace rtb::bidder::privacy

#endif  // RTB_TESTS_FUZZ_FUZZ_TARGETS_H_
