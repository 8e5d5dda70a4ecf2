"""The simulation loop: controllers and the scheduler take turns on a simulated clock that never sleeps."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from drasim.allocator import Features
from drasim.allocator.budget import FILTER_BUDGET_STEPS
from drasim.allocator.versions import allocator_features
from drasim.api.clone import simulation_copy
from drasim.api.core import Pod
from drasim.api.profile import ReleaseProfile
from drasim.cluster import EPOCH, ClusterState, Key, key_of
from drasim.cluster.clock import later
from drasim.cluster.podstatus import POD_SCHEDULED, REASON_SCHEDULER_ERROR, REASON_UNSCHEDULABLE, update_pod_condition
from drasim.controllers import resourceclaim as rc
from drasim.controllers.devicetaint import (
    EvictionTracker,
    evict_due,
    next_eviction_time,
    next_rule_status_time,
    update_rule_statuses,
    watch_rules,
)
from drasim.controllers.events import NORMAL, WARNING, Event
from drasim.scheduler import Scheduler, SchedulerConfig, ScheduleResult
from drasim.scheduler.dra import PLUGIN
from drasim.scheduler.filters import UNSCHEDULABLE
from drasim.scheduler.framework import GATED
from drasim.scheduler.prebind import BINDING_POLL_SECONDS, BINDING_READY, BINDING_WAITING
from drasim.sim.gang import WAITING, GangWaits
from drasim.sim.steady import SteadyStateWatch, steady_note
from drasim.sim.timeline import RunTracker, ScheduledAction, Timeline, execute, schedule
from drasim.sim.workloads import WorkloadController, check_timeline_workloads, check_workloads
from drasim.validation.findings import Finding

# Nodes per pod whose per-plugin scores are kept and reported (best first). Every feasible node would make
# a simulation O(pods x sampled nodes): 1.15 million entries for 5,000 pods on 500 nodes.
SCORES_KEPT = 3

# A step that keeps finding work at the same instant is cut off after this many rounds (a livelock guard).
MAX_ROUNDS_PER_INSTANT = 50
# Scheduling passes over the pending pods within one round while a pass still changes something.
MAX_PASSES = 3
# During a run, a full garbage collection at most every this many second-generation ones (Python's default
# is 10). A simulation only grows its heap (pods, claims, results) and makes next to no cyclic garbage, yet
# every full pass walks all of it: with the default, full passes took about a third of a large run.
FULL_GC_EVERY = 100
# The scheduling queue's podInitialBackoffDuration: a pod whose binding failed is retried no sooner.
INITIAL_BACKOFF = timedelta(seconds=1)


@contextmanager
def _fewer_full_collections() -> Iterator[None]:
    """Raise the oldest generation's threshold for the duration (restored after; changes no result)."""
    old = gc.get_threshold()
    if len(old) < 3 or old[0] == 0 or old[2] >= FULL_GC_EVERY:
        yield  # collection disabled or already tuned by the host
        return
    gc.set_threshold(old[0], old[1], FULL_GC_EVERY)
    try:
        yield
    finally:
        if gc.get_threshold() == (old[0], old[1], FULL_GC_EVERY):
            gc.set_threshold(*old)


@dataclass
class SimulationOptions:
    """How to run: seed for every documented tie-break, node sampling, and a horizon for the clock."""

    features: Features = field(default_factory=Features)
    seed: int = 0
    score_all_nodes: bool = False
    extended_resources: bool = True  # the DRAExtendedResource gate (beta, on, from 1.36)
    # The scheduler's filter timeout as an allocator step budget (deterministic); None: no limit.
    filter_budget_steps: int | None = FILTER_BUDGET_STEPS
    start: datetime = EPOCH
    horizon: timedelta = timedelta(days=7)
    # Shortcuts that change no result: a failed cycle reused for identical pods within one scheduling pass
    # (Scheduler.reuse_failures), no claim-controller pass where nothing changed since the last one, and
    # fewer full garbage collections during the run. Off only to prove that
    # (tests/sim/test_engine_equivalence.py, which also switches resourceclaim.FAST_COPY).
    fast_paths: bool = True
    gang_scheduling: bool = False  # the GangScheduling gate: PodGroup gangs placed all-or-nothing (sim.gang)

    @classmethod
    def for_profile(cls, profile: ReleaseProfile, **kwargs: Any) -> SimulationOptions:
        """The options a cluster of `profile` runs with: its allocator features, extended-resource and gang gates."""
        return cls(features=allocator_features(profile), extended_resources=profile.extended_resources,
                   gang_scheduling=profile.gate("GangScheduling"), **kwargs)


