"""The bundled NVIDIA GPU catalog (nvidia-catalog.yaml) as typed, read-only dataclasses with model aliases."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from drasim.errors import InputError

__all__ = [
    "CATALOG_FILE",
    "MODEL_FIELDS",
    "PROFILE_FIELDS",
    "Catalog",
    "DeviceClassInfo",
    "GpuModel",
    "MigProfile",
    "load_catalog",
    "normalize_model_name",
]

CATALOG_FILE = "nvidia-catalog.yaml"
SCHEMA = "drasim/nvidia-catalog/v1"

# The per-profile numbers the catalog records (each has its own `verified` flag).
PROFILE_FIELDS = ("gi_profile_id", "memory_mib", "memory_slices", "multiprocessors", "copy_engines",
                  "decoders", "encoders", "jpeg_engines", "ofa_engines", "max_instances")
# The per-model values a generated fleet can use (each is {value, verified, sources} in the catalog).
MODEL_FIELDS = ("product_name", "architecture", "brand", "cuda_compute_capability", "memory_total_mib",
                "multiprocessors", "pci_device_id")

_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_PROFILE_G = re.compile(r"^(\d+)g\.")
_GB_TOKEN = re.compile(r"^\d+gb$")


@dataclass(frozen=True, slots=True)
class MigProfile:
    """One MIG GPU-instance profile of a model. Numbers the catalog does not know are None."""

    name: str
    gi_profile_id: int
    memory_mib: int | None
    memory_slices: int
    multiprocessors: int | None
    copy_engines: int | None
    decoders: int | None
    encoders: int | None
    jpeg_engines: int | None
    ofa_engines: int | None
    max_instances: int
    placement_size: int
    placement_starts: tuple[int, ...]
    verified: frozenset[str]  # the PROFILE_FIELDS (and "placements") the catalog marks verified

    @property
    def compute_slices(self) -> int:
        """G of `<G>g.<GB>gb`: how many of the GPU's compute slices the profile takes."""
        m = _PROFILE_G.match(self.name)
        return int(m.group(1)) if m else 0

    @property
    def media_extensions(self) -> bool:
        """`+me` profiles: only one per GPU (they own the GPU's single set of media engines)."""
        return "+me" in self.name

    def is_verified(self, name: str) -> bool:
        """Whether the catalog marks this field (or `placements`) verified; unknown names are unverified."""
        return name in self.verified


@dataclass(frozen=True, slots=True, eq=False)  # identity equality: hashable despite its mapping field
class GpuModel:
    """One GPU model: NVML strings, memory, MIG geometry and profiles, and which values are verified."""

    id: str
    product_name: str
    architecture: str
    brand: str
    cuda_compute_capability: str  # NVML "major.minor", e.g. "9.0"
    memory_total_mib: int
    multiprocessors: int | None
    pci_device_id: str | None
    mig_supported: bool
    mig_memory_slices: int
    mig_compute_slices: int
    mig_verified: bool
    profiles: tuple[MigProfile, ...]
    # dra.full_gpu_advertised_with_mig: Hopper and newer publish the full GPU next to the MIG placements.
    full_gpu_with_mig: bool
    verified: frozenset[str]  # the MODEL_FIELDS the catalog marks verified
    dra: Mapping[str, Any]  # the catalog's own expectations (devices_per_gpu, counters_per_set, ...)
    aliases: tuple[str, ...] = ()
    # Other product names NVML has reported for this model (the catalog's product_name_aliases without
    # their notes: `A100-SXM4-40GB (drivers before ~R470 ...)` -> `A100-SXM4-40GB`).
    product_aliases: tuple[str, ...] = ()

    def profile(self, name: str) -> MigProfile:
        """The MIG profile called `name`; InputError listing this model's profiles otherwise."""
        for p in self.profiles:
            if p.name == name:
                return p
        valid = ", ".join(p.name for p in self.profiles) or "none (no MIG)"
        raise InputError(f"model {self.id} has no MIG profile {name!r}; valid profiles: {valid}")

    def is_verified(self, name: str) -> bool:
        """Whether the catalog marks this model-level value verified."""
        return name in self.verified

    @property
    def gfd_product(self) -> str:
        """The product name as GPU feature discovery writes it into the `nvidia.com/gpu.product` label."""
        return self.product_name.replace(" ", "-")

    @property
    def mig_placements_per_gpu(self) -> int:
        """Every (profile, placement) pair: the MIG devices dynamic MIG publishes per GPU."""
        return sum(len(p.placement_starts) for p in self.profiles)


