#!/bin/sh
# cureduce-tune --offline, on any machine: every kernel the (quick) tuner could pick for f32 sum
# and max lands in a fresh kernel cache, compiled for sm_90.
set -eu
tune=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CUREDUCE_CACHE_DIR=$dir "$tune" --offline --arch sm_90 --quick --ops sum,max --types f32
count=$(find "$dir/kernels" -name '*.bin' | wc -l)
echo "$count kernels in the cache"
[ "$count" -eq 4 ]
