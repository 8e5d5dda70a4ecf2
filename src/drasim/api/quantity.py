"""Exact Kubernetes `resource.Quantity` values: parsing, canonical strings, arithmetic and the CEL helpers."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final, Literal, NoReturn

from drasim.api.bigint import (
    INT64_MAX,
    INT64_MIN,
    MAX_DIGITS,
    cmp_values,
    digits_to_int,
    fits_int64,
    go_pow10,
    int64_add,
    int_to_float,
    int_to_str,
    ndigits,
    normalize,
    pow10,
    wrap_int32,
)
from drasim.errors import QuantityError

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "ERR_FORMAT_WRONG",
    "ERR_NOT_INTEGER",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "MAX_DIGITS",
    "Format",
    "Quantity",
    "quantity_dec_hook",
    "quantity_enc_hook",
]

Format = Literal["DecimalSI", "BinarySI", "DecimalExponent"]

DECIMAL_SI: Final = "DecimalSI"
BINARY_SI: Final = "BinarySI"
DECIMAL_EXPONENT: Final = "DecimalExponent"
_FORMATS: Final = frozenset({DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT})

# apimachinery's error texts (ErrFormatWrong, ErrNumeric, ErrSuffix) and the CEL library's asInteger() error.
ERR_FORMAT_WRONG: Final = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
ERR_NUMERIC: Final = "unable to parse numeric part of quantity"
ERR_SUFFIX: Final = "unable to parse quantity's suffix"
ERR_NOT_INTEGER: Final = "cannot convert value to integer"


_INT32_MIN: Final = -(1 << 31)
_NANO: Final = -9

_DECIMAL_SUFFIXES: Final[dict[str, int]] = {
    "": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18,
}
_BINARY_SUFFIXES: Final[dict[str, int]] = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX_OF: Final[dict[int, str]] = {v: k for k, v in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_OF: Final[dict[int, str]] = {v // 10: k for k, v in _BINARY_SUFFIXES.items()}

# Mirrors apimachinery's hand-written scanner (parseQuantityString): optional sign, leading zeros,
# integer digits, optional "." with fraction digits, then a suffix made of suffix letters, an optional
# sign and digits. Possessive quantifiers make the split deterministic, exactly like the scanner; when
# the suffix part does not run to the end of the string the scanner reports ErrFormatWrong.
_SCAN: Final = re.compile(r"([+-]?+)0*+([0-9]*+)(\.[0-9]*+)?+([eEinumkKMGTP]*+[-+]?+[0-9]*+)")
_EXPONENT: Final = re.compile(r"[+-]?[0-9]+")

# strings.TrimSpace (unicode.IsSpace), which UnmarshalJSON applies; str.strip() would also drop \x1c-\x1f.
_GO_SPACE: Final = ("\t\n\v\f\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
                    + "\u2028\u2029\u202f\u205f\u3000")


def _fail(message: str) -> NoReturn:
    raise QuantityError(message)


_set = object.__setattr__


class _QuantityState:
    """The slots of `Quantity`; `_Building` shares the layout so that `_make` can fill them fast."""

    __slots__ = ("_cached", "_coef", "_dec", "_exp", "_fmt", "_orig", "_rs", "_str")

    _coef: int  # value == _coef * 10**_exp, _coef not divisible by 10 (0 -> exp 0)
    _exp: int
    _fmt: str
    _dec: bool  # upstream would hold an inf.Dec (else a scaled int64)
    _rs: int  # upstream's scale: value == unscaled * 10**_rs
    _cached: str | None  # the spelling upstream's parse fast path caches
    _str: str | None  # memoized str()
    _orig: str | None


class _Building(_QuantityState):
    __slots__ = ()


def _make(coef: int, exp: int, fmt: str, dec: bool, rep_scale: int,
          cached: str | None = None, original: str | None = None) -> Quantity:
    q = _Building()
    q._coef = coef
    q._exp = exp
    q._fmt = fmt
    q._dec = dec
    q._rs = rep_scale
    q._cached = cached
    q._str = cached
    q._orig = original
    q.__class__ = Quantity  # type: ignore[assignment]
    return q  # type: ignore[return-value]


class Quantity(_QuantityState):
    """An exact `resource.Quantity`: immutable, hashable, equal by numeric value.

    The value is kept as `coef * 10**exp` with Python integers. Besides the value, an instance
    remembers what upstream's `Quantity` struct remembers, because some results depend on it:

    * the format (`DecimalSI`, `BinarySI`, `DecimalExponent`), which drives the canonical string;
    * the spelling apimachinery caches on its parse fast path, which `String()`/JSON emit verbatim
      (`"+1"`, `"01"`, `"5."`, `"1E3"` are printed as written, see `canonical()` for the other form);
    * whether upstream would hold the value as a scaled int64 or as an `inf.Dec`, and at which scale:
      `isInteger()`/`asInteger()` (Go's `AsInt64`) are false for every `inf.Dec` value and for int64
      values with a negative scale (`quantity("1Pi")`, `quantity("1.0")`, `quantity("1000m")`), and
      `value()`/`asApproximateFloat()` round per representation.

    Construct with `Quantity.parse`, `Quantity.from_int`, `Quantity.coerce` (or `Quantity(v)`,
    which is `coerce`).
    """

    __slots__ = ()

    def __new__(cls, value: str | int | float | Quantity) -> Quantity:
        return cls.coerce(value)

    # ----------------------------------------------------------------------------------- construction

    @staticmethod
    def parse(s: str) -> Quantity:
        """Parse like apimachinery's `ParseQuantity` (no whitespace trimming); raise `QuantityError`."""
        if not isinstance(s, str):
            raise TypeError(f"Quantity.parse() needs a str, not {type(s).__name__}")
        q = _parse_cached(s)
        return q if q is not None else _parse(s)

    @staticmethod
    def from_int(n: int, fmt: str = DECIMAL_SI) -> Quantity:
        """Like `resource.NewQuantity(n, fmt)`: an integer value in the given format."""
        if type(n) is not int:
            raise TypeError(f"Quantity.from_int() needs an int, not {type(n).__name__}")
        if fmt not in _FORMATS:
            raise ValueError(f"unknown quantity format {fmt!r}")
        coef, exp = normalize(n, 0)
        return _make(coef, exp, fmt, not fits_int64(n), 0)

    @staticmethod
    def coerce(v: str | int | float | Quantity) -> Quantity:
        """What a decoder does with a JSON/YAML value: strings are trimmed and parsed, numbers parsed
        from their decimal spelling (as `UnmarshalJSON` parses the raw number)."""
        if isinstance(v, Quantity):
            return v
        if isinstance(v, str):
            return Quantity.parse(v.strip(_GO_SPACE))
        if isinstance(v, bool):
            _fail(ERR_FORMAT_WRONG)
        if isinstance(v, int):
            if -(10**18) < v < 10**18:
                return Quantity.parse(str(v))
            return _parse(int_to_str(v))
        if isinstance(v, float):
            return Quantity.parse(repr(v))
        raise TypeError(f"cannot convert {type(v).__name__} to a quantity")

    # ----------------------------------------------------------------------------------- accessors

    @property
    def format(self) -> str:
        """`DecimalSI`, `BinarySI` or `DecimalExponent`, as upstream's `Quantity.Format`."""
        return self._fmt

    @property
    def original(self) -> str | None:
        """The string this quantity was parsed from (None for computed quantities)."""
        return self._orig

    @property
    def fraction(self) -> Fraction:
        """The exact value as a `Fraction` (materializes the number: refuses absurdly large values)."""
        if self._exp >= 0:
            return Fraction(self._coef * pow10(self._exp))
        return Fraction(self._coef, 10 ** (-self._exp))

    def as_decimal_parts(self) -> tuple[int, int]:
        """The exact value as `(m, e)` with value == m * 10**e and m not divisible by 10 (0 -> (0, 0))."""
        return self._coef, self._exp

    def sign(self) -> int:
        """-1, 0 or 1."""
        c = self._coef
        return (c > 0) - (c < 0)

    def is_zero(self) -> bool:
        return self._coef == 0

    # ----------------------------------------------------------------------------------- strings

    def __str__(self) -> str:
        s = self._str
        if s is None:
            s = self.canonical()
            _set(self, "_str", s)
        return s

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def canonical(self) -> str:
        """apimachinery's `CanonicalizeBytes` (what `String()` computes when nothing was cached)."""
        coef, exp = self._coef, self._exp
        if coef == 0:
            return "0"
        fmt = self._fmt
        if fmt == BINARY_SI:
            if exp < 0 or (exp < 4 and -1024 < coef * 10**exp < 1024):
                fmt = DECIMAL_SI  # below 1024 in magnitude, or fractional: no binary suffix
            else:
                n = coef * pow10(exp)
                twos = (n & -n).bit_length() - 1
                times = twos // 10
                # A 1024-power above Ei has no suffix: apimachinery silently drops it (prints
                # 2^70 as "1"); reproduced on purpose.
                return int_to_str(n >> (10 * times)) + _BINARY_SUFFIX_OF.get(times, "")
        r = exp % 3
        mantissa = coef * 10**r if r else coef
        e3 = exp - r
        if fmt == DECIMAL_SI:
            suffix = _DECIMAL_SUFFIX_OF.get(e3)
            if suffix is None:
                suffix = f"e{e3}"  # no SI suffix beyond E (10^18): fall back to exponent notation
        else:
            suffix = f"e{e3}" if e3 else ""
        return int_to_str(mantissa) + suffix

    # ----------------------------------------------------------------------------------- comparison

    def cmp(self, other: Quantity) -> int:
        """-1, 0 or 1, like `Quantity.Cmp` (CEL `compareTo`)."""
        if self._exp == other._exp:
            a, b = self._coef, other._coef
            return (a > b) - (a < b)
        return cmp_values(self._coef, self._exp, other._coef, other._exp)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._coef == other._coef and self._exp == other._exp

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._coef != other._coef or self._exp != other._exp

    def __hash__(self) -> int:
        return hash((self._coef, self._exp))

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) < 0

    def __le__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) <= 0

    def __gt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) > 0

    def __ge__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) >= 0

    def struct_equal(self, other: Quantity) -> bool:
        """Go's `==` on two `resource.Quantity` structs (as decoded, `String()` never called).

        Equal only when both hold the same int64 value at the same scale, with the same cached
        spelling and format; values upstream holds as `inf.Dec` compare by pointer, i.e. only a
        quantity with itself. The consumable-capacity "consumed == default" check uses this.
        """
        if self is other:
            return True
        if self._dec or other._dec:
            return False
        return (self._rs == other._rs and self._coef == other._coef and self._exp == other._exp
                and self._cached == other._cached and self._fmt == other._fmt)

    # ----------------------------------------------------------------------------------- arithmetic

    def add(self, other: Quantity | int) -> Quantity:
        """`q.Add(y)` on a copy (CEL `add`); an int operand is `NewQuantity(n, DecimalExponent)`."""
        return _add(self, _operand(other), negate=False)

    def sub(self, other: Quantity | int) -> Quantity:
        """`q.Sub(y)` on a copy (CEL `sub`); an int operand is `NewQuantity(n, DecimalExponent)`."""
        return _add(self, _operand(other), negate=True)

    def mul(self, other: Quantity) -> Quantity:
        """`NewDecimalQuantity(q.AsDec() * y.AsDec(), q.Format)`: exact, held as an `inf.Dec` (the scheduler's
        node-allocatable multipliers, nodeallocatabledynamicresources.go addDeviceMapping)."""
        coef, exp = normalize(self._coef * other._coef, self._exp + other._exp)
        return _make(coef, exp, self._fmt, True, self._rs + other._rs)

    def __add__(self, other: Quantity | int) -> Quantity:
        if isinstance(other, bool) or not isinstance(other, (Quantity, int)):
            return NotImplemented
        return _add(self, _operand(other), negate=False)

    def __radd__(self, other: int) -> Quantity:
        if isinstance(other, bool) or not isinstance(other, int):
            return NotImplemented
        return _add(_operand(other), self, negate=False)

    def __sub__(self, other: Quantity | int) -> Quantity:
        if isinstance(other, bool) or not isinstance(other, (Quantity, int)):
            return NotImplemented
        return _add(self, _operand(other), negate=True)

    def __rsub__(self, other: int) -> Quantity:
        if isinstance(other, bool) or not isinstance(other, int):
            return NotImplemented
        return _add(_operand(other), self, negate=True)

    def __neg__(self) -> Quantity:
        if self._dec:
            return _make(-self._coef, self._exp, self._fmt, True, self._rs)
        unscaled = self._coef * 10 ** (self._exp - self._rs)
        return _make(-self._coef, self._exp, self._fmt, unscaled == INT64_MIN, self._rs)

    def __pos__(self) -> Quantity:
        return self

    def __abs__(self) -> Quantity:
        return -self if self._coef < 0 else self

    # ----------------------------------------------------------------------------------- conversions

    def value(self) -> int:
        """`Value()`: the value rounded to an integer as upstream rounds (up, away from zero)."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """`MilliValue()`: `scaled_value(-3)`."""
        return self.scaled_value(-3)

    def scaled_value(self, scale: int) -> int:
        """`ScaledValue(scale)`: the value in units of 10**scale, rounded like upstream.

        Upstream rounds away from zero for values held as int64 (the usual case). For values held as
        `inf.Dec` it adds one to a truncated quotient, so a negative non-integer moves towards zero
        (`-1.5` -> `-1`, a negative sub-unit value even to `+1`); reproduced. Where upstream overflows
        int64 (undefined there) the exact integer is returned.
        """
        coef, exp = self._coef, self._exp
        if coef == 0:
            return 0
        if not self._dec:
            if exp >= scale:
                return coef * pow10(exp - scale)
            k = scale - exp
            if k > ndigits(coef):
                return 1 if coef > 0 else -1
            q, r = divmod(abs(coef), 10**k)
            q += r != 0
            return q if coef > 0 else -q
        # inf.Dec: unscaled * 10**rs with rs <= exp; apimachinery's scaledValue().
        rs = self._rs
        dif = scale - rs
        if dif <= 0:
            return coef * pow10(exp - scale)
        if exp - rs > MAX_DIGITS:
            return coef * pow10(max(exp - scale, 0))  # saturated
        unscaled = coef * 10 ** (exp - rs)
        if exp >= scale:  # an exact multiple of the new unit: no rounding anywhere
            return coef * pow10(exp - scale)
        if dif > ndigits(unscaled) + 1:
            # |unscaled| < 10**dif: quotient 0 (truncated) or -1 (floored), remainder non-zero.
            return 1 if (abs(unscaled) < INT64_MAX and dif < 19) or unscaled > 0 else 0
        divisor = 10**dif
        if abs(unscaled) < INT64_MAX and dif < 19:
            q = abs(unscaled) // divisor
            q = q if unscaled > 0 else -q  # Go's truncating division
            r = unscaled - q * divisor
        else:
            q, r = divmod(unscaled, divisor)  # big.Int.DivMod is Euclidean: floor for a positive divisor
        return q + 1 if r else q

    def is_integer(self) -> bool:
        """CEL `isInteger()`: upstream's `AsInt64()` succeeds (see the class docstring)."""
        if self._dec:
            return False
        rs = self._rs
        if rs == 0:
            return True
        if rs < 0:
            return False
        if self._coef == 0:
            return True
        return self._exp <= 18 and fits_int64(self._coef * 10**self._exp)

    def as_integer(self) -> int:
        """CEL `asInteger()`: the int64 value, or `QuantityError('cannot convert value to integer')`."""
        if not self.is_integer():
            _fail(ERR_NOT_INTEGER)
        return self._coef * 10**self._exp

    def as_approximate_float(self) -> float:
        """CEL `asApproximateFloat()`: `AsApproximateFloat64()`, bit for bit."""
        coef, exp, rs = self._coef, self._exp, self._rs
        if coef == 0:
            return 0.0
        shift = exp - rs
        if shift > 400 or ndigits(coef) + shift > 400:
            base = math.inf if coef > 0 else -math.inf
        else:
            base = int_to_float(coef * 10**shift)
        if rs == 0:
            return base
        return base * go_pow10(rs)

    # ----------------------------------------------------------------------------------- protocol

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("Quantity is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("Quantity is immutable")

    def __copy__(self) -> Quantity:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Quantity:
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_make, (self._coef, self._exp, self._fmt, self._dec, self._rs, self._cached, self._orig))


