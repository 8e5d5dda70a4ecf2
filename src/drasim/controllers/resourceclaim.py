"""The ResourceClaim controller (spec §6): claims from templates, reservedFor cleanup, deallocation, deletion.

Names and UIDs where Kubernetes draws them at random: `drasim.controllers.names`. A pod read without a UID
that claims name by exactly one UID (a hand-written or dumped cluster) takes it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any, TypeVar

import msgspec

from drasim.api.clone import clone, packed, unpacked
from drasim.api.core import Pod, PodResourceClaimStatus, PodStatus
from drasim.api.limits import RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE as MAX_RESERVED_FOR
from drasim.api.meta import ObjectMeta, OwnerReference
from drasim.api.resource import ResourceClaim, ResourceClaimConsumerReference, ResourceClaimTemplate
from drasim.api.scheduling import PodGroupStatus
from drasim.cluster.podgroups import (
    PENDING,
    POD_GROUP_CLAIM_NAME_ANNOTATION,
    group_claim_name,
    owned_by_group,
    owned_by_pods_group,
    record_group_claim,
    reserved_for_pods_group,
)
from drasim.cluster.state import ClusterState, Key
from drasim.controllers.events import NORMAL, WARNING, Event, ref
from drasim.controllers.names import (
    GENERATE_NAME_MAX,
    SUFFIX_ALPHABET,
    claim_generate_name,
    claim_name,
    claim_suffix,
    claim_uid,
    deterministic_uid,
    hash_chars,
    pod_uid,
)

__all__ = [
    "FINALIZER",
    "GENERATE_NAME_MAX",
    "MAX_RESERVED_FOR",
    "POD_CLAIM_NAME_ANNOTATION",
    "SUFFIX_ALPHABET",
    "FreshPodUids",
    "allocated_claims",
    "assign_pod_uids",
    "claim_generate_name",
    "claim_name",
    "deterministic_uid",
    "fresh_pod_uid",
    "hash_chars",
    "is_owned_by",
    "is_reserved_for",
    "pod_done",
    "sync",
    "sync_after_binding",
    "sync_claim",
    "sync_pod",
    "sync_pod_groups",
]

POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
FINALIZER = "resource.kubernetes.io/delete-protection"
_TERMINAL = ("Succeeded", "Failed")
# Copy template specs with `api.clone` (False: copy.deepcopy, to prove both give the same claims).
FAST_COPY = True
_NO_METADATA = ObjectMeta()  # a template's missing metadata: read only (its labels and annotations are copied)
T = TypeVar("T")
# A template part's copy by the part's identity, with the part (so a reused id cannot match).
TemplateCopies = dict[int, tuple[Any, Any]]
AlikeCopies = dict[tuple[str, bytes], Any]  # template_copy's copies by namespace and packed bytes


def _referenced_uids(state: ClusterState) -> tuple[set[str], dict[Key, set[str]]]:
    """Every pod UID in use or named by a claim, and the UIDs claims name per pod (namespace, name)."""
    uids = {p.metadata.uid for p in state.pods.values() if p.metadata.uid}
    by_pod: dict[Key, set[str]] = {}
    for (ns, _), claim in state.claims.items():
        refs = [(o.name, o.uid) for o in claim.metadata.owner_references if o.kind == "Pod" and o.uid]
        if claim.status is not None:
            refs += [(r.name, r.uid) for r in claim.status.reserved_for
                     if r.resource == "pods" and not r.api_group and r.uid]
        for name, uid in refs:
            uids.add(uid)
            by_pod.setdefault((ns, name), set()).add(uid)
    return uids, by_pod


def fresh_pod_uid(state: ClusterState, namespace: str, name: str, *, seed: int = 0,
                  taken: set[str] | None = None) -> str:
    """A deterministic UID for a new pod that no pod or claim refers to yet."""
    taken = taken if taken is not None else _referenced_uids(state)[0]
    n = 0
    while (uid := pod_uid(seed, namespace, name, n)) in taken:
        n += 1
    return uid


class FreshPodUids:
    """`fresh_pod_uid` for many new pods in a row (a Timeline apply): the UIDs to avoid are computed once and
    kept up to date as pods are stored; computed per pod, an apply of N pods took time quadratic in N."""

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self.uids: set[str] | None = None

    def fresh(self, namespace: str, name: str, seed: int) -> str:
        if self.uids is None:
            self.uids = _referenced_uids(self.state)[0]
        return fresh_pod_uid(self.state, namespace, name, seed=seed, taken=self.uids)

    def stored(self, obj: object, replaced: bool) -> None:
        """Account for an object just stored: a new pod adds its UID; a replaced pod or any claim may take
        UIDs away or name others, so the set is computed afresh when next needed."""
        if self.uids is None:
            return
        if isinstance(obj, Pod) and not replaced:
            if obj.metadata.uid:
                self.uids.add(obj.metadata.uid)
        elif isinstance(obj, Pod | ResourceClaim):
            self.uids = None


def assign_pod_uids(state: ClusterState, *, seed: int = 0) -> None:
    """Give every pod without `metadata.uid` one. A pod that claims name by exactly one UID (in
    `reservedFor` or as controller owner: a hand-written or dumped cluster) takes that UID; any other gets
    `fresh_pod_uid`. Pods created during a simulation should get fresh UIDs when created, so that a
    replacement is never mistaken for the pod it replaces."""
    missing = [p for p in state.pods.values() if not p.metadata.uid]
    if not missing:
        return
    taken, by_pod = _referenced_uids(state)
    in_use = {p.metadata.uid for p in state.pods.values() if p.metadata.uid}
    for pod in missing:
        key = (pod.metadata.namespace or "default", pod.metadata.name)
        named = by_pod.get(key, set())
        if len(named) == 1 and not named & in_use:
            pod.metadata.uid = next(iter(named))
        else:
            pod.metadata.uid = fresh_pod_uid(state, key[0], key[1], seed=seed, taken=taken)
        taken.add(pod.metadata.uid)
        in_use.add(pod.metadata.uid)


# --- predicates ---------------------------------------------------------------------------------

def pod_done(pod: Pod) -> bool:
    """Terminal phase, or deleted before it was ever scheduled: it will never use its claims again."""
    if pod.status is not None and pod.status.phase in _TERMINAL:
        return True
    return pod.metadata.deletion_timestamp is not None and not pod.spec.node_name


def _controller_pod_ref(claim: ResourceClaim) -> OwnerReference | None:
    for owner in claim.metadata.owner_references:
        if owner.controller and owner.api_version == "v1" and owner.kind == "Pod":
            return owner
    return None


def is_owned_by(claim: ResourceClaim, pod: Pod) -> bool:
    """Whether the claim's controller owner reference is this pod (by UID)."""
    owner = _controller_pod_ref(claim)
    return owner is not None and bool(pod.metadata.uid) and owner.uid == pod.metadata.uid


