#!/bin/sh
# The harness's shards (see test_shards.c): every test runs once over three shards under one seed,
# a failing test fails the whole, one shard replays alone, and a bad count is refused.
# usage: shards.sh TEST-SHARDS
set -u
exe=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/out" 2>/dev/null; exit 1; }
expected=$(for i in 3 4 5 6 7 8 9 10 11 12; do echo "looped $i"; done; echo "single 0")

CUREDUCE_SHARDS_LOG=$dir/log CUREDUCE_TEST_SHARDS=3 "$exe" >"$dir/out" 2>&1 || fail "three shards did not pass"
[ "$(sort "$dir/log")" = "$(echo "$expected" | sort)" ] || fail "not every test ran exactly once: $(cat "$dir/log")"
[ "$(grep -c '^== shard' "$dir/out")" -eq 3 ] || fail "not three shards reported"
[ "$(grep -o 'CUREDUCE_TEST_SEED=[0-9]*' "$dir/out" | sort -u | wc -l)" -eq 1 ] || fail "the shards' seeds differ"

rm -f "$dir/log"
CUREDUCE_SHARDS_LOG=$dir/log CUREDUCE_SHARDS_FAIL="looped 7" CUREDUCE_TEST_SHARDS=3 "$exe" >"$dir/out" 2>&1 &&
  fail "a failing test passed"
grep -q "failing as asked: looped 7" "$dir/out" || fail "the failing shard's output is missing"
[ "$(wc -l <"$dir/log")" -eq 11 ] || fail "a failure stopped the other shards' tests"
replay=$(grep -o 'CUREDUCE_TEST_SHARD=[0-9]' "$dir/out" | head -1)
[ -n "$replay" ] || fail "no shard says how to replay it"

rm -f "$dir/log"
env "$replay" CUREDUCE_SHARDS_LOG="$dir/log" CUREDUCE_TEST_SHARDS=3 "$exe" >"$dir/out" 2>&1 || fail "a shard alone failed"
grep -q '^== shard' "$dir/out" && fail "a shard alone forked"
[ "$(wc -l <"$dir/log")" -ge 3 ] && [ "$(wc -l <"$dir/log")" -le 4 ] || fail "a shard alone ran $(wc -l <"$dir/log") tests"

CUREDUCE_TEST_SHARDS=0 "$exe" >"$dir/out" 2>&1
[ $? -eq 2 ] || fail "CUREDUCE_TEST_SHARDS=0 was not refused"
echo "shards: every test once, failures gathered, a shard replayed alone"
