#pragma once

// FUZZ_CHECK(cond): a property a fuzz target asserts on every input (a
// round trip, an invariant). A failure prints the condition and aborts, which
// libFuzzer reports as a crash and saves the input as crash-<sha1>.

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
