# Installation rules and the Debian package (CPack DEB). Included at the end
# of the top-level CMakeLists.txt, after every target exists.
#
#   cmake --install build [--prefix /usr]      # binaries, units, docs, configs
#   cd build && cpack -G DEB                    # -> ebnccl_<version>_<arch>.deb
#   apt install ./ebnccl_<version>_<arch>.deb   # pulls the Debian runtime libs
#
# Layout (prefix /usr in the package, /usr/local by default for cmake --install):
#   <prefix>/bin/{eb-coordinator,eb-agent,eb-worker,ebctl}
#   <prefix>/lib/systemd/system/*.service      every deploy/systemd/*.service, its
#                                              /usr/bin and /etc/ebnccl paths moved to
#                                              <prefix>/bin, <prefix>/etc/ebnccl when the
#                                              prefix is not /usr
#   <prefix>/share/doc/ebnccl/                 README.md, docs/*.md, deploy/ROLLOUT.md
#   <prefix>/share/doc/ebnccl/examples/*.toml  every deploy/config/*.toml
#   /etc/ebnccl/*.toml                         the same files as conffiles (prefix
#                                              /usr or /; <prefix>/etc/ebnccl otherwise)
#   <prefix>/share/doc/ebnccl/{copyright,changelog.gz}   deploy/debian/{copyright,changelog}
#   <prefix>/share/doc/ebnccl/examples/ebnccl-alerts.yml deploy/prometheus (Prometheus rules)
#   <prefix>/share/doc/ebnccl/examples/ebnccl-dashboard.json  deploy/grafana (Grafana)
#   <prefix>/share/man/man1/*.1.gz             generated from --help by help2man at install
#                                              time (deploy/scripts/make-man-pages.sh)
#   <prefix>/share/bash-completion/completions/ebctl     deploy/bash-completion/ebctl
#   <prefix>/share/lintian/overrides/ebnccl    deploy/debian/lintian-overrides
# The maintainer scripts deploy/debian/{postinst,prerm,postrm}.in (their unit
# list filled in from deploy/systemd) create the
# `ebnccl` system user and /var/lib/ebnccl and register the units the way
# debhelper's dh_installsystemd --no-enable --no-start does
# (deb-systemd-helper, deb-systemd-invoke); they never enable or start a
# service. A purge removes /var/lib/ebnccl and keeps the system user.
# tests/deploy/deb_lintian_test.sh runs lintian on the package.
#
# CUDA and NCCL are not Debian packages: the package does not depend on
# them. GPU nodes need the NVIDIA driver, the CUDA runtime and NCCL installed
# (deploy/ROLLOUT.md); eb-worker and eb-agent carry a RUNPATH to the CUDA/NCCL
# library directories found at build time (/usr/local/cuda/lib64 ...), and
# ldconfig or LD_LIBRARY_PATH (which wins over RUNPATH) find them elsewhere.

include(GNUInstallDirs)

# The address the project's commits carry; deploy/debian/changelog names the
# same one (lintian checks that they match).
set(_eb_maintainer "ebnccl maintainers <maintainers@users.noreply.a-seed-0396e685.example>")
set(EB_PACKAGE_MAINTAINER "${_eb_maintainer}" CACHE STRING "Maintainer field of the Debian package")
# Trees configured before had the old default, which lintian refuses
# (bogus-mail-host): replace it there, keep any other value an operator set.
if(EB_PACKAGE_MAINTAINER STREQUAL "ebnccl maintainers <ebnccl@localhost>")
  set(EB_PACKAGE_MAINTAINER "${_eb_maintainer}" CACHE STRING
    "Maintainer field of the Debian package" FORCE)
endif()
option(EB_INSTALL_STRIP_DEBUG
  "Strip DWARF debug info from installed binaries (keeps the symbol table for stack traces)" ON)

set(_eb_binaries eb-coordinator eb-agent eb-worker ebctl)

