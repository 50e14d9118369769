#!/usr/bin/env bash
# Quick start on a fresh Debian or Ubuntu machine that has the CUDA toolkit (nvcc, NVRTC, headers):
#
#   tools/quickstart.sh run    install what is missing, build, run cureduce-check
#   tools/quickstart.sh test   install what is missing, build, run the whole test suite
#
# Installs meson, ninja, check, pkg-config, python3 and a C compiler with apt-get when any is
# missing (as root, or through sudo). Builds in ./build. The toolkit is looked for in $CUDA_PATH,
# else /usr/local/cuda. The test run ends with a plain line: "N passed, N failed, N skipped".
set -euo pipefail

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
  run|test) mode=$1 ;;
  -h|--help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

packages=(meson ninja-build check pkg-config python3 gcc)
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

log=build/meson-logs/quickstart-test.log
set +e
meson test -C build --print-errorlogs 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
count() { sed -n "s/^$1: *\([0-9][0-9]*\).*/\1/p" "$log" | tail -1; }
echo "$(( $(count Ok) + $(count 'Expected Fail') )) passed, $(( $(count Fail) + $(count Timeout) + $(count 'Unexpected Pass') )) failed, $(count Skipped) skipped"
exit "$status"
