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
  # GCC 12's -Wmaybe-uninitialized misfires on std::variant and std::optional
  # under the sanitizers' instrumentation (the plain build keeps it).
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${EB_SANITIZE} -fno-omit-frame-pointer
      -Wno-maybe-uninitialized>)
  if(EB_SANITIZE MATCHES "undefined")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>)
  endif()
  target_link_options(${target} PRIVATE -fsanitize=${EB_SANITIZE})
  get_target_property(type ${target} TYPE)
  if(EB_SANITIZE STREQUAL "thread" AND type STREQUAL "EXECUTABLE")
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests/sanitize/absl_tsan_shim.cc)
    # The shim's definitions must be in the dynamic symbol table to
    # interpose the shared library's.
    target_link_options(${target} PRIVATE -rdynamic)
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  endif()
endfunction()