# --- Binaries --------------------------------------------------------------
install(TARGETS ${_eb_binaries} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(EB_NCCL_ENABLED)
  # eb-worker links libnccl.so.2 and libcudart; eb-agent dlopen()s
  # libnccl.so.2 to report its version. Installed copies lose the build
  # RPATH, so give them the library directories used at build time (plus the
  # conventional /usr/local/cuda/lib64). Empty EB_INSTALL_RPATH: rely on
  # ldconfig (e.g. /etc/ld.so.conf.d/cuda.conf) or LD_LIBRARY_PATH only.
  get_filename_component(_eb_nccl_dir "${EB_NCCL_LIBRARY}" DIRECTORY)
  set(_eb_rpath /usr/local/cuda/lib64 ${_eb_nccl_dir} ${CUDAToolkit_LIBRARY_DIR})
  list(REMOVE_DUPLICATES _eb_rpath)
  set(EB_INSTALL_RPATH "${_eb_rpath}" CACHE STRING
    "RUNPATH of the installed eb-worker and eb-agent (CUDA/NCCL library directories)")
  set_target_properties(eb-worker eb-agent PROPERTIES INSTALL_RPATH "${EB_INSTALL_RPATH}")
endif()

if(EB_INSTALL_STRIP_DEBUG AND CMAKE_OBJCOPY)
  # RelWithDebInfo binaries are ~25 MB each, mostly DWARF; a fleet copies the
  # package to every node. --strip-debug keeps .symtab, so the failure signal
  # handler still prints function names.
  install(CODE "
    foreach(_eb_binary ${_eb_binaries})
      set(_eb_file \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/\${_eb_binary}\")
      execute_process(COMMAND \"${CMAKE_OBJCOPY}\" --strip-debug \"\${_eb_file}\"
                      RESULT_VARIABLE _eb_result)
      if(NOT _eb_result EQUAL 0)
        message(FATAL_ERROR \"objcopy --strip-debug \${_eb_file} failed: \${_eb_result}\")
      endif()
    endforeach()")
endif()

# --- systemd units ---------------------------------------------------------
# Whatever units deploy/systemd holds; CONFIGURE_DEPENDS re-runs CMake when
# one is added. Prefix-relative: /usr/lib/systemd/system in the package
# (= /lib/systemd/system on merged-/usr Debian), and
# /usr/local/lib/systemd/system, which systemd also reads, by default.
# The units name /usr/bin/eb-* and /etc/ebnccl/*.toml (the package's
# layout); installed under another prefix (cmake --install, /usr/local by
# default) they are rewritten to point at that prefix's binaries and
# configs, decided at install time since --prefix may change it then.
file(GLOB _eb_units CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/deploy/systemd/*.service
  ${PROJECT_SOURCE_DIR}/deploy/systemd/*.timer)
if(_eb_units)
  install(CODE "set(_eb_units \"${_eb_units}\")")
  install(CODE [[
    set(_eb_unitdir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
    foreach(_eb_unit IN LISTS _eb_units)
      get_filename_component(_eb_name "${_eb_unit}" NAME)
      file(READ "${_eb_unit}" _eb_text)
      if(NOT (CMAKE_INSTALL_PREFIX STREQUAL "/usr" OR CMAKE_INSTALL_PREFIX STREQUAL "/"))
        string(REPLACE "/usr/bin/" "${CMAKE_INSTALL_PREFIX}/bin/" _eb_text "${_eb_text}")
        string(REPLACE "/etc/ebnccl/" "${CMAKE_INSTALL_PREFIX}/etc/ebnccl/" _eb_text "${_eb_text}")
      endif()
      message(STATUS "Installing: ${_eb_unitdir}/${_eb_name}")
      file(WRITE "${_eb_unitdir}/${_eb_name}" "${_eb_text}")
    endforeach()
  ]])
endif()

# --- Documentation and example configurations ------------------------------
file(GLOB _eb_docs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
file(GLOB _eb_rollout CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/deploy/ROLLOUT.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${_eb_docs} ${_eb_rollout}
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ebnccl)

# Debian's per-package documents: the copyright file, and the changelog,
# compressed as policy 12.7 wants (gzip -9n at install time: no name or time
# stamp). The changelog's first version must be this project's version.
file(STRINGS ${PROJECT_SOURCE_DIR}/deploy/debian/changelog _eb_changelog_head LIMIT_COUNT 1)
if(NOT _eb_changelog_head MATCHES "^ebnccl \\(${PROJECT_VERSION}\\) ")
  message(FATAL_ERROR "deploy/debian/changelog starts with '${_eb_changelog_head}', not version "
                      "${PROJECT_VERSION}: add an entry for it")
endif()
install(FILES ${PROJECT_SOURCE_DIR}/deploy/debian/copyright
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ebnccl)
install(CODE "set(_eb_changelog \"${PROJECT_SOURCE_DIR}/deploy/debian/changelog\")")
install(CODE [[
  set(_eb_docdir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/share/doc/ebnccl")
  file(MAKE_DIRECTORY "${_eb_docdir}")
  message(STATUS "Installing: ${_eb_docdir}/changelog.gz")
  execute_process(COMMAND gzip -9n -c "${_eb_changelog}" OUTPUT_FILE "${_eb_docdir}/changelog.gz"
                  COMMAND_ERROR_IS_FATAL ANY)
]])

# Man pages from the installed binaries' --help (help2man). Without help2man
# the install goes on without them (and lintian says binary-without-manpage).
install(CODE "set(_eb_man_script \"${PROJECT_SOURCE_DIR}/deploy/scripts/make-man-pages.sh\")")
install(CODE "set(_eb_bindir \"${CMAKE_INSTALL_BINDIR}\")")
install(CODE [[
  find_program(_eb_help2man help2man)
  set(_eb_mandir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/share/man/man1")
  if(_eb_help2man)
    message(STATUS "Installing: ${_eb_mandir}/*.1.gz (help2man)")
    execute_process(COMMAND "${_eb_man_script}" "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${_eb_bindir}"
                            "${_eb_mandir}" COMMAND_ERROR_IS_FATAL ANY)
  else()
    message(WARNING "help2man not found: no man pages installed")
  endif()
]])

# Deliberate departures from lintian's defaults, each with its reason.
install(FILES ${PROJECT_SOURCE_DIR}/deploy/debian/lintian-overrides
  DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME ebnccl)

install(FILES ${PROJECT_SOURCE_DIR}/deploy/bash-completion/ebctl
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/prometheus/ebnccl-alerts.yml
  ${PROJECT_SOURCE_DIR}/deploy/grafana/ebnccl-dashboard.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ebnccl/examples)

# The fleet's certificates in one command (docs/SECURITY.md).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/scripts/ebnccl-certs.sh
  DESTINATION ${CMAKE_INSTALL_DATADIR}/ebnccl)

file(GLOB _eb_configs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/deploy/config/*.toml)
if(_eb_configs)
  install(FILES ${_eb_configs} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ebnccl/examples)
  # The live copies in /etc/ebnccl. cmake --install never overwrites one
  # that exists (it holds the operator's edits); dpkg keeps edits itself
  # because the package lists them as conffiles (below).
  install(CODE "set(_eb_configs \"${_eb_configs}\")")
  install(CODE [[
    if(CMAKE_INSTALL_PREFIX STREQUAL "/usr" OR CMAKE_INSTALL_PREFIX STREQUAL "/")
      set(_eb_confdir "/etc/ebnccl")
    else()
      set(_eb_confdir "${CMAKE_INSTALL_PREFIX}/etc/ebnccl")
    endif()
    foreach(_eb_config IN LISTS _eb_configs)
      get_filename_component(_eb_name "${_eb_config}" NAME)
      if(EXISTS "$ENV{DESTDIR}${_eb_confdir}/${_eb_name}")
        message(STATUS "Keeping existing: $ENV{DESTDIR}${_eb_confdir}/${_eb_name} (not "
                       "overwritten; the shipped example is in share/doc/ebnccl/examples)")
      else()
        file(INSTALL DESTINATION "${_eb_confdir}" TYPE FILE FILES "${_eb_config}")
      endif()
    endforeach()
  ]])
endif()

# --- Debian package ----------------------------------------------------------
set(_eb_pkg_dir ${CMAKE_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${_eb_pkg_dir})

# conffiles: dpkg keeps local edits of these across upgrades and removes
# them only on purge.
set(_eb_control_extra)
set(_eb_conffiles "")
foreach(_eb_config IN LISTS _eb_configs)
  get_filename_component(_eb_name "${_eb_config}" NAME)
  string(APPEND _eb_conffiles "/etc/ebnccl/${_eb_name}\n")
endforeach()
if(_eb_conffiles)
  file(WRITE ${_eb_pkg_dir}/conffiles "${_eb_conffiles}")
  list(APPEND _eb_control_extra ${_eb_pkg_dir}/conffiles)
endif()
# The maintainer scripts act on every unit installed above (the same glob):
# a unit added to deploy/systemd is stopped on removal and its enablement
# links removed on purge without anyone editing the scripts.
set(EB_PACKAGE_UNITS)
foreach(_eb_unit IN LISTS _eb_units)
  get_filename_component(_eb_name "${_eb_unit}" NAME)
  list(APPEND EB_PACKAGE_UNITS "${_eb_name}")
endforeach()
list(JOIN EB_PACKAGE_UNITS " " EB_PACKAGE_UNITS)
foreach(_eb_script postinst prerm postrm)
  configure_file(${PROJECT_SOURCE_DIR}/deploy/debian/${_eb_script}.in ${_eb_pkg_dir}/${_eb_script}
    @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
  list(APPEND _eb_control_extra ${_eb_pkg_dir}/${_eb_script})
endforeach()

# dpkg-shlibdeps turns the binaries' NEEDED libraries into Depends
# (libgrpc++1.51, libprotobuf32, libabsl20220623, libspdlog1.10, libgloo0,
# libsqlite3-0, ...). CPack already passes --ignore-missing-info, so NCCL and
# CUDA installed from tarballs (no package) add nothing; where they came from
# NVIDIA's apt repository they would add libnccl2/cuda-* dependencies that a
# coordinator-only node cannot satisfy, so a wrapper drops those.
find_program(EB_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(EB_DPKG_SHLIBDEPS)
  file(WRITE ${_eb_pkg_dir}/dpkg-shlibdeps-no-cuda
"#!/bin/sh
# Generated by cmake/EbPackaging.cmake: dpkg-shlibdeps without NVIDIA
# (CUDA/NCCL/driver) packages in the generated Depends.
case \"$1\" in --version|--help) exec '${EB_DPKG_SHLIBDEPS}' \"$@\" ;; esac
out=$('${EB_DPKG_SHLIBDEPS}' \"$@\") || exit $?
printf '%s\\n' \"$out\" | awk '
  /^shlibs:Depends=/ {
    n = split(substr($0, length(\"shlibs:Depends=\") + 1), deps, /, */); kept = \"\"
    for (i = 1; i <= n; i++)
      if (deps[i] !~ /^(libnccl|libcudart|cuda-|libcuda|libnvidia-|nvidia-)/)
        kept = kept (kept == \"\" ? \"\" : \", \") deps[i]
    print \"shlibs:Depends=\" kept; next }
  { print }'
")
  file(CHMOD ${_eb_pkg_dir}/dpkg-shlibdeps-no-cuda
    PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                WORLD_EXECUTE)
  # Read by cpack before CPackDeb.cmake looks for dpkg-shlibdeps.
  file(WRITE ${_eb_pkg_dir}/CPackProjectConfig.cmake
    "set(SHLIBDEPS_EXECUTABLE \"${_eb_pkg_dir}/dpkg-shlibdeps-no-cuda\" CACHE FILEPATH \"\" FORCE)\n")
  set(CPACK_PROJECT_CONFIG_FILE ${_eb_pkg_dir}/CPackProjectConfig.cmake)
endif()

find_program(EB_DPKG dpkg)
if(EB_DPKG)
  execute_process(COMMAND ${EB_DPKG} --print-architecture
    OUTPUT_VARIABLE _eb_arch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT _eb_arch)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
    set(_eb_arch amd64)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    set(_eb_arch arm64)
  else()
    set(_eb_arch ${CMAKE_SYSTEM_PROCESSOR})
  endif()
endif()

if(NOT CPACK_GENERATOR)
  set(CPACK_GENERATOR DEB)
endif()
set(CPACK_PACKAGE_NAME ebnccl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${EB_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "fleet-wide NCCL network validation (coordinator, agent, worker, ebctl)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_NAME ebnccl)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${_eb_arch})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${EB_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The extended description; CPack puts the summary above it and indents it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"ebnccl checks that the GPUs, HCAs and links of multi-node GPU machines deliver
the collective bandwidth they should, and names the rank, node, GPU or link
that does not. eb-coordinator runs on one node, eb-agent on every node (both
systemd services, which the package does not enable), eb-worker is spawned
per GPU, and ebctl runs tests and prints the nccl-tests table.

GPU nodes need the NVIDIA driver, the CUDA runtime and NCCL, which are not
dependencies of this package (see /usr/share/doc/ebnccl/ROLLOUT.md).")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# adduser: the postinst creates the ebnccl system user.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "systemd")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${_eb_control_extra}")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_FILE_NAME "ebnccl_${PROJECT_VERSION}_${_eb_arch}.deb")
# No source package: the repository is the source.
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
