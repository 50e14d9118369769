#!/bin/sh
# On a GPU: one short comparison run of cureduce-bench, the host-overhead report included (a bare
# launch of the library's kernel, whose parameter list must follow the kernel's), and the
# dot-product table, and the exact sums of shapes (their columns refused in a line); each table
# checks its results against the host reference, so a wrong kernel or launch fails here, not first
# in a benchmark session. Every row of the comparisons must name the configuration that ran.
# Without a GPU: skipped (77), unless CUREDUCE_REQUIRE_GPU=1.
set -u
bench=$1

# The CSV rows on standard input each end with a spec of their own operation, transform and type,
# e.g. sum,f32,...,sum:f32->f32/single_pass/b256/u4/v16/g8 or sum:product,...,sum:product(f32)->...
specs_name_their_rows() {
  awk -F, '
    NF < 14 || $1 == "op" || $1 ~ /^#/ { next }
    {
      rows++
      split($1, name, ":")
      mapped = name[2] == "" ? $2 : name[2] "(" $2 ")"
      if (index($NF, name[1] ":" mapped "->") != 1 || $NF !~ /\/b[0-9]+\/u[0-9]+\/v[0-9]+\/g[0-9]+$/) {
        print "bench-smoke: row " $1 " " $2 " " $3 " names the spec \"" $NF "\""
        bad = 1
      }
    }
    END { if (!rows) print "bench-smoke: no rows"; exit bad || !rows }'
}

rows=$("$bench" --ops sum,variance --types f32 --sizes 2^16,2^20 --reps 3 --csv)
code=$?
echo "$rows"
if [ "$code" -eq 77 ] && [ "${CUREDUCE_REQUIRE_GPU:-0}" != 1 ]; then
  echo "SKIP: no GPU here, so there is nothing to time"
  exit 77
fi
[ "$code" -eq 0 ] || exit 1
echo "$rows" | specs_name_their_rows || exit 1
rows=$("$bench" --transform product --ops sum --types f32 --sizes 2^16 --reps 3 --csv) || exit 1
echo "$rows"
echo "$rows" | specs_name_their_rows || exit 1
"$bench" --shapes --ops exact_sum --types f32 --sizes 2^12 --reps 3
