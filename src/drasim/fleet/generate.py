"""Nodes, ResourceSlices and DeviceClasses for NVIDIA GPU fleets, shaped as the NVIDIA DRA driver publishes them."""

from __future__ import annotations

import functools
import hashlib
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from drasim.api import core
from drasim.api import resource as r
from drasim.api.kinds import KubeObject
from drasim.api.limits import (
    RESOURCE_SLICE_MAX_COUNTER_SETS,
    RESOURCE_SLICE_MAX_DEVICES,
    RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES,
)
from drasim.api.meta import ObjectMeta
from drasim.api.quantity import BINARY_SI, Quantity
from drasim.catalog.nvidia import Catalog, GpuModel, MigProfile, load_catalog
from drasim.errors import InputError
from drasim.fleet.mig import (
    CAPACITY_NAMES,
    PROFILE_FIELD_OF,
    Numbers,
    max_capacities,
    place_layout,
    profile_numbers,
    resolve_layout,
)
from drasim.validation.formats import is_dns1123_subdomain, is_valid_label_value

__all__ = [
    "CUDA_BY_DRIVER_BRANCH",
    "DEFAULT_DRIVER_VERSION",
    "DEFAULT_GPUS_PER_NODE",
    "MAX_FLEET_NODES",
    "MAX_GPUS_PER_NODE",
    "MODES",
    "MODE_CHOICES",
    "FleetResult",
    "NodeSpec",
    "device_name",
    "fleet_too_big",
    "generate_fleet",
    "kind_counts",
    "parse_node_spec",
]

MODES = ("full", "mig-dynamic", "mig-static", "mig-off")
MODE_CHOICES = "full, mig-dynamic, mig-static[:LAYOUT], mig-off"
DEFAULT_DRIVER_VERSION = "580.95.05"
# The catalog records no per-model GPU count per node; 8 is the HGX/DGX board size.
DEFAULT_GPUS_PER_NODE = 8
# PCI bus numbers are drawn from 28 slots below; real servers carry at most 16 GPUs.
MAX_GPUS_PER_NODE = 16
# Nodes in one fleet (`drasim fleet`, a sweep point): 100,000 H100 nodes are ~1.1 GB of YAML; beyond, the
# output is unusable and a sweep point would build objects until memory runs out.
MAX_FLEET_NODES = 100_000
# NVIDIA driver branch -> the CUDA version its NVML reports (nvmlSystemGetCudaDriverVersion).
CUDA_BY_DRIVER_BRANCH: dict[int, str] = {
    525: "12.0", 530: "12.1", 535: "12.2", 545: "12.3", 550: "12.4", 555: "12.5",
    560: "12.6", 565: "12.7", 570: "12.8", 575: "12.9", 580: "13.0",
}
# addressingMode is optional (NVML may not report it). The one live ResourceSlice showing it (catalog
# source dra-pr717) is 'HMM' on an x86 A100-PCIE-40GB with 580.95.05; drasim publishes it from the 580
# branch on (HMM, or ATS on Grace-coupled parts) and omits it before, like the 570-driver seed fixtures.
_ADDRESSING_MODE_SINCE = 580
_ADDRESSING_MODE_OBSERVED = frozenset({"a100-pcie-40gb"})

_DEVICE_TYPES_PUBLISHED = frozenset({"gpu", "mig"})
_CLASS_TYPE = re.compile(r"\.type == '([a-z]+)'")
_VERSION = re.compile(r"\d+(\.\d+){1,2}")
_COUNT = re.compile(r"[+-]?\d+")
_MIB = 1 << 20
_V = TypeVar("_V")


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """A group of identical nodes.

    `mode`: `full` (the driver's classic publishing: one plain `gpu` device per GPU, all in one slice),
    `mig-static[:LAYOUT]` (pre-created MIG devices, the parent GPUs hidden), `mig-dynamic` (DynamicMIG /
    partitionable devices: a counters-only slice, then one slice per GPU with every MIG placement, plus
    the full GPU on Hopper and newer), `mig-off` (DynamicMIG with MIG disabled: Ampere publishes a plain
    full GPU per slice and no counters; Hopper and newer publish exactly what `mig-dynamic` does).
    LAYOUT: `balanced` (default), `all-<profile>`, or `<profile>[xN],...`.
    """

    model: str
    mode: str = "full"
    count: int = 1
    gpus_per_node: int | None = None
    name_prefix: str | None = None
    device_plugin: bool = False


