"""Allocator feature sets of each Kubernetes release's kube-scheduler defaults (spec §8)."""

from __future__ import annotations

from drasim.allocator.features import Features

# 1.34/1.35: PrioritizedList and AdminAccess beta-on; partitionable, taints, consumable capacity,
# binding conditions alpha (off). 1.36 and 1.37: all of those on, list-type attributes alpha (off).
FEATURES_BY_VERSION: dict[str, Features] = {
    "1.34": Features(admin_access=True, prioritized_list=True, partitionable_devices=False,
                     device_taints=False, consumable_capacity=False, device_binding_and_status=False,
                     release="1.34"),
    "1.35": Features(admin_access=True, prioritized_list=True, partitionable_devices=False,
                     device_taints=False, consumable_capacity=False, device_binding_and_status=False,
                     release="1.35"),
    "1.36": Features(release="1.36"),
    "1.37": Features(release="1.37"),
}


def features_for_version(version: str) -> Features:
    """The allocator features kube-scheduler enables by default in that release."""
    try:
        return FEATURES_BY_VERSION[version]
    except KeyError:
        raise ValueError(f"unsupported Kubernetes version {version!r}; "
                         f"supported: {', '.join(FEATURES_BY_VERSION)}") from None
