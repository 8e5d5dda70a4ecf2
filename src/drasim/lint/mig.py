"""MIG profile names per NVIDIA GPU model, read from the bundled catalog, and the fleet's models."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

import yaml

from drasim.lint.base import DeviceView

__all__ = ["NVIDIA_DRIVER", "catalog_profiles", "fleet_models", "model_key"]

NVIDIA_DRIVER = "gpu.nvidia.com"

# The catalog is read as data: drasim.fleet.catalog belongs to the edges layer, above lint.


def model_key(name: str) -> str:
    """One key for the spellings of a product name: `NVIDIA H100 80GB HBM3`, `NVIDIA-H100-80GB-HBM3`."""
    return re.sub(r"[\s_-]+", "-", name.strip().casefold()).removeprefix("nvidia-")


def _names(model: dict[str, Any]) -> list[str]:
    """The NVML product name and the usable aliases (catalog aliases are prose: `NAME (why)`)."""
    names = [str((model.get("product_name") or {}).get("value") or "")]
    for alias in model.get("product_name_aliases") or []:
        head = str(alias).split(" (", 1)[0].strip()
        if head and ":" not in head and "'" not in head:
            names.append(head)
    return [n for n in names if n]


@cache
def catalog_profiles() -> dict[str, frozenset[str]]:
    """Product name (`model_key`) -> MIG profile names; models without MIG map to an empty set."""
    text = resources.files("drasim.fleet").joinpath("nvidia-catalog.yaml").read_text(encoding="utf-8")
    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    out: dict[str, frozenset[str]] = {}
    for model in data.get("gpu_models") or []:
        mig = model.get("mig") or {}
        profiles = frozenset(str(p["name"]) for p in mig.get("profiles") or [] if p.get("name"))
        for name in _names(model):
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
