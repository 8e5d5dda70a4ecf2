"""Selector evaluation for the allocator: compile once, evaluate each (expression, device) once."""

from __future__ import annotations

from typing import Any

from drasim.api.resource import Device
from drasim.cel import CelEnvironment, CelRuntimeError, Program, compile_selector, device_input


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

    def evaluate(self, expression: str, driver: str, device: Device) -> bool | CelRuntimeError:
        """True/False, or a CelRuntimeError value. Raises CelCompileError for a bad expression."""
        entry = self._devices.get(id(device))
        if entry is None:
            entry = (device, device_input(driver, device), {})
            self._devices[id(device)] = entry
        results = entry[2]
        outcome = results.get(expression)
        if outcome is None:
            program = self._programs.get(expression)
            if program is None:
                program = self._programs[expression] = compile_selector(expression, self.env)
            outcome = program.evaluate(entry[1])
            results[expression] = outcome
        return outcome