@dataclass(frozen=True, slots=True)
class DeviceClassInfo:
    """A DeviceClass the driver's Helm chart installs."""

    name: str
    cel: str
    extended_resource_name: str | None
    condition: str | None  # a chart value that must be set for the class to exist (None: always)
    verified: bool


@dataclass(frozen=True, slots=True)
class Catalog:
    """The whole catalog: the driver's name and classes, and every GPU model with its aliases."""

    driver_name: str
    models: tuple[GpuModel, ...]
    device_classes: tuple[DeviceClassInfo, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)  # normalised alias -> model id
    # Device type (gpu, mig, vfio) -> the attributes the current driver release publishes: (name, required).
    attributes: Mapping[str, tuple[tuple[str, bool], ...]] = field(default_factory=dict)
    path: str = ""

    def model(self, name: str) -> GpuModel:
        """Look a model up by id, alias or NVML product name (case-insensitive); InputError if unknown."""
        model_id = self.aliases.get(normalize_model_name(name))
        if model_id is None:
            raise InputError(
                f"unknown GPU model {name!r}; valid models: {', '.join(self.model_choices())}"
            )
        return self.by_id(model_id)

    def by_id(self, model_id: str) -> GpuModel:
        """The model with exactly this catalog id (KeyError if none)."""
        for m in self.models:
            if m.id == model_id:
                return m
        raise KeyError(model_id)

    def model_choices(self) -> list[str]:
        """Catalog ids with their short aliases, for error messages: `h100-80gb-hbm3 (h100, h100-80gb)`."""
        out = []
        for m in self.models:
            short = [a for a in m.aliases if a != m.id]
            out.append(f"{m.id} ({', '.join(short)})" if short else m.id)
        return out


def normalize_model_name(name: str) -> str:
    """`NVIDIA H100 80GB HBM3`, `NVIDIA-H100-80GB-HBM3`, `h100-80gb-hbm3` -> `h100-80gb-hbm3`."""
    key = re.sub(r"[\s_]+", "-", name.strip().lower())
    return key.removeprefix("nvidia-")


def _value(entry: Any) -> tuple[Any, bool]:
    if isinstance(entry, dict) and "value" in entry:
        return entry["value"], bool(entry.get("verified", False))
    return entry, False


def _profile(raw: dict[str, Any]) -> MigProfile:
    verified = raw.get("verified") or {}
    return MigProfile(
        name=str(raw["name"]),
        gi_profile_id=int(raw["gi_profile_id"]),
        memory_mib=raw.get("memory_mib"),
        memory_slices=int(raw["memory_slices"]),
        multiprocessors=raw.get("multiprocessors"),
        copy_engines=raw.get("copy_engines"),
        decoders=raw.get("decoders"),
        encoders=raw.get("encoders"),
        jpeg_engines=raw.get("jpeg_engines"),
        ofa_engines=raw.get("ofa_engines"),
        max_instances=int(raw["max_instances"]),
        placement_size=int(raw["placement_size"]),
        placement_starts=tuple(int(s) for s in raw["placement_starts"]),
        verified=frozenset(k for k, v in verified.items() if v),
    )


def _model(raw: dict[str, Any]) -> GpuModel:
    values: dict[str, Any] = {}
    verified: dict[str, bool] = {}
    for name in MODEL_FIELDS:
        values[name], verified[name] = _value(raw.get(name))
    mig = raw.get("mig") or {}
    supported = bool(mig.get("supported", False))
    dra = raw.get("dra") or {}
    if values["memory_total_mib"] is None:
        raise ValueError(f"catalog model {raw.get('id')}: memory_total_mib is required")
    return GpuModel(
        id=str(raw["id"]),
        product_name=str(values["product_name"]),
        architecture=str(values["architecture"]),
        brand=str(values["brand"]),
        cuda_compute_capability=str(values["cuda_compute_capability"]),
        memory_total_mib=int(values["memory_total_mib"]),
        multiprocessors=values["multiprocessors"],
        pci_device_id=values["pci_device_id"],
        mig_supported=supported,
        mig_memory_slices=int(mig.get("memory_slices", 0)) if supported else 0,
        mig_compute_slices=int(mig.get("compute_slices", 0)) if supported else 0,
        mig_verified=bool(mig.get("verified", False)) if supported else True,
        profiles=tuple(_profile(p) for p in mig.get("profiles", [])) if supported else (),
        full_gpu_with_mig=bool(dra.get("full_gpu_advertised_with_mig", False)),
        verified=frozenset(k for k, v in verified.items() if v),
        dra=MappingProxyType(dict(dra)),
        product_aliases=_product_aliases(raw.get("product_name_aliases")),
    )