def is_reserved_for(claim: ResourceClaim, pod: Pod) -> bool:
    """Whether `reservedFor` of the claim names this pod (by UID)."""
    if claim.status is None:
        return False
    return any(r.resource == "pods" and not r.api_group and r.uid == pod.metadata.uid
               for r in claim.status.reserved_for)


def allocated_claims(state: ClusterState, pod: Pod) -> Iterator[tuple[Key, ResourceClaim]]:
    """The pod's allocated claims from `spec.resourceClaims`: named ones, and generated ones only when the pod
    owns them (a claim of the recorded name that another pod owns is not this pod's)."""
    ns = pod.metadata.namespace or "default"
    for entry in pod.spec.resource_claims:
        name = state.pod_claim_name(pod, entry.name)
        claim = state.claims.get((ns, name)) if name else None
        if claim is None or claim.status is None or claim.status.allocation is None:
            continue
        if entry.resource_claim_template_name and not (is_owned_by(claim, pod)
                                                       or owned_by_pods_group(state, claim, pod)):
            continue
        yield (ns, name or ""), claim


# --- pods: template -> claim ------------------------------------------------------------------------

class _ClaimError(Exception):
    """A pod claim that cannot be created now (upstream retries; drasim retries on the next pass)."""


class _OwnedIndex:
    """Claims by (namespace, controller pod UID), for the orphan lookup; built once per pass, when a pod first
    needs it (most passes find every pod's claim where its status says)."""

    def __init__(self, claims: dict[Key, ResourceClaim]) -> None:
        # The state's claims, read when first needed: until then the pass only adds claims (to the state and
        # here), in the order the state keeps, so the index built late equals one built at the start.
        self._claims = claims
        self._by_owner: dict[tuple[str, str], list[ResourceClaim]] | None = None
        self.copies: TemplateCopies = {}  # the pass's template spec copies (template_copy)

    @property
    def by_owner(self) -> dict[tuple[str, str], list[ResourceClaim]]:
        if self._by_owner is None:
            self._by_owner = {}
            for claim in self._claims.values():
                self._put(claim)
        return self._by_owner

    def add(self, claim: ResourceClaim, ns: str, owner_uid: str) -> None:
        """A claim the pass just made in `ns` for the pod of that UID (its one owner reference, the
        controller: the key `_put` would read from it) and stored in the state."""
        if self._by_owner is not None:
            self._by_owner.setdefault((ns, owner_uid), []).append(claim)

    def _put(self, claim: ResourceClaim) -> None:
        assert self._by_owner is not None
        owner = _controller_pod_ref(claim)
        if owner is not None:
            key = (claim.metadata.namespace or "default", owner.uid)
            self._by_owner.setdefault(key, []).append(claim)


