"""The registry of kinds drasim decodes: (group, kind) -> struct type, and the API versions served."""

from __future__ import annotations

from drasim.api import core, resource, scheduling

KubeObject = (
    resource.ResourceSlice | resource.DeviceClass | resource.ResourceClaim | resource.ResourceClaimTemplate
    | resource.DeviceTaintRule | core.Node | core.Namespace | core.Pod | core.Deployment | core.ReplicaSet
    | core.StatefulSet | core.Job | scheduling.PodGroup
)

# group ("" for core) -> kind -> struct type
KINDS: dict[str, dict[str, type]] = {
    "resource.k8s.io": {
        "ResourceSlice": resource.ResourceSlice,
        "DeviceClass": resource.DeviceClass,
        "ResourceClaim": resource.ResourceClaim,
        "ResourceClaimTemplate": resource.ResourceClaimTemplate,
        "DeviceTaintRule": resource.DeviceTaintRule,
    },
    "": {"Node": core.Node, "Namespace": core.Namespace, "Pod": core.Pod},
    "apps": {"Deployment": core.Deployment, "ReplicaSet": core.ReplicaSet, "StatefulSet": core.StatefulSet},
    "batch": {"Job": core.Job},
    scheduling.GROUP: {"PodGroup": scheduling.PodGroup},
}

# Versions of resource.k8s.io that drasim reads; everything is converted to v1 on decode.
RESOURCE_VERSIONS = ("v1", "v1beta2", "v1beta1", "v1alpha3")


def split_api_version(api_version: str) -> tuple[str, str]:
    """`resource.k8s.io/v1` -> (`resource.k8s.io`, `v1`); `v1` -> (``, `v1`)."""
    if "/" in api_version:
        group, _, version = api_version.rpartition("/")
        return group, version
    return "", api_version
