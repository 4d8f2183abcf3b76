#!/usr/bin/env python3
"""Checks the samples in the docs against what shardc really prints.

A sample is a fenced code block written as a terminal transcript: a line
`$ COMMAND`, then what the command prints (stdout and stderr together, as a
terminal shows them), then maybe another `$ COMMAND`. Each command runs
under bash from the source root, with the build's `bin/` first on PATH (so
`shardc` is the one just built), and its output must equal the lines below
it. A line that is exactly `...` stands for any number of lines, for a
sample the docs abridge (the prose says what was left out).

An HTML comment on the line before the fence qualifies the sample:
  <!-- sample: exit N -->          the command exits with N (otherwise 0)
  <!-- sample: illustrative ... --> not checked (say why in the comment:
                                     output that depends on the machine)

A file given with --messages quotes diagnostics without their inputs (the
error catalogue of docs/language.md): there, every `FILE:LINE:COL: error:
MESSAGE` line of a fence with no info string must be a message some kind in
diag/Diagnostics.def can print, so that the wording quoted cannot drift.
(Syntax errors are worded by the parser, not the registry: quote them in
transcripts.)

A file given with --strict must hold no output without its command: every
fence with no info string is a transcript (or an `illustrative` one), and
every ```shard block compiles (`shardc -` exits 0), because readers paste
them.

  check_samples.py --shardc-dir build/bin --root . --strict README.md docs/cli.md
  check_samples.py ... --update README.md    # rewrite exact samples from
                                             # the real output (not `...`)

Exit status 0 when every sample matches, 1 otherwise (with a diff per
sample), 2 for bad arguments.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys

FENCE = re.compile(r"^( *)(```+)(.*)$")
MARKER = re.compile(r"^\s*<!--\s*sample:\s*(.*?)\s*-->\s*$")


class Block:
    def __init__(self, path, start, indent, info, lines, marker):
        self.path = path
        self.start = start  # 1-based line of the opening fence
        self.indent = indent
        self.info = info
        self.lines = lines  # content, de-indented
        self.marker = marker  # the `sample:` comment's text, or None

    def where(self):
        return "%s:%d" % (self.path, self.start)


def blocks(path, text):
    """Every fenced block of a Markdown file, with the marker before it."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, info = len(m.group(1)), m.group(2), m.group(3).strip()
        prev = next((l for l in reversed(lines[:i]) if l.strip()), "")
        marker = MARKER.match(prev)
        body = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != ticks:
            body.append(lines[j][indent:] if lines[j][:indent].strip() == ""
                        else lines[j])
            j += 1
        out.append(Block(path, i + 1, indent, info, body,
                         marker.group(1) if marker else None))
        i = j + 1
    return out


