#!/usr/bin/env python3
"""A/B of kernel templates on a GPU: one cureduce-bench command, run with another directory's
templates (A) and with the build's own or a third directory's (B), the two taking turns, so that
both see the same clocks, the same neighbours and the same warm-up; prints each row's back-to-back
time of A and of B (the median over the rounds), B/A, and the larger side's half range of its runs
in % of its median (a B/A closer to 1 than that is noise). A problem's rows pair whatever spec
each side took (a kernel's registers steer the heuristic's grid); a spec of A's that differs from
B's is named beside it.

The host code is the build's for both sides: the plans, specs and kernel parameters are B's, and
A's templates must take them (a change inside a kernel compares; one that adds a spec field or a
kernel parameter does not, and A's kernels then fail to compile, which the bench reports). Make A
where git is, e.g. `mkdir -p A && git archive main kernel_templates | tar -x -C A`, and pass
A/kernel_templates. Each side keeps a kernel cache of its own for the run.

usage: tools/ab_templates.py [--build DIR] [--rounds N] [--b B_TEMPLATE_DIR] A_TEMPLATE_DIR -- BENCH_ARGUMENT...
  e.g. tools/ab_templates.py --build build-gpu A/kernel_templates -- --shapes --layouts columns
       --sizes 2^28 --cols 2^3,2^6 --types f32,u8
Exit status: 0 every run succeeded, 1 a run failed (its output is printed) or a SIGTERM (a
timeout) stopped the rounds (the table of the runs done is printed), 2 bad usage.
"""
import argparse
import csv
import io
import os
import signal
import statistics
import subprocess
import sys
import tempfile

# The columns of the bench's --csv output that name a problem. A row's spec is not one of them: the
# heuristic's grid follows a kernel's registers, so a change of the templates may change the spec.
KEY_COLUMNS = ("layout", "op", "type", "total", "n", "rows", "cols")


def parse_arguments():
    usage, description = __doc__.split("usage: ")[1].split("\n")[0], __doc__.split("\nusage: ")[0]
    parser = argparse.ArgumentParser(usage=usage, description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build", help="the build whose tools/cureduce-bench runs (default build)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument("--b", metavar="B_TEMPLATE_DIR", help="side B's kernel_templates directory (default: the build's own)")
    parser.add_argument("templates", help="side A's kernel_templates directory")
    parser.add_argument("bench", nargs=argparse.REMAINDER, help="-- then cureduce-bench's arguments")
    arguments = parser.parse_args()
    if arguments.bench[:1] == ["--"]:
        arguments.bench = arguments.bench[1:]
    if arguments.rounds < 1:
        parser.error("--rounds takes 1 or more")
    for directory in filter(None, (arguments.templates, arguments.b)):
        if not os.path.isdir(directory):
            parser.error(f"{directory} is not a directory")
    if any(a in ("--json", "-h", "--help") for a in arguments.bench):
        parser.error("the bench's table is read as --csv: leave out --json and --help")
    return arguments


def run_side(bench, arguments, environment):
    """One run of the bench: its csv rows and its refusals (# lines of a pinned spec that does not
    fit a shape), or None (and its output printed) when it failed."""
    done = subprocess.run([bench, "--csv"] + arguments, env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stdout.write(done.stdout + done.stderr)
        return None
    lines = done.stdout.splitlines()
    table = [line for line in lines if line and not line.startswith("#")]
    refusals = [line for line in lines if line.startswith("#") and " refused: " in line]
    return list(csv.DictReader(io.StringIO("\n".join(table)))), refusals


class Interrupted(Exception):
    """SIGTERM (a timeout): the table of the runs done is still printed."""


def on_terminate(signum, frame):
    raise Interrupted()


def half_range(figures):
    """Half the range of a side's runs, in % of their median: a B/A within it of 1 is noise."""
    return 50 * (max(figures) - min(figures)) / statistics.median(figures)


def row_name(key, specs):
    """A problem and the spec that ran it: B's, and A's beside it where A's differs."""
    name = " ".join(key + (specs.get("B") or specs.get("A"),))
    if specs.get("A") and specs.get("B") and specs["A"] != specs["B"]:
        name += f" (A: {specs['A']})"
    return name


def print_table(times, specs, header):
    print(header)
    for key in times:  # in the order the rows first came
        name = row_name(key, specs[key])
        missing = [side for side in ("A", "B") if not times[key][side]]
        if missing:  # a shape one side's kernels ran and the other's did not
            print(f"{name:<72} no {' or '.join(missing)} figure")
            continue
        a, b = (statistics.median(times[key][side]) for side in ("A", "B"))
        spread = max(half_range(times[key][side]) for side in ("A", "B"))
        print(f"{name:<72} A {a:9.2f}  B {b:9.2f}  B/A {b / a:6.3f}  +-{spread:4.1f}%")


def main():
    arguments = parse_arguments()
    bench = os.path.join(arguments.build, "tools", "cureduce-bench")
    if not os.access(bench, os.X_OK):
        print(f"ab_templates: no {bench} (build first, or --build DIR)", file=sys.stderr)
        return 2
    times = {}  # problem key -> {"A": [b2b us], "B": [b2b us]}, in the order the rows first came
    specs = {}  # problem key -> {side: the spec its first run took}
    side_b = arguments.b or "the build's own"
    signal.signal(signal.SIGTERM, on_terminate)
    with tempfile.TemporaryDirectory() as cache_a, tempfile.TemporaryDirectory() as cache_b:
        sides = {"A": dict(os.environ, CUREDUCE_TEMPLATE_DIR=os.path.abspath(arguments.templates),
                           CUREDUCE_CACHE_DIR=cache_a),
                 "B": dict(os.environ, CUREDUCE_CACHE_DIR=cache_b)}
        if arguments.b:
            sides["B"]["CUREDUCE_TEMPLATE_DIR"] = os.path.abspath(arguments.b)
        else:
            sides["B"].pop("CUREDUCE_TEMPLATE_DIR", None)
        try:
            for round_number in range(arguments.rounds):
                # A then B, then B then A: a drift in clocks over the run weighs on both sides alike.
                for side in ("A", "B") if round_number % 2 == 0 else ("B", "A"):
                    result = run_side(bench, arguments.bench, sides[side])
                    if result is None:
                        print(f"ab_templates: side {side} failed in round {round_number + 1}", file=sys.stderr)
                        return 1
                    rows, refusals = result
                    if round_number == 0:
                        for line in refusals:
                            print(f"{side}: {line}")
                    for row in rows:
                        key = tuple(row[c] for c in KEY_COLUMNS if c in row)
                        times.setdefault(key, {"A": [], "B": []})[side].append(float(row["b2b_us"]))
                        specs.setdefault(key, {}).setdefault(side, row["spec"])
        except Interrupted:
            print_table(times, specs, f"# interrupted in round {round_number + 1}: b2b us, the median of the runs done; "
                                      f"A: {arguments.templates}, B: {side_b}")
            return 1
    print_table(times, specs, f"# b2b us: the median of {arguments.rounds} runs a side; A: {arguments.templates}, "
                              f"B: {side_b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
