"""SelectorCache: memoised selector results per (program, device) for the life of a cluster state."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from drasim.cel.compile import Program
from drasim.cel.device import DeviceInput
from drasim.cel.errors import CelRuntimeError


class SelectorCache:
    """A plain dict wrapper. `key` identifies a device (e.g. driver/pool/device); the device input
    is built at most once per key, and each (program, key) is evaluated at most once.
    Drop the cache (or call `clear`) when a slice changes."""

    __slots__ = ("_inputs", "_results")

    def __init__(self) -> None:
        self._results: dict[tuple[Program, Hashable], bool | CelRuntimeError] = {}
        self._inputs: dict[Hashable, DeviceInput] = {}

    def get_or_eval(self, program: Program, key: Hashable,
                    device_input_factory: Callable[[], DeviceInput]) -> bool | CelRuntimeError:
        k = (program, key)
        r = self._results.get(k)
        if r is None:
            di = self._inputs.get(key)
            if di is None:
                di = self._inputs[key] = device_input_factory()
            r = self._results[k] = program.evaluate(di)
        return r

    def clear(self) -> None:
        self._results.clear()
        self._inputs.clear()

    def __len__(self) -> int:
        return len(self._results)
