#!/usr/bin/env python3
"""Checks the host's exact-sum reference (tools/reference_exact.c) and both roundings of exact
accumulators (kernel_templates/exact_round.h: of whole partials, and of the kernels' window of
nonzero digits) against Python's exact rationals.

usage: exact_reference.py CLI [SEED]

Writes cases to CLI (tests/exact_reference_cli.c), which answers each with the three results:
hard ones (cancellation, ties to even, subnormal results, the edge of overflow, specials,
alternating huge and tiny values) and random ones over each type's whole exponent range; compares
every result bit for bit with the sum computed in fractions.Fraction and rounded to nearest even
by this script.
"""
import math
import random
import struct
import subprocess
import sys
from fractions import Fraction

# type: (bytes, significand bits, exponent of the smallest subnormal, largest exponent)
FORMATS = {"f16": (2, 11, -24, 15), "bf16": (2, 8, -133, 127), "f32": (4, 24, -149, 127), "f64": (8, 53, -1074, 1023)}
OUTPUTS = {"f16": ["f16", "f32"], "bf16": ["bf16", "f32"], "f32": ["f32"], "f64": ["f64"]}


def decode(kind, bits):
    if kind == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    if kind == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    if kind == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def encode(kind, value):
    """The bits of a value that the type represents exactly (or an infinity, or NaN)."""
    if kind == "f16":
        return struct.unpack("<H", struct.pack("<e", value))[0]
    if kind == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        return (bits >> 16) | (0x40 if value != value else 0)
    if kind == "f32":
        return struct.unpack("<I", struct.pack("<f", value))[0]
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def nearest(kind, value):
    """An exact rational rounded to the type, ties to even, with its subnormals and overflow."""
    _, precision, lowest, largest = FORMATS[kind]
    if value == 0:
        return 0.0
    sign = -1.0 if value < 0 else 1.0
    magnitude = abs(value)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    quantum = max(exponent - precision + 1, lowest)
    units = round(magnitude / Fraction(2) ** quantum)  # Fraction rounds half to even
    result = Fraction(units) * Fraction(2) ** quantum
    if result >= Fraction(2) ** (largest + 1):
        return sign * math.inf
    return sign * float(result)


def expected(kind, output, bits):
    values = [decode(kind, b) for b in bits]
    if any(v != v for v in values) or (math.inf in values and -math.inf in values):
        return None  # NaN: any NaN bits will do
    if math.inf in values or -math.inf in values:
        return encode(output, math.inf if math.inf in values else -math.inf)
    return encode(output, nearest(output, sum((Fraction(v) for v in values), Fraction(0))))


def random_bits(kind, rng):
    size, precision, lowest, largest = FORMATS[kind]
    while True:
        bits = rng.getrandbits(8 * size)
        value = decode(kind, bits)
        if value == value and not math.isinf(value):
            return bits


def near(kind, value, rng):
    """A value of the type close to `value` (finite), as bits."""
    return encode(kind, nearest(kind, Fraction(value) * (1 + Fraction(rng.randint(-100, 100), 1 << 20))))


def cases(rng):
    for kind in FORMATS:
        size, precision, lowest, largest = FORMATS[kind]
        top = float(Fraction(2) ** largest * (2 - Fraction(1, 1 << (precision - 1))))
        tiny = float(Fraction(2) ** lowest)
        one = encode(kind, 1.0)
        for output in OUTPUTS[kind]:
            yield kind, output, [encode(kind, top), one, encode(kind, -top)]          # cancellation
            yield kind, output, [encode(kind, top), encode(kind, top)]                # overflow
            yield kind, output, [encode(kind, top), encode(kind, top), encode(kind, -top)]
            yield kind, output, [encode(kind, tiny)] * 7 + [encode(kind, -tiny)] * 2  # subnormal result
            yield kind, output, [one, encode(kind, float(Fraction(1, 1 << precision)))]  # a tie: to even
            yield kind, output, [one, encode(kind, float(Fraction(3, 1 << precision)))]  # a tie: up
            yield kind, output, [encode(kind, -0.0), encode(kind, -0.0)]              # zero is +0
            yield kind, output, [encode(kind, math.inf), one]
            yield kind, output, [encode(kind, math.inf), encode(kind, -math.inf)]
            yield kind, output, [encode(kind, math.nan), one]
            yield kind, output, [encode(kind, top if i % 2 else tiny) for i in range(64)]  # huge and tiny
            for _ in range(60):
                count = rng.choice([1, 2, 3, 10, 100, 1000])
                bits = [random_bits(kind, rng) for _ in range(count)]
                if rng.random() < 0.5:  # cancel most of it
                    bits += [encode(kind, -decode(kind, b)) for b in bits[: count - 1]]
                rng.shuffle(bits)
                yield kind, output, bits
            for _ in range(20):  # near ties after heavy cancellation
                a = random_bits(kind, rng)
                bits = [a, encode(kind, -decode(kind, a)), one, near(kind, float(Fraction(1, 1 << precision)), rng)]
                yield kind, output, bits


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 else 2
    seed = int(argv[2]) if len(argv) > 2 else random.randrange(1 << 32)
    rng = random.Random(seed)
    all_cases = list(cases(rng))
    text = "".join("%s %s %d %s\n" % (k, o, len(b), " ".join("%x" % x for x in b)) for k, o, b in all_cases)
    run = subprocess.run([argv[1]], input=text, capture_output=True, text=True, check=True)
    results = [line.split() for line in run.stdout.splitlines()]
    failures = 0
    for (kind, output, bits), answers in zip(all_cases, results):
        want = expected(kind, output, bits)
        for who, got in zip(("reference", "partials' rounding", "kernels' rounding"), answers):
            got_bits = int(got, 16)
            ok = decode(output, got_bits) != decode(output, got_bits) if want is None else got_bits == want
            if not ok:
                failures += 1
                if failures <= 10:
                    print("MISMATCH %s, %s->%s %s: got %x, want %s" % (who, kind, output, [hex(b) for b in bits][:8],
                                                                       got_bits, "NaN" if want is None else hex(want)))
    print("%d cases, three answers each, %d mismatches (seed %d)" % (len(all_cases), failures, seed))
    return 1 if failures or len(results) != len(all_cases) or any(len(a) != 3 for a in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
