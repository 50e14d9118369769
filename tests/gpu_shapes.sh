#!/bin/sh
# gpu-shapes: test-gpu-shapes for every input type at once, each in a process of its own. Most of
# each one's time is NVRTC compiling the kernels of its shapes and the host's references, and one
# Meson test slot running them one after another would not finish within a GPU run's time; each
# type's process splits its tests further into CUREDUCE_TEST_SHARDS processes (harness.h).
# usage: gpu_shapes.sh TEST-GPU-SHAPES
# Exits 77 when every type skipped (no GPU), 1 when any failed; prints each type's output.
exe=$1
[ -x "$exe" ] || { echo "usage: $0 TEST-GPU-SHAPES"; exit 2; }
logs=$(mktemp -d) || exit 1
for type in f16 bf16 f32 f64 i8 u8 i32 u32 i64 u64; do
  ("$exe" "$type" >"$logs/$type.log" 2>&1; echo $? >"$logs/$type.rc") &
done
wait
failed=0 skipped=0
for type in f16 bf16 f32 f64 i8 u8 i32 u32 i64 u64; do
  code=$(cat "$logs/$type.rc")
  echo "== $type: exit $code"
  cat "$logs/$type.log"
  case $code in
    0) ;;
    77) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
done
rm -rf "$logs"
[ "$failed" -gt 0 ] && exit 1
[ "$skipped" -eq 10 ] && exit 77
exit 0