@dataclass
class FleetResult:
    """The generated objects plus what the user should know about them."""

    objects: list[KubeObject]
    unverified: list[str] = field(default_factory=list)  # `model[ MIG profile]: field=value, ...`
    warnings: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)  # one line per NodeSpec


@dataclass(frozen=True, slots=True)
class _Gpu:
    minor: int
    uuid: str
    pci_bus_id: str
    pcie_root: str


@dataclass(frozen=True, slots=True)
class _Driver:
    version: str  # semver-normalised, e.g. 580.95.5
    cuda: str  # semver-normalised, e.g. 13.0.0
    branch: int
    raw: str


class _Notes:
    """Unverified catalog values actually used, grouped per model / profile, in first-use order."""

    def __init__(self) -> None:
        self.entries: dict[str, list[str]] = {}

    def add(self, key: str, item: str) -> None:
        items = self.entries.setdefault(key, [])
        if item not in items:
            items.append(item)

    def lines(self) -> list[str]:
        return [f"{key}: {', '.join(items)}" for key, items in self.entries.items()]


# --- small pure helpers -------------------------------------------------------------------------------

def _semver(version: str) -> str:
    """What Masterminds semver prints: three dot-separated integers without leading zeros."""
    parts = [str(int(p)) for p in version.split(".")]
    return ".".join(parts + ["0"] * (3 - len(parts)))


def _rfc1123(name: str) -> str:
    name = re.sub(r"[^a-z0-9.-]", "-", name.lower()).strip("-")
    return name.removesuffix(".")


def _dns_counter_name(capacity: str) -> str:
    """camelCase capacity -> DNS-label counter name, as the driver derives counters (copyEngines -> copy-engines)."""
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", capacity)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1-\2", s)
    return _rfc1123(s)


_COUNTER_OF = {cap: _dns_counter_name(cap) for cap in CAPACITY_NAMES}


def device_name(minor: int, profile: MigProfile, start: int) -> str:
    """`gpu-<minor>-mig-<profile without dots>-<GI profile id>-<placement start>` (driver v25.12 and later)."""
    slug = _rfc1123(profile.name.replace(".", ""))
    return f"gpu-{minor}-mig-{slug}-{profile.gi_profile_id}-{start}"


def _hex_uuid(prefix: str, *parts: object) -> str:
    h = hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()
    return f"{prefix}-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


@functools.lru_cache(maxsize=4096)
def _quantity(n: int) -> Quantity:
    # Quantities are immutable, so devices can share them; the same few values repeat thousands of times.
    return Quantity.from_int(n, BINARY_SI)


def _grace(model: GpuModel) -> bool:
    """Grace-coupled parts (GH200/GB200): an arm64 host with coherent CPU-GPU memory."""
    return bool(re.search(r"\bG[BH]\d", model.product_name))


def _gpu_family(compute_capability: str) -> str:
    """GPU feature discovery's `nvidia.com/gpu.family`, derived from the compute capability."""
    major, _, minor = compute_capability.partition(".")
    m, n = int(major), int(minor or 0)
    names = {3: "kepler", 5: "maxwell", 6: "pascal", 9: "hopper", 10: "blackwell", 12: "blackwell"}
    if m == 7:
        return "volta" if n < 5 else "turing"
    if m == 8:
        return "ampere" if n < 9 else "lovelace"
    return names.get(m, "undefined")


