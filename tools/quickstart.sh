#!/usr/bin/env bash
# Quick start on a fresh Debian or Ubuntu machine that has the CUDA toolkit (nvcc, NVRTC, headers):
#
#   tools/quickstart.sh run    install what is missing, build, run cureduce-check
#   tools/quickstart.sh test   install what is missing, build, run the whole test suite
#
# Installs meson, ninja, check, pkg-config, python3 and a C compiler with apt-get when any is
# missing (as root, or through sudo); for `test` also clang, libFuzzer and valgrind. Builds in
# ./build; `test` also builds ./build-sanitize with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer and runs the CPU suites (NVRTC's compiles for sm_90 alone) and the
# fuzzers there (60 s each, or $CUREDUCE_FUZZ_SECONDS). The toolkit is looked for in $CUDA_PATH,
# else /usr/local/cuda. The test run ends with one plain line for both builds: "N passed, N
# failed, N skipped".
set -euo pipefail

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
  run|test) mode=$1 ;;
  -h|--help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

packages=(meson ninja-build check pkg-config python3 gcc)
[ "$mode" = test ] && packages+=(clang libclang-rt-dev valgrind)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "quickstart: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

toolkit=${CUDA_PATH:-/usr/local/cuda}
if [ ! -f "$toolkit/include/cuda.h" ] || [ ! -f "$toolkit/include/nvrtc.h" ]; then
  echo "quickstart: no CUDA toolkit at $toolkit (cuda.h, nvrtc.h): install NVIDIA's cuda-toolkit package, or set CUDA_PATH" >&2
  exit 1
fi

if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release -Dtoolkit="$toolkit"
fi
meson compile -C build

if [ "$mode" = run ]; then
  exec build/tools/cureduce-check
fi

# Runs `meson test` in a build folder with the given arguments; its log is kept for the count.
run_suite() {
  local folder=$1
  shift
  set +e
  meson test -C "$folder" --print-errorlogs "$@" 2>&1 | tee "$folder/meson-logs/quickstart-test.log"
  local status=${PIPESTATUS[0]}
  set -e
  return "$status"
}

status=0
run_suite build || status=1
if [ ! -f build-sanitize/build.ninja ]; then
  CC=clang meson setup build-sanitize --buildtype=debug -Dtoolkit="$toolkit" -Dfuzz=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false
fi
meson compile -C build-sanitize
run_suite build-sanitize --suite cpu --suite tools --suite fuzz --no-suite other-archs || status=1

count() { sed -n "s/^$1: *\([0-9][0-9]*\).*/\1/p" build/meson-logs/quickstart-test.log build-sanitize/meson-logs/quickstart-test.log | awk '{ total += $1 } END { print total + 0 }'; }
echo "$(( $(count Ok) + $(count 'Expected Fail') )) passed, $(( $(count Fail) + $(count Timeout) + $(count 'Unexpected Pass') )) failed, $(count Skipped) skipped"
exit "$status"
