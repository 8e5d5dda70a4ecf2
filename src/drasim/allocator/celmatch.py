"""Selector evaluation for the allocator: compile once, evaluate each (expression, device) once."""

from __future__ import annotations

from typing import Any

from drasim.api.resource import Device
from drasim.cel import CelCompileError, CelEnvironment, CelRuntimeError, Program, compile_selector, device_input
from drasim.cel.reads import Read

_UNKNOWN: Any = object()


class SelectorMemo:
    """Per cluster state: the CEL view of each device and each (expression, device) outcome.

    Devices are keyed by object identity; the memo keeps a reference to each device so an id
    is never reused while the memo lives. Create a new memo when slices change.
    """

    def __init__(self, env: CelEnvironment | None = None) -> None:
        self.env = env if env is not None else CelEnvironment()
        self._devices: dict[int, tuple[Device, Any, dict[str, bool | CelRuntimeError]]] = {}
        # Compiled programs by expression, for this memo's environment (compile_selector's process cache keys
        # by the environment too, whose dataclass hash is computed per lookup); compile errors raise each time.
        self._programs: dict[str, Program] = {}
        self._reads: dict[tuple[str, ...], tuple[Read, ...] | None] = {}  # content_key's union, per expressions

    def _entry(self, driver: str, device: Device) -> tuple[Device, Any, dict[str, bool | CelRuntimeError]]:
        entry = self._devices.get(id(device))
        if entry is None:
            entry = (device, device_input(driver, device), {})
            self._devices[id(device)] = entry
        return entry

    def _program(self, expression: str) -> Program:
        program = self._programs.get(expression)
        if program is None:
            program = self._programs[expression] = compile_selector(expression, self.env)
        return program

    def evaluate(self, expression: str, driver: str, device: Device) -> bool | CelRuntimeError:
        """True/False, or a CelRuntimeError value. Raises CelCompileError for a bad expression."""
        entry = self._entry(driver, device)
        results = entry[2]
        outcome = results.get(expression)
        if outcome is None:
            outcome = self._program(expression).evaluate(entry[1])
            results[expression] = outcome
        return outcome

    def reads(self, expressions: tuple[str, ...]) -> tuple[Read, ...] | None:
        """The entries the expressions read together (cel.reads), sorted and cached per expressions; None
        when some expression does not compile or reads more than entries."""
        reads = self._reads.get(expressions, _UNKNOWN)
        if reads is _UNKNOWN:
            union: set[Read] | None = set()
            for expression in expressions:
                try:
                    got = self._program(expression).reads
                except CelCompileError:
                    got = None
                if got is None:
                    union = None
                    break
                union.update(got)  # type: ignore[union-attr]
            reads = self._reads[expressions] = tuple(sorted(union)) if union is not None else None
        return reads

    def device_key(self, reads: tuple[Read, ...], driver: str, device: Device) -> tuple[object, ...] | None:
        """`content_key` with the expressions' `reads` already looked up (not None)."""
        return self._entry(driver, device)[1].content_key(reads, self.env.list_type_attributes)

    def content_key(self, expressions: tuple[str, ...], driver: str, device: Device) -> tuple[object, ...] | None:
        """A key on which every one of the expressions' outcomes on this device depends only (equal keys:
        equal outcomes, cel.reads); None when some expression does not compile or reads more than entries."""
        reads = self.reads(expressions)
        if reads is None:
            return None
        return self.device_key(reads, driver, device)