def _parse_driver(version: str, cuda: str | None) -> _Driver:
    if not _VERSION.fullmatch(version):
        raise InputError(f"invalid driver version {version!r}: expected MAJOR.MINOR[.PATCH], e.g. 580.95.05")
    branch = int(version.split(".")[0])
    if cuda is None:
        known = CUDA_BY_DRIVER_BRANCH.get(branch)
        if known is None:
            branches = ", ".join(str(b) for b in CUDA_BY_DRIVER_BRANCH)
            raise InputError(
                f"no CUDA version known for driver branch {branch}; known branches: {branches} "
                "(give the CUDA version explicitly: --cuda-driver-version)"
            )
        cuda = known
    elif not _VERSION.fullmatch(cuda):
        raise InputError(f"invalid CUDA driver version {cuda!r}: expected MAJOR.MINOR, e.g. 13.0")
    return _Driver(version=_semver(version), cuda=_semver(cuda), branch=branch, raw=version)


# --- NodeSpec parsing ---------------------------------------------------------------------------------

def fleet_too_big(what: str) -> str:
    """The refusal of a fleet over `MAX_FLEET_NODES`, after `what` (the request as written)."""
    return f"{what}: a fleet has at most {MAX_FLEET_NODES:,} nodes in all"


def parse_node_spec(text: str, *, gpus_per_node: int | None = None, device_plugin: bool = False) -> NodeSpec:
    """`[PREFIX=]MODEL[:MODE[:LAYOUT]][:COUNT]` -> NodeSpec, e.g. `h100:4`, `a100-40gb:mig-dynamic:2`,
    `a100-40gb:mig-static:all-1g.5gb:3`, `dgx=h200:mig-off`. Only the syntax is checked here."""
    prefix: str | None = None
    body = text.strip()
    if "=" in body:
        prefix, _, body = body.partition("=")
        prefix = prefix.strip()
        if not prefix:
            raise InputError(f"--nodes {text!r}: empty name prefix before '='")
    parts = [p.strip() for p in body.split(":")]
    if not parts[0]:
        raise InputError(f"--nodes {text!r}: expected MODEL[:MODE][:COUNT], e.g. h100:4 or a100-40gb:mig-dynamic:2")
    count = 1
    if len(parts) > 1 and _COUNT.fullmatch(parts[-1]):
        count = int(parts[-1])
        parts = parts[:-1]
    mode = ":".join(parts[1:]) or "full"
    return NodeSpec(model=parts[0], mode=mode, count=count, gpus_per_node=gpus_per_node,
                    name_prefix=prefix, device_plugin=device_plugin)


# --- devices -----------------------------------------------------------------------------------------------

def _string(value: str) -> r.DeviceAttribute:
    return r.DeviceAttribute(string=value)


def _version(value: str) -> r.DeviceAttribute:
    return r.DeviceAttribute(version=value)


def _sorted_map(d: dict[str, _V]) -> dict[str, _V]:
    # The API server stores these maps as Go maps: kubectl prints their keys sorted.
    return dict(sorted(d.items()))


