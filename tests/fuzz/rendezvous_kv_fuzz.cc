// The coordinator's rendezvous store, driven by a sequence of Open, Close,
// Set, Wait and clock steps (fuzz_frames.h): nothing crashes, every waiter
// is answered exactly once (OK with one value per key asked, or an error),
// and none is left once every namespace is closed.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_frames.h"

namespace {

const char* const kTests[] = {"t-0", "t-1", "t-2"};

std::string TestId(absl::string_view payload) {
  return kTests[payload.empty() ? 0 : static_cast<uint8_t>(payload[0]) % 3];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  eb::testing::FakeClock clock;
  eb::testing::ManualExecutor executor(clock);
  auto kv = std::make_unique<eb::coordinator::RendezvousKv>(executor);
  auto answers = std::make_shared<int>(0);
  int waits = 0;

  eb::fuzz::FrameReader reader(data, size);
  eb::fuzz::Frame frame;
  while (reader.Next(&frame)) {
    const absl::string_view payload = frame.payload;
    const std::string test_id = TestId(payload);
    const absl::string_view rest = payload.empty() ? payload : payload.substr(1);
    switch (frame.op % 5) {
      case 0:
        // [test][ranks, one byte: the budgets scale with it]
        kv->Open(test_id, rest.empty() ? 1 : static_cast<uint8_t>(rest[0]));
        break;
      case 1:
        kv->Close(test_id, std::string(rest));
        break;
      case 2: {
        // [test][key length][key][value]
        const size_t key_length = rest.empty() ? 0 : static_cast<uint8_t>(rest[0]);
        const absl::string_view tail = rest.empty() ? rest : rest.substr(1);
        const absl::string_view key = tail.substr(0, key_length);
        const absl::string_view value = tail.substr(key.size());
        (void)kv->Set(test_id, std::string(key), std::string(value));
        break;
      }
      case 3: {
        // [test][timeout in 100 ms][comma-separated keys]
        const int64_t tenths = rest.empty() ? 0 : static_cast<int8_t>(rest[0]);
        std::vector<std::string> keys =
            absl::StrSplit(rest.empty() ? rest : rest.substr(1), ',', absl::SkipEmpty());
        const size_t asked = keys.size();
        ++waits;
        kv->Wait(test_id, std::move(keys), absl::Milliseconds(100 * tenths),
                 [answers, asked](absl::StatusOr<std::vector<std::string>> values) {
                   ++*answers;
                   if (values.ok()) FUZZ_CHECK(values->size() == asked);
                 });
        break;
      }
      default: {
        const int64_t ms = payload.empty() ? 0 : static_cast<uint8_t>(payload[0]);
        executor.AdvanceTime(absl::Milliseconds(100 * ms));
      }
    }
    executor.RunUntilIdle();
  }
  for (const char* test_id : kTests) kv->Close(test_id, "fuzz input ended");
  executor.RunUntilIdle();
  FUZZ_CHECK(kv->pending_waiters() == 0);
  FUZZ_CHECK(*answers == waits);
  kv.reset();
  executor.AdvanceTime(absl::Hours(1));
  FUZZ_CHECK(*answers == waits);
  return 0;
}
