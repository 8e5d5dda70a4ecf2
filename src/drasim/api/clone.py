"""Deep copies of decoded objects (a msgspec round trip, ~2.5x faster than copy.deepcopy), for the public
functions that must not change the objects they are given."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import msgspec

from drasim.api.decode import gc_paused
from drasim.api.quantity import quantity_dec_hook, quantity_enc_hook

__all__ = ["clone", "clone_objects"]

_encoder = msgspec.msgpack.Encoder(enc_hook=quantity_enc_hook)
_decoders: dict[type, msgspec.msgpack.Decoder[Any]] = {}


def clone_objects(objects: Iterable[Any]) -> list[Any]:
    """Independent copies of `objects` (msgspec structs through msgpack; anything else deep-copied).

    With the cyclic collector paused, as decoding does: the copies hold no cycles, and a fleet's are millions
    of objects, each batch of which set off a collection (a 5,000-node clone took three times as long)."""
    with gc_paused():
        return [clone(obj) for obj in objects]


def clone(obj: Any) -> Any:
    """An independent copy of `obj` (a msgspec struct through msgpack; anything else deep-copied)."""
    if not isinstance(obj, msgspec.Struct):
        return copy.deepcopy(obj)
    cls = type(obj)
    decoder = _decoders.get(cls)
    if decoder is None:
        decoder = _decoders[cls] = msgspec.msgpack.Decoder(cls, dec_hook=quantity_dec_hook)
    return decoder.decode(_encoder.encode(obj))