class _Builder:
    """One generate_fleet call's state (catalog, driver, seed, notes, warnings) and the device builders."""

    def __init__(self, catalog: Catalog, driver: _Driver, seed: int) -> None:
        self.catalog = catalog
        self.driver = driver
        self.seed = seed
        self.notes = _Notes()
        self.warnings: list[str] = []
        self._numbers: dict[str, dict[str, Numbers]] = {}

    # catalog bookkeeping
    def numbers(self, model: GpuModel) -> dict[str, Numbers]:
        if model.id not in self._numbers:
            self._numbers[model.id] = profile_numbers(model)
        return self._numbers[model.id]

    def note_model(self, model: GpuModel) -> None:
        for name in ("product_name", "architecture", "brand", "cuda_compute_capability", "memory_total_mib"):
            if not model.is_verified(name):
                self.notes.add(model.id, f"{name}={getattr(model, name)}")
        if self.driver.branch >= _ADDRESSING_MODE_SINCE and model.id not in _ADDRESSING_MODE_OBSERVED:
            self.notes.add(model.id, f"addressingMode={self.addressing_mode(model)} (assumed)")

    def note_profile(self, model: GpuModel, profile: MigProfile, *, static: bool) -> None:
        if not model.mig_verified:
            self.notes.add(model.id, f"MIG geometry={model.mig_memory_slices} memory slices/"
                                     f"{model.mig_compute_slices} compute slices")
        numbers = self.numbers(model)[profile.name]
        key = f"{model.id} MIG {profile.name}"
        if not profile.is_verified("gi_profile_id"):
            self.notes.add(key, f"gi_profile_id={profile.gi_profile_id}")
        if not profile.is_verified("memory_slices"):
            self.notes.add(key, f"memory_slices={profile.memory_slices}")
        for cap in CAPACITY_NAMES:
            fld = PROFILE_FIELD_OF[cap]
            value = numbers.values[cap]
            if cap in numbers.estimated:
                self.notes.add(key, f"{fld}={value} (estimated: not in the catalog)")
            elif not profile.is_verified(fld):
                self.notes.add(key, f"{fld}={value}")
        # An estimated full profile takes the GPU's SM count: that count is then a value the output uses.
        full_profile = profile.compute_slices == model.mig_compute_slices
        if "multiprocessors" in numbers.estimated and full_profile and not model.is_verified("multiprocessors"):
            self.notes.add(model.id, f"multiprocessors={model.multiprocessors}")
        if not profile.is_verified("placements"):
            self.notes.add(key, f"placements={profile.placement_size}@{','.join(map(str, profile.placement_starts))}")
        if static and not profile.is_verified("max_instances"):
            self.notes.add(key, f"max_instances={profile.max_instances}")

    def addressing_mode(self, model: GpuModel) -> str:
        return "ATS" if _grace(model) else "HMM"

    # identities
    def gpus(self, node: str, count: int) -> list[_Gpu]:
        # Python's random.Random seeded with a str is stable across runs and platforms (seed version 2).
        rng = random.Random(f"drasim-fleet\0{self.seed}\0{node}")
        buses = sorted(rng.sample(range(0x10, 0xF0, 0x08), count))
        out = []
        for minor, bus in enumerate(buses):
            root = buses[minor - minor % 2] - 3  # GPUs pair up behind a PCIe switch under one root port
            out.append(_Gpu(minor=minor, uuid=_hex_uuid("GPU", self.seed, node, "gpu", minor),
                            pci_bus_id=f"0000:{bus:02x}:00.0", pcie_root=f"pci0000:{root:02x}"))
        return out

    # devices
    def common_attrs(self, model: GpuModel, gpu: _Gpu) -> dict[str, r.DeviceAttribute]:
        attrs = {
            "productName": _string(model.product_name),
            "brand": _string(model.brand),
            "architecture": _string(model.architecture),
            "cudaComputeCapability": _version(_semver(model.cuda_compute_capability)),
            "driverVersion": _version(self.driver.version),
            "cudaDriverVersion": _version(self.driver.cuda),
            "resource.kubernetes.io/pciBusID": _string(gpu.pci_bus_id),
            "resource.kubernetes.io/pcieRoot": _string(gpu.pcie_root),
        }
        if self.driver.branch >= _ADDRESSING_MODE_SINCE:
            attrs["addressingMode"] = _string(self.addressing_mode(model))
        return attrs

    def gpu_device(self, model: GpuModel, gpu: _Gpu, *, partitionable: bool) -> r.Device:
        attrs = self.common_attrs(model, gpu)
        attrs["type"] = _string("gpu")
        attrs["uuid"] = _string(gpu.uuid)
        if not partitionable:
            return r.Device(name=f"gpu-{gpu.minor}", attributes=_sorted_map(attrs),
                            capacity={"memory": r.DeviceCapacity(value=_quantity(model.memory_total_mib * _MIB))})
        caps = max_capacities(model, self.numbers(model))
        consumed = self.counter_values(model, caps, 0, self.mem_slice_count(model))
        return r.Device(
            name=f"gpu-{gpu.minor}",
            attributes=_sorted_map(attrs),
            capacity=self.capacities(caps),
            consumes_counters=[r.DeviceCounterConsumption(counter_set=_counter_set(gpu), counters=consumed)],
        )

    def mig_device(self, model: GpuModel, gpu: _Gpu, profile: MigProfile, start: int, *, static: bool) -> r.Device:
        attrs = self.common_attrs(model, gpu)
        attrs["type"] = _string("mig")
        attrs["parentUUID"] = _string(gpu.uuid)
        attrs["profile"] = _string(profile.name)
        values = self.numbers(model)[profile.name].values
        caps = self.capacities(values)
        if static:
            attrs["uuid"] = _string(_hex_uuid("MIG", self.seed, gpu.uuid, profile.gi_profile_id, start))
            for i in range(start, start + profile.placement_size):
                caps[f"memorySlice{i}"] = r.DeviceCapacity(value=_quantity(1))
            return r.Device(name=device_name(gpu.minor, profile, start), attributes=_sorted_map(attrs),
                            capacity=_sorted_map(caps))
        counters = self.counter_values(model, values, start, profile.placement_size)
        return r.Device(
            name=device_name(gpu.minor, profile, start),
            attributes=_sorted_map(attrs),
            capacity=caps,
            consumes_counters=[r.DeviceCounterConsumption(counter_set=_counter_set(gpu), counters=counters)],
        )

    @staticmethod
    def capacities(values: dict[str, int]) -> dict[str, r.DeviceCapacity]:
        caps = {cap: r.DeviceCapacity(value=_quantity(values[cap] * (_MIB if cap == "memory" else 1)))
                for cap in CAPACITY_NAMES}
        return _sorted_map(caps)

    @staticmethod
    def mem_slice_count(model: GpuModel) -> int:
        # The driver counts memory slices as the largest placement it saw (8, or 4 on an A30).
        return max(p.placement_size for p in model.profiles)

    @staticmethod
    def counter_values(model: GpuModel, values: dict[str, int], start: int, size: int) -> dict[str, r.Counter]:
        counters = {_COUNTER_OF[cap]: r.Counter(value=_quantity(values[cap] * (_MIB if cap == "memory" else 1)))
                    for cap in CAPACITY_NAMES}
        for i in range(start, start + size):
            counters[f"memory-slice-{i}"] = r.Counter(value=_quantity(1))
        return _sorted_map(counters)

    def counter_set(self, model: GpuModel, gpu: _Gpu) -> r.CounterSet:
        caps = max_capacities(model, self.numbers(model))
        return r.CounterSet(name=_counter_set(gpu),
                            counters=self.counter_values(model, caps, 0, self.mem_slice_count(model)))


