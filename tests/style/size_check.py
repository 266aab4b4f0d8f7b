#!/usr/bin/env python3
"""Fails when a production file is over 500 lines or a function over 80.

Small files with one responsibility, and functions that read as a sequence
of named steps (issue 28): a file or function that outgrows these limits is
split, not waved through. Production code is every *.h, *.cc and *.cu under
agent/, common/ and coordinator/ (tests are checked by their own reviewers:
a test's table of cases may be long). The one exception is a binary's
main() in a main.cc, which holds its flag table.

Functions are found as clang-format writes them: a definition starts at
column 0 (a return type, or a constructor's Class::Class) with '(' on its
line, its signature ends with '{' within 8 lines, and its body ends at the
next '}' at column 0. Functions inside a class body are indented and not
counted; keep those short anyway. Run by ctest as style.sizes.
"""
import os
import re
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
FOLDERS = ("agent", "common", "coordinator")
NOT_A_DEFINITION = re.compile(
    r"(namespace|struct|class|enum|extern|union|template|using|typedef|static_assert|"
    r"inline constexpr|constexpr [\w:<>]+ k)\b")


def functions(lines):
    """(first line index, line count, signature) of each column-0 function."""
    i = 0
    while i < len(lines):
        line = lines[i]
        starts = (line and not line[0].isspace() and "(" in line and
                  not line.startswith(("//", "#", "}")) and not NOT_A_DEFINITION.match(line))
        if not starts:
            i += 1
            continue
        j = i
        # A signature ends at '{' (a body follows), or at ';' or '}' (a
        # declaration, or a body on the same line).
        while j < len(lines) and j < i + 8 and not lines[j].rstrip().endswith(("{", ";", "}")):
            j += 1
        if j >= len(lines) or not lines[j].rstrip().endswith("{"):
            i += 1
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        yield i, k - i + 1, re.sub(r"\s+", " ", line.strip())
        i = k + 1


def main(root):
    problems = []
    for folder in FOLDERS:
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".h", ".cc", ".cu")):
                    continue
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = f.read().split("\n")
                if lines and lines[-1] == "":
                    lines.pop()
                if len(lines) > MAX_FILE_LINES:
                    problems.append(f"{relative}: {len(lines)} lines (at most {MAX_FILE_LINES}): "
                                    "split it by responsibility")
                for first, count, signature in functions(lines):
                    if count <= MAX_FUNCTION_LINES:
                        continue
                    if name == "main.cc" and re.match(r"int main\(", signature):
                        continue
                    problems.append(f"{relative}:{first + 1}: a function of {count} lines (at most "
                                    f"{MAX_FUNCTION_LINES}): {signature[:80]}")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"size_check: {len(problems)} file(s) or function(s) over the limits")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")))
