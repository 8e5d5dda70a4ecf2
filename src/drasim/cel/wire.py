"""A minimal protobuf wire-format reader: enough to decode the CheckedExpr that cel-cpp serialises."""

from __future__ import annotations

import struct

# A decoded message: field number -> values in wire order. Varints are ints, length-delimited fields
# are bytes, fixed64/fixed32 fields are the raw 8/4 bytes (the caller knows their meaning).
Message = dict[int, list["int | bytes"]]


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    n = len(buf)
    while True:
        if pos >= n:
            raise WireError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift > 70:
            raise WireError("varint too long")


def parse(buf: bytes) -> Message:
    """Split one message into its fields (not recursive: nested messages stay bytes)."""
    out: Message = {}
    pos = 0
    n = len(buf)
    while pos < n:
        key, pos = _varint(buf, pos)
        field, wire_type = key >> 3, key & 7
        value: int | bytes
        if wire_type == 0:
            value, pos = _varint(buf, pos)
        elif wire_type == 2:
            length, pos = _varint(buf, pos)
            if pos + length > n:
                raise WireError("truncated length-delimited field")
            value = buf[pos:pos + length]
            pos += length
        elif wire_type == 1:
            value = buf[pos:pos + 8]
            pos += 8
        elif wire_type == 5:
            value = buf[pos:pos + 4]
            pos += 4
        else:
            raise WireError(f"unsupported wire type {wire_type}")
        out.setdefault(field, []).append(value)
    return out


def first_int(msg: Message, field: int, default: int = 0) -> int:
    """The last occurrence of a scalar varint field (protobuf's last-one-wins rule)."""
    values = msg.get(field)
    if not values:
        return default
    v = values[-1]
    if not isinstance(v, int):
        raise WireError(f"field {field} is not a varint")
    return v


def first_bytes(msg: Message, field: int) -> bytes | None:
    """The last occurrence of a length-delimited field, or None."""
    values = msg.get(field)
    if not values:
        return None
    v = values[-1]
    if not isinstance(v, bytes):
        raise WireError(f"field {field} is not length-delimited")
    return v


def all_bytes(msg: Message, field: int) -> list[bytes]:
    """All occurrences of a repeated length-delimited field."""
    out: list[bytes] = []
    for v in msg.get(field, ()):
        if not isinstance(v, bytes):
            raise WireError(f"field {field} is not length-delimited")
        out.append(v)
    return out


def packed_ints(msg: Message, field: int) -> list[int]:
    """A repeated int field, accepting both packed and unpacked encodings."""
    out: list[int] = []
    for v in msg.get(field, ()):
        if isinstance(v, int):
            out.append(v)
        else:
            pos = 0
            while pos < len(v):
                x, pos = _varint(v, pos)
                out.append(x)
    return out


def to_int64(v: int) -> int:
    """Reinterpret a decoded varint as a two's-complement int64."""
    return v - (1 << 64) if v >= (1 << 63) else v


def to_double(raw: int | bytes) -> float:
    """Decode a fixed64 double."""
    if not isinstance(raw, bytes) or len(raw) != 8:
        raise WireError("double field is not fixed64")
    return float(struct.unpack("<d", raw)[0])