def _counter_set(gpu: _Gpu) -> str:
    return f"gpu-{gpu.minor}-counter-set"


def _chunks(items: list[r.Device], limit: int) -> list[list[r.Device]]:
    return [items[i:i + limit] for i in range(0, len(items), limit)] or [[]]


def _slice(node: str, name: str, *, devices: list[r.Device] | None = None,
           counter_sets: list[r.CounterSet] | None = None, driver: str) -> r.ResourceSlice:
    return r.ResourceSlice(
        metadata=ObjectMeta(name=name),
        spec=r.ResourceSliceSpec(driver=driver, node_name=node, pool=r.ResourcePool(name=node, generation=1),
                                 devices=devices or [], shared_counters=counter_sets or []),
    )


def _device_limit(devices: Iterable[r.Device]) -> int:
    advanced = any(d.consumes_counters or d.taints for d in devices)
    return RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES if advanced else RESOURCE_SLICE_MAX_DEVICES


def _named(node: str, driver: str, suffix: str, chunks: int, i: int) -> str:
    base = f"{node}-{driver}" + (f"-{suffix}" if suffix else "")
    return base if chunks == 1 else f"{base}-{i}"


# --- the fleet --------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Group:
    spec: NodeSpec
    model: GpuModel
    mode: str
    layout: str | None
    gpus: int
    prefix: str


