"""The cluster as `simulate` leaves it: what explain, taint dry-run and lint's capacity checks read."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from drasim.api.clone import simulation_copy
from drasim.api.core import Pod
from drasim.api.profile import ReleaseProfile
from drasim.api.resource import ResourceClaim
from drasim.cluster import ClusterState, Key
from drasim.sim.engine import PodRecord, SimulationOptions, simulate
from drasim.sim.timeline import Timeline

__all__ = ["is_end_state", "settle", "settle_records", "settled_records", "settled_state", "simulation_options"]


def simulation_options(profile: ReleaseProfile, *, seed: int = 0, score_all_nodes: bool = False,
                       horizon: timedelta = timedelta(days=7)) -> SimulationOptions:
    """How `drasim simulate` runs for these flags (every command that simulates first uses the same)."""
    return SimulationOptions.for_profile(profile, seed=seed, score_all_nodes=score_all_nodes, horizon=horizon)


def settled_state(objects: Sequence[Any], timelines: Sequence[Timeline], profile: ReleaseProfile, *,
                  seed: int = 0, at: timedelta | None = None, owned: bool = False) -> ClusterState:
    """The cluster as `drasim simulate` leaves these admitted inputs under `profile` (at `at` after the start,
    default the end; inputs that are already an end state are taken as they are). explain, taint dry-run
    and lint's blast-radius counts read it. `objects` are left unchanged unless `owned` (see `Simulation`)."""
    return settle(objects, timelines, simulation_options(profile, seed=seed), at, owned=owned)


def settled_records(objects: Sequence[Any], timelines: Sequence[Timeline], profile: ReleaseProfile, *,
                    seed: int = 0, at: timedelta | None = None, owned: bool = False
                    ) -> tuple[ClusterState, Mapping[Key, PodRecord]]:
    """`settled_state` and the simulation's record of each pod (where it landed, its scores)."""
    return settle_records(objects, timelines, simulation_options(profile, seed=seed), at, owned=owned)


def is_end_state(objects: Sequence[Any]) -> bool:
    """Inputs in which scheduling already happened (a `simulate -o yaml` output, a cluster dump): a pod
    bound to a node or an allocated claim. Hand-written manifests have neither."""
    for obj in objects:
        if isinstance(obj, Pod) and obj.spec.node_name:
            return True
        if isinstance(obj, ResourceClaim) and obj.status is not None and obj.status.allocation is not None:
            return True
    return False


def settle(objects: Sequence[Any], timelines: Sequence[Timeline] = (), options: SimulationOptions | None = None,
           at: timedelta | None = None, *, owned: bool = False) -> ClusterState:
    """The cluster at `at` after the start (default: the end) of the simulation `simulate` runs on these
    inputs; inputs that are already an end state, without timelines or `at`, are taken as they are."""
    return settle_records(objects, timelines, options, at, owned=owned)[0]


def settle_records(objects: Sequence[Any], timelines: Sequence[Timeline] = (),
                   options: SimulationOptions | None = None, at: timedelta | None = None, *, owned: bool = False
                   ) -> tuple[ClusterState, Mapping[Key, PodRecord]]:
    """`settle`, and what the simulation recorded per pod (empty for inputs taken as an end state)."""
    options = options or SimulationOptions()
    if at is None and not timelines and is_end_state(objects):
        return ClusterState.from_objects(objects if owned else simulation_copy(objects), features=options.features,
                                         now=options.start), {}
    if at is not None:
        options = dataclasses.replace(options, horizon=at)
    result = simulate(objects, timelines, options, owned=owned)
    return result.state, result.pods
