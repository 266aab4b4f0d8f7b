# Warning flags for our own targets only (generated and third-party code is
# compiled without them). CI configures with -DEB_WERROR=ON.
function(eb_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
      -Wcast-align -Wunused -Woverloaded-virtual -Wimplicit-fallthrough
      -Wno-missing-field-initializers>)
  if(EB_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
  eb_target_sanitize(${target})
  # EB_PROGRAM_MAINS_AT_O0 (CI's plain tree): the rule of the instrumented
  # trees below for the four programs, whose main.cc is flag parsing and
  # start-up; not the load generator, whose hot code is its own.
  if(EB_PROGRAM_MAINS_AT_O0 AND target MATCHES "^(eb-coordinator|eb-agent|eb-worker|ebctl)$")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O0>)
  endif()
endfunction()

# -DEB_SANITIZE=address|undefined|address,undefined|thread instruments our
# targets (tests/run-all.sh runs the unit and integration tests under
# address,undefined and under thread). Debian's libraries are not
# instrumented; under thread, every executable gets tests/sanitize/
# absl_tsan_shim.cc so that TSan sees absl::Mutex's happens-before edges.
function(eb_target_sanitize target)
  if(NOT EB_SANITIZE)
    return()
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${EB_SANITIZE} -fno-omit-frame-pointer>)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12's -Wmaybe-uninitialized misfires on std::variant and
    # std::optional under the sanitizers' instrumentation (the plain build
    # keeps it).
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
  endif()
  # Our own code: tests/fuzz gives libFuzzer's coverage instrumentation to
  # such targets where a fuzz target links them (eb_fuzz_coverage).
  set_property(TARGET ${target} PROPERTY EB_OWN_CODE TRUE)
  if(EB_SANITIZE MATCHES "undefined")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>)
  endif()
  target_link_options(${target} PRIVATE -fsanitize=${EB_SANITIZE})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    # A program's own sources are its main.cc (flag parsing and start-up,
    # run once per process; CLI11 is header code, half of their compile
    # time): in the instrumented trees they are compiled at -O0, which
    # halves their cost (45 s to 24 s of CPU for eb-coordinator's under
    # ASan) and misses no report. The libraries keep the tree's -O1; test
    # code is -O0 already (tests/CMakeLists.txt; docs/DESIGN.md, "Build time").
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O0>)
  endif()
  if(EB_SANITIZE STREQUAL "thread" AND type STREQUAL "EXECUTABLE")
    # Compiled once, as an object library, and linked into every executable
    # (it was compiled once per executable: 100 copies).
    if(NOT TARGET eb_absl_tsan_shim)
      add_library(eb_absl_tsan_shim OBJECT ${PROJECT_SOURCE_DIR}/tests/sanitize/absl_tsan_shim.cc)
      target_compile_options(eb_absl_tsan_shim PRIVATE -fsanitize=thread -fno-omit-frame-pointer)
      target_link_libraries(eb_absl_tsan_shim PUBLIC absl::synchronization)
    endif()
    target_link_libraries(${target} PRIVATE eb_absl_tsan_shim)
    # The shim's definitions must be in the dynamic symbol table to
    # interpose the shared library's.
    target_link_options(${target} PRIVATE -rdynamic)
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  endif()
endfunction()

# libFuzzer's coverage instrumentation (-fsanitize=fuzzer-no-link) on
# `target` and on every library of ours it links, directly or not: the fuzz
# targets are guided by the code they reach, and only that code pays for it.
# On every target of the ASan+UBSan tree it cost 13 % of its compile time
# (eb_coordinator_core's unity file: 66 -> 76 CPU-s) and slowed every test of
# the tree with its callbacks, for libraries (gRPC services, the HTML report,
# the metrics, the transports) that no fuzz target links.
function(eb_fuzz_coverage target)
  get_property(covered GLOBAL PROPERTY EB_FUZZ_COVERED)
  if(NOT TARGET ${target} OR target IN_LIST covered)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY EB_FUZZ_COVERED ${target})
  get_target_property(imported ${target} IMPORTED)
  if(imported)
    return()
  endif()
  get_target_property(own ${target} EB_OWN_CODE)
  get_target_property(type ${target} TYPE)
  if(own AND NOT type STREQUAL "INTERFACE_LIBRARY")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
  endif()
  set(linked "")
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(direct ${target} LINK_LIBRARIES)
    if(direct)
      list(APPEND linked ${direct})
    endif()
  endif()
  get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
  if(interface)
    list(APPEND linked ${interface})
  endif()
  foreach(entry IN LISTS linked)
    # Entries linked from another directory come wrapped (`::@(id)`), and
    # private dependencies of a static library as $<LINK_ONLY:...>.
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" entry "${entry}")
    if(entry MATCHES "^::@")
      continue()
    endif()
    eb_fuzz_coverage(${entry})
  endforeach()
endfunction()