@dataclass(slots=True)  # one per pod: no __dict__ (~200 bytes each)
class PodRecord:
    """What happened to one pod: where it landed and why, or why not (the last scheduling attempt)."""

    key: Key
    node: str | None = None
    status: str = "Pending"
    message: str = ""
    attempts: int = 0
    scheduled_at: datetime | None = None
    last: ScheduleResult | None = None
    chosen: dict[Key, list[str]] = field(default_factory=dict)  # claim -> chosen request names (req/sub)
    # The best feasible node of the binding cycle whose DynamicResources score (the firstAvailable rank it
    # offered) beat the chosen node's: the pod took a lower alternative while a higher one was feasible.
    higher_on: str | None = None
    # Weighted per-plugin scores of the chosen node and of `higher_on` in that cycle (explain shows them).
    node_scores: dict[str, int] = field(default_factory=dict)
    higher_scores: dict[str, int] = field(default_factory=dict)
    ended: str | None = None  # Succeeded / Failed / Evicted / Deleted


def placement_scores(result: ScheduleResult) -> tuple[dict[str, int], str | None, dict[str, int]]:
    """The chosen node's weighted plugin scores, and the first feasible node (scan order) with the highest
    DynamicResources score when that beats the chosen node's, with its scores: there the claims' prioritized-list
    rank was higher, yet the other plugins' scores won. Read before the ranking is compacted."""
    ranking = result.ranking
    if ranking is None or result.node is None:
        return {}, None, {}
    at = ranking.chosen  # where the cycle picked it, else one scan of the feasible list
    if at is None or ranking.feasible[at] != result.node:
        try:
            at = ranking.feasible.index(result.node)
        except ValueError:
            return {}, None, {}
    mine = ranking.plugins[ranking.classes[at]]
    best = max((p.get(PLUGIN, 0) for p in ranking.plugins.values()), default=0)
    if best > mine.get(PLUGIN, 0):
        # The first node of a class with that score: each class's first position by list.index (C speed;
        # every class with plugin scores has nodes), not a Python step per feasible node.
        first = min(ranking.classes.index(cid) for cid, p in ranking.plugins.items() if p.get(PLUGIN, 0) == best)
        return dict(mine), ranking.feasible[first], dict(ranking.plugins[ranking.classes[first]])
    return dict(mine), None, {}


@dataclass
class SimulationResult:
    state: ClusterState
    events: list[Event]
    pods: dict[Key, PodRecord]
    start: datetime
    end: datetime
    evicted: list[Pod] = field(default_factory=list)  # as they were when evicted (DisruptionTarget set)
    # What the admission path turned away before the run: (source file, finding); set by the caller.
    rejected: list[tuple[str, Finding]] = field(default_factory=list)
    # Why the run stopped before the horizon with retries still ahead (sim.steady), e.g. "1 pod waits for
    # binding conditions no Timeline sets"; "" when it simply ran out of things to do.
    steady_state: str = ""

    def pending(self) -> list[PodRecord]:
        """Pods that exist at the end and never got a node."""
        return [r for k, r in self.pods.items() if k in self.state.pods and not self.state.pods[k].spec.node_name]


@dataclass
class BindingWait:
    """A pod in PreBind, waiting for its devices' binding conditions (polled every 5 s, up to the timeout)."""

    node: str
    started: datetime
    result: ScheduleResult


def _pending_pods(state: ClusterState, skip: Mapping[Key, object] | None = None) -> list[Pod]:
    out = []
    for key, pod in state.pods.items():
        if pod.spec.node_name or pod.metadata.deletion_timestamp is not None or (skip and key in skip):
            continue
        if pod.status is not None and pod.status.phase in ("Succeeded", "Failed"):
            continue
        out.append(pod)
    return out