def transcript(block):
    """[(command, expected lines)] when the block is a transcript."""
    if not block.lines or not block.lines[0].startswith("$ "):
        return None
    steps = []
    for line in block.lines:
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def normalise(lines):
    lines = [l.rstrip() for l in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(expected, actual):
    """`expected` equals `actual`, a `...` line matching any run of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:])
                   for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and \
        matches(expected[1:], actual[1:])


def run(command, root, env, stdin=None):
    p = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=root,
                       env=env, input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    return p.returncode, normalise(p.stdout.split("\n"))


DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: (error|warning|note|remark): (.*)$")
DIAG_DEF = re.compile(r'^DIAG\((\w+), (\w+), "((?:[^"\\]|\\.)*)"')


def diagnostic_formats(root):
    """(severity, regex of the message) for every kind in Diagnostics.def."""
    out = []
    with open(os.path.join(root, "diag/Diagnostics.def"), encoding="utf-8") as f:
        for line in f:
            m = DIAG_DEF.match(line)
            if not m:
                continue
            fmt = m.group(3).replace('\\"', '"')
            parts = re.split(r"(\{\{|\}\}|\{\d+(?::[^}]*)?\})", fmt)
            rx = "".join(
                "{" if p == "{{" else "}" if p == "}}" else
                ".+" if re.fullmatch(r"\{\d+(?::[^}]*)?\}", p) else re.escape(p)
                for p in parts)
            if rx == ".+":
                continue  # SyntaxError's "{0}" would vouch for any text
            out.append((m.group(2).lower(), re.compile("^" + rx + "$")))
    return out


def expected_exit(marker):
    m = re.search(r"\bexit (\d+)\b", marker or "")
    return int(m.group(1)) if m else 0


class Checker:
    def __init__(self, root, env, update):
        self.root, self.env, self.update = root, env, update
        self.failures = 0
        self.checked = 0
        self.skipped = []

    def fail(self, block, what, detail=""):
        self.failures += 1
        print("%s: %s" % (block.where(), what))
        if detail:
            print(detail)

    def transcript(self, block, steps):
        """Runs each step; returns the block's lines as --update writes
        them (the real output where an exact sample differs)."""
        new_lines = []
        for command, expected in steps:
            code, actual = run(command, self.root, self.env)
            self.checked += 1
            new_lines.append("$ " + command)
            want = normalise(expected)
            ok = matches(want, actual)
            if not ok and self.update and "..." not in want:
                new_lines.extend(actual)
                continue
            new_lines.extend(expected)
            if not ok:
                diff = "\n".join(difflib.unified_diff(
                    want, actual, "sample", "real output",
                    lineterm=""))
                self.fail(block, "the output of `%s` differs from the "
                          "sample" % command, diff)
            if code != expected_exit(block.marker):
                self.fail(block, "`%s` exits with %d, the sample says %d" %
                          (command, code, expected_exit(block.marker)))
        return new_lines

    def shard_input(self, block):
        code, out = run("shardc -", self.root, self.env,
                        stdin="\n".join(block.lines) + "\n")
        self.checked += 1
        if code != 0:
            self.fail(block, "this .shard sample does not compile",
                      "\n".join(out))

    def messages(self, path):
        formats = diagnostic_formats(self.root)
        with open(os.path.join(self.root, path), encoding="utf-8") as f:
            text = f.read()
        for b in blocks(path, text):
            if b.info or transcript(b):
                continue
            for line in b.lines:
                m = DIAGNOSTIC.match(line)
                if not m:
                    continue
                self.checked += 1
                if not any(sev == m.group(1) and rx.match(m.group(2))
                           for sev, rx in formats):
                    self.fail(b, "no kind in diag/Diagnostics.def prints "
                              "this %s: %s" % (m.group(1), m.group(2)))

    def file(self, path, strict):
        full = os.path.join(self.root, path)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        edits = []
        for b in blocks(path, text):
            if b.marker and b.marker.startswith("illustrative"):
                self.skipped.append(b.where())
                continue
            steps = transcript(b)
            if steps:
                new = self.transcript(b, steps)
                if new != b.lines:
                    edits.append((b, new))
            elif strict and b.info == "shard":
                self.shard_input(b)
            elif strict and b.info == "":
                self.fail(b, "an output sample without the command that "
                          "prints it: start it with `$ COMMAND` (or mark it "
                          "`<!-- sample: illustrative, why -->`)")
        if self.update and edits:
            lines = text.split("\n")
            for b, new in reversed(edits):  # bottom up: earlier lines stay
                pad = " " * b.indent
                lines[b.start:b.start + len(b.lines)] = [
                    (pad + l) if l else l for l in new]
            with open(full, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            print("%s: updated %d samples" % (path, len(edits)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shardc-dir", required=True,
                    help="the folder holding the shardc to check against")
    ap.add_argument("--root", required=True, help="the source root")
    ap.add_argument("--strict", action="append", default=[],
                    help="a Markdown file every output sample of which must "
                    "be a transcript (repeatable)")
    ap.add_argument("--messages", action="append", default=[],
                    help="a Markdown file whose quoted diagnostics must be "
                    "messages of diag/Diagnostics.def (repeatable)")
    ap.add_argument("--update", action="store_true",
                    help="rewrite exact samples with the real output")
    ap.add_argument("files", nargs="*", help="more Markdown files")
    args = ap.parse_args()
    shardc = os.path.join(args.shardc_dir, "shardc")
    if not os.access(shardc, os.X_OK):
        print("check_samples.py: no shardc in %s" % args.shardc_dir)
        return 2
    env = dict(os.environ)
    env["PATH"] = os.path.abspath(args.shardc_dir) + os.pathsep + \
        env.get("PATH", "")
    env.pop("TERM", None)
    env["LC_ALL"] = "C.UTF-8"
    c = Checker(os.path.abspath(args.root), env, args.update)
    for path in args.strict:
        c.file(path, strict=True)
    for path in args.files:
        c.file(path, strict=False)
    for path in args.messages:
        c.messages(path)
    print("checked %d samples; %d problems; not checked (illustrative): %s" %
          (c.checked, c.failures, ", ".join(c.skipped) or "none"))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