def sync_pod(state: ClusterState, pod: Pod, *, seed: int = 0) -> list[Event]:
    """Create (or adopt) the claims of the pod's `resourceClaimTemplateName` entries, record them in
    `status.resourceClaimStatuses`, and reserve allocated claims for a pod bound without the scheduler.

    Pods being deleted or already finished are left alone (a finished pod's claims would be deleted
    straight away). A failing entry (missing template, admin access with the gate off) yields a Warning
    `FailedResourceClaimCreation` event and stops the pass for this pod, as upstream's retry does.
    """
    if pod.metadata.deletion_timestamp is not None or pod_done(pod):
        return []
    if not pod.metadata.uid:
        assign_pod_uids(state, seed=seed)
    return _sync_pod(state, pod, seed=seed, index=_OwnedIndex(state.claims))


def _sync_pod(state: ClusterState, pod: Pod, *, seed: int, index: _OwnedIndex) -> list[Event]:
    if pod.metadata.deletion_timestamp is not None or pod_done(pod):
        return []
    ns = pod.metadata.namespace or "default"
    events: list[Event] = []
    recorded: dict[str, str] = {}
    failed = False
    for entry in pod.spec.resource_claims:
        shared = group_claim_name(state, pod, entry) if state.pod_groups else None
        if shared is not None:
            # The PodGroup's claim: recorded once the group's claim exists, never one of the pod's own.
            if shared != PENDING and entry.resource_claim_template_name and \
                    state.pod_claim_name(pod, entry.name) != shared:
                recorded[entry.name] = shared
            continue
        if not entry.resource_claim_template_name:
            continue
        try:
            name = _template_claim(state, pod, ns, entry.name, entry.resource_claim_template_name,
                                   seed=seed, index=index, events=events)
        except _ClaimError as err:
            events.append(Event(state.now, WARNING, ref(pod), "FailedResourceClaimCreation",
                                f"PodResourceClaim {entry.name}: {err}"))
            failed = True
            break
        if name is not None:
            recorded[entry.name] = name
    if recorded:
        _record_statuses(pod, recorded)
        state.pod_changed((ns, pod.metadata.name))
    if not failed and pod.spec.node_name:
        events += _reserve_bound_pod(state, pod, ns)
    return events


