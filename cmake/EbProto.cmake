# eb_generate_protos(TARGET <lib> PROTO_ROOT <dir> PROTOS <files...>)
# Runs protoc with the gRPC C++ plugin and builds two static libraries:
# <lib>_messages (the messages; protobuf only, so pure cores may link it) and
# <lib> (the gRPC services; links <lib>_messages and gRPC).
function(eb_generate_protos)
  cmake_parse_arguments(ARG "" "TARGET;PROTO_ROOT" "PROTOS" ${ARGN})
  set(out_dir ${CMAKE_BINARY_DIR}/generated/proto)
  file(MAKE_DIRECTORY ${out_dir})
  set(message_srcs)
  set(service_srcs)
  foreach(proto ${ARG_PROTOS})
    get_filename_component(abs ${proto} ABSOLUTE)
    file(RELATIVE_PATH rel ${ARG_PROTO_ROOT} ${abs})
    string(REGEX REPLACE "\\.proto$" "" stem ${rel})
    set(gen ${out_dir}/${stem}.pb.cc ${out_dir}/${stem}.pb.h
            ${out_dir}/${stem}.grpc.pb.cc ${out_dir}/${stem}.grpc.pb.h)
    add_custom_command(
      OUTPUT ${gen}
      COMMAND ${EB_PROTOC} --proto_path=${ARG_PROTO_ROOT}
              --cpp_out=${out_dir} --grpc_out=${out_dir}
              --plugin=protoc-gen-grpc=${EB_GRPC_CPP_PLUGIN} ${abs}
      DEPENDS ${abs} ${EB_PROTOC} ${EB_GRPC_CPP_PLUGIN}
      COMMENT "protoc ${rel}")
    list(APPEND message_srcs ${out_dir}/${stem}.pb.cc)
    list(APPEND service_srcs ${out_dir}/${stem}.grpc.pb.cc)
  endforeach()
  add_library(${ARG_TARGET}_messages STATIC ${message_srcs})
  target_include_directories(${ARG_TARGET}_messages SYSTEM PUBLIC ${out_dir})
  target_link_libraries(${ARG_TARGET}_messages PUBLIC protobuf::libprotobuf)
  add_library(${ARG_TARGET} STATIC ${service_srcs})
  target_link_libraries(${ARG_TARGET} PUBLIC ${ARG_TARGET}_messages gRPC::grpc++)
  # protoc gives every .pb.cc file-static tables of the same names
  # (schemas, file_default_instances): they cannot share a unity file.
  set_target_properties(${ARG_TARGET}_messages ${ARG_TARGET} PROPERTIES UNITY_BUILD OFF)
endfunction()
