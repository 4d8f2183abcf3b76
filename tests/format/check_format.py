#!/usr/bin/env python3
"""Fails when a C++ file of shardc is not as clang-format-14 formats it.

Checks every .cpp and .h file git knows of or would add (tracked, or
untracked and not ignored; in a tree without git, every such file outside
build folders) with the repository's .clang-format, by `clang-format-14
--dry-run -Werror`. The generated parser lives in the (ignored) build folder
and is never checked. The fix is `clang-format-14 -i FILE`.

The version is pinned: another clang-format may format the same file
differently. Without clang-format-14 (scripts/setup.sh installs it) the test
is skipped (exit 77, which ctest reports as skipped, not passed).

usage: check_format.py ROOT [--clang-format PATH]
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

SUFFIXES = {".cpp", ".h"}
SKIP = 77
COMPLAINT = re.compile(r"^(.+?):\d+:\d+: (?:error|warning):", re.M)


def sources(root: pathlib.Path) -> list[pathlib.Path]:
    """The C++ files of the tree: git's (tracked or not ignored), or without
    git all outside build*/ and hidden folders."""
    try:
        git = ["git", "-C", str(root), "ls-files", "-z", "--cached",
               "--others", "--exclude-standard"]
        out = subprocess.run(git, check=True, capture_output=True).stdout
        names = [n for n in out.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(root)) for p in root.rglob("*")
                 if not p.relative_to(root).parts[0].startswith(("build",
                                                                  "."))]
    return sorted(root / n for n in names
                  if pathlib.PurePath(n).suffix in SUFFIXES
                  and (root / n).is_file())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=pathlib.Path)
    ap.add_argument("--clang-format", default="clang-format-14")
    args = ap.parse_args()
    tool = shutil.which(args.clang_format)
    if not tool:
        print(f"check_format: {args.clang_format} not found; skipped "
              "(scripts/setup.sh installs it)")
        return SKIP
    files = sources(args.root)
    # One run over every file: clang-format names each file it would change
    # in its complaints (`FILE:LINE:COL: error: code should be ...`).
    r = subprocess.run([tool, "--dry-run", "-Werror"] +
                       [str(f.relative_to(args.root)) for f in files],
                       cwd=args.root, capture_output=True, text=True)
    bad = sorted({m.group(1) for m in COMPLAINT.finditer(r.stderr)})
    if r.returncode != 0 and not bad:
        print(r.stderr)
        bad = ["(clang-format failed; its output is above)"]
    for b in bad:
        print(f"check_format: not formatted: {b} "
              f"(run: {args.clang_format} -i {b})")
    print(f"check_format: {len(files)} files, {len(bad)} not formatted")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