def _check_spec(catalog: Catalog, spec: NodeSpec) -> _Group:
    model = catalog.model(spec.model)
    mode, _, layout = spec.mode.strip().partition(":")
    if mode not in MODES:
        raise InputError(f"unknown mode {spec.mode!r} for {spec.model}; valid modes: {MODE_CHOICES}")
    if layout and mode != "mig-static":
        raise InputError(f"mode {mode} takes no layout (got {spec.mode!r}); only mig-static[:LAYOUT] does")
    if mode != "full" and not model.mig_supported:
        raise InputError(f"model {model.id} ({model.product_name}) has no MIG; mode {mode} is not possible, "
                         "valid modes: full")
    if mode == "mig-dynamic" and spec.device_plugin:
        raise InputError("mode mig-dynamic needs the DRA driver; it cannot be combined with the device plugin")
    if spec.count < 1:
        raise InputError(f"node count must be at least 1 (got {spec.count} for {spec.model})")
    gpus = spec.gpus_per_node if spec.gpus_per_node is not None else DEFAULT_GPUS_PER_NODE
    if not 1 <= gpus <= MAX_GPUS_PER_NODE:
        raise InputError(f"GPUs per node must be between 1 and {MAX_GPUS_PER_NODE} (got {gpus})")
    prefix = spec.name_prefix or (model.id if mode == "full" else f"{model.id}-{mode}")
    return _Group(spec=spec, model=model, mode=mode, layout=layout or None, gpus=gpus, prefix=prefix)


def _device_classes(catalog: Catalog) -> list[r.DeviceClass]:
    """The Helm chart's classes for the device types a fleet publishes (`gpu`, `mig`); `vfio` and the
    ComputeDomain classes select devices this generator never publishes."""
    out = []
    for c in catalog.device_classes:
        m = _CLASS_TYPE.search(c.cel)
        if c.condition is not None or m is None or m.group(1) not in _DEVICE_TYPES_PUBLISHED:
            continue
        out.append(r.DeviceClass(
            metadata=ObjectMeta(name=c.name),
            spec=r.DeviceClassSpec(selectors=[r.DeviceSelector(cel=r.CELDeviceSelector(expression=c.cel))],
                                   extended_resource_name=c.extended_resource_name),
        ))
    return out


def _node(b: _Builder, g: _Group, name: str, placements: list[tuple[MigProfile, int]] | None,
          mig_config: str | None) -> core.Node:
    model = g.model
    major, _, minor = model.cuda_compute_capability.partition(".")
    drv = [*b.driver.raw.split("."), "", ""][:3]
    labels = {
        "kubernetes.io/arch": "arm64" if _grace(model) else "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "nvidia.com/cuda.driver.major": drv[0],
        "nvidia.com/cuda.driver.minor": drv[1],
        "nvidia.com/cuda.driver.rev": drv[2],
        "nvidia.com/gpu.compute.major": major,
        "nvidia.com/gpu.compute.minor": minor or "0",
        "nvidia.com/gpu.count": str(g.gpus),
        "nvidia.com/gpu.family": _gpu_family(model.cuda_compute_capability),
        "nvidia.com/gpu.memory": str(model.memory_total_mib),
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.product": model.gfd_product,
        "nvidia.com/mig.capable": "true" if model.mig_supported else "false",
    }
    if mig_config:
        labels["nvidia.com/mig.config"] = mig_config
    # Placeholder host resources (not catalog data): an HGX-class host, 28 CPUs and 256Gi per GPU.
    resources = {"cpu": Quantity.parse(str(28 * g.gpus)), "memory": Quantity.parse(f"{256 * g.gpus}Gi"),
                 "pods": Quantity.parse("110")}
    if g.spec.device_plugin:
        if placements is not None:
            labels["nvidia.com/mig.strategy"] = "mixed"
            per_gpu: dict[str, int] = {}
            for p, _start in placements:
                per_gpu[f"nvidia.com/mig-{p.name}"] = per_gpu.get(f"nvidia.com/mig-{p.name}", 0) + 1
            for res, n in sorted(per_gpu.items()):
                resources[res] = Quantity.parse(str(n * g.gpus))
        else:
            resources["nvidia.com/gpu"] = Quantity.parse(str(g.gpus))
    return core.Node(
        metadata=ObjectMeta(name=name, labels=dict(sorted(labels.items()))),
        status=core.NodeStatus(capacity=dict(resources), allocatable=dict(resources)),
    )


