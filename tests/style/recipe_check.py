#!/usr/bin/env python3
"""Fails when docs/DESIGN.md's "How to add ..." section names a path that
does not exist, so that a renamed or moved file cannot leave its recipe
behind (issue 28: the recipes list the exact files). Paths are the
backquoted words of the section that contain a '/' (a folder or a file).
Run by ctest as style.recipes."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..")
with open(os.path.join(root, "docs", "DESIGN.md"), encoding="utf-8") as f:
    text = f.read()
match = re.search(r"^## How to add .*?(?=^## )", text, re.S | re.M)
if not match:
    print("recipe_check: docs/DESIGN.md has no \"## How to add\" section", file=sys.stderr)
    sys.exit(1)
paths = sorted({p.rstrip("/") for p in re.findall(r"`([\w./-]+/[\w./-]*)`", match.group(0))})
missing = [p for p in paths if not os.path.exists(os.path.join(root, p))]
for path in missing:
    print(f"docs/DESIGN.md, How to add: {path} does not exist", file=sys.stderr)
print(f"recipe_check: {len(paths)} paths named, {len(missing)} missing")
sys.exit(1 if missing or not paths else 0)
