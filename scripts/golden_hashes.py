"""The integer hashes the image golden files share with their C++ readers: SplitMix64, which
seeds the test images' pixels, and FNV-1a 64, which names an output image by its bytes
(tests/data/augment_golden.h is the C++ twin)."""

MASK64 = (1 << 64) - 1


def splitmix64(i):
    z = (i * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & MASK64
    return f"{h:016x}"