# ------------------------------------------------------------------------------------------- parsing


def _parse(s: str) -> Quantity:
    """ParseQuantity, step for step (see the module notes in `Quantity`)."""
    if not s:
        _fail(ERR_FORMAT_WRONG)
    if s == "0":
        return _make(0, 0, DECIMAL_SI, False, 0, "0", s)
    m = _SCAN.fullmatch(s)
    if m is None:
        _fail(ERR_FORMAT_WRONG)
    sign, num, dot, suffix = m.groups()
    negative = sign == "-"
    num = num or "0"
    denom = dot[1:] if dot else ""

    # Suffix: base, exponent, format (quantitySuffixer.interpret).
    exponent = _DECIMAL_SUFFIXES.get(suffix)
    if exponent is not None:
        base, fmt = 10, DECIMAL_SI
    else:
        exponent = _BINARY_SUFFIXES.get(suffix)
        if exponent is not None:
            base, fmt = 2, BINARY_SI
        elif len(suffix) > 1 and suffix[0] in "eE" and _EXPONENT.fullmatch(suffix, 1):
            digits = suffix[1:].lstrip("+-").lstrip("0")
            if len(digits) > 19:
                _fail(ERR_SUFFIX)  # strconv.ParseInt: out of range
            parsed = int(suffix[1:])
            if not fits_int64(parsed):
                _fail(ERR_SUFFIX)
            exponent = wrap_int32(parsed)  # Go narrows the exponent to int32
            base, fmt = 10, DECIMAL_EXPONENT
            if exponent == _INT32_MIN and (num + denom).strip("0"):
                # 1.37 hangs on a non-zero mantissa with this exponent; later releases reject it.
                _fail(ERR_SUFFIX)
        else:
            _fail(ERR_SUFFIX)

    # Fast path: the value fits an int64 at a scale of at least nano.
    if base == 10:
        precision = 18 - (len(num) + len(denom))
        mult = 1
    elif not denom:
        mult = 1 << exponent
        precision = 15 - len(num) - (exponent * 3 // 10) - 1
    else:
        mult = 1
        precision = -1
    if precision >= 0:
        scale = (exponent if base == 10 else 0) - len(denom)
        if scale >= _NANO:
            shifted = num + denom
            v = int(shifted)
            result = v * mult
            if result <= INT64_MAX:
                cached: str | None = None
                if base == 2:
                    if v & 7:
                        cached = s
                elif scale % 3 == 0 and shifted[0] != "0" and not shifted.endswith("000"):
                    cached = s
                coef, exp = normalize(-result if negative else result, scale)
                return _make(coef, exp, fmt, False, scale, cached, s)

    # Slow path (inf.Dec): exact value, rounded away from zero to nano, binary capped at 2^63-1.
    if not any(c.isdigit() for c in s[: len(s) - len(suffix)]):
        _fail(ERR_NUMERIC)
    digits_int = digits_to_int(num + denom)
    capped = False
    if digits_int == 0:
        coef, exp = 0, 0
    elif base == 10:
        e = exponent - len(denom)
        if e >= _NANO:
            coef, exp = normalize(digits_int, e)
        else:
            k = -e + _NANO  # decimal places beyond nano
            if ndigits(digits_int) <= k:
                nano = 1
            else:
                q, r = divmod(digits_int, 10**k)
                nano = q + (r != 0)
            coef, exp = normalize(nano, _NANO)
    else:
        scaled = digits_int << exponent
        d = len(denom)
        if d <= 9:
            nano = scaled * 10 ** (9 - d)
        else:
            q, r = divmod(scaled, 10 ** (d - 9))
            nano = q + (r != 0)
        if nano > INT64_MAX * 10**9:
            capped = True
            coef, exp = normalize(INT64_MAX, 0)
        else:
            coef, exp = normalize(nano, _NANO)
            if nano < 10**9:
                fmt = DECIMAL_SI  # a binary value below one is kept as DecimalSI
    if negative:
        coef = -coef
    rep_scale = 0 if (coef == 0 or capped) else _NANO
    return _make(coef, exp, fmt, True, rep_scale, None, s)


@lru_cache(maxsize=16384)
def _parse_cached(s: str) -> Quantity | None:
    # Only values upstream holds as int64 are shared: an inf.Dec value is a fresh pointer per parse
    # upstream, which matters to `struct_equal`. Errors are not cached (lru_cache does not cache raises).
    q = _parse(s)
    return None if q._dec else q


# ------------------------------------------------------------------------------------------- helpers


def _operand(other: Quantity | int) -> Quantity:
    if isinstance(other, Quantity):
        return other
    return Quantity.from_int(other, DECIMAL_EXPONENT)


def _add(a: Quantity, b: Quantity, *, negate: bool) -> Quantity:
    ac, ae = a._coef, a._exp
    bc, be = (-b._coef if negate else b._coef), b._exp
    # The exact value.
    if bc == 0:
        coef, exp = ac, ae
    elif ac == 0:
        coef, exp = bc, be
    elif ae == be:
        coef, exp = normalize(ac + bc, ae)
    else:
        e = ae if ae < be else be
        if (ae if ae > be else be) - e > MAX_DIGITS:  # saturated: the far smaller operand is absorbed
            coef, exp = (ac, ae) if ndigits(ac) + ae >= ndigits(bc) + be else (bc, be)
        else:
            coef, exp = normalize(ac * 10 ** (ae - e) + bc * 10 ** (be - e), e)
    fmt = b._fmt if ac == 0 else a._fmt
    # The representation upstream ends up with.
    ars, brs = a._rs, b._rs
    if not a._dec and not b._dec:
        av = ac * 10 ** (ae - ars) if ac else 0
        bv = bc * 10 ** (be - brs) if bc else 0
        if negate and bv == -INT64_MIN:  # -y overflows: upstream falls back to inf.Dec
            return _make(coef, exp, fmt, True, brs if ac == 0 else min(ars, brs))
        res = int64_add(av, ars, bv, brs)
        if res is not None:
            return _make(coef, exp, fmt, False, res[1])
    return _make(coef, exp, fmt, True, ars if ars < brs else brs)


# ------------------------------------------------------------------------------------------- msgspec


# Quantities by the string a decoder met: a fleet spells the same few capacities on every device (~730,000 on
# 5,000 nodes, decoded again by every clone), and this lookup is a quarter of the parse path's cost. Only what
# `_parse_cached` shares (int64 values); bounded: past it, strings take the parse path.
_DECODED: dict[str, Quantity] = {}
_DECODED_MAX = 16384


def quantity_dec_hook(type_: type, obj: object) -> object:
    """msgspec `dec_hook`: decode a JSON/YAML string or number into a `Quantity`."""
    if type_ is Quantity:
        if type(obj) is str:
            q = _DECODED.get(obj)
            if q is None:
                q = Quantity.coerce(obj)
                if not q._dec and len(_DECODED) < _DECODED_MAX:
                    _DECODED[obj] = q
            return q
        if isinstance(obj, (str, int, float)):
            return Quantity.coerce(obj)
        raise TypeError(f"expected a quantity string or number, got {type(obj).__name__}")
    raise NotImplementedError(f"unsupported type {type_!r}")


def quantity_enc_hook(obj: object) -> object:
    """msgspec `enc_hook`: a `Quantity` is written as its string (`MarshalJSON`)."""
    if isinstance(obj, Quantity):
        return obj._str or str(obj)  # the memoised string without a method call: a fleet writes ~1.4 million
    raise NotImplementedError(f"objects of type {type(obj).__name__} are not supported")
