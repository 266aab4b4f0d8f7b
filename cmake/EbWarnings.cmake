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
  if(EB_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${EB_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${EB_SANITIZE})
  endif()
endfunction()
