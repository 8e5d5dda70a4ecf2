"""What differs between Kubernetes releases beyond feature gates: behaviour fixes and message texts, by release.

Everything here is keyed by the release string ("1.34" ... "1.37") that `Features.release` carries, so the
scheduler, the controllers and the allocator ask one place. When the core's release profile grows its own
notion of a release, only `since` needs re-pointing.
"""

from __future__ import annotations

from functools import cache

RELEASES: tuple[str, ...] = ("1.34", "1.35", "1.36", "1.37")
DEFAULT_RELEASE = "1.36"


@cache  # asked per claim the allocator builds a result for (allocator.results): a handful of strings
def _minor(release: str) -> int:
    try:
        return int(release.split(".")[1])
    except (IndexError, ValueError):
        raise ValueError(f"unsupported Kubernetes release {release!r}; supported: {', '.join(RELEASES)}") from None


def since(release: str, first: str) -> bool:
    """Whether `release` has what `first` introduced."""
    return _minor(release) >= _minor(first)


def serves_pod_groups(release: str) -> bool:
    """Whether the release has scheduling.k8s.io/v1alpha2 PodGroups at all (1.36 and later)."""
    return since(release, "1.36")


# --- behaviour that changed between releases -----------------------------------------------------------

def folds_init_container_requests(release: str) -> bool:
    """PR #134882 (1.35): short-lived init containers reuse later long-lived requests and fold into one."""
    return since(release, "1.35")


def cel_errors_name_device(release: str) -> bool:
    """1.37: `selector #i on device D/P/N: CEL runtime error: ...` (1.36: `selector #i: ...`). structured/internal/
    */allocator_*.go selectorsMatch, k8s.io/dynamic-resource-allocation 1caef2e (kubernetes#136709)."""
    return since(release, "1.37")


def cel_no_such_key_hint(release: str) -> bool:
    """1.37: `no such key:` runtime errors carry the optional-chaining hint (cel/errors.go EnhanceRuntimeError,
    k8s.io/dynamic-resource-allocation 1caef2e, kubernetes#136709)."""
    return since(release, "1.37")


def counter_slices_follow_node_selection(release: str) -> bool:
    """1.37 GatherPools: a slice with sharedCounters is relevant only where its node selection matches (1.36:
    everywhere). structured/internal/*/pools_*.go, k8s.io/dynamic-resource-allocation 98209ff (kubernetes#138917)."""
    return since(release, "1.37")


def stored_selectors_read_lists(release: str) -> bool:
    """1.37: the allocator's stored-expressions CEL environment types attributes `dyn` and evaluates list-valued
    attributes whatever DRAListTypeAttributes says (version skew: an API server with the gate on may have stored
    them). Up to 1.36 a list attribute with the gate off failed every selector on its device with "unsupported
    attribute value". k8s.io/dynamic-resource-allocation cel/compile.go, commit 5afedd9 (kubernetes#139395,
    merged 2026-06-30; in master 3d03671 and so in v1.37.0-beta.0)."""
    return since(release, "1.37")


def clears_config_covering_all_requests(release: str) -> bool:
    """1.37: a config entry naming every request of the claim gets `requests` cleared (empty = all), and each is
    reported once. structured/internal/*/allocator_*.go Allocate, k8s.io/dynamic-resource-allocation fe39ea7,
    c5a40b2 and a58be5a (kubernetes#139731, #139732, #139814)."""
    return since(release, "1.37")


def delays_rule_status_after_eviction(release: str) -> bool:
    """PR #135611 (1.36): the DeviceTaintRule status is queued ruleStatusPeriod after an eviction, not at once."""
    return since(release, "1.36")


def scores_stored_allocations(release: str) -> bool:
    """1.37 (kubernetes#139017, merged in the 1.37 cycle; a 1.36 backport is not confirmed): the DynamicResources
    Score reads already-allocated claims from their status (1.36 paired every claim positionally with this
    cycle's results, and errs when they run out)."""
    return since(release, "1.37")


