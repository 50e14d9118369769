#!/usr/bin/env python3
"""Mutation tests of the GPU suites: a test that cannot fail proves nothing.

Each mutant breaks one thing in the kernel templates, and names the test that must catch it. On a
GPU host, each is built in a copy of the tree (its own build and kernel cache folders) and its
suite run; a mutant counts as caught only when its test is among the failures, not when another
test trips over it first. With --check (no GPU: a CPU suite of its own), it only confirms that
every mutation still applies, exactly once, to today's templates, so that a change to the kernels
cannot leave a mutant behind that no longer mutates anything.

usage: gpu_mutations.py [--check] [--jobs N] [--only FILES] [--match TEXT]... SOURCE_ROOT
The GPU run needs what the build needs (libcheck through PKG_CONFIG_PATH) and a GPU. Exit status:
0 every mutant applies (and, without --check, is caught), 1 otherwise, 2 bad usage.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

# (file under kernel_templates/, text, its mutation, suite binary and argument (and the check case
# that holds the test, run alone), the test that must fail, what the mutant breaks)
MUTANTS = [
    ("transforms.cuh",
     "return (value)element<IN>::to_value(x) * (value)element<IN>::to_value(y);",
     "return (value)element<IN>::to_value(x) * (value)element<IN>::to_value(x);",
     ("test-gpu-transforms", "f32"), "test_pairs", "the product map ignores y"),
    ("accumulate.cuh",
     "    return op::fold_pair(acc, x[i], y[i], index);",
     "    return op::fold_pair(acc, x[i], x[i], index);",
     ("test-gpu-transforms", "f32"), "test_pairs", "pairs read element by element ignore y"),
    ("accumulate.cuh",
     "return pair_source{x + first, y + first};",
     "return pair_source{x + first, y};",
     ("test-gpu-transforms", "f32"), "test_pair_shapes", "every row of a pair reads y's first row"),
    ("accumulate.cuh",
     "return (((u64)x | (u64)y | leading * sizeof(input_t)) % CUREDUCE_VECTOR_BYTES) == 0;",
     "return (((u64)x | leading * sizeof(input_t)) % CUREDUCE_VECTOR_BYTES) == 0;",
     ("test-gpu-transforms", "f32"), "test_pair_shapes", "rows of a misaligned y are read in whole vectors"),
    ("operations.cuh",
     "return acc{a.shift, a.sum + b.sum, a.squares + b.squares, a.count + b.count};",
     "return acc{a.shift, a.sum + b.sum, a.squares, a.count + b.count};",
     ("test-gpu-transforms", "f32"), "test_statistics", "a merge of moments drops the other's squared deviations"),
    ("accumulate.cuh",
     "return op::shifted ? op::start(first) : op::identity();",
     "return op::shifted ? op::start(op::mapped_storage(0)) : op::identity();",
     ("test-gpu-transforms", "f32"), "test_statistics_planted", "the moments sum deviations from 0, not from an element"),
    ("operations.cuh",
     "(a.count - (sample ? 1.0 : 0.0))",
     "(a.count - (sample ? 0.0 : 0.0))",
     ("test-gpu-transforms", "f32"), "test_statistics", "the sample statistics lose Bessel's correction"),
    ("block_folds.cuh",
     "kept_b += __shfl_xor_sync(0xffffffffu, upper_half ? second : 0.0, 16);",
     "kept_b += __shfl_xor_sync(0xffffffffu, 0.0, 16);",
     ("test-gpu-transforms", "f32"), "test_statistics", "a warp's three sums drop the upper half-warp's second (the moments' squares)"),
    ("exact_rows.cu",
     "read_input(w, input + first, length, (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x,",
     "read_input(w, input, length, (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x,",
     ("test-gpu-exact", "", "rows"), "test_hard_rows", "every row of an exact sum reads the first row's elements"),
    ("exact_rows.cu",
     "read_input(w, input + first, length, (u64)blockIdx.x * CUREDUCE_BLOCK + threadIdx.x,",
     "read_input(w, input + first, length, (u64)threadIdx.x,",
     ("test-gpu-exact", "", "rows"), "test_hard_rows", "every block of a split exact row reads the first block's share"),
    ("exact_columns.cu",
     "read_input(w, input + first_row * shape.leading + col, rows, lane, 32, shape.leading);",
     "read_input(w, input + first_row * shape.leading + col, rows, lane, 32, 1);",
     ("test-gpu-exact", "", "rows"), "test_hard_rows", "an exact sum of a column reads along a row"),
    ("exact_columns.cu",
     "first_row = blockIdx.y * stretch;",
     "first_row = 0 * stretch;",
     ("test-gpu-exact", "", "rows"), "test_hard_rows", "every split of an exact column reads its first stretch of rows"),
    ("exact_groups.cu",
     "missed = __any_sync(group_mask(), missed);",
     "missed = __shfl_sync(group_mask(), missed, 0, CUREDUCE_GROUP);",
     ("test-gpu-exact", "", "short"), "test_short_rows", "a group takes its first lane's word that nothing missed"),
    ("exact_groups.cu",
     "acc[k] = group_fold(acc[k], [](double a, double c) { return __dadd_rn(a, c); });",
     "acc[k] += 0.0;",
     ("test-gpu-exact", "", "short"), "test_short_rows", "a group's sum is its first lane's share"),
    ("exact_groups.cu",
     "return scalbn(rint(scalbn(exact, -quantum)), quantum);",
     "return scalbn(round(scalbn(exact, -quantum)), quantum);",
     ("test-gpu-exact", "", "short"), "test_short_rows", "a short sum's ties round away from zero"),
    ("exact_groups.cu",
     "return {input + i, shape.rows, shape.leading};",
     "return {input + i, shape.rows, 1};",
     ("test-gpu-exact", "", "short"), "test_short_rows", "a thread's column is read along a row"),
    ("accumulate.cuh",
     "for (unsigned k = 0; k < IN_FLIGHT; k++) v = op::combine(v, loaded[k]);",
     "for (unsigned k = 0; k < 1; k++) v = op::combine(v, loaded[k]);",
     ("test-gpu-reduce", "f32"), "test_operation_matrix", "a fold of partials keeps the first of each round of loads"),
    ("accumulate.cuh",
     "for (; i < count; i += step) v = op::combine(v, load_partial(p + (u64)i * stride));",
     "",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "a fold of partials drops those past its rounds of loads"),
    ("column_tiles.cu",
     "v = group_reduce<split_lanes>(v);",
     "",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "a column's split lanes are not folded together"),
    ("column_tiles.cu",
     "const unsigned byte_rounds = 256 / CUREDUCE_UNROLL;",
     "const unsigned byte_rounds = 4096 / CUREDUCE_UNROLL;",
     ("test-gpu-shapes", "u8"), "test_byte_columns_widened", "byte columns' 16-bit lanes widened every 4096 rows"),
    ("column_tiles.cu",
     "const acc_t bias = (acc_t)(128 * rows);",
     "const acc_t bias = (acc_t)(128 * CUREDUCE_UNROLL);",
     ("test-gpu-shapes", "i8"), "test_byte_columns_widened", "i8 byte columns take off one round's 128s"),
    ("block_folds.cuh",
     "v.index = warp_first_index(v.index, holds && v.key == largest);",
     "v.index = warp_first_index(v.index, holds);",
     ("test-gpu-reduce", "f32"), "test_operation_matrix", "a warp's arg fold takes its first index, not its largest key's"),
    ("block_folds.cuh",
     "const unsigned low = __reduce_min_sync(0xffffffffu, holds && high == smallest_high ? (unsigned)index : ~0u);",
     "const unsigned low = __reduce_max_sync(0xffffffffu, holds && high == smallest_high ? (unsigned)index : 0u);",
     ("test-gpu-reduce", "u8"), "test_operation_matrix", "a warp's arg fold takes the last of equal keys"),
    ("block_folds.cuh",
     "holds && high == smallest_high ? (unsigned)index : ~0u",
     "holds ? (unsigned)index : ~0u",
     ("test-gpu-semantics", "", "runs"), "test_more_than_2_pow_32_elements",
     "a warp's arg fold takes the smallest low word of its holders' indices, whatever their high words"),
    ("block_folds.cuh",
     "holds && high == largest_high ? (unsigned)key : 0u",
     "holds ? (unsigned)key : 0u",
     ("test-gpu-reduce", "f64"), "test_operation_matrix", "a warp's 64-bit keys mix high and low words of different keys"),
    ("block_folds.cuh",
     "return key::storage(warp_largest_key(key::of(v), true));",
     "return v;",
     ("test-gpu-transforms", "f32"), "test_statistics", "a warp's logsumexp rescales each lane to its own largest"),
    ("vector_loads.cuh",
     "    acc_t &into = acc[k % thread_accumulators];\n    into = fold_vector(",
     "    acc_t into = acc[k % thread_accumulators];\n    into = fold_vector(",
     ("test-gpu-transforms", "f32"), "test_statistics", "a round's loads fold into a copy of their accumulator"),
    ("operations.cuh",
     "return exponent - 512u <= 1508u - 512u || (bits << 1) == 0;",
     "return exponent - 512u <= 2046u - 512u || (bits << 1) == 0;",
     ("test-gpu-transforms", "f64"), "test_norm2", "f64 norm2's middle sum takes the huge elements' squares unscaled"),
    ("block_folds.cuh",
     "if (__any_sync(0xffffffffu, v.small != 0.0 || v.big != 0.0)) {",
     "if (__any_sync(0xffffffffu, v.small != 0.0)) {",
     ("test-gpu-transforms", "f64"), "test_norm2", "a warp's f64 norm2 drops its big sums where no lane has a small one"),
    ("column_tiles.cu",
     "  fold_warp_rows<across>(acc);\n  fold_rows_left<rows_left>(acc);",
     "  (void)acc;",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "a column tile's rows of threads are not folded"),
    ("operations.cuh",
     "if (a.index == empty || k > a.key) a.key = k, a.index = index;",
     "if (a.index == empty || k >= a.key) a.key = k, a.index = index;",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "a column's later element wins its ties"),
    ("shapes.cuh",
     "    return warp_reduce(v);",
     "    return v;",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "a whole-warp group of a row or segment is not folded"),
    ("column_tiles.cu",
     "    if (row + k * step < rows) fold_columns(acc, loaded[k], row + k * step);",
     "    if (row + k * step + step < rows) fold_columns(acc, loaded[k], row + k * step);",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "a column's last rows, fewer than a round, drop the last of them"),
    ("column_tiles.cu",
     "    if (row + k * step < rows) {\n      add_bytes(lanes, loaded[k]);",
     "    if (row + k * step + step < rows) {\n      add_bytes(lanes, loaded[k]);",
     ("test-gpu-shapes", "u8"), "test_rows_and_columns", "byte columns' last rows, fewer than a round, drop the last of them"),
    ("column_tiles.cu",
     "const unsigned chunk_rounds = CUREDUCE_ARG_BY_VECTOR ? (last_tag + 1) / CUREDUCE_UNROLL : 0xffffffffu;",
     "const unsigned chunk_rounds = CUREDUCE_ARG_BY_VECTOR ? (last_tag + 1) / CUREDUCE_UNROLL + 1 : 0xffffffffu;",
     ("test-gpu-shapes", "u8"), "test_keyed_columns", "tagged key lanes of 8-bit columns: tags wrap past a chunk"),
    ("column_tiles.cu",
     "const unsigned chunk_rounds = CUREDUCE_ARG_BY_VECTOR ? (last_tag + 1) / CUREDUCE_UNROLL : 0xffffffffu;",
     "const unsigned chunk_rounds = CUREDUCE_ARG_BY_VECTOR ? (last_tag + 1) / CUREDUCE_UNROLL + 1 : 0xffffffffu;",
     ("test-gpu-shapes", "bf16"), "test_keyed_columns", "tagged key lanes of 16-bit columns: tags wrap past 65536 rows"),
    ("column_tiles.cu",
     "fold_row_keys(lanes, loaded[k], CUREDUCE_ARG_BY_VECTOR ? tag - k : 0);",
     "fold_row_keys(lanes, loaded[k], CUREDUCE_ARG_BY_VECTOR ? tag - CUREDUCE_UNROLL + 1 + k : 0);",
     ("test-gpu-shapes", "f16"), "test_keyed_columns", "tagged key lanes: tags count up in a round"),
    ("column_tiles.cu",
     "first + (u64)(last_tag - (bits & last_tag)) * step);",
     "first + (u64)(last_tag - (bits & last_tag)));",
     ("test-gpu-shapes", "i8"), "test_keyed_columns", "tagged key lanes' rows leave out the thread's step"),
    ("column_tiles.cu",
     "if (key_bits == 8) return 4 * (p / 2) + p % 2 + 2 * lane;",
     "if (key_bits == 8) return 4 * (p / 2) + 2 * (p % 2) + lane;",
     ("test-gpu-shapes", "i8"), "test_keyed_columns", "8-bit key lanes report the keys of the wrong columns"),
    ("column_tiles.cu",
     "(p % 2 ? 0x3254u : 0x1054u)",
     "(p % 2 ? 0x1054u : 0x3254u)",
     ("test-gpu-shapes", "f16"), "test_keyed_columns", "16-bit tagged key lanes hold each other's keys"),
    ("column_tiles.cu",
     "return tag_bits == 0 ? 2 * p + lane : p;",
     "return tag_bits == 0 ? 2 * p + 1 - lane : p;",
     ("test-gpu-shapes", "bf16"), "test_keyed_columns", "16-bit min and max key lanes report each other's columns"),
    ("column_tiles.cu",
     "unsigned row_half(u64 row) { return ~(unsigned)row; }",
     "unsigned row_half(u64 row) { return (unsigned)row; }",
     ("test-gpu-shapes", "u8"), "test_keyed_columns", "split words of arg columns keep the last row of a tie"),
    ("column_tiles.cu",
     "unsigned key_half(unsigned bits) { return bits ^ 0x80000000u; }",
     "unsigned key_half(unsigned bits) { return bits; }",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "split words of arg columns order keys as unsigned"),
    ("column_tiles.cu",
     "if constexpr (split_word<A>::packs) return shape.rows < split_word<A>::rows_below;",
     "if constexpr (split_word<A>::packs) return true;",
     ("test-gpu-semantics", "", "runs"), "test_more_than_2_pow_32_elements",
     "split words of arg columns hold columns of 2^32 - 1 rows or more, whose words no launch zeroed"),
    ("column_tiles.cu",
     "      *word = 0;\n",
     "",
     ("test-gpu-semantics", "", "runs"), "test_slot_armed_area_left_zero",
     "split words are left in a slot's armed area for the next launch"),
    ("column_tiles.cu",
     "for (unsigned offset = 16; offset >= ACROSS; offset >>= 1)",
     "for (unsigned offset = 8; offset >= ACROSS; offset >>= 1)",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "a narrow tile's warp folds half its rows of threads"),
    ("column_tiles.cu",
     "for (unsigned r = 0; r < ROWS_LEFT - 1; r++)",
     "for (unsigned r = 1; r < ROWS_LEFT - 1; r++)",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "a tile's fold down its warps skips the second row of them"),
    ("column_tiles.cu",
     "    for (u64 row = vectors.rows * packed_rows; row < shape.rows; row++)",
     "    for (u64 row = vectors.rows * packed_rows; row + 1 < shape.rows; row++)",
     ("test-gpu-shapes", "u8"), "test_rows_and_columns", "packed columns drop the last row after the whole loads"),
    ("column_tiles.cu",
     "return row * packed_rows + (u64)(j / thread_columns);",
     "return row * packed_rows;",
     ("test-gpu-shapes", "f32"), "test_rows_and_columns", "packed columns give a load's rows the index of its first"),
    ("row_blocks.cu",
     "place = blocks == 1 ? 0 : blockIdx.x;",
     "place = blockIdx.x;",
     ("test-gpu-shapes", "f32"), "test_segments", "a segment of one block's work is read as if split, from its split's place"),
    ("row_blocks.cu",
     "turn -= turn >= gridDim.x ? gridDim.x : 0;",
     "turn -= 0;",
     ("test-gpu-shapes", "f32"), "test_segment_batches", "one-block segments past a column's first batch are nobody's turn"),
    ("row_blocks.cu",
     "before += w < warp ? warp_counts[w] : 0;",
     "before += w <= warp ? warp_counts[w] : 0;",
     ("test-gpu-shapes", "u8"), "test_segments", "a block's rows taken are stored past the warps before it"),
    ("column_tiles.cu",
     "const bool larger = keys.key[j] > best[j];",
     "const bool larger = keys.key[j] >= best[j];",
     ("test-gpu-shapes", "f32"), "test_key_row_columns", "32-bit key-row columns keep the last row of a tie"),
    ("column_tiles.cu",
     "at[j] == no_row ? first : at[j]",
     "at[j]",
     ("test-gpu-shapes", "i32"), "test_key_row_columns", "32-bit key-row columns of the lowest key alone lose their row"),
    ("shapes.cuh",
     "to[first * count + lane] = warp_staged[lane + lane / count];",
     "to[first * count + lane] = warp_staged[lane];",
     ("test-gpu-shapes", "u8"), "test_rows_and_columns", "a warp's staged results are read without their rows' padding"),
    ("row_groups.cu",
     "  if (v < vectors) {",
     "  if (false && v < vectors) {",
     ("test-gpu-shapes", "u8"), "test_rows_and_columns", "packed rows drop their last vectors, fewer than a warp's"),
    ("column_tiles.cu",
     "store_warp_results<vector_elements>(out, col - (threadIdx.x % 32) * vector_elements, acc);",
     "store_warp_results<vector_elements>(out, col, acc);",
     ("test-gpu-shapes", "u8"), "test_rows_and_columns", "a tile's warp stores its results from each thread's column"),
]


def mutated(text, mutant):
    """The text with the mutant applied; ValueError unless its original occurs exactly once."""
    _, original, replacement, _, _, what = mutant
    count = text.count(original)
    if count != 1:
        raise ValueError(f"{what}: its text occurs {count} times, not once")
    return text.replace(original, replacement)


def check(root):
    ok = True
    for mutant in MUTANTS:
        path = os.path.join(root, "kernel_templates", mutant[0])
        try:
            with open(path, encoding="utf-8") as f:
                mutated(f.read(), mutant)
            print(f"applies: {mutant[5]} ({mutant[0]})")
        except (OSError, ValueError) as e:
            print(f"STALE: {e}")
            ok = False
    return ok


def run_mutant(root, mutant, work):
    """Builds the mutant in `work` and runs its suite: (caught, the failures' lines)."""
    tree = os.path.join(work, "tree")

    def not_sources(folder, names):  # the root's build folders, git's and the GPU runner's
        return [n for n in names if folder == root and (n in (".git", ".gpu") or n.startswith("build"))]

    shutil.copytree(root, tree, ignore=not_sources)
    path = os.path.join(tree, "kernel_templates", mutant[0])
    with open(path, encoding="utf-8") as f:
        text = mutated(f.read(), mutant)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    build = os.path.join(work, "build")
    binary, argument, case = (mutant[3] + ("",))[:3]
    for step in (["meson", "setup", build, tree, "--buildtype=release"], ["meson", "compile", "-C", build, binary]):
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            return False, [f"build failed: {' '.join(step)}"] + done.stdout.splitlines()[-5:]
    env = dict(os.environ, CUREDUCE_REQUIRE_GPU="1", CUREDUCE_CACHE_DIR=os.path.join(work, "cache"),
               CUREDUCE_TEST_SHARDS="2")
    if case:
        env["CK_RUN_CASE"] = case
    done = subprocess.run([os.path.join(build, "tests", binary), argument], capture_output=True, text=True, env=env)
    lines = (done.stdout + done.stderr).splitlines()
    failures = [line for line in lines if ":F:" in line or ":E:" in line]
    caught = done.returncode != 0 and any(f":{mutant[4]}:" in line for line in failures)
    return caught, failures or [f"exit {done.returncode}, no test failed:"] + lines[-3:]


def run_all(root, jobs):
    """Runs every mutant, printing each verdict as it comes (a run cut short still says what it saw)."""
    missed = 0
    with tempfile.TemporaryDirectory() as scratch, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        running = {pool.submit(run_mutant, root, mutant, os.path.join(scratch, str(i))): mutant
                   for i, mutant in enumerate(MUTANTS)}
        for done in concurrent.futures.as_completed(running):
            mutant, (caught, failures) = running[done], done.result()
            print(f"{'caught' if caught else 'MISSED'}: {mutant[5]} (must fail: {mutant[4]})", flush=True)
            for line in failures[:3]:
                print(f"    {line}", flush=True)
            missed += not caught
    print(f"mutants: {len(MUTANTS)}, caught {len(MUTANTS) - missed}, missed {missed}")
    return missed == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only confirm that every mutation applies (no GPU)")
    parser.add_argument("--jobs", type=int, default=3, help="mutants built and run at once (default 3)")
    parser.add_argument("--only", metavar="FILES", help="only the mutants of these templates, comma-separated, "
                                                          "e.g. exact_groups.cu,exact_rows.cu")
    parser.add_argument("--match", metavar="TEXT", action="append",
                        help="only the mutants whose description holds TEXT (given again: any of them), "
                             "e.g. moments")
    parser.add_argument("root", help="the source tree's root")
    args = parser.parse_args()
    if args.only:
        MUTANTS[:] = [m for m in MUTANTS if m[0] in args.only.split(",")]
        if not MUTANTS:
            parser.error(f"no mutant mutates {args.only}")
    if args.match:
        MUTANTS[:] = [m for m in MUTANTS if any(text in m[5] for text in args.match)]
        if not MUTANTS:
            parser.error(f"no mutant's description holds any of {args.match!r}")
    if args.jobs < 1:
        parser.error("--jobs takes a positive number")
    if not check(args.root):
        return 1
    return 0 if args.check or run_all(os.path.abspath(args.root), args.jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