def _template_claim(state: ClusterState, pod: Pod, ns: str, pod_claim: str, template_name: str, *,
                    seed: int, index: _OwnedIndex, events: list[Event]) -> str | None:
    """The claim name to record for one template entry, or None when the recorded one is still right."""
    current = state.pod_claim_name(pod, pod_claim)
    if current:
        claim = state.claims.get((ns, current))
        if claim is not None and is_owned_by(claim, pod):
            return None
    for orphan in index.by_owner.get((ns, pod.metadata.uid or ""), ()):
        if orphan.metadata.annotations.get(POD_CLAIM_NAME_ANNOTATION) == pod_claim \
                and (ns, orphan.metadata.name) in state.claims:
            events.append(Event(state.now, NORMAL, ref(pod), "AdoptedResourceClaim",
                                f"PodResourceClaim {pod_claim}: using existing ResourceClaim "
                                f"{orphan.metadata.name}"))
            return orphan.metadata.name
    template = state.templates.get((ns, template_name))
    if template is None:
        raise _ClaimError(f'resource claim template "{template_name}": '
                          f'resourceclaimtemplate.resource.k8s.io "{template_name}" not found')
    if not state.features.admin_access and _needs_admin_access(template):
        raise _ClaimError("admin access is requested, but the feature is disabled")
    claim = _new_claim(state, pod, ns, pod_claim, template, seed=seed, copies=index.copies)
    # As defaulting leaves it: its spec is a copy of the template's, defaulted when the template was stored
    # (ClusterState.add), and it has no status yet.
    state.add(claim, defaulted=True)
    index.add(claim, ns, pod.metadata.uid or "")
    events.append(Event(state.now, NORMAL, ref(pod), "CreatedResourceClaim",
                        f"PodResourceClaim {pod_claim}: created ResourceClaim {claim.metadata.name} "
                        f"from ResourceClaimTemplate {template_name}"))
    return claim.metadata.name


def _needs_admin_access(template: ResourceClaimTemplate) -> bool:
    return any(r.exactly is not None and r.exactly.admin_access for r in template.spec.spec.devices.requests)


def _new_claim(state: ClusterState, pod: Pod, ns: str, pod_claim: str, template: ResourceClaimTemplate, *,
               seed: int, copies: TemplateCopies) -> ResourceClaim:
    owner = OwnerReference(api_version="v1", kind="Pod", name=pod.metadata.name, uid=pod.metadata.uid or "",
                           controller=True, block_owner_deletion=True)
    return _claim_from_template(state, ns, owner, pod_claim, POD_CLAIM_NAME_ANNOTATION, template, seed=seed,
                                copies=copies)


def _claim_from_template(state: ClusterState, ns: str, owner: OwnerReference, entry: str, annotation: str,
                         template: ResourceClaimTemplate, *, seed: int,
                         copies: TemplateCopies | None = None) -> ResourceClaim:
    """A claim for the `entry` claim of `owner` (a Pod or a PodGroup), named from `<owner>-<entry>-`; with
    `copies`, its spec is the template's shared copy (template_copy)."""
    attempt = 0
    generate_name = claim_generate_name(owner.name, entry)  # claim_name's prefix, worked out once
    while (ns, (name := generate_name + claim_suffix(seed, ns, owner.name, entry, attempt))) in state.claims:
        attempt += 1  # the API server would answer AlreadyExists; the controller's retry draws again
    tmeta = template.spec.metadata or _NO_METADATA
    meta = ObjectMeta(
        name=name,
        generate_name=generate_name,
        namespace=ns,
        uid=claim_uid(seed, ns, name),
        creation_timestamp=state.now,
        labels=dict(tmeta.labels),
        annotations={**tmeta.annotations, annotation: entry},
        owner_references=[owner],
    )
    spec = template.spec.spec
    return ResourceClaim(metadata=meta, spec=template_copy(spec, copies) if copies is not None
                         else copy_from_template(spec))


def copy_from_template(value: Any) -> Any:
    """A deep copy of a template's part for a new object (claims here, pods in sim.workloads)."""
    return clone(value) if FAST_COPY else copy.deepcopy(value)  # clone: msgpack, C speed


