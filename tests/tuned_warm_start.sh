#!/bin/sh
# On a GPU: a quick tune into a fresh cache, then a fresh process with NVRTC unavailable that
# reduces every operation and type correctly with the tuned kernels (cureduce-check's checks).
# Without a GPU: skipped (77), unless CUREDUCE_REQUIRE_GPU=1.
set -u
tune=$1
check=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export CUREDUCE_CACHE_DIR="$dir"
"$tune" --quick --max 2^24 > "$dir/tune.log" 2>&1
code=$?
if [ "$code" -eq 77 ] && [ "${CUREDUCE_REQUIRE_GPU:-0}" != 1 ]; then
  echo "SKIP: no GPU here, so there is nothing to tune"
  exit 77
fi
tail -3 "$dir/tune.log"
[ "$code" -eq 0 ] || exit 1
CUREDUCE_NVRTC_LIB=/nonexistent/libnvrtc.so "$check" --count 1000003
