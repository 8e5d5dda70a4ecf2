"""Extended resources nothing backs: no Node advertises them and no DeviceClass serves them (lint, explain)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from drasim.api.core import Node, PodSpec
from drasim.api.resource import DeviceClass
from drasim.scheduler.extended import resolve_class
from drasim.scheduler.resources import is_dra_extended

__all__ = ["unbacked_extended"]


def unbacked_extended(spec: PodSpec, nodes: Iterable[Node], classes: dict[str, DeviceClass]
                      ) -> Iterator[tuple[str, str]]:
    """(field path under the pod spec, resource name) of each container request (or limit standing in for
    one) of an extended resource that no node advertises and no DeviceClass maps: the pod can only stay
    Pending with `Insufficient <name>`."""
    advertised: set[str] | None = None  # built at the first DRA-extended name: most pods request none
    for field, containers in (("initContainers", spec.init_containers), ("containers", spec.containers)):
        for i, c in enumerate(containers):
            for kind, amounts in (("requests", c.resources.requests), ("limits", c.resources.limits)):
                for name in amounts:
                    if kind == "limits" and name in c.resources.requests:
                        continue
                    if not is_dra_extended(name):
                        continue
                    if advertised is None:
                        advertised = {a for n in nodes if n.status is not None
                                      for a in (*n.status.allocatable, *n.status.capacity)}
                    if name not in advertised and resolve_class(classes, name) is None:
                        yield f"{field}[{i}].resources.{kind}[{name}]", name
