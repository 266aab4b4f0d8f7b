#!/usr/bin/env bash
# Fails when production C++ code reads a file other than through
# common/io/bounded_file.h, naming file:line.
# Why (issue 32, item 4; P2-2.13): every file a program reads may be a FIFO
# (open() waits for a writer forever), a device (/dev/zero: gigabytes, then
# std::bad_alloc), a directory or a symlink loop. ReadBoundedFile opens with
# O_NONBLOCK, refuses what is not a regular file with an error naming what it
# is, and bounds the size and the time; an ifstream or fopen() does none of
# that. Run by ctest as style.raw_file_read.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
# The readers allowed to open files themselves, each for a reason:
#   common/io/bounded_file.cc  the reader
#   agent/host/log_reader.cc   pages of a worker's log at an offset (pread),
#                              the same checks (O_NONBLOCK, O_NOFOLLOW,
#                              regular files only, bounded page)
#   agent/host/child_probe.cc  a probe child's output, a file the agent
#                              created itself (bounded pread)
allowed='^(common/io/bounded_file\.cc|agent/host/log_reader\.cc|agent/host/child_probe\.cc):'
# Comments are not calls: lines whose code part starts with // are skipped.
# open(... O_RDONLY ...) catches raw POSIX reads; write-only opens are not
# reads.
hits=$(grep -rnE --include='*.cc' --include='*.h' \
         'std::ifstream|std::fstream|std::basic_ifstream|(^|[^A-Za-z0-9_])(std::)?fopen[[:space:]]*\(|(^|[^A-Za-z0-9_])fread[[:space:]]*\(|O_RDONLY|O_RDWR|istreambuf_iterator|std::filesystem::file_size' \
         agent coordinator common |
       grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' |
       grep -vE "$allowed" |
       grep -vE '/dev/null' || true)
if [[ -n "$hits" ]]; then
  printf 'raw file reads are not allowed (use common::ReadBoundedFile, common/io/bounded_file.h):\n%s\n' "$hits" >&2
  exit 1
fi
echo "no raw file reads outside common/io/bounded_file"