def template_copy(value: T, copies: TemplateCopies, alike: AlikeCopies | None = None, scope: str = "") -> T:
    """`copy_from_template` made once per template part and shared by the objects made from it.

    Safe because nothing changes such a part in place once an object holds it: a claim's spec is immutable
    (the API server refuses changes), and a pod's spec changes only at its top level (binding sets nodeName),
    on the pod's own shallow copy (sim.workloads); defaulting on admission is the same for every object of
    the template, so a second pass over a shared part changes nothing. 50,000 replicas then hold one copy
    of their template's claim spec and containers instead of 50,000 (~3 KB a pod) and skip the copying.
    With FAST_COPY off every object gets a deep copy of its own (tests/sim/test_engine_equivalence.py).

    `alike`: copies by `scope` (a namespace) and packed bytes, so templates of equal parts (1,000 Deployments
    of one pod spec) share one copy too: the copy is those bytes unpacked either way, and what holds for
    replicas of one template holds for them (defaulting depends on the part and the namespace only).
    """
    if not FAST_COPY:
        return copy.deepcopy(value)
    found = copies.get(id(value))
    if found is None or found[0] is not value:
        if alike is None or not isinstance(value, msgspec.Struct):
            made = clone(value)
        else:
            data = packed(value)
            made = alike.get((scope, data))
            if made is None:
                made = alike[(scope, data)] = unpacked(type(value), data)
        found = copies[id(value)] = (value, made)
    return found[1]


def _record_statuses(pod: Pod, recorded: dict[str, str]) -> None:
    if pod.status is None:
        pod.status = PodStatus()
    statuses = pod.status.resource_claim_statuses
    for entry in statuses:  # none yet for a new pod (the common case)
        if entry.name in recorded:
            entry.resource_claim_name = recorded.pop(entry.name)
    # A server-side-apply list map keyed by name: new keys go to the end, in spec order.
    statuses += [PodResourceClaimStatus(name=n, resource_claim_name=c) for n, c in recorded.items()]


def _reserve_bound_pod(state: ClusterState, pod: Pod, ns: str) -> list[Event]:
    """Spec §6.1 step 5: a pod bound without the scheduler gets itself into `reservedFor` of allocated claims."""
    events: list[Event] = []
    for _key, claim in allocated_claims(state, pod):
        if is_reserved_for(claim, pod) or claim.metadata.deletion_timestamp is not None or \
                reserved_for_pods_group(state, claim, pod):
            continue
        assert claim.status is not None  # allocated
        if len(claim.status.reserved_for) >= MAX_RESERVED_FOR:
            continue  # the API server would reject the update
        claim.status.reserved_for.append(ResourceClaimConsumerReference(
            resource="pods", name=pod.metadata.name, uid=pod.metadata.uid or ""))
        events.append(Event(state.now, NORMAL, ref(claim), "ReservationAdded",
                            f"reserved for pod {pod.metadata.name} (bound to node {pod.spec.node_name} "
                            "without the scheduler)"))
    return events


# --- PodGroups: template -> claim (DRAWorkloadResourceClaims, see cluster.podgroups) ----------------------

def sync_pod_groups(state: ClusterState, *, seed: int = 0) -> list[Event]:
    """Create the claims of every PodGroup's template entries (sorted by namespace and name) and record them
    in the PodGroup's status; a missing template is a Warning `FailedResourceClaimCreation`, retried."""
    events: list[Event] = []
    for key in sorted(state.pod_groups):
        group = state.pod_groups[key]
        if group.metadata.deletion_timestamp is not None or not group.spec.resource_claims:
            continue
        ns, name = key
        if not group.metadata.uid:
            group.metadata.uid = deterministic_uid(seed, "PodGroup", ns, name)
        if group.status is None:
            group.status = PodGroupStatus()
        recorded = {s.name: s.resource_claim_name for s in group.status.resource_claim_statuses}
        for entry in group.spec.resource_claims:
            template_name = entry.resource_claim_template_name
            if not template_name:
                continue
            current = recorded.get(entry.name)
            if current and (claim := state.claims.get((ns, current))) is not None and owned_by_group(claim, group):
                continue
            template = state.templates.get((ns, template_name))
            if template is None:
                events.append(Event(state.now, WARNING, ref(group), "FailedResourceClaimCreation",
                                    f'PodGroupResourceClaim {entry.name}: resource claim template "{template_name}": '
                                    f'resourceclaimtemplate.resource.k8s.io "{template_name}" not found'))
                break
            owner = OwnerReference(api_version=group.api_version, kind="PodGroup", name=name,
                                   uid=group.metadata.uid, controller=True, block_owner_deletion=True)
            claim = _claim_from_template(state, ns, owner, entry.name, POD_GROUP_CLAIM_NAME_ANNOTATION, template,
                                         seed=seed)
            claim_id = claim.metadata.name
            state.add(claim, defaulted=True)  # a template's defaulted spec, as for pods' claims
            record_group_claim(group.status, entry.name, claim_id)
            events.append(Event(state.now, NORMAL, ref(group), "CreatedResourceClaim",
                                f"PodGroupResourceClaim {entry.name}: created ResourceClaim {claim_id} "
                                f"from ResourceClaimTemplate {template_name}"))
    return events


