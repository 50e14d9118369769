#!/bin/sh
# The GPU suites under compute-sanitizer's four tools (memcheck, racecheck, synccheck, initcheck):
# gpu-semantics whole, gpu-reduce for every type and the f32 ladder in their light form
# (CUREDUCE_TEST_LIGHT=1: sizes up to 2^17, two start offsets; the sanitizer slows every launch
# a hundredfold). Passes when every run ends with 0 errors and 0 hazards. Failed API calls are
# not reported: the suites make some on purpose (cuPointerGetAttribute on a host pointer, which
# is how a host pointer gets refused; a launch on another context's stream) and check every
# result they depend on; errors in kernels are what the tools are for.
# usage: gpu_sanitize.sh TEST-GPU-REDUCE TEST-GPU-SEMANTICS [PARALLEL]
# Exit 77 (skip) without compute-sanitizer or a GPU, unless CUREDUCE_REQUIRE_GPU=1.
if [ "$1" = --one ]; then # an internal step: one sanitized run (sanitizer logs tool name)
  shift
  sanitizer=$1 logs=$2 tool=$3 name=$4
  case $name in
    semantics) set -- "$SANITIZE_SEMANTICS" ;;
    reduce-*) set -- "$SANITIZE_REDUCE" "${name#reduce-}" ;;
    ladder-*) set -- "$SANITIZE_REDUCE" "${name#ladder-}" ladder ;;
  esac
  start=$(date +%s)
  CUREDUCE_TEST_LIGHT=1 "$sanitizer" --tool "$tool" --report-api-errors no --error-exitcode 99 \
    --print-limit 20 "$@" \
    >"$logs/$tool-$name.log" 2>&1
  code=$? seconds=$(( $(date +%s) - start ))
  echo "$code $seconds" >"$logs/$tool-$name.rc"
  printf '  done: %-10s %-16s exit %s after %ss\n' "$tool" "$name" "$code" "$seconds"
  [ "$code" = 0 ] || tail -30 "$logs/$tool-$name.log"
  exit 0
fi
reduce=$1 semantics=$2 parallel=${3:-8}
if [ -z "$reduce" ] || [ -z "$semantics" ]; then
  echo "usage: $0 TEST-GPU-REDUCE TEST-GPU-SEMANTICS [PARALLEL]" >&2
  exit 2
fi
skip() {
  echo "SKIP: $1"
  [ "${CUREDUCE_REQUIRE_GPU:-0}" = 1 ] && { echo "CUREDUCE_REQUIRE_GPU=1: failing instead"; exit 1; }
  exit 77
}
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
[ -n "$sanitizer" ] || skip "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || skip "no GPU (nvidia-smi finds none)"

logs=$(mktemp -d) || exit 1
trap 'rm -rf "$logs"' EXIT
runs="semantics"
for type in f16 bf16 f32 f64 i8 u8 i32 u32 i64 u64; do runs="$runs reduce-$type"; done
runs="$runs ladder-f32"

# Every (tool, run), $parallel at a time.
export SANITIZE_REDUCE="$reduce" SANITIZE_SEMANTICS="$semantics"
for tool in memcheck racecheck synccheck initcheck; do
  for name in $runs; do echo "$tool $name"; done
done | xargs -P "$parallel" -n 2 sh "$0" --one "$sanitizer" "$logs"

failed=0 total=0
for tool in memcheck racecheck synccheck initcheck; do
  for name in $runs; do
    total=$((total + 1))
    code=missing seconds=?
    [ -f "$logs/$tool-$name.rc" ] && read -r code seconds <"$logs/$tool-$name.rc"
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$logs/$tool-$name.log" | tail -1)
    printf '%-10s %-16s exit %-3s %4ss  %s\n' "$tool" "$name" "$code" "$seconds" "$summary"
    [ "$code" = 0 ] || failed=$((failed + 1))
  done
done
echo "compute-sanitizer: $total runs, $failed failed"
[ "$failed" = 0 ]
