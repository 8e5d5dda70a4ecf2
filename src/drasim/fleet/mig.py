"""MIG geometry a fleet publishes: each profile's capacities (the catalog's numbers, documented estimates for
its unknowns), static layouts and the placements they take on a GPU."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from drasim.catalog.nvidia import GpuModel, MigProfile
from drasim.errors import InputError

__all__ = ["CAPACITY_NAMES", "PROFILE_FIELD_OF", "Numbers", "estimated_profile_numbers", "max_capacities",
           "place_layout", "profile_numbers", "resolve_layout"]

_LAYOUT_ITEM = re.compile(r"^(?P<profile>.+?)(?:[x*](?P<n>\d+))?$")
# The capacities (and counters) a MIG device publishes, and the catalog profile field behind each.
CAPACITY_NAMES = ("multiprocessors", "copyEngines", "decoders", "encoders", "jpegEngines", "ofaEngines", "memory")
PROFILE_FIELD_OF = {"multiprocessors": "multiprocessors", "copyEngines": "copy_engines", "decoders": "decoders",
                     "encoders": "encoders", "jpegEngines": "jpeg_engines", "ofaEngines": "ofa_engines",
                     "memory": "memory_mib"}


@dataclass(frozen=True, slots=True)
class Numbers:
    """A profile's capacities (memory in MiB) and which of them are estimates."""

    values: dict[str, int]
    estimated: frozenset[str]


def profile_numbers(model: GpuModel) -> dict[str, Numbers]:
    """Every profile's seven capacities; the catalog's unknowns (null) filled by documented estimates.

    memory: a profile with the same memory-slice count and a known size (the catalog's observation: equal
    slices, equal memory), else floor(full-profile memory x slices / total slices / 64) x 64 (the catalog's
    estimation rule). An unknown full-profile memory is scaled up from the largest known profile, or else
    the NVML total rounded down to whole GiB. multiprocessors: the full profile gets the GPU's SM count,
    the others G x the SMs of the 1g profile. Unknown engine counts: 0.
    """
    total = model.mig_memory_slices
    known_mem = {p.memory_slices: p.memory_mib for p in model.profiles if p.memory_mib is not None}
    full_mem = known_mem.get(total)
    if full_mem is None and known_mem:
        largest = max(known_mem)
        full_mem = known_mem[largest] * total // largest
    if full_mem is None:
        full_mem = model.memory_total_mib // 1024 * 1024
    one_g = [p.multiprocessors for p in model.profiles if p.compute_slices == 1 and p.multiprocessors is not None]
    out: dict[str, Numbers] = {}
    for p in model.profiles:
        values: dict[str, int] = {}
        estimated: set[str] = set()
        for cap in CAPACITY_NAMES:
            raw = getattr(p, PROFILE_FIELD_OF[cap])
            if raw is not None:
                values[cap] = int(raw)
                continue
            estimated.add(cap)
            if cap == "memory":
                same = known_mem.get(p.memory_slices)
                values[cap] = same if same is not None else full_mem * p.memory_slices // total // 64 * 64
            elif cap == "multiprocessors":
                if p.compute_slices == model.mig_compute_slices and model.multiprocessors is not None:
                    values[cap] = model.multiprocessors
                elif one_g:
                    values[cap] = p.compute_slices * min(one_g)
                else:
                    values[cap] = (model.multiprocessors or 0) * p.compute_slices // max(model.mig_compute_slices, 1)
            else:
                values[cap] = 0
        out[p.name] = Numbers(values=values, estimated=frozenset(estimated))
    return out


def max_capacities(model: GpuModel, numbers: dict[str, Numbers]) -> dict[str, int]:
    """The partitionable full GPU's capacities: each the maximum over all profiles (driver rule)."""
    return {cap: max(n.values[cap] for n in numbers.values()) for cap in CAPACITY_NAMES}


def estimated_profile_numbers(model: GpuModel) -> dict[str, tuple[dict[str, int], frozenset[str]]]:
    """Each profile's capacities as the generator publishes them (memory in MiB) and which are estimates;
    the CLI's --list-models table uses it so the table and the output agree."""
    return {name: (n.values, n.estimated) for name, n in profile_numbers(model).items()}


def resolve_layout(model: GpuModel, layout: str | None) -> tuple[str, list[MigProfile]]:
    """The MIG instances a static layout asks for, and the mig-parted config name it corresponds to.

    `balanced`/`all-balanced` (default): two 1-slice 1g, one 2g and one 3g instance where the model has them
    (mig-parted's all-balanced); `all-<profile>`: as many of that profile as the GPU allows;
    `<profile>[xN],...`: exactly those.
    """
    text = (layout or "balanced").strip()
    if text in ("balanced", "all-balanced"):
        plain = [p for p in model.profiles if not p.media_extensions]
        chosen: list[MigProfile] = []
        one = [p for p in plain if p.compute_slices == 1 and p.memory_slices == 1]
        if one:
            chosen += [one[0], one[0]]
        for g in (2, 3):
            pick = [p for p in plain if p.compute_slices == g]
            if pick:
                chosen.append(pick[0])
        return "all-balanced", chosen
    if text.startswith("all-"):
        profile = model.profile(text.removeprefix("all-"))
        return text, [profile] * profile.max_instances
    chosen = []
    for item in text.split(","):
        m = _LAYOUT_ITEM.match(item.strip())
        if not item.strip() or m is None:
            raise InputError(f"invalid MIG layout {text!r}: expected balanced, all-<profile> or <profile>[xN],...")
        n = int(m.group("n") or 1)
        if n < 1:
            raise InputError(f"invalid MIG layout {text!r}: instance counts must be at least 1")
        chosen += [model.profile(m.group("profile"))] * n
    return "custom", chosen


def place_layout(model: GpuModel, instances: Sequence[MigProfile]) -> list[tuple[MigProfile, int]]:
    """Placements (profile, start) for the instances: disjoint memory slices, at most the GPU's compute
    slices, each profile's max_instances, one media-extension (+me) instance. Larger instances are placed
    first, each at its lowest free start; backtracking makes the first complete assignment the answer."""
    for p in dict.fromkeys(instances):
        n = sum(1 for q in instances if q is p)
        if n > p.max_instances:
            raise InputError(f"MIG layout for {model.id}: {n} x {p.name} exceeds its maximum of {p.max_instances}")
    if sum(1 for p in instances if p.media_extensions) > 1:
        raise InputError(f"MIG layout for {model.id}: at most one media-extension (+me) instance per GPU")
    used = sum(p.compute_slices for p in instances)
    if used > model.mig_compute_slices:
        raise InputError(
            f"MIG layout for {model.id}: needs {used} compute slices, the GPU has {model.mig_compute_slices}"
        )
    order = sorted(range(len(instances)),
                   key=lambda i: (-instances[i].placement_size, -instances[i].compute_slices, i))
    chosen: dict[int, int] = {}

    def search(k: int, occupied: int) -> bool:
        if k == len(order):
            return True
        p = instances[order[k]]
        for start in p.placement_starts:
            mask = ((1 << p.placement_size) - 1) << start
            if occupied & mask:
                continue
            chosen[order[k]] = start
            if search(k + 1, occupied | mask):
                return True
        return False

    if not search(0, 0):
        names = ", ".join(p.name for p in instances)
        raise InputError(f"MIG layout for {model.id} does not fit in {model.mig_memory_slices} memory slices: {names}")
    return [(instances[i], chosen[i]) for i in range(len(instances))]

