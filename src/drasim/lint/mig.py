"""MIG profile names per NVIDIA GPU model, read from the bundled catalog, and the fleet's models."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from drasim.lint.base import DeviceView

__all__ = ["NVIDIA_DRIVER", "catalog_profiles", "fleet_models", "model_key"]

NVIDIA_DRIVER = "gpu.nvidia.com"


def model_key(name: str) -> str:
    """One key for the spellings of a product name: `NVIDIA H100 80GB HBM3`, `NVIDIA-H100-80GB-HBM3`."""
    return re.sub(r"[\s_-]+", "-", name.strip().casefold()).removeprefix("nvidia-")


@cache
def catalog_profiles() -> dict[str, frozenset[str]]:
    """Product name (`model_key`) -> MIG profile names; models without MIG map to an empty set."""
    # Imported here: only a MIG profile literal in a selector reads the catalog (a few ms of every lint's start).
    from drasim.catalog.nvidia import load_catalog

    out: dict[str, frozenset[str]] = {}
    for model in load_catalog().models:
        profiles = frozenset(p.name for p in model.profiles)
        for name in (model.product_name, *model.product_aliases):
            out.setdefault(model_key(name), profiles)
    return out


def fleet_models(devices: Iterable[DeviceView]) -> dict[str, str]:
    """`model_key` -> published `productName` of the NVIDIA devices among `devices`."""
    out: dict[str, str] = {}
    for d in devices:
        if d.driver != NVIDIA_DRIVER:
            continue
        attr = d.device.attributes.get("productName") or d.device.attributes.get(f"{NVIDIA_DRIVER}/productName")
        if attr is not None and attr.string:
            out.setdefault(model_key(attr.string), attr.string)
    return out
