"""Exact integer arithmetic under Quantity: numbers past Python's int/str digit limit, powers of ten (saturated
at MAX_DIGITS), trailing zeros, comparison of scaled values, and Go's int32/int64/Pow10 behaviour."""

from __future__ import annotations

import math
from typing import Final

__all__ = ["INT64_MAX", "INT64_MIN", "MAX_DIGITS", "cmp_values", "digits_to_int", "fits_int64", "go_pow10",
           "int64_add", "int_to_float", "int_to_str", "ndigits", "normalize", "pow10", "strip10", "wrap_int32"]

# Conversions to exact integers saturate at this many digits (about 10**100000): `1e999999` as a cpu request
# is more than any node has and as allocatable more than any pod asks, without materializing a million
# digits (upstream's int64 conversions wrap such values; its inf.Dec arithmetic computes them slowly). A sum
# whose exact value needs more digits absorbs the far smaller operand.
MAX_DIGITS: Final = 100_000

INT64_MAX: Final = (1 << 63) - 1
INT64_MIN: Final = -(1 << 63)

# Python refuses int<->str conversions beyond 4300 digits by default; longer ones are split.
_STR_CHUNK: Final = 4000


def digits_to_int(digits: str) -> int:
    if len(digits) <= _STR_CHUNK:
        return int(digits)
    half = len(digits) // 2
    return digits_to_int(digits[:-half]) * 10**half + digits_to_int(digits[-half:])


def ndigits(n: int) -> int:
    """Number of decimal digits of abs(n) (1 for 0)."""
    n = abs(n)
    if n < 10**18:
        return len(str(n))
    d = int(n.bit_length() * 0.30102999566398120) + 1
    if n < 10 ** (d - 1):
        d -= 1
    elif n >= 10**d:
        d += 1
    return d


def int_to_str(n: int) -> str:
    if n < 0:
        return "-" + int_to_str(-n)
    if n < 10**_STR_CHUNK:
        return str(n)
    half = ndigits(n) // 2
    hi, lo = divmod(n, 10**half)
    return int_to_str(hi) + int_to_str(lo).zfill(half)


def strip10(n: int) -> tuple[int, int]:
    """Split n != 0 into (m, z) with n == m * 10**z and m not divisible by 10."""
    if n % 10:
        return n, 0
    if -(1 << 62) < n < (1 << 62):  # at most 18 zeros: one binary pass over 16, 8, 4, 2, 1
        z = 0
        for k, p in _STRIP_STEPS:
            if n % p == 0:
                n //= p
                z += k
        return n, z
    # Trailing zeros are min(v2, v5); v2 is a bit trick, v5 a binary search bounded by v2.
    v2 = (n & -n).bit_length() - 1
    lo, hi = 0, v2
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if n % 5**mid == 0:
            lo = mid
        else:
            hi = mid - 1
    return n // 10**lo, lo


_STRIP_STEPS: Final = ((16, 10**16), (8, 10**8), (4, 10**4), (2, 100), (1, 10))


def normalize(mantissa: int, exp: int) -> tuple[int, int]:
    if mantissa == 0:
        return 0, 0
    m, z = strip10(mantissa)
    return m, exp + z


def pow10(k: int) -> int:
    """10**k, saturated at 10**MAX_DIGITS (see MAX_DIGITS)."""
    return 10 ** (k if k < MAX_DIGITS else MAX_DIGITS)


def wrap_int32(n: int) -> int:
    return ((n + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def fits_int64(n: int) -> bool:
    return INT64_MIN <= n <= INT64_MAX


# math.Pow10 of Go, table for table, so that asApproximateFloat() rounds like upstream.
_POW10_TAB: Final = tuple(float(f"1e{i}") for i in range(32))
_POW10_POS32: Final = tuple(float(f"1e{32 * i}") for i in range(10))
_POW10_NEG32: Final = tuple(float(f"1e-{32 * i}") for i in range(11))


def go_pow10(n: int) -> float:
    if 0 <= n <= 308:
        return _POW10_POS32[n // 32] * _POW10_TAB[n % 32]
    if -323 <= n < 0:
        return _POW10_NEG32[(-n) // 32] / _POW10_TAB[(-n) % 32]
    return math.inf if n > 0 else 0.0


def int_to_float(n: int) -> float:
    try:
        return float(n)
    except OverflowError:
        return math.inf if n > 0 else -math.inf


def cmp_values(c1: int, e1: int, c2: int, e2: int) -> int:
    s1 = (c1 > 0) - (c1 < 0)
    s2 = (c2 > 0) - (c2 < 0)
    if s1 != s2 or s1 == 0:
        return (s1 > s2) - (s1 < s2)
    if abs(e1 - e2) <= 40:
        if e1 > e2:
            a, b = c1 * 10 ** (e1 - e2), c2
        else:
            a, b = c1, c2 * 10 ** (e2 - e1)
        return (a > b) - (a < b)
    # Far apart: the position of the leading digit decides, unless it is the same.
    m1 = e1 + ndigits(c1)
    m2 = e2 + ndigits(c2)
    if m1 != m2:
        return s1 if m1 > m2 else -s1
    if e1 > e2:
        a, b = c1 * 10 ** (e1 - e2), c2
    else:
        a, b = c1, c2 * 10 ** (e2 - e1)
    return (a > b) - (a < b)


def int64_add(av: int, as_: int, bv: int, bs: int) -> tuple[int, int] | None:
    """int64Amount.Add: the aligned sum and its scale, or None when it would overflow int64."""
    if bv == 0:
        return av, as_
    if av == 0:
        return bv, bs
    if as_ == bs:
        c = av + bv
        return (c, as_) if fits_int64(c) else None
    if as_ > bs:
        if as_ - bs > 18:
            return None
        c = av * 10 ** (as_ - bs)
        if not fits_int64(c):
            return None
        c += bv
        return (c, bs) if fits_int64(c) else None
    if bs - as_ > 18:
        return None
    c = bv * 10 ** (bs - as_)
    if not fits_int64(c):
        return None
    c += av
    return (c, as_) if fits_int64(c) else None

