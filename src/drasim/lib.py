"""drasim's Python API: read inputs, simulate, allocate, explain, lint and count capacity as the CLI does.

Every function returns the typed objects the CLI renders (each with `to_dict()` for JSON) and raises
`DrasimError` (`InputError` for bad input, with file, object and field path) instead of exiting. Explain
and lint are `explanation` and `lint_findings`: `drasim.explain` and `drasim.lint` are packages.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from drasim.allocator import AllocationError, Allocator, NodeLocalError
from drasim.allocator.versions import allocator_features
from drasim.api.defaults import apply_claim_defaults
from drasim.api.encode import encode_object
from drasim.api.profile import DEFAULT_VERSION, ReleaseProfile, profile_for
from drasim.api.resource import ResourceClaim
from drasim.cluster import ClusterState
from drasim.demo import demo_paths, demo_profile
from drasim.errors import DrasimError, InputError
from drasim.explain import Explanation, explain_claim, explain_pod
from drasim.lint import LintFinding, lint_objects
from drasim.sim.capacity import DEFAULT_MAX, CapacityResult
from drasim.sim.capacity import capacity as _capacity
from drasim.sim.engine import SimulationResult
from drasim.sim.engine import simulate as _simulate
from drasim.sim.report import PodLine, WorkloadMix, extra_documents, final_objects, pod_lines, workload_mix
from drasim.sim.settle import settled_state, simulation_options
from drasim.sources.files import load_paths
from drasim.sources.inputs import ROOT_ONLY, Inputs, read_inputs

__all__ = [
    "AllocationAnswer", "CapacityResult", "DrasimError", "Explanation", "InputError", "Inputs", "LintFinding",
    "PodLine", "ReleaseProfile", "Simulation", "SimulationResult", "WorkloadMix", "allocate", "capacity",
    "explanation", "lint_findings", "load", "profile", "simulate",
]


def profile(kubernetes_version: str = DEFAULT_VERSION, feature_gates: str | dict[str, bool] | None = None
            ) -> ReleaseProfile:
    """A release profile, as `--kubernetes-version` and `--feature-gates` make it (`"1.36"`,
    `"DRADeviceTaintRules=true"` or `{"DRADeviceTaintRules": True}`)."""
    return profile_for(kubernetes_version, feature_gates)


def load(paths: Sequence[str] = (), *, release: ReleaseProfile | None = None, namespace: str | None = None,
         kubeconfig: str | None = None, context: str | None = None, live: bool = False,
         timeout: float = 10.0, load_restrictor: str = ROOT_ONLY) -> Inputs:
    """Read files and directories (`-` is stdin) as every command does, admitted as the API server of
    `release` (default 1.36) would, Timelines included; with `live` (or a `kubeconfig`/`context`) the cluster
    is read first (GET and LIST only) and the files applied on top. No paths and no cluster: the bundled demo,
    with its profile. Documents that do not decode raise InputError (the CLI lists them and goes on).
    `load_restrictor="LoadRestrictionsNone"` lets a Timeline's `file:` leave its folder (`--load-restrictor`)."""
    release = release or profile_for()
    snapshot = None
    if live or kubeconfig is not None or context is not None:
        from drasim.sources.live import read_cluster  # the HTTP client only for a live cluster

        snapshot = read_cluster(kubeconfig, context, timeout=timeout)
    paths = list(paths)
    if snapshot is None and not paths:
        paths, release = demo_paths(), demo_profile(release)
    inputs = read_inputs(paths, release, timelines=True, namespace=namespace, cluster=snapshot,
                         load_restrictor=load_restrictor)
    inputs.raise_unreadable()
    return inputs


def _release(inputs: Inputs) -> ReleaseProfile:
    return inputs.release or profile_for()


@dataclass
class Simulation:
    """A finished simulation: `result` (the cluster at the end, events, per-pod records), `pods` (the rows
    of `drasim simulate`'s table: node, claims, alternatives, devices, why Pending), `workloads` (the
    fallback mix per workload) and `release`, the profile it ran under."""

    result: SimulationResult
    release: ReleaseProfile
    pods: list[PodLine] = field(default_factory=list)
    workloads: list[WorkloadMix] = field(default_factory=list)

    @property
    def pending(self) -> list[PodLine]:
        return [p for p in self.pods if p.status == "Pending"]

    def to_dict(self) -> dict[str, Any]:
        """`drasim simulate -o json`: the final objects, the Events and the scores, as one v1 List."""
        items = [encode_object(o) for o in final_objects(self.result, self.release)]
        return {"apiVersion": "v1", "kind": "List", "items": [*items, *extra_documents(self.result, self.pods)]}


