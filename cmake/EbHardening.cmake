# Hardening build flags from dpkg-buildflags (Debian's, with
# DEB_BUILD_MAINT_OPTIONS=hardening=+all): stack protector, format-security,
# _FORTIFY_SOURCE, full RELRO and BIND_NOW; PIE is gcc's default on Debian.
# Only the hardening flags are taken: optimisation and debug info stay the
# build type's, and -ffile-prefix-map is left out (ccache is shared between
# worktrees).
#
#   -DEB_HARDENING=ON   the release and package build (deploy/scripts/build-deb.sh)
#
# Off by default, so that development trees keep their flags (and ccache its
# hits); not with sanitizers or the fuzz targets, which _FORTIFY_SOURCE
# disturbs.
option(EB_HARDENING "Build with dpkg-buildflags' hardening flags (the Debian package build)" OFF)

if(EB_HARDENING)
  if(EB_SANITIZE OR EB_FUZZ)
    message(FATAL_ERROR "EB_HARDENING does not go with EB_SANITIZE or EB_FUZZ")
  endif()
  find_program(EB_DPKG_BUILDFLAGS dpkg-buildflags REQUIRED)
  set(_eb_hardening_flags)
  foreach(_eb_kind CPPFLAGS CXXFLAGS CFLAGS LDFLAGS)
    execute_process(
      COMMAND ${CMAKE_COMMAND} -E env DEB_BUILD_MAINT_OPTIONS=hardening=+all
              ${EB_DPKG_BUILDFLAGS} --get ${_eb_kind}
      OUTPUT_VARIABLE _eb_value OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
    separate_arguments(_eb_value UNIX_COMMAND "${_eb_value}")
    list(FILTER _eb_value EXCLUDE REGEX "^-(g|O[0-9s]?|ffile-prefix-map=.*|fdebug-prefix-map=.*)$")
    set(_eb_${_eb_kind} ${_eb_value})
  endforeach()
  # C and C++ only (nvcc takes none of these).
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_eb_CPPFLAGS}>"
    "$<$<COMPILE_LANGUAGE:CXX>:${_eb_CXXFLAGS}>" "$<$<COMPILE_LANGUAGE:C>:${_eb_CFLAGS}>")
  add_link_options(${_eb_LDFLAGS})
  message(STATUS "Hardening (dpkg-buildflags): ${_eb_CPPFLAGS} ${_eb_CXXFLAGS} ${_eb_LDFLAGS}")
endif()