# --- claims: reservedFor cleanup, deallocation, deletion ------------------------------------------

def sync_claim(state: ClusterState, key: Key) -> list[Event]:
    """Drop `reservedFor` pods that are gone, replaced or done; deallocate when the last consumer left
    (only with the `delete-protection` finalizer, as upstream); delete a generated claim whose pod is done,
    replaced or gone (the garbage collector's part included); finish the deletion of a claim being deleted."""
    claim = state.claims.get(key)
    if claim is None:
        return []
    ns = key[0]
    events: list[Event] = []
    meta = claim.metadata
    status = claim.status
    reserved = status.reserved_for if status is not None else []
    valid: list[ResourceClaimConsumerReference] = []
    for consumer in reserved:
        if consumer.resource == "pods" and not consumer.api_group:
            pod = state.pods.get((ns, consumer.name))
            if pod is None or pod.metadata.uid != consumer.uid or pod_done(pod):
                why = "is gone" if pod is None else ("was replaced" if pod.metadata.uid != consumer.uid
                                                     else "is done")
                events.append(Event(state.now, NORMAL, ref(claim), "ReservationRemoved",
                                    f"pod {consumer.name} {why}"))
                continue
        # PodGroup consumers are kept: the KEP drops them with their PodGroup, and a dump or a cluster read
        # without PodGroups cannot tell a deleted group from one that was not read.
        valid.append(consumer)

    if len(valid) < len(reserved):
        assert status is not None
        status.reserved_for = valid
        if not valid and FINALIZER in meta.finalizers and status.allocation is not None:
            events += _deallocate(state, key, claim, "no consumer left")
        if status.allocation is None and FINALIZER in meta.finalizers:
            meta.finalizers = [f for f in meta.finalizers if f != FINALIZER]
    elif meta.deletion_timestamp is not None and FINALIZER in meta.finalizers and not valid:
        if status is not None and status.allocation is not None:
            events += _deallocate(state, key, claim, "claim is being deleted")
        meta.finalizers = [f for f in meta.finalizers if f != FINALIZER]

    if meta.deletion_timestamp is not None:
        if not meta.finalizers:
            state.delete_claim(key)
            events.append(Event(state.now, NORMAL, ref(claim), "DeletedResourceClaim", "deletion completed"))
        return events

    if not valid:
        owner = _controller_pod_ref(claim)
        if owner is not None:
            pod = state.pods.get((ns, owner.name))
            if pod is None or pod.metadata.uid != owner.uid or pod_done(pod):
                why = "is gone" if pod is None else ("was replaced" if pod.metadata.uid != owner.uid
                                                     else "is done")
                events += _delete(state, key, claim, f"owning pod {owner.name} {why}")
    return events


def _deallocate(state: ClusterState, key: Key, claim: ResourceClaim, why: str) -> list[Event]:
    state.set_allocation(key, None)
    return [Event(state.now, NORMAL, ref(claim), "DeallocatedResourceClaim", f"allocation cleared: {why}")]


def _delete(state: ClusterState, key: Key, claim: ResourceClaim, why: str) -> list[Event]:
    """Delete as the API server does: a claim with finalizers only gets a deletion timestamp; the
    controller's own finalizer is released at once since the claim has no consumer."""
    meta = claim.metadata
    events: list[Event] = []
    if meta.deletion_timestamp is None:
        meta.deletion_timestamp = state.now
    if FINALIZER in meta.finalizers:
        if claim.status is not None and claim.status.allocation is not None:
            events += _deallocate(state, key, claim, why)
        meta.finalizers = [f for f in meta.finalizers if f != FINALIZER]
    if meta.finalizers:
        events.append(Event(state.now, NORMAL, ref(claim), "DeletingResourceClaim",
                            f"{why}; waiting for finalizers {', '.join(meta.finalizers)}"))
        return events
    state.delete_claim(key)
    events.append(Event(state.now, NORMAL, ref(claim), "DeletedResourceClaim", why))
    return events