def simulate(inputs: Inputs, *, seed: int = 0, score_all_nodes: bool = False,
             horizon: timedelta = timedelta(days=7)) -> Simulation:
    """Run the inputs as `drasim simulate` does (the same seed gives the same answer)."""
    release = _release(inputs)
    options = simulation_options(release, seed=seed, score_all_nodes=score_all_nodes, horizon=horizon)
    result = _simulate(inputs.objects, inputs.timelines, options)
    result.rejected = inputs.admission.errors()
    pods = pod_lines(result)
    return Simulation(result, release, pods, workload_mix(pods))


def _settled(inputs: Inputs, seed: int) -> ClusterState:
    return settled_state(inputs.objects, inputs.timelines, _release(inputs), seed=seed)


def _key(ref: str, namespace: str) -> tuple[str, str]:
    ns, sep, name = ref.rpartition("/")
    return (ns if sep else namespace), name


def explanation(inputs: Inputs, ref: str, *, namespace: str = "default", nodes: Sequence[str] | None = None,
            seed: int = 0) -> Explanation:
    """Why a pod or claim got its devices or none, on the cluster as `simulate` leaves the inputs: `ref` is
    `pod/NAME`, `resourceclaim/NAME` (or `claim/NAME`), with `NAMESPACE/NAME` or `namespace`."""
    kind, sep, rest = ref.partition("/")
    kind = kind.lower()
    if not sep or kind not in ("pod", "pods", "po", "resourceclaim", "resourceclaims", "claim", "claims"):
        raise InputError(f"expected pod/NAME or resourceclaim/NAME, got {ref!r}")
    state = _settled(inputs, seed)
    if kind.startswith("po"):
        return explain_pod(state, _key(rest, namespace), nodes)
    return explain_claim(state, _key(rest, namespace), nodes)


def lint_findings(inputs: Inputs, *, skip: Sequence[str] = ()) -> list[LintFinding]:
    """`drasim lint`'s findings: what the API server would reject plus the DRA checks."""
    return lint_objects([], profile=_release(inputs), admission=inputs.admission, skip=tuple(skip),
                        timelines=inputs.timelines)


def capacity(inputs: Inputs, workload: str, *, max_replicas: int = DEFAULT_MAX, seed: int = 0) -> CapacityResult:
    """How many more replicas of the one Pod or workload in the file `workload` fit (`drasim capacity`)."""
    extra = read_inputs([workload], _release(inputs), timelines=True, namespace=None)
    extra.raise_unreadable()
    return _capacity(inputs.objects, extra.objects, timelines=inputs.timelines,
                     options=simulation_options(_release(inputs), seed=seed), max_replicas=max_replicas,
                     source=workload)


@dataclass
class AllocationAnswer:
    """Per node, the devices a claim would get (`results`: request, driver, pool, device) or why not."""

    claim: str
    results: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # node -> the allocator's error or "no allocation"

    @property
    def nodes(self) -> list[str]:
        """The nodes the claim fits on."""
        return list(self.results)

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "results": self.results, "errors": self.errors}


def allocate(inputs: Inputs, claim: str | ResourceClaim, *, namespace: str = "default",
             nodes: Sequence[str] | None = None, seed: int = 0) -> AllocationAnswer:
    """Which devices a new claim would get on each node of the cluster as `simulate` leaves the inputs:
    one `Allocate` call per node, what the scheduler's filter asks. `claim` is a ResourceClaim, the path of
    a file holding one, or the name of a claim among the inputs (tried as another claim like it)."""
    state = _settled(inputs, seed)
    obj = claim if isinstance(claim, ResourceClaim) else _claim(claim, state, namespace)
    obj = apply_claim_defaults(copy.deepcopy(obj))
    obj.status = None
    ref = f"{obj.metadata.namespace or namespace}/{obj.metadata.name}"
    allocator = Allocator(allocator_features(_release(inputs)), state.in_use, state.classes, state.slice_cache())
    answer = AllocationAnswer(ref)
    for name in nodes or sorted(state.nodes):
        if name not in state.nodes:
            raise InputError(f"node {name} not found")
        try:
            found = allocator.allocate(state.nodes[name], [obj])
        except (AllocationError, NodeLocalError) as err:
            answer.errors[name] = str(err)
            continue
        if found is None:
            answer.errors[name] = "no allocation: the claim does not fit on this node"
        else:
            answer.results[name] = [{"request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device}
                                    for res in found for r in res.devices.results]
    return answer


def _claim(ref: str, state: ClusterState, namespace: str) -> ResourceClaim:
    key = _key(ref, namespace)
    if key in state.claims:
        return state.claims[key]
    claims = [o for o in load_paths([ref]).objects if isinstance(o, ResourceClaim)]
    if len(claims) != 1:
        raise InputError(f"expected exactly one ResourceClaim, found {len(claims)}", source=ref)
    return claims[0]
