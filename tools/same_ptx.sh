#!/bin/bash
# Whether a change to kernel_templates/ changes what the kernels compile to: the PTX (nvcc -ptx for
# sm_90) of a set of specs, from the templates at a git revision and from the working tree's, side
# by side. A refactor whose PTX is the same for every spec runs as before on any GPU, which a host
# without one can show. Needs nvcc and a build's cureduce-check (its --emit-source).
#
# usage: tools/same_ptx.sh [-b BUILD_DIR] [REV [SPEC...]]
#   REV   the revision to compare with (default HEAD)
#   SPEC  kernel specs (default: every family and the operations with folds of their own)
# Exits 0 when every spec's PTX is the same (comment lines aside), 1 when one differs, 2 on a
# usage or tool error.
set -uo pipefail
build=build
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
if [ "${1:-}" = "-b" ]; then build=${2:?-b needs a build directory}; shift 2; fi
rev=${1:-HEAD}; [ $# -gt 0 ] && shift
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
  specs=(
    sum:f32-\>f32/single_pass/b256/u4/v16/g8 variance:f32-\>f32/single_pass/b256/u4/v16/g8
    sample_std:f16-\>f16/single_pass/b256/u4/v16/g8 logsumexp:bf16-\>f32/single_pass/b256/u4/v16/g8
    logsumexp:f64-\>f64/single_pass/b256/u4/v16/g8 argmax:f32-\>f32/single_pass/b256/u4/v16/g8
    norm2:f32-\>f32/single_pass/b256/u4/v16/g8 exact_sum:f32-\>f32/single_pass/b256/u4/v16/g8
    variance:f32-\>f32/row_groups/b256/u4/v16/g8/t1/c2/s1 sum:f32-\>f32/row_groups/b256/u4/v16/g8/t1/c2/s1
    logsumexp:f32-\>f32/row_groups/b256/u4/v16/g8/t8/c0/s1 argmin:f32-\>f32/row_groups/b256/u4/v16/g8/t4/c0/s1
    variance:f32-\>f32/row_blocks/b256/u4/v16/g8/t0/c0/s4 variance:f32-\>f32/segment_groups/b256/u4/v16/g8/t32/c0/s1
    logsumexp:f64-\>f64/segment_blocks/b256/u4/v16/g8/t0/c0/s8 variance:f32-\>f32/column_tiles/b256/u8/v16/g1/t32/c0/s4
    sum:f32-\>f32/column_tiles/b256/u8/v16/g1/t256/c0/s1 max:bf16-\>bf16/column_tiles/b256/u8/v16/g1/t16/c0/s3
  )
fi
check=$build/tools/cureduce-check
[ -x "$check" ] || { echo "same_ptx: no $check (build first, or -b BUILD_DIR)" >&2; exit 2; }
command -v nvcc >/dev/null || { echo "same_ptx: nvcc not found" >&2; exit 2; }
root=$(git rev-parse --show-toplevel) || exit 2
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
git -C "$root" archive "$rev" kernel_templates | tar -x -C "$work" || { echo "same_ptx: no kernel_templates at $rev" >&2; exit 2; }
ptx_of() { # templates directory, spec, output name; one source path for both (nvcc names
            # internal functions after their file)
  CUREDUCE_TEMPLATE_DIR=$1 "$check" --emit-source "$2" >"$work/kernel.cu" 2>"$work/$3.log" &&
    nvcc -ptx -arch=sm_90 --std=c++17 "$work/kernel.cu" -o "$work/kernel.ptx" 2>>"$work/$3.log" &&
    grep -v '^//' "$work/kernel.ptx" >"$work/$3.code"
}
differ=0
for i in "${!specs[@]}"; do
  spec=${specs[$i]}
  if ! ptx_of "$work/kernel_templates" "$spec" "old$i" || ! ptx_of "$root/kernel_templates" "$spec" "new$i"; then
    echo "same_ptx: $spec did not compile:" >&2; cat "$work"/old$i.log "$work"/new$i.log 2>/dev/null >&2; exit 2
  fi
  if cmp -s "$work/old$i.code" "$work/new$i.code"; then echo "same    $spec"; else echo "DIFFERS $spec"; differ=1; fi
done
echo "${#specs[@]} specs against $rev: $([ $differ = 0 ] && echo 'the same PTX' || echo 'some PTX differs')"
exit $differ
