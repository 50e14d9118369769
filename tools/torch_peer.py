#!/usr/bin/env python3
"""Times torch's own reductions of the statistics cureduce-bench times (mean, var_mean, std,
logsumexp, vector_norm, x.abs().amax(), dot), so that a note can set torch's figure beside
cureduce's from the same machine and session. Median of CUDA-event timings of back-to-back calls,
GB/s of bytes read (both inputs for dot).

    python3 tools/torch_peer.py [--n 2^28] [--types f32,f64] [--reps 50]

Needs torch with CUDA (not a dependency of the project: a peer figure only); installs nothing.
"""
import argparse
import statistics
import sys


def parse_count(text):
    if "^" in text:
        base, power = text.split("^")
        return int(base) ** int(power)
    return int(text)


def computations(torch):
    return {
        "mean": lambda x, y: torch.mean(x),
        "var_mean": lambda x, y: torch.var_mean(x, correction=0),
        "std": lambda x, y: torch.std(x, correction=0),
        "logsumexp": lambda x, y: torch.logsumexp(x, dim=0),
        "vector_norm": lambda x, y: torch.linalg.vector_norm(x),
        "abs_amax": lambda x, y: x.abs().amax(),
        "dot": lambda x, y: torch.dot(x, y),
    }


def time_us(torch, fn, x, y, reps):
    for _ in range(3):
        fn(x, y)
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(x, y)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default="2^28", help="elements (default 2^28)")
    parser.add_argument("--types", default="f32", help="comma list of f16, bf16, f32, f64")
    parser.add_argument("--reps", type=int, default=50, help="timed calls per figure (default 50)")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("torch_peer.py: torch is not installed")
    if not torch.cuda.is_available():
        sys.exit("torch_peer.py: torch sees no CUDA device")
    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64}
    n = parse_count(args.n)
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}, n = {n}, median of {args.reps}")
    print(f"{'computation':<12} {'type':<5} {'us':>10} {'GB/s':>8}")
    for name in args.types.split(","):
        x = torch.randn(n, dtype=dtypes[name], device="cuda")
        y = torch.randn(n, dtype=dtypes[name], device="cuda")
        for label, fn in computations(torch).items():
            us = time_us(torch, fn, x, y, args.reps)
            read = x.numel() * x.element_size() * (2 if label == "dot" else 1)
            print(f"{label:<12} {name:<5} {us:>10.1f} {read / us / 1000:>8.0f}")
        del x, y
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