class Simulation:
    """One simulated cluster: call `run()` once. The cluster works on copies of `objects` (the caller's are
    never changed; Nodes and untainted ResourceSlices, which a simulation never writes, are shared:
    `simulation_copy`) unless `owned`: a caller that decoded them for this run alone hands them over, saving the
    copy."""

    def __init__(self, objects: Sequence[Any], timelines: Sequence[Timeline] = (),
                 options: SimulationOptions | None = None, *, owned: bool = False) -> None:
        self.options = options or SimulationOptions()
        problems = check_workloads(objects) + check_timeline_workloads(timelines)
        if problems:
            raise problems[0]
        if not owned:
            objects = simulation_copy(objects)
        self.state = ClusterState.from_objects(objects, features=self.options.features, now=self.options.start)
        self.scheduler = Scheduler(SchedulerConfig(seed=self.options.seed,
                                                   score_all_nodes=self.options.score_all_nodes,
                                                   extended_resources=self.options.extended_resources,
                                                   filter_budget_steps=self.options.filter_budget_steps,
                                                   gang_scheduling=self.options.gang_scheduling))
        self.workloads = WorkloadController(seed=self.options.seed)
        self.evictions = EvictionTracker()
        self.runs = RunTracker()
        self.actions: list[ScheduledAction] = schedule(list(timelines), self.options.start)
        self.events: list[Event] = []
        self.pods: dict[Key, PodRecord] = {}
        self.binding: dict[Key, BindingWait] = {}  # pods in PreBind
        self.backoff: dict[Key, datetime] = {}  # pods whose PreBind failed: retried after the initial backoff
        self.gang = GangWaits()  # gang pods waiting in Permit for their PodGroup's quorum
        self.steady = SteadyStateWatch()
        self.steady_state = ""

    # --- the loop -------------------------------------------------------------------------------

    def run(self) -> SimulationResult:
        if self.options.fast_paths:
            with _fewer_full_collections():
                return self._run()
        return self._run()

    def _run(self) -> SimulationResult:
        state = self.state
        end = later(self.options.start, self.options.horizon)
        next_action = 0
        rounds_here = 0
        while True:
            while next_action < len(self.actions) and self.actions[next_action].time <= state.now:
                self._log(execute(state, self.actions[next_action].action, seed=self.options.seed))
                next_action += 1
            self._round()
            others = [t for t in (
                self.actions[next_action].time if next_action < len(self.actions) else None,
                next_eviction_time(state),
                self.runs.next_finish(state),
                next_rule_status_time(state, self.evictions.evicted_by_rule, tracker=self.evictions),
            ) if t is not None]
            retry = min((t for t in (self._next_binding_time(), self.gang.next_time()) if t is not None),
                        default=None)
            wake = others if retry is None else [*others, retry]
            if not wake:
                break
            nxt = min(wake)
            if nxt <= state.now:
                rounds_here += 1
                if rounds_here >= MAX_ROUNDS_PER_INSTANT:
                    break
                continue
            if nxt > end:
                break
            # Before the clock moves on: with only PreBind retries ahead, a shape seen before ends the run.
            if others:
                self.steady.reset()
            elif self.steady.repeats(state, self.binding, self.backoff, self.gang.waiting, self.gang.claims()):
                self.steady_state = steady_note(state, self.binding, self.backoff, self.gang.waiting)
                break
            rounds_here = 0
            state.now = nxt
        self._note_ends()
        return SimulationResult(state=state, events=self.events, pods=self.pods, start=self.options.start,
                                end=state.now, evicted=[pod for _t, pod, _ev in self.evictions.evicted],
                                steady_state=self.steady_state)

    def step(self) -> None:
        """One more round at the current instant, after `run()` (capacity adds replicas one at a time)."""
        self._round()

    def _round(self) -> None:
        state, seed = self.state, self.options.seed
        self._poll_bindings()
        self._expire_gangs()
        self._log(self.workloads.reconcile(state))
        self._log(rc.sync(state, seed=seed))
        for _ in range(MAX_PASSES):
            freed, bound = self._schedule_pass()
            # After a pass that only bound pods or recorded failures, the controller visits only what that touched.
            bound = bound if self.options.fast_paths else None
            created = rc.sync(state, seed=seed) if bound is None else rc.sync_after_binding(state, bound, seed=seed)
            self._log(created)
            # Binding only consumes resources, so a pod that just failed is retried in this instant only
            # if something could help it: devices freed (PostFilter) or claims it waited for created.
            if not freed and not any(e.reason in ("CreatedResourceClaim", "AdoptedResourceClaim") for e in created):
                break
        synced = (len(state.pod_log), len(state.pods), len(state.claims))
        self.runs.observe(state)
        self._log(self.runs.finish_due(state))
        # New rules write their status before anything is evicted (upstream queues that item first).
        watch_rules(state, self.evictions)
        self._log(update_rule_statuses(state, self.evictions.evicted_by_rule, tracker=self.evictions))
        self._log(evict_due(state, self.evictions))
        # A claim-controller pass right after one changes nothing (rc.sync's contract), and what ran since
        # changes pods only through pod_changed/delete_pod (the pod log) and claims not at all: a 50,000-pod
        # pass costs ~0.7 s.
        if not self.options.fast_paths or synced != (len(state.pod_log), len(state.pods), len(state.claims)):
            self._log(rc.sync(state, seed=seed))
        self._log(update_rule_statuses(state, self.evictions.evicted_by_rule, tracker=self.evictions))

    def _schedule_pass(self) -> tuple[bool, list[Key] | None]:
        """One attempt for every pending pod in queue order: whether a PostFilter freed devices, and `bound`."""
        state = self.state
        changed = False
        # The pods bound (or assumed) while every outcome is a binding or a failure that changes no claim
        # (rc.sync_after_binding); None once one deallocates, deletes or creates a claim, or with gangs.
        bound: list[Key] | None = None if state.pod_groups or self.options.gang_scheduling else []
        # Within the pass the state changes only through Scheduler.apply (which forgets remembered failures).
        self.scheduler.reuse_failures(state if self.options.fast_paths else None)
        self.gang.new_pass()
        try:
            for key in [k for k, t in self.backoff.items() if t <= state.now]:
                del self.backoff[key]
            waiting = {**self.binding, **self.backoff, **self.gang.waiting}
            for pod in Scheduler.queue_order(state, _pending_pods(state, waiting)):
                key = key_of(pod)
                if key not in state.pods or state.pods[key].spec.node_name:
                    continue
                result = self.scheduler.schedule_one(state, pod)
                if bound is not None:
                    if result.deallocate or result.delete_claims or result.extended_claim is not None:
                        bound = None
                    elif result.node:
                        bound.append(key)
                group = self.gang.gang(state, pod) if self.options.gang_scheduling and result.node else None
                result.permit_wait = group is not None
                self.scheduler.apply(state, result)
                record = self.pods.setdefault(key, PodRecord(key=key))
                record.attempts += 1
                record.last = result
                record.node_scores, record.higher_on, record.higher_scores = placement_scores(result)
                result.compact(SCORES_KEPT)
                record.status = result.status
                record.message = result.message
                ref = f"Pod/{key[0]}/{key[1]}"
                if group is not None:
                    released = self.gang.permit(state, group, key, result, set(self.binding),
                                                self.scheduler.gang_members)
                    if not released:
                        record.status, record.message = WAITING, self.gang.message(key)
                    for other in released:
                        self._after_permit(other, self.pods[other].last if other != key else result)
                elif result.node and result.binding_wait:
                    self.binding[key] = BindingWait(result.node, state.now, result)
                    record.status = "Binding"
                    record.message = self._waiting_message(pod, result.node, state.now)
                    self.events.append(Event(state.now, NORMAL, ref, "BindingConditionsPending",
                                             f"waiting for binding conditions for device on node {result.node}"))
                elif result.node:
                    self._bound(key, result)
                else:
                    if result.status != GATED:  # handleSchedulingFailure (PreEnqueue rejections emit nothing)
                        self.events.append(Event(state.now, WARNING, ref, "FailedScheduling", result.message))
                    if result.deallocate or result.delete_claims:
                        changed = True
        finally:
            self.scheduler.reuse_failures(None)
        return changed, bound

    def _after_permit(self, key: Key, result: ScheduleResult | None) -> None:
        """A gang pod Permit let through: on to PreBind's wait for binding conditions, or bound."""
        state = self.state
        pod = state.pods.get(key)
        if pod is None or result is None or result.node is None:
            return
        if result.binding_wait:
            self.binding[key] = BindingWait(result.node, state.now, result)
            self.pods[key].status = "Binding"
            self.pods[key].message = self._waiting_message(pod, result.node, state.now)
            return
        self.scheduler.bind(state, pod, result.node)
        self._bound(key, result)

    def _expire_gangs(self) -> None:
        """Permit's timeout: gang pods that waited too long leave their nodes and claims (sim.gang)."""
        state = self.state
        for key, message in self.gang.expire(state, self.scheduler):
            pod = state.pods[key]
            update_pod_condition(pod, POD_SCHEDULED, "False", state.now, reason=REASON_UNSCHEDULABLE, message=message)
            record = self.pods.setdefault(key, PodRecord(key=key))
            record.status, record.message = UNSCHEDULABLE, message
            self.events.append(Event(state.now, WARNING, f"Pod/{key[0]}/{key[1]}", "FailedScheduling", message))

    def _bound(self, key: Key, result: ScheduleResult) -> None:
        record = self.pods.setdefault(key, PodRecord(key=key))
        record.node = result.node
        record.status = result.status
        record.message = result.message
        record.scheduled_at = self.state.now
        record.chosen = dict(result.chosen_subrequests)
        self.events.append(Event(self.state.now, NORMAL, f"Pod/{key[0]}/{key[1]}", "Scheduled",
                                 f"Successfully assigned {key[0]}/{key[1]} to {result.node}"))

    def _waiting_message(self, pod: Pod, node: str, started: datetime) -> str:
        _kind, what, deadline = self.scheduler.binding_check(self.state, pod)
        until = f" until {deadline.isoformat()}" if deadline is not None else ""
        return (f"PreBind (since {started.isoformat()}) waits{until} for binding conditions on node {node}: "
                f"{what or 'the devices report them'}")

    def _poll_bindings(self) -> None:
        """PreBind's poll for pods waiting for binding conditions: bind when every condition is True, fail on a
        failure condition (both seen at the next 5 s poll) or at the timeout (Unreserve; retried after
        the initial backoff, when PostFilter deallocates the claim)."""
        state = self.state
        for key, wait in sorted(self.binding.items()):
            pod = state.pods.get(key)
            if pod is None or pod.metadata.deletion_timestamp is not None:
                del self.binding[key]
                self.scheduler.forget(state, key)
                continue
            kind, message, _deadline = self.scheduler.binding_check(state, pod)
            if kind == BINDING_WAITING:
                self.pods[key].message = self._waiting_message(pod, wait.node, wait.started)
                continue
            if not message.endswith("binding timeout") and _poll_tick(wait.started, state.now) > state.now:
                continue  # seen at the next poll
            del self.binding[key]
            record = self.pods[key]
            if kind == BINDING_READY:
                self.scheduler.bind(state, pod, wait.node)
                self._bound(key, wait.result)
                continue
            self.scheduler.unreserve(state, pod)
            error = f'running PreBind plugin "{PLUGIN}": {message}'
            update_pod_condition(pod, POD_SCHEDULED, "False", state.now, reason=REASON_SCHEDULER_ERROR,
                                 message=error)
            record.status, record.message = "Error", error
            self.events.append(Event(state.now, WARNING, f"Pod/{key[0]}/{key[1]}", "FailedScheduling", error))
            self.backoff[key] = later(state.now, INITIAL_BACKOFF)

    def _next_binding_time(self) -> datetime | None:
        times = list(self.backoff.values())
        for key, wait in self.binding.items():
            pod = self.state.pods.get(key)
            if pod is None:
                continue
            kind, _, deadline = self.scheduler.binding_check(self.state, pod)
            if kind != BINDING_WAITING:
                times.append(_poll_tick(wait.started, self.state.now))
            elif deadline is not None:
                times.append(deadline)
        return min(times) if times else None

    def _note_ends(self) -> None:
        for key, record in self.pods.items():
            pod = self.state.pods.get(key)
            if pod is None:
                record.ended = record.ended or "Deleted"
            elif pod.status is not None and pod.status.phase in ("Succeeded", "Failed"):
                record.ended = pod.status.phase
        for event in self.events:
            if event.reason == "DeviceTaintManagerEviction" and event.object.startswith("Pod/"):
                _, ns, name = event.object.split("/", 2)
                if (ns, name) in self.pods:
                    self.pods[(ns, name)].ended = "Evicted"
        # Pods that never went through the scheduler (nodeName preset, or gated before any attempt).
        for key, pod in self.state.pods.items():
            if key not in self.pods:
                self.pods[key] = PodRecord(key=key, node=pod.spec.node_name,
                                           status="Bound" if pod.spec.node_name else "Pending")

    def _log(self, events: list[Event]) -> None:
        self.events.extend(events)


def _poll_tick(started: datetime, now: datetime) -> datetime:
    """The first PreBind poll at or after `now` (polls run every BINDING_POLL_SECONDS from the start)."""
    step = timedelta(seconds=BINDING_POLL_SECONDS)
    if now <= started:
        return started
    return started + step * -(-(now - started) // step)


def simulate(objects: Sequence[Any], timelines: Sequence[Timeline] = (),
             options: SimulationOptions | None = None, *, owned: bool = False) -> SimulationResult:
    """Run a simulation to the end (no more timeline events, evictions or pod finishes pending). `objects`
    are left unchanged unless `owned` (see `Simulation`)."""
    return Simulation(objects, timelines, options, owned=owned).run()
