"""The scheduler's cache of the cluster (upstream backend/cache): node order, per-node pod accounts, assumed pods."""

# Kept incrementally from the ClusterState's change feeds (`node_version`, `pod_log`, `device_log`): a cycle
# reads the accounts of the nodes it looks at, never the whole pod list. `dirty` lists the nodes whose
# pods or devices changed, in order; each Plan keeps a cursor into it and forgets those nodes' verdicts.
# PodTopologySpread's selector indexes are found per pod by namespace and label value (`watch`), and a new
# index reads the pods carrying its label (`by_label`): a pod's bookkeeping does not grow with the number
# of workloads, nor an index's with the number of pods.

from __future__ import annotations

from typing import Any

import msgspec

from drasim.api.core import Node, Pod
from drasim.api.meta import ObjectMeta
from drasim.cluster.state import ClusterState, Key
from drasim.scheduler.filters import Selector, Status, counts_for_spread
from drasim.scheduler.nodetree import node_tree_order
from drasim.scheduler.plan import Plan
from drasim.scheduler.pods import priority
from drasim.scheduler.resources import NodeAccount, Vector, counts_on_node, node_allocatable, pod_nonzero, pod_requests


class SelectorIndex:
    """Matching pods per node (and per topology domain) for one (namespace, selector), kept incrementally."""

    def __init__(self, namespace: str, selector: Selector) -> None:
        self.namespace = namespace
        self.selector = selector
        self.by_node: dict[str, int] = {}
        self.domains: dict[str, dict[str, int]] = {}  # topology key -> label value ("" if absent) -> count

    def matches(self, pod: Pod) -> bool:
        return counts_for_spread(pod, self.namespace, self.selector)

    def add(self, node_name: str, node: Node | None, sign: int) -> None:
        self.by_node[node_name] = self.by_node.get(node_name, 0) + sign
        if node is not None:
            labels = node.metadata.labels
            for key, counts in self.domains.items():
                value = labels.get(key, "")
                counts[value] = counts.get(value, 0) + sign


_REQUESTS_MAX = 100_000  # entries of NodeCache.requests_of before it starts again

