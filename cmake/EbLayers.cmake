# Layering the build enforces (docs/DESIGN.md, "Layers").
#
#   eb_forbid_links(<target> <category>...)
#
# records that <target> must not reach, through any chain of link
# dependencies, a library of the given categories:
#   GRPC       gRPC itself, or our libraries that bring it (eb_proto, eb_rpc,
#              eb_common)
#   PROCESSES  the process launcher implementation (eb_process)
#   IO         libraries whose purpose is host I/O: SQLite, HTTP, systemd,
#              TOML files, network interfaces, dlopen
#   DAEMONS    the daemons' and the data plane's own libraries (what a client
#              such as ebctl must not carry)
# eb_check_layers(), called once after every target exists, walks each
# recorded target's link closure and stops the configuration with the chain
# that breaks a rule. What a file #includes is checked by
# tests/style/layering_check.sh.

set(EB_LAYER_GRPC gRPC::grpc++ gRPC::grpc gRPC::grpc++_reflection gRPC::gpr eb_proto eb_rpc eb_rpc_reflection
  eb_rpc_client eb_common eb_common_client)
set(EB_LAYER_PROCESSES eb_process)
set(EB_LAYER_IO SQLite::SQLite3 eb_history PkgConfig::EB_HTTPLIB
  eb_metrics eb_systemd eb_config tomlplusplus::tomlplusplus eb_net dl ${CMAKE_DL_LIBS})
set(EB_LAYER_DAEMONS eb_base eb_net eb_common eb_spec eb_transport eb_transport_tcp_link
  eb_transport_gloo eb_transport_nccl eb_process eb_config eb_systemd eb_metrics eb_history eb_history_api
  eb_validation eb_scheduler_core eb_coordinator_core eb_coordinator_lib eb_coordinator_metrics eb_agent_core
  eb_agent_host eb_agent_lib eb_agent_metrics eb_worker_lib)

function(eb_forbid_links target)
  foreach(category ${ARGN})
    if(NOT DEFINED EB_LAYER_${category})
      message(FATAL_ERROR "eb_forbid_links(${target}): unknown category ${category}")
    endif()
  endforeach()
  string(REPLACE ";" "," categories "${ARGN}")
  set_property(GLOBAL APPEND PROPERTY EB_LAYER_RULES "${target}=${categories}")
endfunction()

# The direct link dependencies of `item` (a target name or a plain library).
function(_eb_direct_links item out)
  set(result)
  if(TARGET ${item})
    get_target_property(type ${item} TYPE)
    get_target_property(interface_links ${item} INTERFACE_LINK_LIBRARIES)
    set(links)
    if(interface_links)
      list(APPEND links ${interface_links})
    endif()
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(private_links ${item} LINK_LIBRARIES)
      if(private_links)
        list(APPEND links ${private_links})
      endif()
    endif()
    foreach(link ${links})
      # $<LINK_ONLY:x> is a dependency; other generator expressions and the
      # ::@ directory markers CMake inserts are not targets.
      if(link MATCHES "^\\$<LINK_ONLY:([^>]+)>$")
        list(APPEND result ${CMAKE_MATCH_1})
      elseif(link MATCHES "^\\$<" OR link MATCHES "^::@")
        continue()
      else()
        list(APPEND result ${link})
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES result)
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

function(eb_check_layers)
  get_property(rules GLOBAL PROPERTY EB_LAYER_RULES)
  foreach(rule ${rules})
    string(REGEX REPLACE "=.*$" "" target "${rule}")
    string(REGEX REPLACE "^[^=]*=" "" parts "${rule}")
    string(REPLACE "," ";" parts "${parts}")
    set(forbidden)
    foreach(category ${parts})
      list(APPEND forbidden ${EB_LAYER_${category}})
    endforeach()
    # Breadth-first over the link closure, remembering how each item was
    # reached so that the error shows the whole chain.
    set(queue ${target})
    set(seen ${target})
    set(via_${target} "${target}")
    while(queue)
      list(POP_FRONT queue current)
      _eb_direct_links(${current} next_items)
      foreach(next ${next_items})
        if(next IN_LIST seen)
          continue()
        endif()
        list(APPEND seen ${next})
        set(via_${next} "${via_${current}} -> ${next}")
        if(next IN_LIST forbidden)
          message(FATAL_ERROR
            "Layering: ${target} may not link ${next} (rules: ${parts}; docs/DESIGN.md, "
            "\"Layers\"): ${via_${next}}")
        endif()
        list(APPEND queue ${next})
      endforeach()
    endwhile()
  endforeach()
  list(LENGTH rules count)
  message(STATUS "ebnccl layering: ${count} rules hold")
endfunction()
