"""Lint's pod-pending rule: the simulation `drasim simulate` runs on the inputs, and every pod it leaves
Pending as a finding on its workload (or pod) with the scheduler's message and explain's hints (explain is
a sibling tool: the CLI hands its hints in as `LintContext.pending_hints`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from drasim.api import core
from drasim.api.meta import ObjectMeta, object_ref
from drasim.cluster import ClusterState
from drasim.cluster.podstatus import POD_SCHEDULED, pod_condition
from drasim.lint.base import LintContext, LintFinding, Workload, ref_of, skipped
from drasim.sim.engine import PodRecord
from drasim.sim.report import owner_chain, workloads_by_uid

__all__ = ["check_pending"]

# Pods named as examples in one finding.
_EXAMPLES = 3


@dataclass
class _Group:
    obj: str
    path: str
    message: str
    key: tuple[str, str]  # the group's first pod (its explain hints stand for the group)
    pods: list[str] = field(default_factory=list)


def _message(pod: core.Pod) -> str:
    c = pod_condition(pod, POD_SCHEDULED)
    return c.message if c is not None and c.status == "False" and c.message else \
        "waiting for its ResourceClaims to be created"


def _written_refs(ctx: LintContext) -> dict[tuple[str, str, str], str]:
    """(kind, namespace, name) -> the object's ref as written (namespace omitted when the file omits it)."""
    out: dict[tuple[str, str, str], str] = {}
    for o in ctx.pods_and_workloads:
        meta = o.metadata
        out.setdefault((o.KIND, meta.namespace or "default", meta.name), ref_of(o))
    return out


def _hints(ctx: LintContext, state: ClusterState, key: tuple[str, str]) -> str:
    texts = list(dict.fromkeys(ctx.pending_hints(state, key))) if ctx.pending_hints is not None else []
    return (" Explain: " + " ".join(texts)) if texts else ""


def check_pending(ctx: LintContext) -> list[LintFinding]:
    """pod-pending: pods the simulation of the inputs leaves Pending, one finding per workload and message."""
    if not ctx.pods_and_workloads:
        return []
    if not ctx.nodes:
        return [skipped("pod-pending", "no Nodes among the inputs, so there is nothing to schedule on (add the "
                        "fleet's Nodes and ResourceSlices with -f, or read a cluster)")]
    state, records = ctx.simulated()
    refs = _written_refs(ctx)
    workloads: dict[str, Workload] = {f"{w.KIND}/{w.metadata.name}": w for w in ctx.workloads}
    groups: dict[tuple[str, str], _Group] = {}
    totals: dict[str, int] = {}
    lower: dict[str, tuple[str, list[tuple[str, PodRecord]]]] = {}
    by_uid = workloads_by_uid(state)
    for key in sorted(state.pods):
        pod = state.pods[key]
        chain = owner_chain(by_uid, pod)
        ns = pod.metadata.namespace or "default"
        owner = workloads.get(chain)
        if owner is not None and (owner.metadata.namespace or "default") == ns:
            obj = refs.get((owner.KIND, ns, owner.metadata.name), ref_of(owner))
            path = "spec.template.spec"
        else:
            obj = refs.get(("Pod", ns, pod.metadata.name), object_ref("Pod", ObjectMeta(name=pod.metadata.name,
                                                                                       namespace=ns)))
            path = "spec"
        totals[obj] = totals.get(obj, 0) + 1
        phase = pod.status.phase if pod.status is not None else None
        record = records.get(key)
        if pod.spec.node_name and record is not None and record.higher_on and record.node == pod.spec.node_name:
            lower.setdefault(obj, (path, []))[1].append((f"{ns}/{pod.metadata.name}", record))
        if pod.spec.node_name or phase in ("Succeeded", "Failed"):
            continue
        message = _message(pod)
        g = groups.setdefault((obj, message), _Group(obj, path, message, key))
        g.pods.append(f"{ns}/{pod.metadata.name}")
    out = []
    for g in groups.values():
        total = totals[g.obj]
        names = ", ".join(g.pods[:_EXAMPLES]) + (", ..." if len(g.pods) > _EXAMPLES else "")
        who = f"pod {names} stays" if total == 1 else f"{len(g.pods)} of {total} pods ({names}) stay"
        why = _hints(ctx, state, g.key)
        out.append(LintFinding("pod-pending", "error", g.obj, g.path,
                               f"{who} Pending in the simulation of these inputs: {g.message.rstrip('.')}.{why}"))
    for obj, (path, pods) in lower.items():
        name, record = pods[0]
        got = ", ".join(sorted({r for names in record.chosen.values() for r in names}))
        out.append(LintFinding(
            "first-available-fallback", "warning", obj, path,
            f"{len(pods)} of {totals[obj]} pod(s) took a lower firstAvailable alternative while a node offering a "
            f"higher one was feasible (e.g. {name}: {got} on {record.node}, scores {_total(record.node_scores)}, "
            f"while {record.higher_on} scored {_total(record.higher_scores)}): the prioritized-list score makes "
            "the first alternative more likely, not certain; `drasim explain pod/NAME` shows the scores per plugin",
        ))
    return out


def _total(scores: dict[str, int]) -> int:
    return sum(scores.values())
