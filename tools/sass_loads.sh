#!/bin/bash
# What ptxas made of one kernel spec's loads: its registers a thread, and for each loop of the SASS
# its global loads and the most of them in flight at once (issued and not yet read), and their
# bytes. The PTX may hold a round's loads together while ptxas issues them between the adds, which
# only the SASS shows (f32 column tiles of 2 and 16 columns, the same loads: 8 and 6 in flight at 48
# registers, fewer at 38; row_groups of a compiled length, 16 bytes a thread). Needs nvcc,
# nvdisasm (the CUDA toolkit's, or pip's nvidia-cuda-nvdisasm), python3 and a build's
# cureduce-check (its --emit-source).
#
# usage: tools/sass_loads.sh [-b BUILD_DIR] [-a sm_XY] SPEC...
#   e.g. tools/sass_loads.sh 'sum:f32->f32/column_tiles/b256/u8/v16/g4/t16/c0/s17'
# Exits 0 when every spec compiled, 1 when one did not, 2 on a usage or tool error.
set -uo pipefail
build=build arch=sm_90
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -b) build=${2:?-b needs a build directory}; shift 2 ;;
    -a) arch=${2:?-a needs an architecture, e.g. sm_90}; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-b BUILD_DIR] [-a sm_XY] SPEC... (--help)" >&2; exit 2; }
for tool in nvcc nvdisasm python3 "$build/tools/cureduce-check"; do
  command -v "$tool" > /dev/null || { echo "$0: $tool not found" >&2; exit 2; }
done
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

# Per loop of two loads or more (a label a later branch jumps back to, outer loops holding inner
# ones): its loads, and the most of them issued and not yet read at once (a 128-bit load writes
# four registers from its first, a 64-bit two; a load is read by the first instruction that
# takes one of them as a source). Loads under @P and under @!P are two forms of one read (a whole
# vector, or its elements one by one): of those, only the larger side counts.
in_flight() {
  python3 -c '
import re, sys
bodies, loops = {}, []  # the instructions after each label; (label, instructions) of each loop
for line in open(sys.argv[1]):
    label = re.match(r"^(\.L_x_\d+):", line)
    if label:
        bodies[label.group(1)] = []
    elif "*/" in line:
        instruction = line.split("*/", 1)[1].strip().rstrip(" ;")
        for name, body in bodies.items():
            body.append(instruction)
            if "BRA" in instruction and "`(" + name + ")" in instruction:
                loops.append((name, list(body)))
def at_once(waiting, size):  # loads under @P and under @!P exclude each other: the larger side counts
    sides = {}
    for guard, registers in waiting:
        if guard:
            counts = sides.setdefault(guard.lstrip("@!"), [0, 0])
            counts[guard.startswith("@!")] += size(registers)
    return sum(size(r) for guard, r in waiting if not guard) + sum(max(c) for c in sides.values())
for name, body in loops:
    waiting, loads, most, most_bytes = [], 0, 0, 0  # (guard, registers) of loads issued, not read
    for instruction in body:
        load = re.match(r"^(@!?P\d+ )?LDG\.E(\.(\d+))?\S* R(\d+),", instruction)
        if load:
            first, words = int(load.group(4)), max(int(load.group(3) or 32) // 32, 1)
            waiting.append(((load.group(1) or "").strip(), {"R%d" % (first + k) for k in range(words)}))
            loads += 1
            most = max(most, at_once(waiting, lambda registers: 1))
            most_bytes = max(most_bytes, at_once(waiting, lambda registers: 4 * len(registers)))
        elif "," in instruction:
            read = set(re.findall(r"\bR\d+\b", instruction.split(",", 1)[1]))
            waiting = [(guard, registers) for guard, registers in waiting if not registers & read]
    if loads >= 2:  # a loop of one load has nothing to overlap
        print("  loop %s (%d instructions): %d loads, at most %d in flight (issued, not yet read), %d bytes"
              % (name, len(body), loads, most, most_bytes))
' "$1"
}

status=0
for spec in "$@"; do
  echo "== $spec"
  if ! "$build/tools/cureduce-check" --emit-source "$spec" > "$work/kernel.cu"; then
    status=1; continue
  fi
  if ! nvcc -cubin -arch "$arch" -Xptxas -v -o "$work/kernel.cubin" "$work/kernel.cu" 2> "$work/ptxas.log"; then
    cat "$work/ptxas.log" >&2; status=1; continue
  fi
  echo "  $(grep -o "Used [0-9]* registers" "$work/ptxas.log")"
  nvdisasm -c "$work/kernel.cubin" > "$work/kernel.sass" && in_flight "$work/kernel.sass"
done
exit $status