# --- one controller pass -------------------------------------------------------------------------

def sync(state: ClusterState, *, seed: int = 0) -> list[Event]:
    """One full pass: UIDs for new pods, then every pod (in arrival order), then every claim (sorted by
    namespace and name). Call it after anything changed pods or claims; a second call right after
    changes nothing."""
    assign_pod_uids(state, seed=seed)
    events: list[Event] = sync_pod_groups(state, seed=seed) if state.pod_groups else []
    index = _OwnedIndex(state.claims)
    size = len(state.claims)
    for key in state.in_arrival_order(state.pods):
        pod = state.pods.get(key)
        if pod is not None:
            events += _sync_pod(state, pod, seed=seed, index=index)
    # The pods' pass only adds claims, at the end of `state.claims`; those it just made are left out of the
    # claims' pass, which would find nothing to do: no status, and the owner is the pod they were made for,
    # present, with that UID and not done (done and deleted pods get no claims) and changed by no other pod.
    for key in sorted(islice(state.claims, size)):
        events += sync_claim(state, key)
    return events


def sync_after_binding(state: ClusterState, bound: Iterable[Key], *, seed: int = 0) -> list[Event]:
    """`sync` right after a full pass when, since then, a scheduling pass bound (or assumed) these pods through
    Scheduler.apply and every other outcome was a failure that changed no claim (no claim deallocated, deleted
    or created; no PodGroups).

    A full pass would find nothing to do but for pods naming one of these pods' claims and pods still
    waiting for a claim from a template. Everything else was synced by the last pass and what it reads did
    not change: a failure writes only the pod's PodScheduled condition, which no part of the pass reads; a
    bound pod's claims are allocated and reserved for it (apply reserves every allocated claim of the pod,
    else the cycle failed), so its own pass and its claims' passes find every consumer valid. Another pod
    naming such a claim may now have work: a shared claim allocated for this pod gets a pod bound without
    the scheduler into its `reservedFor`. A pod whose claim could not be made from its template (missing
    template, admin access with the gate off) is retried by every pass, with its Warning each time. So only
    those pods and their claims are visited, in the full pass's order (same events), after one walk over
    the pods' claim names. A pass after a 50,000-pod scheduling pass then costs that walk, not 50,000 pods
    and claims.
    """
    if state.pod_groups:
        return sync(state, seed=seed)
    assign_pod_uids(state, seed=seed)
    done = set(bound)
    named: set[Key] = set()
    for key in done:
        pod = state.pods.get(key)
        if pod is not None:
            named.update(state.pod_claim_keys(pod))
    visit = [key for key, pod in state.pods.items()
             if key not in done and _may_have_work(state, key[0], pod, named)]
    if not visit:
        return []
    index = _OwnedIndex(state.claims)
    events: list[Event] = []
    size = len(state.claims)
    claims: set[Key] = set()
    for key in state.in_arrival_order(visit):
        pod = state.pods[key]
        events += _sync_pod(state, pod, seed=seed, index=index)
        claims.update(state.pod_claim_keys(pod))
    if len(state.claims) != size:  # claims made for these pods (pods only add claims): the full pass syncs them
        claims.update(islice(state.claims, size, None))
    for key in sorted(claims):
        events += sync_claim(state, key)
    return events


def _may_have_work(state: ClusterState, ns: str, pod: Pod, claims: set[Key]) -> bool:
    """Whether a template entry of the pod has no claim yet (after a full pass: its creation failed), or the
    pod names one of the claims, in a spec entry or a recorded status (a superset of the claims
    `pod_claim_name` finds for it: visiting a pod more is harmless, a pass changes nothing twice)."""
    for entry in pod.spec.resource_claims:
        if entry.resource_claim_name:
            if (ns, entry.resource_claim_name) in claims:
                return True
        elif entry.resource_claim_template_name and not state.pod_claim_name(pod, entry.name):
            return True
    status = pod.status
    if status is not None:
        for st in status.resource_claim_statuses:
            if st.resource_claim_name and (ns, st.resource_claim_name) in claims:
                return True
    return False
