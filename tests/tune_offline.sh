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
# With --shapes: the shapes' spaces (a family or two each, their groups halved and doubled) land
# beside them: at least three more kernels for three shapes of three layouts.
CUREDUCE_CACHE_DIR=$dir "$tune" --offline --arch sm_90 --quick --ops sum --types f32 \
  --shapes 4096x1024,columns:2^16x64,segments:1000x300
shaped=$(find "$dir/kernels" -name '*.bin' | wc -l)
echo "$shaped kernels in the cache with the shapes'"
[ "$shaped" -ge $((count + 3)) ]
# With a transform or a user map: the transformed kernels are others (their source differs), so
# each lands beside the plain ones, for a whole array (n:N) and a shape; a refused expression
# compiles nothing and fails.
CUREDUCE_CACHE_DIR=$dir "$tune" --offline --arch sm_90 --quick --ops sum --types f32 --shapes n:2^20,4096x1024 \
  --transform abs
CUREDUCE_CACHE_DIR=$dir "$tune" --offline --arch sm_90 --quick --ops sum --types f32 --shapes n:2^20,4096x1024 \
  --expression 'x * x'
mapped=$(find "$dir/kernels" -name '*.bin' | wc -l)
echo "$mapped kernels in the cache with the maps'"
[ "$mapped" -ge $((shaped + 4)) ]
if CUREDUCE_CACHE_DIR=$dir "$tune" --offline --arch sm_90 --quick --ops sum --types f32 --shapes n:2^20 \
  --expression 'x; x'; then
  echo "an expression with ';' was compiled"
  exit 1
fi
[ "$(find "$dir/kernels" -name '*.bin' | wc -l)" -eq "$mapped" ]
