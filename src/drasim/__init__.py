"""drasim: a faithful, fast simulator of Kubernetes Dynamic Resource Allocation.

The Python API (`drasim.lib`) is re-exported here on first use, so `import drasim` (and `drasim --help`)
stays light: `drasim.load()`, `drasim.simulate(inputs)`, ... `__all__` is the contract.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"
DEFAULT_KUBERNETES_VERSION = "1.36"

__all__ = [
    "DEFAULT_KUBERNETES_VERSION", "AllocationAnswer", "CapacityResult", "DrasimError", "Explanation", "InputError",
    "Inputs", "LintFinding", "PodLine", "ReleaseProfile", "Simulation", "SimulationResult", "WorkloadMix",
    "__version__", "allocate", "capacity", "explanation", "lint_findings", "load", "profile", "simulate",
]


def __getattr__(name: str) -> Any:
    """The API's names, imported from `drasim.lib` when first asked for."""
    if name in __all__ and name not in ("DEFAULT_KUBERNETES_VERSION", "__version__"):
        # By name, not `import`: the layer checker would otherwise count every `from drasim import releases`
        # in the core as a dependency on the API at the top (tests/test_layers.py allows this one).
        value = getattr(importlib.import_module("drasim.lib"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'drasim' has no attribute {name!r}")
