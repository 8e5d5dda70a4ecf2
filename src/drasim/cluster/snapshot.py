"""A cluster as read from outside: its objects and what its API server said about itself (a live read, a dump,
or a directory of manifests), before and after admission."""

from __future__ import annotations

from dataclasses import dataclass, field

from drasim.api.kinds import KubeObject

__all__ = ["ClusterSnapshot"]


@dataclass
class ClusterSnapshot:
    """What the doctor looks at: objects (decoded and converted to v1) and what the server said about itself.

    `server_version` is the API server's gitVersion (`v1.36.1`), None when unknown (a directory of manifests).
    `resource_versions` lists the resource.k8s.io versions served, in discovery order: empty when the group
    is not served, None when unknown. `read_versions` maps each kind read to the apiVersion it was listed in.
    """

    objects: list[KubeObject] = field(default_factory=list)
    server_version: str | None = None
    resource_versions: tuple[str, ...] | None = None
    read_versions: dict[str, str] = field(default_factory=dict)
    feature_gates: dict[str, bool] = field(default_factory=dict)  # the cluster's --feature-gates, when known
    source: str = ""
    warnings: list[str] = field(default_factory=list)
    # A dump read back: each object's file and apiVersion as written (parallel to `objects`), and documents
    # the decoder could not read at all (source, ref, apiVersion, kind), for the admission every command runs.
    sources: list[str] = field(default_factory=list)
    api_versions: list[str] = field(default_factory=list)
    unserved: list[tuple[str, str, str, str]] = field(default_factory=list)
    # What admission said (`FILE: KIND/NS/NAME: PATH: MESSAGE`): objects it rejected (left out of `objects`)
    # and its warnings (fields of disabled gates dropped, objects defined twice).
    rejected: list[str] = field(default_factory=list)
    admission_warnings: list[str] = field(default_factory=list)
    admitted_as: str = ""  # the release profile admission assumed ("Kubernetes 1.36")

