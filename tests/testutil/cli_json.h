#pragma once

// The JSON document an ebctl command printed on stdout, for integration
// tests; a test failure that shows both streams when it is not JSON.

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {

inline nlohmann::json ParseJsonOut(const CliResult& result) {
  nlohmann::json document = nlohmann::json::parse(result.out, nullptr, false);
  EXPECT_FALSE(document.is_discarded()) << "stdout: " << result.out << "\nstderr: " << result.err;
  return document;
}

}  // namespace eb::testing
