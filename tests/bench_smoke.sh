#!/bin/sh
# On a GPU: one short comparison run of cureduce-bench, the host-overhead report included (a bare
# launch of the library's kernel, whose parameter list must follow the kernel's), and the
# dot-product table, and the exact sums of shapes (their columns refused in a line); each table checks its results against the host reference, so a wrong
# kernel or launch fails here, not first in a benchmark session.
# Without a GPU: skipped (77), unless CUREDUCE_REQUIRE_GPU=1.
set -u
bench=$1
"$bench" --ops sum,variance --types f32 --sizes 2^16,2^20 --reps 3
code=$?
if [ "$code" -eq 77 ] && [ "${CUREDUCE_REQUIRE_GPU:-0}" != 1 ]; then
  echo "SKIP: no GPU here, so there is nothing to time"
  exit 77
fi
[ "$code" -eq 0 ] || exit 1
"$bench" --transform product --ops sum --types f32 --sizes 2^16 --reps 3 || exit 1
"$bench" --shapes --ops exact_sum --types f32 --sizes 2^12 --reps 3
