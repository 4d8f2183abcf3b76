#!/usr/bin/env python3
"""Fails when a library includes a header from a layer above it.

The layering is the architecture (docs/architecture.md): support/ at the
bottom, then diag/, then ir/, then frontend/ and passes/ side by side
(neither includes the other), then search/ (the layout search, over
passes/) and serve/ (a serving program's instances, over passes/), then
report/ and calibrate/ (the parsers and
fits of `shardc calibrate`) side by side, then the driver in tools/. Each
folder below lists the folders whose headers it may include (its own always).
"""
import pathlib
import re
import sys

ALLOWED = {
    "support": {"support"},
    "diag": {"support", "diag"},
    "ir": {"support", "diag", "ir"},
    "frontend": {"support", "diag", "ir", "frontend"},
    "passes": {"support", "diag", "ir", "passes"},
    "search": {"support", "diag", "ir", "passes", "search"},
    "serve": {"support", "diag", "ir", "passes", "serve"},
    "report": {"support", "diag", "ir", "passes", "search", "serve", "report"},
    "calibrate": {"support", "diag", "ir", "passes", "calibrate"},
}
OURS = {"support", "diag", "ir", "frontend", "passes", "search", "serve",
        "report",
        "calibrate",
        "tools", "tests", "shardc"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/')


def main(root: pathlib.Path) -> int:
    bad = []
    for folder, allowed in ALLOWED.items():
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in {".h", ".cpp", ".def"}:
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) in OURS and m.group(1) not in allowed:
                    bad.append(f"{path.relative_to(root)}:{n}: {folder}/ "
                               f"includes {m.group(1)}/ ({line.strip()})")
    for b in bad:
        print(b)
    checked = ", ".join(f"{f}/ -> {sorted(a)}" for f, a in ALLOWED.items())
    print(f"layering: {len(bad)} violation(s); rules: {checked}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