def _node_slices(b: _Builder, g: _Group, node: str,
                 placements: list[tuple[MigProfile, int]] | None) -> list[r.ResourceSlice]:
    model, driver = g.model, b.catalog.driver_name
    gpus = b.gpus(node, g.gpus)
    if g.mode == "full" or g.mode == "mig-static":
        # The driver's classic path: every device of the node in one slice.
        if placements is None:
            devices = [b.gpu_device(model, gpu, partitionable=False) for gpu in gpus]
        else:
            devices = [b.mig_device(model, gpu, p, start, static=True) for gpu in gpus for p, start in placements]
        devices.sort(key=lambda d: d.name)
        chunks = _chunks(devices, _device_limit(devices))
        if len(chunks) > 1:
            b.warnings.append(f"node {node}: {len(devices)} devices exceed one slice's limit; the driver would "
                              f"publish one slice (rejected), drasim splits them over {len(chunks)} slices")
        return [_slice(node, _named(node, driver, "", len(chunks), i), devices=c, driver=driver)
                for i, c in enumerate(chunks)]
    # DynamicMIG (mig-dynamic, mig-off): counters first, then one device slice per GPU in PCI order.
    ampere_mig_off = g.mode == "mig-off" and not model.full_gpu_with_mig
    counter_sets = [] if ampere_mig_off else [b.counter_set(model, gpu) for gpu in gpus]
    per_gpu: list[list[r.Device]] = []
    for gpu in gpus:
        if ampere_mig_off:
            devices = [b.gpu_device(model, gpu, partitionable=False)]
        else:
            devices = [b.mig_device(model, gpu, p, start, static=False)
                       for p in model.profiles for start in p.placement_starts]
            if model.full_gpu_with_mig:
                devices.append(b.gpu_device(model, gpu, partitionable=True))
        devices.sort(key=lambda d: d.name)
        per_gpu.append(devices)
    set_chunks = [counter_sets[i:i + RESOURCE_SLICE_MAX_COUNTER_SETS]
                  for i in range(0, len(counter_sets), RESOURCE_SLICE_MAX_COUNTER_SETS)] or [[]]
    if len(set_chunks) > 1:
        b.warnings.append(f"node {node}: {len(counter_sets)} counter sets exceed the API limit of "
                          f"{RESOURCE_SLICE_MAX_COUNTER_SETS} per slice; the driver puts them all in one slice "
                          f"(rejected), drasim splits them over {len(set_chunks)} slices")
    slices = [_slice(node, _named(node, driver, "counters", len(set_chunks), i), counter_sets=c, driver=driver)
              for i, c in enumerate(set_chunks)]
    for gpu, devices in zip(gpus, per_gpu, strict=True):
        chunks = _chunks(devices, _device_limit(devices))
        slices += [_slice(node, _named(node, driver, f"gpu-{gpu.minor}", len(chunks), i), devices=c, driver=driver)
                   for i, c in enumerate(chunks)]
    return slices


