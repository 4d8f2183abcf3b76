#!/usr/bin/env python3
"""Checks that the docs stand alone: every reference resolves in the clone.

A user reads README.md and docs/ in a clone, or on the project's page; a
reference that leads outside the repository leads nowhere. For each
Markdown file (README.md and every docs/**/*.md unless files are given):

* no path that climbs out of the repository (`../shared/...`, or any
  relative link that resolves above the root);
* no name of a specification file the repository does not hold
  (`LANGUAGE.md`, `COST-MODEL.md`, `CASES.md`, ... or a section of one,
  `COST-MODEL §7`), anywhere, code blocks included: what the docs need
  from those files is written in docs/ itself;
* every relative link `[text](path)` or `[text](path#anchor)` names a file
  or folder that exists, and an anchor names a heading of the target (by
  GitHub's rule for heading ids) or an explicit `<a id=...>`.

With --names-only FILE (repeatable) a file is checked for the first two
rules only: the comments of the shipped .shard files, which users read.

  check_links.py --root .                      # README.md and docs/
  check_links.py --root . --names-only examples/mlp.shard

Exit status 0 when every reference resolves, 1 otherwise (one line per
problem, FILE:LINE: what), 2 for bad arguments.
"""
import argparse
import glob
import os
import re
import sys

# The specification's files, which live outside the repository.
SPEC_FILES = ("LANGUAGE", "COST-MODEL", "CASES", "VALIDATION", "FIDELITY",
              "SEARCH", "INFERENCE", "INFERENCE-CASES", "TPU")
SPEC_NAME = re.compile(
    r"(?<![\w.-])((?:[\w.-]+/)*(?:%s)\.md)(?![\w-])" % "|".join(
        re.escape(n) for n in SPEC_FILES))
# "COST-MODEL §7" or "LANGUAGE.md §9": a section of a spec file.
SPEC_SECTION = re.compile(r"(?<![\w-])(?:%s)(?:\.md)?`?\s*§" % "|".join(
    re.escape(n) for n in SPEC_FILES))
OUTSIDE = re.compile(r"\.\./shared\b|\bshared/spec\b")

FENCE = re.compile(r"^\s*(```+|~~~+)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?"
                  r"(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def slug(heading):
    """GitHub's id for a heading: the rendered text, lower case, without
    punctuation other than `-` and `_`, spaces as `-`."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # link -> text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose_lines(text):
    """(line number, line, in a code block?) for every line."""
    in_code = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            ticks = m.group(1)
            if in_code is None:
                in_code = ticks
                yield n, line, True
                continue
            if ticks.startswith(in_code):
                in_code = None
                yield n, line, True
                continue
        yield n, line, in_code is not None


def anchors(path, cache={}):
    """Every heading id and explicit anchor of a Markdown file."""
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        ids = set()
        seen = {}
        for _, line, code in prose_lines(text):
            ids.update(HTML_ANCHOR.findall(line))
            m = HEADING.match(line)
            if code or not m:
                continue
            base = slug(m.group(2))
            k = seen.get(base, 0)
            seen[base] = k + 1
            ids.add(base if k == 0 else "%s-%d" % (base, k))
        cache[path] = ids
    return cache[path]


class Checker:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.problems = 0

    def fail(self, path, n, what):
        self.problems += 1
        print("%s:%d: %s" % (os.path.relpath(path, self.root), n, what))

    def inside(self, target):
        real = os.path.realpath(target)
        return real == self.root or real.startswith(self.root + os.sep)

    def names(self, path, n, line):
        """The first two rules, on one line of any file."""
        if OUTSIDE.search(line):
            self.fail(path, n, "names a file outside the repository: %s"
                      % OUTSIDE.search(line).group(0))
        for m in SPEC_NAME.finditer(line):
            name = m.group(1)
            here = os.path.join(os.path.dirname(path), name)
            top = os.path.join(self.root, name)
            if not (os.path.isfile(here) and self.inside(here)) and \
                    not os.path.isfile(top):
                self.fail(path, n, "names '%s', which is not in the "
                          "repository: say it in docs/ and link there" % name)
        if SPEC_SECTION.search(line):
            self.fail(path, n, "cites a section of a file outside the "
                      "repository ('%s'): link the docs/ heading instead"
                      % SPEC_SECTION.search(line).group(0))

    def link(self, path, n, target):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            return  # https:, mailto: ...
        file_part, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path),
                                             file_part)) if file_part else path
        if not self.inside(dest):
            self.fail(path, n, "links outside the repository: %s" % target)
            return
        if not os.path.exists(dest):
            self.fail(path, n, "links to a missing file: %s" % target)
            return
        if anchor and dest.endswith(".md") and \
                anchor not in anchors(dest):
            self.fail(path, n, "links to a missing heading: %s (no heading "
                      "of %s has that id)" %
                      (target, os.path.relpath(dest, self.root)))

    def markdown(self, path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        prose = []  # the text without code, line for line: a link's text
        for n, line, code in prose_lines(text):  # may span lines
            self.names(path, n, line)
            prose.append("" if code else CODE_SPAN.sub(
                lambda m: " " * len(m.group(0)), line))
        prose = "\n".join(prose)
        for m in LINK.finditer(prose):
            self.link(path, prose.count("\n", 0, m.start(2)) + 1, m.group(2))

    def plain(self, path):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                self.names(path, n, line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="the source root")
    ap.add_argument("--names-only", action="append", default=[],
                    help="a file (glob) checked for outside names only "
                    "(repeatable)")
    ap.add_argument("files", nargs="*",
                    help="Markdown files (default: README.md, docs/**/*.md)")
    args = ap.parse_args()
    if not os.path.isdir(args.root):
        print("check_links.py: no folder %s" % args.root)
        return 2
    c = Checker(args.root)
    files = args.files or ["README.md"] + sorted(
        glob.glob("docs/**/*.md", root_dir=c.root, recursive=True))
    plain = sorted({p for g in args.names_only
                    for p in glob.glob(g, root_dir=c.root, recursive=True)})
    for rel in files:
        c.markdown(os.path.join(c.root, rel))
    for rel in plain:
        c.plain(os.path.join(c.root, rel))
    print("checked %d Markdown files and %d others; %d problems" %
          (len(files), len(plain), c.problems))
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())
