#!/usr/bin/env python3
"""tools/ab_templates.py against a stand-in bench, on a host without a GPU.

The stand-in prints the bench's --csv rows, 100 us back to back with side A's templates, 80 with a
third directory's and 90 with the build's own (side B's either), a row that only B prints, a row
whose B runs take 40 us and then 44, and a refusal; it fails when its kernel cache directory is
shared between the sides, and can hang in side A's second run. The A/B must print each row's two
medians and B/A, keep the refusal, say that a row had no A figure, pair a problem's figures whatever spec each side took and name both, stop with status 1 when a side
fails, and print the rounds done when a SIGTERM (a timeout) stops it. Usage: ab_templates_fake.py
PROJECT_ROOT
"""
import os
import pathlib
import subprocess
import signal
import sys
import tempfile
import time

FAKE_BENCH = r"""#!/bin/sh
# The sides must not share a kernel cache: each writes its own marker and fails on the other's.
side=B; [ "${CUREDUCE_TEMPLATE_DIR:-}" = "$A_DIR" ] && side=A
[ -n "${FAIL_SIDE:-}" ] && [ "$FAIL_SIDE" = "$side" ] && { echo "bench failed on $side" >&2; exit 1; }
for other in A B; do [ $other != $side ] && [ -e "$CUREDUCE_CACHE_DIR/$other" ] && { echo shared cache >&2; exit 1; }; done
[ -n "${HANG_MARK:-}" ] && [ $side = A ] && [ -e "$CUREDUCE_CACHE_DIR/A" ] && { touch "$HANG_MARK"; exec sleep 60; }
touch "$CUREDUCE_CACHE_DIR/$side"
time=90; [ $side = A ] && time=100; [ -n "${B_DIR:-}" ] && [ "${CUREDUCE_TEMPLATE_DIR:-}" = "$B_DIR" ] && time=80
echo "# shapes: a header"
echo "layout,op,type,total,rows,cols,us,b2b_us,effective_gbps,pct_ceiling,cub_us,cub_b2b_us,cub_over_cureduce,spec"
echo "columns,sum,f32,256,1,256,1.0,$time.0,1,1,-,-,-,sum:f32->f32/x"
[ $side = B ] && echo "rows,sum,f32,256,128,2,1.0,45.0,1,1,-,-,-,sum:f32->f32/y"
spread=50; [ $side = B ] && { spread=40; [ -e "$CUREDUCE_CACHE_DIR/B.again" ] && spread=44; touch "$CUREDUCE_CACHE_DIR/B.again"; }
echo "rows,max,f32,256,128,2,1.0,$spread.0,1,1,-,-,-,max:f32->f32/z"
grid=g4; [ $side = A ] && grid=g5
echo "rows,sum,u8,256,128,2,1.0,$time.0,1,1,-,-,-,sum:u8->u64/$grid"
echo "# rows sum f32 rows 128 cols 2: pinned refused: not for this shape"
exit 0
"""


def run(tool, build, *arguments, **environment):
    done = subprocess.run([sys.executable, tool, "--build", build] + list(arguments), capture_output=True, text=True,
                          env=dict(os.environ, **environment))
    return done.returncode, done.stdout + done.stderr


def interrupted_run(tool, build, side_a, hang_mark):
    """A SIGTERM while side A's second run hangs: round 1's table, status 1. Its failures."""
    process = subprocess.Popen([sys.executable, tool, "--build", build, "--rounds", "3", side_a, "--", "--shapes"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=dict(os.environ, A_DIR=os.path.abspath(side_a), HANG_MARK=hang_mark))
    deadline = time.monotonic() + 20
    while not os.path.exists(hang_mark) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=20)
    wanted = ["# interrupted in round 2", "A    100.00  B     90.00  B/A  0.900"]
    missing = [text for text in wanted if text not in output]
    if process.returncode != 1 or missing:
        return [f"SIGTERM in round 2: status {process.returncode} (wanted 1), missing {missing}:\n{output}"]
    return []


def main():
    tool = str(pathlib.Path(sys.argv[1]) / "tools" / "ab_templates.py")
    failures = []
    with tempfile.TemporaryDirectory() as work:
        build, side_a, side_b = (os.path.join(work, name) for name in ("build", "A", "B"))
        for folder in (os.path.join(build, "tools"), side_a, side_b):
            os.makedirs(folder)
        bench = os.path.join(build, "tools", "cureduce-bench")
        pathlib.Path(bench).write_text(FAKE_BENCH)
        os.chmod(bench, 0o755)
        expectations = [
            (("--rounds", "3", side_a, "--", "--shapes"), {}, 0,
             ["columns sum f32 256 1 256 sum:f32->f32/x", "A    100.00  B     90.00  B/A  0.900",
              "B: the build's own", "A: # rows sum f32 rows 128 cols 2: pinned refused", "no A figure",
              "A    100.00  B     90.00  B/A  0.900  +- 0.0%", "A     50.00  B     44.00  B/A  0.880  +- 4.5%",
              f"{'rows sum u8 256 128 2 sum:u8->u64/g4 (A: sum:u8->u64/g5)':<72} A    100.00  B     90.00"]),
            (("--rounds", "2", "--b", side_b, side_a, "--", "--shapes"), {}, 0, [f"B: {side_b}", "B/A  0.800"]),
            (("--rounds", "2", side_a, "--", "--shapes"), {"FAIL_SIDE": "B"}, 1, ["bench failed on B", "side B failed"]),
            (("--rounds", "0", side_a, "--", "--shapes"), {}, 2, ["--rounds takes 1 or more"]),
            (("--rounds", "1", side_a, "--", "--json"), {}, 2, ["leave out --json"]),
        ]
        for arguments, environment, status, wanted in expectations:
            got_status, output = run(tool, build, *arguments, A_DIR=os.path.abspath(side_a),
                                     B_DIR=os.path.abspath(side_b), **environment)
            missing = [text for text in wanted if text not in output]
            if got_status != status or missing:
                failures.append(f"{' '.join(arguments)}: status {got_status} (wanted {status}), missing {missing}:\n{output}")
        failures += interrupted_run(tool, build, side_a, os.path.join(work, "hanging"))
    for failure in failures:
        print(failure)
    print(f"ab_templates: {len(expectations) + 1 - len(failures)} of {len(expectations) + 1} cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