# The first release whose device-taint eviction controller follows the pod's extended-resource claim.
_EXTENDED_RESOURCE_EVICTION_FIX: str | None = None


def evicts_extended_resource_pods(release: str) -> bool:
    """Whether the device-taint eviction controller also follows `status.extendedResourceClaimStatus`
    (kubernetes#141290). No release drasim simulates does: 1.37 shipped without it (the issue is open and
    the fix, PR #142289, unmerged as of 2026-09-23, with a 1.37 cherry-pick asked for), so pods holding
    devices only through extended resources are never evicted."""
    return _EXTENDED_RESOURCE_EVICTION_FIX is not None and since(release, _EXTENDED_RESOURCE_EVICTION_FIX)


# kubernetes/api resource/v1/types.go Device: `nodeAllocatableResourceMappings` (protobuf 13) from v0.36.0 up to
# v0.37.0-beta.0; master 66d2a54e (kubernetes 0b28c34f, 2026-07-09, in the 1.37 cycle) tombstoned it for
# `nodeAllocatableResources` (protobuf 14), and core/v1's claim status `resources` for `mapping`/`overhead`.
NODE_ALLOCATABLE_MAPPINGS = "nodeAllocatableResourceMappings"
NODE_ALLOCATABLE_RESOURCES = "nodeAllocatableResources"


def node_allocatable_field(release: str) -> str | None:
    """The Device field the release's API serves for node-allocatable resources (None: neither; 1.34/1.35
    have no DRANodeAllocatableResources). The other one is an unknown field to its API server."""
    if since(release, "1.37"):
        return NODE_ALLOCATABLE_RESOURCES
    return NODE_ALLOCATABLE_MAPPINGS if since(release, "1.36") else None


# --- message texts --------------------------------------------------------------------------------------

# k8s.io/dynamic-resource-allocation/cel/errors.go (EnhanceRuntimeError) at v0.37.0-alpha.2; not in v0.36.2.
NO_SUCH_KEY_HINT = (". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
                    "with has() for optional fields")


# k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go, read at v0.34.3, v0.35.1, v0.36.2 and
# v0.37.0-alpha.2: 1.36 reworded IsForPod (`Pod`, and PodGroup claims); Name's errors are the same in every
# release since 2023.

def not_owner(release: str, claim: str, pod: str) -> str:
    """IsForPod's error for a template claim the pod does not own (`ns/name` for both)."""
    if since(release, "1.36"):  # v0.36.2, v0.37.0-alpha.2
        return f"ResourceClaim {claim} was not created for Pod {pod} (Pod is not owner)"
    return f"ResourceClaim {claim} was not created for pod {pod} (pod is not owner)"  # v0.34.3, v0.35.1


def claim_not_created(release: str, pod: str) -> str:
    """Name's error while a template claim's name is not yet in the pod status (ErrClaimNotFound); the same
    text in every supported release (`release` keeps the call sites alike)."""
    return f'pod "{pod}": ResourceClaim not created yet'


def unsupported_pod_claim(release: str, pod: str, entry: str) -> str:
    """Name's error for a pod claim entry with none of the known fields set (ErrAPIUnsupported; Go's `%q`
    quotes the entry); the same text in every supported release."""
    return f'pod "{pod}", spec.resourceClaim "{entry}": none of the supported fields are set'


def cel_runtime_error(release: str, who: str, index: int, device: str, message: str) -> str:
    """The allocator's fatal error for a selector that failed at runtime on `device` (driver/pool/device):
    k8s.io/dynamic-resource-allocation/structured/internal/{stable,incubating,experimental}/allocator_*.go,
    `selector #%d on device %s` at v0.37.0-alpha.2, `selector #%d` at v0.34.3 to v0.36.2."""
    if cel_no_such_key_hint(release) and "no such key:" in message:
        message += NO_SUCH_KEY_HINT
    if cel_errors_name_device(release):
        return f"{who}: selector #{index} on device {device}: CEL runtime error: {message}"
    return f"{who}: selector #{index}: CEL runtime error: {message}"
