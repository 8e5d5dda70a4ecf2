"""Steady state: the simulation stops when its only future is retries that end as they ended before."""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping

from drasim.cluster import ClusterState, Key


def _allocations(state: ClusterState, skip: Collection[Key] = ()
                 ) -> tuple[tuple[Key, tuple[tuple[str, str, str], ...]], ...]:
    out = []
    for key, claim in state.claims.items():
        if key in skip:
            continue
        allocation = claim.status.allocation if claim.status else None
        if allocation is not None:
            out.append((key, tuple((r.driver, r.pool, r.device) for r in allocation.devices.results)))
    return tuple(sorted(out))


class SteadyStateWatch:
    """Remembers the cluster's shape at each wake-up whose only reasons are PreBind retries (binding
    timeouts and the backoff after them; no Timeline action, eviction, pod finish or rule status ahead).

    Such retries change nothing that a later one would not undo: when a shape comes back, the run would
    repeat that cycle until the horizon (a week of identical events), so the loop stops there. The shape
    leaves out time and messages: which pods wait in PreBind (and on which node), which back off, where
    every pod runs and which devices every claim holds."""

    def __init__(self) -> None:
        self._seen: set[Hashable] = set()

    def reset(self) -> None:
        """Something else lies ahead (a Timeline action, an eviction...): earlier shapes prove nothing."""
        self._seen.clear()

    def repeats(self, state: ClusterState, binding: Mapping[Key, object], backoff: Mapping[Key, object],
                gangs: Mapping[Key, object] | None = None, gang_claims: Collection[Key] = ()) -> bool:
        """Record the shape now; True when it was seen before since the last reset. Gang pods in Permit
        (`gangs`) count without their nodes and the claims they hold (`gang_claims`) without their devices:
        each retry of a gang that cannot complete may pick other nodes by the tie-break, and ends the same."""
        waits = sorted((k, getattr(w, "node", "")) for k, w in binding.items())
        waits += sorted((k, "") for k in gangs or {})
        shape = (tuple(waits), tuple(sorted(backoff)),
                 tuple(sorted((k, p.spec.node_name or "") for k, p in state.pods.items())),
                 _allocations(state, gang_claims))
        if shape in self._seen:
            return True
        self._seen.add(shape)
        return False


def steady_note(state: ClusterState, binding: Mapping[Key, object], backoff: Mapping[Key, object],
                gangs: Mapping[Key, object] | None = None) -> str:
    """`1 pod waits for binding conditions no Timeline sets` (and the pending pods no node can take); gang pods
    in Permit: `2 pods of a gang wait in Permit for minCount pods of their PodGroup`."""
    gangs = gangs or {}
    retrying = set(binding) | set(backoff)
    pending = [k for k, p in state.pods.items() if not p.spec.node_name and k not in retrying and k not in gangs
               and p.metadata.deletion_timestamp is None
               and (p.status is None or p.status.phase not in ("Succeeded", "Failed"))]
    n = len(retrying)
    parts = [f"{n} pod{'s wait' if n != 1 else ' waits'} for binding conditions no Timeline sets"] if n else []
    if gangs:
        g = len(gangs)
        parts.append(f"{g} pod{'s' if g != 1 else ''} of a gang wait{'' if g != 1 else 's'} in Permit for minCount "
                     "pods of their PodGroup")
    if pending:
        parts.append(f"{len(pending)} pending pod{'s' if len(pending) != 1 else ''} no node can take")
    return "; ".join(parts)


__all__ = ["SteadyStateWatch", "steady_note"]