class NodeCache:
    """Per node: allocatable, the pods on it (bound or assumed) and their requests; selector indexes for
    PodTopologySpread; the Plans of the pods that read nodes alike. Follows one ClusterState."""

    def __init__(self) -> None:
        self.state: ClusterState | None = None
        # Pods in PreBind (waiting for binding conditions): assumed on their node, as the scheduler cache does.
        self.assumed: dict[Key, str] = {}
        self.reset()

    def reset(self) -> None:
        self.node_version = -1
        self.names: list[str] = []  # the scan order (node tree)
        self.pos: dict[str, int] = {}  # node name -> position in names
        self.alloc: dict[str, Vector] = {}
        self.alloc_id: dict[str, int] = {}
        self.interned: dict[tuple[object, ...], int] = {}
        self.accounts: dict[str, NodeAccount] = {}
        # Per counted pod: (node, requests, non-zero requests, a snapshot of what the indexes counted).
        self.contrib: dict[Key, tuple[str, Vector, tuple[int, int], Pod]] = {}
        self.node_pods: dict[str, set[Key]] = {}
        self.priorities: dict[int, int] = {}  # bound pods per priority
        self.log_pos = 0
        self.pods_len = -1
        self.static: dict[tuple[object, ...], dict[str, tuple[Node, Status | None, int, int]]] = {}
        self.indexes: dict[tuple[str, Selector], SelectorIndex] = {}
        # Which indexes a pod can count for, by namespace and then by one label (key, value) their selector
        # requires (None: the selector requires no single value), so a pod is matched only against those.
        self.watch: dict[str, dict[tuple[str, str] | None, list[SelectorIndex]]] = {}
        # Counted pods by (namespace, label key, value) and by namespace: a new index reads only its candidates.
        self.by_label: dict[tuple[str, str, str], set[Key]] = {}
        self.by_namespace: dict[str, set[Key]] = {}
        self.owners: tuple[int, dict[tuple[str, str, str], Any]] = (-1, {})
        # spread.owner_selector: each owner's selector object with its parsed form (rebuilt with `owners`).
        self.owner_selectors: dict[int, tuple[Any, Selector]] = {}
        self.plans: dict[tuple[object, ...], Plan] = {}
        self.dirty: list[str] = []
        self.device_pos = 0
        # By the identities of a pod's containers, init containers, overhead and node-allocatable claim statuses:
        # those objects and the requests read from them, so a cycle and the pod's binding read the quantities
        # once, and the replicas of one template, which share its containers
        # (controllers.resourceclaim.template_copy), read them once.
        self.requests_of: dict[tuple[int, int, int, int],
                               tuple[object, object, object, Vector, tuple[int, int], object]] = {}

    def intern(self, value: tuple[object, ...]) -> int:
        found = self.interned.get(value)
        if found is None:
            found = self.interned[value] = len(self.interned)
        return found

    def rekey(self, name: str) -> None:
        """Recompute the node's account key (allocatable and requested: equal keys fit alike)."""
        acct = self.accounts.get(name)
        if acct is None:
            acct = self.accounts[name] = NodeAccount()
        acct.key = self.intern((self.alloc_id.get(name, -1), acct.state()))

    def account(self, name: str) -> NodeAccount:
        acct = self.accounts.get(name)
        if acct is None:
            self.rekey(name)
            acct = self.accounts[name]
        return acct

    def sync(self, state: ClusterState, pool_nodes: dict[tuple[str, str], set[str]]) -> None:
        """Catch up with the state's change feeds (`pool_nodes`: the nodes of each device pool)."""
        if state is not self.state:
            self.state = state
            self.assumed.clear()
            self.reset()
        if state.node_version != self.node_version or len(state.nodes) != len(self.names):
            self.node_version = state.node_version
            self.names = node_tree_order(state.nodes)
            self.pos = {name: i for i, name in enumerate(self.names)}
            self.alloc = {n: node_allocatable(node) for n, node in state.nodes.items()}
            self.alloc_id = {n: self.intern(("alloc", tuple(sorted(a.items())))) for n, a in self.alloc.items()}
            self.static.clear()
            for idx in self.indexes.values():
                self.fill_domains(idx, list(idx.domains))
            for name in set(self.accounts) | set(state.nodes):
                self.rekey(name)
            self.plans.clear()
        log = state.pod_log
        if self.pods_len < 0 or (self.log_pos == len(log) and len(state.pods) != self.pods_len):
            self._rebuild_pods(state)
        else:
            touched: set[str] = set()
            for key in log[self.log_pos:]:
                touched |= self._update_pod(state, key)
            for name in touched:
                self.rekey(name)
            self.dirty.extend(touched)
        self.log_pos = len(log)
        self.pods_len = len(state.pods)
        devices = state.device_log
        if self.device_pos < len(devices):
            for pool in set(devices[self.device_pos:]):
                self.dirty.extend(pool_nodes.get(pool, ()))
            self.device_pos = len(devices)

    def _rebuild_pods(self, state: ClusterState) -> None:
        self.accounts = {}
        self.contrib = {}
        self.node_pods = {}
        self.priorities = {}
        self.by_label = {}
        self.by_namespace = {}
        for idx in self.indexes.values():
            idx.by_node.clear()
            for counts in idx.domains.values():
                counts.clear()
        for key in state.pods:
            self._update_pod(state, key)
        for name in set(self.accounts) | set(state.nodes):
            self.rekey(name)
        self.plans.clear()

    def _update_pod(self, state: ClusterState, key: Key) -> set[str]:
        touched: set[str] = set()
        old = self.contrib.pop(key, None)
        if old is not None:
            node_name, req, nz, old_pod = old
            self.accounts[node_name].add(req, nz, -1)
            self.priorities[priority(old_pod)] -= 1
            self.node_pods[node_name].discard(key)
            touched.add(node_name)
            self._unlabel(key, old_pod)
            for idx in self._watching(old_pod):
                if idx.matches(old_pod):
                    idx.add(node_name, state.nodes.get(node_name), -1)
        pod = state.pods.get(key)
        assumed = self.assumed.get(key) if self.assumed else None
        if pod is not None and (counts_on_node(pod) or assumed):
            node_name = pod.spec.node_name or assumed or ""
            req, nz = self.requests(pod)
            acct = self.accounts.get(node_name)
            if acct is None:
                acct = self.accounts[node_name] = NodeAccount()
            acct.add(req, nz, +1)
            self.node_pods.setdefault(node_name, set()).add(key)
            prio = priority(pod)
            self.priorities[prio] = self.priorities.get(prio, 0) + 1
            # A snapshot of what the indexes counted, so a later in-place edit can be undone exactly.
            snap = Pod(metadata=ObjectMeta(name=pod.metadata.name, namespace=pod.metadata.namespace,
                                           labels=dict(pod.metadata.labels),
                                           deletion_timestamp=pod.metadata.deletion_timestamp),
                       spec=msgspec.structs.replace(pod.spec), status=pod.status)
            self.contrib[key] = (node_name, req, nz, snap)
            touched.add(node_name)
            self._label(key, snap)
            for idx in self._watching(snap):
                if idx.matches(snap):
                    idx.add(node_name, state.nodes.get(node_name), +1)
        return touched

    def requests(self, pod: Pod) -> tuple[Vector, tuple[int, int]]:
        """The pod's requests and non-zero requests (resources.pod_requests, pod_nonzero), read once per
        containers, init containers and overhead (the objects: only they are read); the vector is shared:
        read only."""
        spec = pod.spec
        # The node-allocatable claim statuses binding writes change the requests too (each assignment is a new
        # list; an empty one counts as none, so replicas without any still share an entry).
        claims = (pod.status.node_allocatable_resource_claim_statuses or None) if pod.status is not None else None
        parts = (id(spec.containers), id(spec.init_containers), id(spec.overhead), id(claims))
        hit = self.requests_of.get(parts)
        if hit is not None and hit[0] is spec.containers and hit[1] is spec.init_containers \
                and hit[2] is spec.overhead and hit[5] is claims:
            return hit[3], hit[4]
        req, nz = pod_requests(pod), pod_nonzero(pod)
        if len(self.requests_of) >= _REQUESTS_MAX:  # a memo only: pods of no shared template add one each, and
            self.requests_of.clear()  # an entry keeps its (maybe deleted) pod's containers alive
        self.requests_of[parts] = (spec.containers, spec.init_containers, spec.overhead, req, nz, claims)
        return req, nz

    def _watching(self, pod: Pod) -> list[SelectorIndex]:
        """The indexes whose selector could match the pod (each at most once)."""
        hooks = self.watch.get(pod.metadata.namespace or "default")
        if not hooks:
            return []
        found = list(hooks.get(None, ()))
        for item in pod.metadata.labels.items():
            more = hooks.get(item)
            if more:
                found += more
        return found

    def _label(self, key: Key, snap: Pod) -> None:
        ns = snap.metadata.namespace or "default"
        self.by_namespace.setdefault(ns, set()).add(key)
        for k, v in snap.metadata.labels.items():
            self.by_label.setdefault((ns, k, v), set()).add(key)

    def _unlabel(self, key: Key, snap: Pod) -> None:
        ns = snap.metadata.namespace or "default"
        self.by_namespace[ns].discard(key)
        for k, v in snap.metadata.labels.items():
            self.by_label[(ns, k, v)].discard(key)

    def index(self, namespace: str, selector: Selector) -> SelectorIndex:
        """The (kept) index of pods matching the selector in the namespace."""
        found = self.indexes.get((namespace, selector))
        if found is None:
            found = self.indexes[(namespace, selector)] = SelectorIndex(namespace, selector)
            if not selector:  # nil or empty: counts no pod (counts_for_spread)
                return found
            hooks = self.watch.setdefault(namespace, {})
            hook = next((r for r in selector if r[1] == "In"), None)
            if hook is None:
                hooks.setdefault(None, []).append(found)
                candidates: set[Key] = self.by_namespace.get(namespace, set())
            else:
                candidates = set()
                for value in hook[2]:
                    hooks.setdefault((hook[0], value), []).append(found)
                    candidates |= self.by_label.get((namespace, hook[0], value), set())
            contrib = self.contrib
            for key in candidates:
                node_name, _req, _nz, snap = contrib[key]
                if found.matches(snap):
                    found.add(node_name, None, +1)
        return found

    def fill_domains(self, idx: SelectorIndex, keys: list[str]) -> None:
        """Count the index's pods per value of each topology key."""
        state = self.state
        assert state is not None
        for key in keys:
            counts: dict[str, int] = {}
            for node_name, n in idx.by_node.items():
                node = state.nodes.get(node_name)
                if node is not None and n:
                    value = node.metadata.labels.get(key, "")
                    counts[value] = counts.get(value, 0) + n
            idx.domains[key] = counts

    def without(self, name: str, victims: list[Key]) -> NodeAccount:
        """The node's account with these pods removed (a preemption dry run)."""
        acct = NodeAccount()
        base = self.accounts[name]
        acct.requested = dict(base.requested)
        acct.nz_cpu, acct.nz_mem, acct.npods = base.nz_cpu, base.nz_mem, base.npods
        for k in victims:
            _node, req, nz, _snap = self.contrib[k]
            acct.add(req, nz, -1)
        return acct
