"""Extended resources backed by DRA (dra-semantics §5.7): the serving class, the special claim's requests, its name."""

from __future__ import annotations

import hashlib

from drasim import releases
from drasim.api.core import ContainerExtendedResourceRequest, Pod
from drasim.api.quantity import Quantity
from drasim.api.resource import DeviceClass, DeviceRequest, ExactDeviceRequest
from drasim.cluster.state import ClusterState
from drasim.scheduler.resources import DEVICE_CLASS_PREFIX

NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's random name suffix characters
MAX_GENERATED_NAME = 58  # 63 minus the 5 random characters


# --- extended resources backed by DRA (§5.7) --------------------------------------------------------

def resolve_class(classes: dict[str, DeviceClass], resource: str) -> DeviceClass | None:
    """The DeviceClass serving an extended resource: newest explicit `extendedResourceName` (ties: smaller
    name), else the class named by the implicit `deviceclass.resource.kubernetes.io/<class>`."""
    best: DeviceClass | None = None
    for cls in classes.values():
        if cls.spec.extended_resource_name != resource:
            continue
        if best is None:
            best = cls
            continue
        a, b = cls.metadata.creation_timestamp, best.metadata.creation_timestamp
        if (a is not None and (b is None or a > b)) or (a == b and cls.metadata.name < best.metadata.name):
            best = cls
    if best is not None:
        return best
    if resource.startswith(DEVICE_CLASS_PREFIX):
        return classes.get(resource[len(DEVICE_CLASS_PREFIX):])
    return None


def _request(index: int, requests: dict[str, Quantity], resource: str, class_name: str,
             reusable: list[DeviceRequest | None], container: str
             ) -> tuple[DeviceRequest | None, list[ContainerExtendedResourceRequest]]:
    """One container's device request for `resource` (None: none needed) and its mappings.

    `reusable` are requests of long-lived containers at this index and later: a short-lived init container
    maps onto them first and only asks for what their counts do not cover (upstream
    createResourceRequestAndMappings)."""
    q = requests.get(resource)
    if q is None or not q.is_integer() or q.as_integer() == 0:
        return None, []
    want = q.as_integer()
    mappings = []
    covered = 0
    for r in reusable:
        if r is None or r.exactly is None:
            continue
        covered += r.exactly.count or 0
        mappings.append(ContainerExtendedResourceRequest(container_name=container, resource_name=resource,
                                                         request_name=r.name))
        if covered >= want:
            return None, mappings
    name = f"container-{index}-request-{sorted(requests).index(resource)}"
    mappings.append(ContainerExtendedResourceRequest(container_name=container, resource_name=resource,
                                                     request_name=name))
    return DeviceRequest(name=name, exactly=ExactDeviceRequest(
        device_class_name=class_name, allocation_mode="ExactCount", count=want - covered)), mappings


def extended_requests(pod: Pod, needs: tuple[str, ...], classes: dict[str, DeviceClass], release: str
                      ) -> tuple[list[DeviceRequest], list[ContainerExtendedResourceRequest]]:
    """The special claim's requests for the resources in `needs` and the pod's request mappings (§5.7,
    upstream createRequestsAndMappings).

    Requests are named `container-<i>-request-<j>` (i over initContainers+containers, j the resource's index
    in the container's sorted request names) and sorted by name. Long-lived containers (regular ones and
    sidecars) get one request each; since 1.35 (PR #134882) a short-lived init container first reuses
    requests of long-lived containers at later indices, and what remains of all short-lived ones folds into
    one request for their maximum. Mappings: per resource (sorted), long-lived ones, then short-lived ones.
    """
    containers = pod.spec.init_containers + pod.spec.containers
    n_init = len(pod.spec.init_containers)
    fold = releases.folds_init_container_requests(release)
    short = [i for i, c in enumerate(containers) if fold and i < n_init and c.restart_policy != "Always"]
    long = [i for i in range(len(containers)) if i not in short]
    out: list[DeviceRequest] = []
    mappings: list[ContainerExtendedResourceRequest] = []
    for resource in sorted(needs):
        cls = resolve_class(classes, resource)
        if cls is None:
            continue
        cname = cls.metadata.name
        long_reqs: list[DeviceRequest | None] = [None] * len(containers)
        long_maps: list[ContainerExtendedResourceRequest] = []
        for i in long:
            c = containers[i]
            long_reqs[i], got = _request(i, dict(c.resources.requests), resource, cname, [], c.name)
            long_maps += got
        biggest: DeviceRequest | None = None
        most = 0
        short_names: set[str] = set()
        short_maps: list[ContainerExtendedResourceRequest] = []
        for i in short:
            c = containers[i]
            req, got = _request(i, dict(c.resources.requests), resource, cname, long_reqs[i:], c.name)
            if req is not None and req.exactly is not None:
                short_names.add(req.name)
                count = req.exactly.count or 0
                if biggest is None or most < count:
                    biggest, most = req, count
            short_maps += got
        if biggest is not None and len(short_names) > 1:
            for m in short_maps:
                if m.request_name in short_names:
                    m.request_name = biggest.name
        if biggest is not None:
            out.append(biggest)
        out += [r for r in long_reqs if r is not None]
        mappings += long_maps + short_maps
    out.sort(key=lambda r: r.name)
    return out, mappings


def generated_name(state: ClusterState, namespace: str, base: str, seed: int, salt: str) -> str:
    """generateName + 5 characters: apimachinery's alphabet, drawn from SHA-256(seed, namespace, base, salt,
    attempt); the attempt counter moves on while the name is taken."""
    base = base[:MAX_GENERATED_NAME]
    attempt = 0
    while True:
        value = int.from_bytes(hashlib.sha256(f"{seed}\x00{namespace}\x00{base}\x00{salt}\x00{attempt}".encode())
                               .digest(), "big")
        chars = []
        for _ in range(5):
            value, digit = divmod(value, len(NAME_ALPHABET))
            chars.append(NAME_ALPHABET[digit])
        name = base + "".join(chars)
        if (namespace, name) not in state.claims:
            return name
        attempt += 1
