#!/bin/sh
# Runs one libFuzzer target for a while from the committed seed corpus, into a scratch folder (the
# committed corpus is never written), and prints how many inputs it ran. A crash fails the test
# and leaves the crashing input in the scratch folder, whose path is printed: add it to the
# corpus as a regression input once fixed.
#   run_fuzz.sh TARGET SEED_CORPUS SECONDS
set -u
target=$1
seeds=$2
seconds=${CUREDUCE_FUZZ_SECONDS:-$3}
scratch=$(mktemp -d)
"$target" -max_total_time="$seconds" -artifact_prefix="$scratch/" -print_final_stats=1 "$scratch" "$seeds" \
  > "$scratch/log" 2>&1
code=$?
grep -E "^(Done|stat::number_of_executed_units)" "$scratch/log"
if [ "$code" -ne 0 ]; then
  tail -40 "$scratch/log"
  echo "fuzzing $(basename "$target") failed; inputs kept in $scratch"
  exit 1
fi
rm -rf "$scratch"
