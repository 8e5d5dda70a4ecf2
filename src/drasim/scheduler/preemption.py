"""PostFilter's messages: FitError's histogram and DefaultPreemption's dry run (no evictions are simulated)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from drasim.cluster.state import Key
from drasim.scheduler.cache import NodeCache
from drasim.scheduler.dra import PLUGIN, DraCycle
from drasim.scheduler.filters import UNSCHEDULABLE, Status
from drasim.scheduler.pods import priority
from drasim.scheduler.resources import NodeAccount, Vector

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


def fit_error(num_all: int, statuses: Mapping[str, Status], absent: tuple[str, ...], prefilter: str,
              postfilter: str) -> str:
    """FitError.Error(): "0/N nodes are available: <histogram>. <PostFilter messages>"."""
    msg = f"0/{num_all} nodes are available:"
    if prefilter:
        msg += f" {prefilter}."
    else:
        counts: dict[str, int] = {}
        for st in statuses.values():
            for reason in st.reasons:
                counts[reason] = counts.get(reason, 0) + 1
        if len(statuses) < num_all:
            for reason in absent:
                counts[reason] = counts.get(reason, 0) + num_all - len(statuses)
        hist = sorted(f"{v} {k}" for k, v in counts.items())
        if hist:
            msg += f" {', '.join(hist)}."
    if postfilter:
        msg += f" {postfilter}"
    return msg


def dry_run(cache: NodeCache, prio: int, statuses: Mapping[str, Status], absent_code: str,
            refilter: Callable[[str, NodeAccount, list[Key]], Status | None]) -> str | None:
    """DefaultPreemption's dry run (scheduler-core §11): the message, or None when victims exist.

    Nodes rejected as UnschedulableAndUnresolvable (every DynamicResources rejection) are never
    candidates; on the others every lower-priority pod is removed and the filters run again (`refilter`
    with the node's account and the victims; claims stay allocated: removing pods frees no devices).
    """
    state = cache.state
    assert state is not None
    counts: dict[str, int] = {}
    for name in cache.names:
        st = statuses.get(name)
        code = st.code if st is not None else absent_code
        if code != UNSCHEDULABLE:
            reasons: tuple[str, ...] = (NOT_HELPFUL,)
        else:
            victims = [k for k in cache.node_pods.get(name, ()) if priority(state.pods[k]) < prio]
            if not victims:
                reasons = (NO_VICTIMS,)
            else:
                st2 = refilter(name, cache.without(name, victims), victims)
                if st2 is None:
                    return None
                reasons = st2.reasons
        for r in reasons:
            counts[r] = counts.get(r, 0) + 1
    hist = sorted(f"{v} {k}" for k, v in counts.items())
    return f"preemption: 0/{len(cache.names)} nodes are available: {', '.join(hist)}."


def blocked_by_lower_priority(cache: NodeCache, dra: DraCycle, requests: Vector, statuses: Mapping[str, Status]
                              ) -> bool:
    """Would some node rejected by DynamicResources fit if lower-priority pods released their claims?"""
    state = cache.state
    assert state is not None
    dra_nodes = [n for n, st in statuses.items() if st.plugin == PLUGIN]
    if not dra_nodes:
        return False
    prio = priority(dra.pod)
    if not any(n and p < prio for p, n in cache.priorities.items()):
        return False  # no bound pod has a lower priority
    held: set[Key] = set()
    for ckey, claim in state.claims.items():
        status = claim.status
        if status is None or status.allocation is None or not status.reserved_for:
            continue
        consumers = [state.pods.get((ckey[0], r.name)) for r in status.reserved_for if r.resource == "pods"]
        if consumers and all(p is not None and priority(p) < prio for p in consumers):
            held.add(ckey)
    if not held:
        return False
    return dra.helped_by_freeing(held, dra_nodes, requests, cache.alloc)
