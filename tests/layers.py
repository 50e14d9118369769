#!/usr/bin/env python3
"""Holds the README's claim that data flows one way through the layers of src/.

The README's "How it works" table lists src/'s files top down. This fails when a file there
includes the header of a file listed above it (reaching back up), or when a src/ file is missing
from the table. Usage: layers.py PROJECT_ROOT
"""
import pathlib
import re
import sys

TABLE_ROW = re.compile(r"^\| (`src/[a-z0-9_]+\.c`(?:, `(?:src/)?[a-z0-9_]+\.c`)*) \|")
NAMED_FILE = re.compile(r"`(?:src/)?([a-z0-9_]+)\.c`")
INCLUDE = re.compile(r'^#include "([a-z0-9_]+)\.h"', re.MULTILINE)


def table_layers(readme):
    """Each src/ file named in the table, with its row's number (files of one row share it)."""
    layers = {}
    for number, line in enumerate(readme.splitlines()):
        row = TABLE_ROW.match(line)
        if row:
            for name in NAMED_FILE.findall(row.group(1)):
                layers[name] = number
    return layers


def includes_of(src, name):
    """The src/ modules that name.c and name.h include, name itself aside."""
    text = ""
    for path in (src / f"{name}.c", src / f"{name}.h"):
        if path.exists():
            text += path.read_text()
    return {m for m in INCLUDE.findall(text) if m != name and (src / f"{m}.c").exists()}


def main():
    root = pathlib.Path(sys.argv[1])
    src = root / "src"
    layers = table_layers((root / "README.md").read_text())
    problems = [f"src/{p.stem}.c is not in the README's table of files" for p in sorted(src.glob("*.c"))
                if p.stem not in layers]
    for name, layer in sorted(layers.items()):
        if not (src / f"{name}.c").exists():
            problems.append(f"the README's table names src/{name}.c, which does not exist")
            continue
        problems += [f"src/{name}.c includes {used}.h, a layer above it in the README's table"
                     for used in sorted(includes_of(src, name)) if layers.get(used, layer + 1) < layer]
    for problem in problems:
        print(problem)
    print(f"{len(layers)} files in {len(set(layers.values()))} layers: {'ok' if not problems else 'FAILED'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
