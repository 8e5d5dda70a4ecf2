"""Timestamps and durations: parsing (RFC 3339, Go duration syntax), arithmetic and accessors."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from drasim.cel.values import Duration, EvalError, Timestamp

_NS = 1_000_000_000
# 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z, the range CEL allows.
_MIN_TS = -62135596800 * _NS
_MAX_TS = 253402300799 * _NS + 999_999_999
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$")


def _check_ts(nanos: int) -> Timestamp:
    if nanos < _MIN_TS or nanos > _MAX_TS:
        raise EvalError("timestamp overflow")
    return Timestamp(nanos)


def timestamp_from_string(s: str) -> Timestamp:
    m = _RFC3339.match(s)
    if not m:
        raise EvalError(f'parsing time "{s}" as "2006-01-02T15:04:05Z07:00": cannot parse')
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    frac = (m.group(7) or "").ljust(9, "0")
    try:
        base = _dt.datetime(y, mo, d, h, mi, sec, tzinfo=_dt.UTC)
    except ValueError as e:
        raise EvalError(f'parsing time "{s}": {e}') from None
    tz = m.group(8)
    offset = 0
    if tz not in ("Z", "z"):
        sign = 1 if tz[0] == "+" else -1
        offset = sign * (int(tz[1:3]) * 3600 + int(tz[4:6]) * 60)
    secs = int((base - _EPOCH).total_seconds()) - offset
    return _check_ts(secs * _NS + int(frac))


def timestamp_from_int(secs: int) -> Timestamp:
    return _check_ts(secs * _NS)


# Go's time.ParseDuration units, in nanoseconds (µ is U+00B5, μ U+03BC); the timeline's durations use them too.
GO_DURATION_UNITS = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 1_000_000, "s": _NS,
                     "m": 60 * _NS, "h": 3600 * _NS}
_DUR_PART = re.compile(r"(\d*\.?\d*)(ns|us|µs|μs|ms|s|m|h)")


def duration_from_string(s: str) -> Duration:
    """Go's time.ParseDuration."""
    orig = s
    neg = False
    if s[:1] in ("+", "-"):
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return Duration(0)
    if not s:
        raise EvalError(f'time: invalid duration "{orig}"')
    total = 0
    pos = 0
    while pos < len(s):
        m = _DUR_PART.match(s, pos)
        if not m or m.group(1) in ("", "."):
            raise EvalError(f'time: invalid duration "{orig}"')
        num = m.group(1)
        unit = GO_DURATION_UNITS[m.group(2)]
        if "." in num:
            whole, frac = num.split(".", 1)
            total += int(whole or "0") * unit
            if frac:
                total += int(frac) * unit // (10 ** len(frac))
        else:
            total += int(num) * unit
        pos = m.end()
    if total > (1 << 63) - 1:
        raise EvalError(f'time: invalid duration "{orig}"')
    return Duration(-total if neg else total)


def add_time(t: Timestamp, d: Duration) -> Timestamp:
    return _check_ts(t.nanos + d.nanos)


def sub_time(t: Timestamp, d: Duration) -> Timestamp:
    return _check_ts(t.nanos - d.nanos)


def _zone(tz: str) -> _dt.tzinfo:
    m = re.fullmatch(r"([+-]?)(\d{1,2}):(\d{2})", tz)
    if m:
        sign = -1 if m.group(1) == "-" else 1
        return _dt.timezone(sign * _dt.timedelta(hours=int(m.group(2)), minutes=int(m.group(3))))
    # Imported here: zoneinfo reads sysconfig's tables on import (~3 ms), and only a selector naming a time
    # zone needs it, while every command that compiles a selector imports this module.
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise EvalError(f"unknown time zone {tz}") from None


def _local(t: Timestamp, tz: str | None) -> _dt.datetime:
    dt = t.datetime()
    return dt.astimezone(_zone(tz)) if tz else dt


def _ts_getter(field: str) -> Any:
    def get(t: Any, tz: Any = None) -> int:
        if type(t) is Duration:
            return _duration_getter(field, t)
        if type(t) is not Timestamp:
            raise EvalError("no such overload")
        dt = _local(t, tz)
        if field == "getFullYear":
            return dt.year
        if field == "getMonth":
            return dt.month - 1
        if field == "getDate":
            return dt.day
        if field == "getDayOfMonth":
            return dt.day - 1
        if field == "getDayOfWeek":
            return (dt.weekday() + 1) % 7
        if field == "getDayOfYear":
            return dt.timetuple().tm_yday - 1
        if field == "getHours":
            return dt.hour
        if field == "getMinutes":
            return dt.minute
        if field == "getSeconds":
            return dt.second
        if field == "getMilliseconds":
            return (t.nanos % _NS) // 1_000_000
        raise EvalError("no such overload")

    return get


def _duration_getter(field: str, d: Duration) -> int:
    n = d.nanos
    sign = -1 if n < 0 else 1
    n = abs(n)
    if field == "getHours":
        return sign * (n // (3600 * _NS))
    if field == "getMinutes":
        return sign * (n // (60 * _NS))
    if field == "getSeconds":
        return sign * (n // _NS)
    if field == "getMilliseconds":
        return sign * ((n % _NS) // 1_000_000)
    raise EvalError("no such overload")


# cel-cpp declares these itself; only the implementations are used from here.
GETTERS: dict[str, Any] = {
    name: _ts_getter(name)
    for name in ("getFullYear", "getMonth", "getDate", "getDayOfMonth", "getDayOfWeek",
                 "getDayOfYear", "getHours", "getMinutes", "getSeconds", "getMilliseconds")
}
