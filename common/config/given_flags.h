#pragma once

// Which command-line options were given, for "flag > file > default": the
// config file must not overwrite them. Header-only: CLI11 is header-only too.

#include <set>
#include <string>

#include "CLI/CLI.hpp"

namespace eb::common {

// "--name" for every long name of every option that appeared on the
// command line.
inline std::set<std::string> GivenFlags(const CLI::App& app) {
  std::set<std::string> given;
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0) continue;
    for (const std::string& name : option->get_lnames()) given.insert("--" + name);
  }
  return given;
}

}  // namespace eb::common