def _product_aliases(notes: Any) -> tuple[str, ...]:
    """Names out of the catalog's prose aliases: the text before ` (`, unless it is itself a remark (a `:` or
    a quote in it: `GFD label form: ...`, `go-nvml mock uses '...'`)."""
    out = []
    for note in notes or []:
        head = str(note).split(" (", 1)[0].strip()
        if head and ":" not in head and "'" not in head:
            out.append(head)
    return tuple(out)


def _candidate_aliases(model: GpuModel) -> list[str]:
    """Names a model answers to, most specific first.

    Derived from the catalog alone: the id; the product name without `NVIDIA ` (`tesla-t4`,
    `gh200-96gb-hbm3`); the family (the id's first token: `h100`, `a100`, `l40s`); and
    `<family>-<N>gb`, N from the id (`a100-sxm4-40gb` -> `a100-40gb`) or else from the largest MIG
    profile's name (`h100-nvl`: 7g.94gb -> `h100-94gb`, `h200`: 7g.141gb -> `h200-141gb`); and the
    form factor with and without N (`a100-sxm4`, `a100-40gb-sxm4`, `h100-80gb-pcie`).
    """
    names = [model.id, normalize_model_name(model.product_name)]
    tokens = model.id.split("-")
    family = tokens[0]
    gb = next((t for t in tokens[1:] if _GB_TOKEN.match(t)), None)
    if gb is None and model.profiles:
        largest = max(model.profiles, key=lambda p: p.memory_slices)
        gb = largest.name.split(".", 1)[1].split("+", 1)[0]
    rest = "-".join(t for t in tokens[1:] if t != gb)
    names.append(family)
    if gb:
        names.append(f"{family}-{gb}")
    if rest:
        names.append(f"{family}-{rest}")
        if gb:
            names.append(f"{family}-{gb}-{rest}")
    return list(dict.fromkeys(names))


def _build(raw: dict[str, Any], path: str) -> Catalog:
    if raw.get("schema") != SCHEMA:
        raise ValueError(f"{path}: expected schema {SCHEMA!r}, got {raw.get('schema')!r}")
    driver = raw["driver"]
    models = [_model(m) for m in raw["gpu_models"]]
    # Ids always win. A derived alias shared by several models goes to the first in catalog order:
    # the catalog lists each family's SXM part first, so `h100` is the H100 80GB HBM3 (SXM5) and
    # `a100-40gb` the A100-SXM4-40GB.
    aliases: dict[str, str] = {m.id: m.id for m in models}
    per_model: dict[str, list[str]] = {m.id: [m.id] for m in models}
    for m in models:
        for name in _candidate_aliases(m):
            if name not in aliases:
                aliases[name] = m.id
                per_model[m.id].append(name)
    with_aliases = tuple(dataclasses.replace(m, aliases=tuple(per_model[m.id])) for m in models)
    classes = tuple(
        DeviceClassInfo(
            name=str(c["name"]),
            cel=str(c["cel"]),
            extended_resource_name=c.get("extended_resource_name"),
            condition=c.get("condition"),
            verified=bool(c.get("verified", False)),
        )
        for c in driver.get("device_classes", [])
    )
    current = (driver.get("attributes") or {}).get("current") or {}
    attributes = {
        kind: tuple((str(a["name"]), bool(a.get("required", False))) for a in items)
        for kind, items in current.items()
        if isinstance(items, list) and all(isinstance(a, dict) for a in items)  # skips `sources`
    }
    return Catalog(
        driver_name=str(driver["name"]),
        models=with_aliases,
        device_classes=classes,
        aliases=MappingProxyType(aliases),
        attributes=MappingProxyType(attributes),
        path=path,
    )


@functools.lru_cache(maxsize=8)
def load_catalog(path: str | None = None) -> Catalog:
    """Load and cache the catalog: the copy bundled next to this module, or the YAML file at `path`."""
    if path is None:
        ref = resources.files("drasim.catalog").joinpath(CATALOG_FILE)
        text = ref.read_text(encoding="utf-8")
        source = str(ref)
    else:
        text = Path(path).read_text(encoding="utf-8")
        source = path
    raw = yaml.load(text, Loader=_Loader)  # a safe loader (CSafeLoader when available)
    return _build(raw, source)
