"""What the drivers publish, as the scheduler reads it: each pool's newest generation, and per driver its
devices, nodes, attribute and capacity names with the values seen."""

from __future__ import annotations

from collections import defaultdict

from drasim.api import resource as r
from drasim.api.quantity import Quantity
from drasim.doctor.model import MAX_VALUES, AttributeInfo, DriverInfo, PoolInfo, cel_string


def _attr_text(attr: r.DeviceAttribute) -> tuple[str, str] | None:
    kind = attr.kind()
    if kind is None:
        return None
    value = attr.value()
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, list):
        text = "[" + ", ".join(cel_string(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool)
                               else str(v) for v in value) + "]"
    else:
        text = str(value)
    return kind, text


def _split_name(driver: str, key: str) -> tuple[str, str]:
    """An attribute key as CEL sees it: unqualified names belong to the driver's domain."""
    domain, sep, name = key.rpartition("/")
    return (domain, name) if sep else (driver, key)


def _scope(spec: r.ResourceSliceSpec) -> str:
    if spec.node_name:
        return f"node {spec.node_name}"
    if spec.all_nodes:
        return "all nodes"
    if spec.node_selector is not None:
        return "node selector"
    if spec.per_device_node_selection:
        return "per device"
    return "counters only" if spec.shared_counters else "unknown"


def _sorted_values(values: set[str], kind: str) -> list[str]:
    if kind == "int":
        return sorted(values, key=int)
    if kind == "quantity":
        return sorted(values, key=Quantity)
    return sorted(values)


class _AttrAcc:
    """Collects the values of one attribute name across a driver's devices."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.devices = 0
        self.values: set[str] = set()
        self.kinds: set[str] = {kind}

    def info(self, domain: str, name: str) -> AttributeInfo:
        kind = self.kind if len(self.kinds) == 1 else "/".join(sorted(self.kinds))
        values = _sorted_values(self.values, kind)
        return AttributeInfo(domain=domain, name=name, type=kind, devices=self.devices,
                             values=values[:MAX_VALUES], distinct=len(values))


def pools(slices: list[r.ResourceSlice]) -> tuple[list[r.ResourceSlice], list[PoolInfo]]:
    """Slices of each pool's newest generation, and one PoolInfo per (driver, pool)."""
    by_pool: dict[tuple[str, str], list[r.ResourceSlice]] = defaultdict(list)
    for s in slices:
        by_pool[(s.spec.driver, s.spec.pool.name)].append(s)
    current: list[r.ResourceSlice] = []
    pools = []
    for (driver, name), group in sorted(by_pool.items()):
        newest = max(s.spec.pool.generation for s in group)
        kept = sorted((s for s in group if s.spec.pool.generation == newest), key=lambda s: s.metadata.name)
        current.extend(kept)
        counts = tuple(sorted({s.spec.pool.resource_slice_count for s in kept}))
        scopes = sorted({_scope(s.spec) for s in kept if not (s.spec.shared_counters and not s.spec.devices)})
        pools.append(PoolInfo(driver=driver, name=name, generation=newest, slices=len(kept),
                              expected=kept[0].spec.pool.resource_slice_count,
                              devices=sum(len(s.spec.devices) for s in kept),
                              scope=scopes[0] if len(scopes) == 1 else ", ".join(scopes) or "counters only",
                              stale_slices=len(group) - len(kept), counts=counts))
    return current, pools


def drivers(current: list[r.ResourceSlice], pools: list[PoolInfo]) -> list[DriverInfo]:
    infos: dict[str, DriverInfo] = {}
    attrs: dict[str, dict[tuple[str, str], _AttrAcc]] = defaultdict(dict)
    caps: dict[str, dict[tuple[str, str], _AttrAcc]] = defaultdict(dict)
    nodes: dict[str, set[str]] = defaultdict(set)
    for p in pools:
        infos.setdefault(p.driver, DriverInfo(name=p.driver)).pools.append(p)
    for s in current:
        driver = s.spec.driver
        info = infos[driver]
        info.devices += len(s.spec.devices)
        if s.spec.node_name:
            nodes[driver].add(s.spec.node_name)
        for dev in s.spec.devices:
            if dev.node_name:
                nodes[driver].add(dev.node_name)
            for key, attr in dev.attributes.items():
                shown = _attr_text(attr)
                if shown is None:
                    continue
                acc = attrs[driver].setdefault(_split_name(driver, key), _AttrAcc(shown[0]))
                acc.devices += 1
                acc.values.add(shown[1])
                acc.kinds.add(shown[0])
            for key, cap in dev.capacity.items():
                acc = caps[driver].setdefault(_split_name(driver, key), _AttrAcc("quantity"))
                acc.devices += 1
                acc.values.add(str(cap.value))
    for driver, info in infos.items():
        info.nodes = len(nodes[driver])
        info.attributes = [acc.info(d, n) for (d, n), acc in sorted(attrs[driver].items())]
        info.capacities = [acc.info(d, n) for (d, n), acc in sorted(caps[driver].items())]
    return [infos[k] for k in sorted(infos)]

