#include "agent/host/log_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace eb::agent {

ebnccl::v1::LogContent ReadLogTail(const std::string& path, int64_t max_bytes) {
  ebnccl::v1::LogContent content;
  content.set_path(path);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    content.set_error(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
    return content;
  }
  const int64_t size = static_cast<int64_t>(in.tellg());
  const int64_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(start);
  std::string data(static_cast<size_t>(size - start), '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  content.set_content(std::move(data));
  content.set_truncated(start > 0);
  return content;
}

}  // namespace eb::agent