def _describe(g: _Group, placements: list[tuple[MigProfile, int]] | None, mig_config: str | None,
              slices_per_node: int) -> str:
    m = g.model
    if g.spec.device_plugin:
        how = "device plugin (no ResourceSlices)"
    elif g.mode == "full" or (g.mode == "mig-off" and not m.full_gpu_with_mig):
        how = "1 full GPU device per GPU"
    elif g.mode == "mig-static":
        how = f"{len(placements or [])} static MIG devices per GPU ({mig_config})"
    else:
        extra = " + the full GPU" if m.full_gpu_with_mig else ", no full GPU"
        how = f"{m.mig_placements_per_gpu} MIG placements{extra} per GPU, one counter set per GPU"
        if g.mode == "mig-off":
            how += f" ({m.architecture} publishes the MIG placements whatever the MIG mode)"
    slices = "" if g.spec.device_plugin else f", {slices_per_node} ResourceSlice(s) per node"
    return (f"{g.spec.count} x {m.id} ({m.product_name}) {g.mode}, {g.gpus} GPU(s) per node: "
            f"{how}{slices}; nodes {g.prefix}-*")


def generate_fleet(
    specs: Sequence[NodeSpec],
    *,
    driver_version: str = DEFAULT_DRIVER_VERSION,
    cuda_driver_version: str | None = None,
    seed: int = 0,
    catalog: Catalog | None = None,
) -> FleetResult:
    """DeviceClasses, then each node followed by its ResourceSlices; same inputs give the same objects.

    Pools are named after their node (generation 1, resourceSliceCount = the node's slice count);
    devices inside a slice are sorted by name and GPU slices follow PCI bus order, as the driver does.
    Raises InputError for an unknown model or mode, a MIG mode on a model without MIG, a count below 1,
    or a layout that does not fit.
    """
    if not specs:
        raise InputError("no nodes requested: give at least one NodeSpec (e.g. --nodes h100:4)")
    catalog = catalog or load_catalog()
    b = _Builder(catalog, _parse_driver(driver_version, cuda_driver_version), seed)
    groups = [_check_spec(catalog, s) for s in specs]
    objects: list[KubeObject] = list(_device_classes(catalog))
    summary: list[str] = []
    next_index: dict[str, int] = {}
    seen: set[str] = set()
    for g in groups:
        placements: list[tuple[MigProfile, int]] | None = None
        mig_config: str | None = None
        if g.mode == "mig-static":
            mig_config, instances = resolve_layout(g.model, g.layout)
            if not instances:
                raise InputError(f"MIG layout {g.layout!r} for {g.model.id} has no instances")
            placements = place_layout(g.model, instances)
        b.note_model(g.model)
        if not g.spec.device_plugin:
            if placements is not None:
                for p in dict.fromkeys(p for p, _ in placements):
                    b.note_profile(g.model, p, static=True)
            elif g.mode == "mig-dynamic" or (g.mode == "mig-off" and g.model.full_gpu_with_mig):
                for p in g.model.profiles:
                    b.note_profile(g.model, p, static=False)
        slices_per_node = 0
        for _ in range(g.spec.count):
            i = next_index.get(g.prefix, 0)
            next_index[g.prefix] = i + 1
            name = f"{g.prefix}-{i}"
            problems = is_dns1123_subdomain(name) + is_valid_label_value(name)
            if problems:
                raise InputError(f"node name {name!r} (from prefix {g.prefix!r}) is invalid: {'; '.join(problems)}")
            if name in seen:
                raise InputError(f"node name {name!r} is generated twice; give the node groups distinct prefixes")
            seen.add(name)
            objects.append(_node(b, g, name, placements, mig_config))
            if g.spec.device_plugin:
                continue
            slices = _node_slices(b, g, name, placements)
            for s in slices:
                s.spec.pool.resource_slice_count = len(slices)
            slices_per_node = len(slices)
            objects.extend(slices)
        summary.append(_describe(g, placements, mig_config, slices_per_node))
    return FleetResult(objects=objects, unverified=b.notes.lines(), warnings=b.warnings, summary=summary)


def kind_counts(objects: Iterable[KubeObject]) -> dict[str, int]:
    """Objects per kind, for summaries."""
    out: dict[str, int] = {}
    for o in objects:
        out[o.kind] = out.get(o.kind, 0) + 1
    return out


