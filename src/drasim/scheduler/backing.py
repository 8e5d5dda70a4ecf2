"""Extended resources nothing backs: no Node advertises them and no DeviceClass serves them (lint, explain)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from drasim.api.core import Node, PodSpec
from drasim.api.resource import DeviceClass
from drasim.scheduler.extended import resolve_class
from drasim.scheduler.resources import is_dra_extended

__all__ = ["unbacked_extended"]


def unbacked_extended(spec: PodSpec, nodes: Iterable[Node], classes: Mapping[str, DeviceClass]
                      ) -> Iterator[tuple[str, str]]:
    """(field path under the pod spec, resource name) of each container request (or limit standing in for
    one) of an extended resource that no node advertises and no DeviceClass maps: the pod can only stay
    Pending with `Insufficient <name>`."""
    advertised = {name for n in nodes if n.status is not None for name in (*n.status.allocatable, *n.status.capacity)}
    for field, containers in (("initContainers", spec.init_containers), ("containers", spec.containers)):
        for i, c in enumerate(containers):
            for kind, amounts in (("requests", c.resources.requests), ("limits", c.resources.limits)):
                for name in amounts:
                    if kind == "limits" and name in c.resources.requests:
                        continue
                    if is_dra_extended(name) and name not in advertised and resolve_class(dict(classes), name) is None:
                        yield f"{field}[{i}].resources.{kind}[{name}]", name
