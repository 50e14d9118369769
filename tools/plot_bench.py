#!/usr/bin/env python3
"""Draws cureduce-bench's --json output: GB/s against n (with the read ceiling measured in the same
run as a line) and CUB's time over cureduce's against n, one line per operation and input type.

    cureduce-bench --json --ops sum,max,argmax --types f32,bf16 > bench.json
    python3 tools/plot_bench.py bench.json bench.png

Needs matplotlib (python3 -m pip install matplotlib, or Debian's python3-matplotlib); installs nothing.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def series(rows):
    """(op, type) -> rows in order of n."""
    lines = {}
    for row in rows:
        lines.setdefault((row["op"], row["type"]), []).append(row)
    for rows_of_line in lines.values():
        rows_of_line.sort(key=lambda r: r["n"])
    return lines


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bench.py: matplotlib is not installed (python3 -m pip install matplotlib)", file=sys.stderr)
        return 1
    bench = load(argv[1])
    lines = series(bench["rows"])
    figure, (rate, ratio) = plt.subplots(2, 1, figsize=(9, 9), sharex=True)
    for (op, dtype), rows in sorted(lines.items()):
        n = [r["n"] for r in rows]
        label = f"{op} {dtype}"
        rate.plot(n, [r["gbps"] for r in rows], marker="o", markersize=3, label=label)
        with_cub = [r for r in rows if r["cub_over_cureduce"] is not None]
        if with_cub:
            ratio.plot([r["n"] for r in with_cub], [r["cub_over_cureduce"] for r in with_cub], marker="o",
                       markersize=3, label=label)
    rate.axhline(bench["read_ceiling_gbps"], color="black", linestyle="--", linewidth=1,
                 label=f"read ceiling {bench['read_ceiling_gbps']:.0f} GB/s")
    rate.set_ylabel("GB/s read (median of single calls)")
    rate.set_xscale("log", base=2)
    rate.legend(fontsize=7, ncol=2)
    rate.grid(True, alpha=0.3)
    ratio.axhline(1.0, color="black", linestyle="--", linewidth=1)
    ratio.set_ylabel("CUB time / cureduce time")
    ratio.set_xlabel("n (elements)")
    ratio.set_xscale("log", base=2)
    ratio.grid(True, alpha=0.3)
    ratio.legend(fontsize=7, ncol=2)
    figure.suptitle(f"cureduce {bench['cureduce']} on {bench['gpu']} (CUB {bench['cub']}, L2 {bench['l2']}, "
                    f"data {bench['data'].split(' ')[0]})", fontsize=10)
    figure.tight_layout()
    figure.savefig(argv[2], dpi=110)
    print(f"wrote {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
