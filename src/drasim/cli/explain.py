"""`drasim explain`: why a claim or pod got what it got, or why nothing, per node and request.

Exit codes: 0 the subject was explained (whatever the verdict); 2 bad input, or the claim, pod,
node or scenario step was not found.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from drasim.allocator import AllocationError, Allocator, DeviceID, Features
from drasim.allocator.versions import allocator_features
from drasim.api.core import Node
from drasim.api.defaults import apply_claim_defaults
from drasim.api.meta import ObjectMeta
from drasim.api.profile import ReleaseProfile, profile_for
from drasim.api.resource import ResourceClaim
from drasim.cli.exits import finish, leave_to_exit
from drasim.cli.kube import KubeArgs, ObjectRef, complete_type, kube_options, parse_refs, settled_inputs_records
from drasim.cli.options import load_restrictor_option, profile_options
from drasim.cli.output import emit, emit_names, object_name, output_option
from drasim.cli.reports import diagnostics_data, from_explanation
from drasim.cli.textout import rich_console
from drasim.cluster import ClusterState, Key
from drasim.diagnostics import API_VERSION
from drasim.errors import InputError
from drasim.explain import Explanation, explain_claim, explain_claims, explain_pod
from drasim.explain.model import ClaimExplanation, Placement, PodExplanation
from drasim.explain.render import render_text, to_dict
from drasim.sim.timeline import parse_duration
from drasim.sources.inputs import Inputs
from drasim.sources.scenario import Scenario, load_scenario

if TYPE_CHECKING:
    from drasim.sim.engine import PodRecord

__all__ = ["explain"]

def _resolve(keys: Sequence[Key], ref: str, kind: str, namespace: str | None = None) -> Key:
    """`ns/name`; a name in `namespace` (kubectl's -n); or a bare name: the only object of that name, else the
    one in `default`."""
    ns, sep, name = ref.partition("/")
    if not sep:
        ns, name = "", ref
    elif not ns or not name or "/" in name:
        raise InputError(f"expected NAMESPACE/NAME or NAME, got {ref!r}")
    ns = ns or namespace or ""
    if ns:
        if (ns, name) in keys:
            return (ns, name)
        raise InputError(f"{kind} {ns}/{name} not found")
    hits = [k for k in keys if k[1] == name]
    if len(hits) == 1:
        return hits[0]
    if ("default", name) in hits:
        return ("default", name)
    if hits:
        raise InputError(f"{kind} {name} exists in several namespaces ({', '.join(k[0] for k in hits)}); "
                         "give -n NAMESPACE or NAMESPACE/NAME")
    raise InputError(f"{kind} {name} not found")


def _defaulted(objects: Sequence[Any], apply: bool = True) -> list[Any]:
    # The API server defaults claims on create; manifests from files usually are not defaulted yet.
    return [apply_claim_defaults(o) if apply and isinstance(o, ResourceClaim) else o for o in objects]


def _ensure_nodes(state: ClusterState, names: Sequence[str]) -> None:
    for name in names:
        if name not in state.nodes:
            state.nodes[name] = Node(metadata=ObjectMeta(name=name))


def _scenario_state(sc: Scenario, step: int, profile: ReleaseProfile | None
                    ) -> tuple[ClusterState, list[Key], str]:
    """The cluster as the scenario's step `step` (1-based) sees it: earlier steps run and committed."""
    if profile is not None:
        features = allocator_features(profile)
    else:
        try:
            features = Features.from_flags(sc.features)
        except ValueError as err:
            raise InputError(str(err), source=sc.source, path="features") from None
    if not sc.steps:
        raise InputError("the scenario has no steps", source=sc.source)
    if not 1 <= step <= len(sc.steps):
        raise InputError(f"--step {step}: the scenario has steps 1 to {len(sc.steps)}", source=sc.source)
    state = ClusterState.from_objects(_defaulted(sc.objects, sc.apply_defaults), features=features)
    extra = sc.allocated_state
    state.in_use.devices.update(DeviceID(d.driver, d.pool, d.device) for d in extra.devices)
    state.in_use.shared.update((DeviceID(d.driver, d.pool, d.device), d.share_id) for d in extra.shared_devices)
    for c in extra.consumed_capacity:
        state.in_use.add_consumed(DeviceID(c.driver, c.pool, c.device), dict(c.capacity))
    keys: list[Key] = []
    node = ""
    for i, st in enumerate(sc.steps[:step]):
        keys = [_resolve(list(state.claims), ref, "resourceclaim") for ref in st.claims]
        node = sc.step_node(st)
        _ensure_nodes(state, [node])
        if i == step - 1:
            break
        allocator = Allocator(features, state.in_use, state.classes, state.slice_cache(), variant=sc.allocator)
        try:
            results = allocator.allocate(state.nodes[node], [state.claims[k] for k in keys])
        except AllocationError:
            results = None
        if results is not None and st.commit:
            for key, res in zip(keys, results, strict=True):
                state.set_allocation(key, res)
    return state, keys, node


def _console() -> Console:
    return rich_console(sys.stdout)


@click.command("explain")
@click.argument("refs", nargs=-1, metavar="[TYPE[/NAME] | TYPE NAME...]", shell_complete=complete_type)
@click.option("-f", "--filename", "paths", multiple=True, metavar="PATH", type=click.Path(),
              help="File, directory (read recursively), cluster dump or - for stdin. Repeatable. With "
                   "--kubeconfig/--context: applied on top of the live cluster. Default: the bundled demo.")
@kube_options(all_namespaces=True, namespace_help="Namespace of the objects to explain (and of -f objects that "
                                                  "name none). Default: the kubeconfig context's with a live "
                                                  "cluster, else the only object of that name, else default.")
@click.option("--scenario", "scenario_path", default=None, metavar="FILE",
              help="A scenario file: explain the claims of one of its steps (or TYPE NAME in that step's state).")
@click.option("--step", type=int, default=None, metavar="N",
              help="With --scenario: the step to explain, 1 = the first (default 1). Earlier steps run first.")
@click.option("--node", "node_names", multiple=True, metavar="NODE",
              help="Only these nodes (repeatable). Default: every node (with --scenario: the step's node).")
@load_restrictor_option
@profile_options(optional=True, help_text="Feature gates and API versions of this release (with --scenario: "
                                          "default the file's features).")
@click.option("--at", "at", default=None, metavar="DURATION",
              help="With -f: the instant after the simulation start to explain (5m, 1h30m). Default: the end.")
@click.option("--seed", type=int, default=0, show_default=True, help="With -f: the simulation's seed.")
@output_option("table", "wide", "json", "yaml", "name",
               help="table: grouped summary; wide: every node, device examples and details; json/yaml: "
                    "everything; name: kind/name of each object explained.")
def explain(refs: tuple[str, ...], paths: tuple[str, ...], kube: KubeArgs, scenario_path: str | None,
            step: int | None, node_names: tuple[str, ...], profile: ReleaseProfile | None, at: str | None,
            seed: int, output: str) -> None:
    """Explain why a ResourceClaim or Pod got its devices, or why it got none.

    Objects are named as kubectl names them: `pod/NAME`, `pod NAME`, `resourceclaim/NAME` (or `claim`),
    with -n NAMESPACE or as NAMESPACE/NAME; a type alone (`pods`, `claims`) explains every pending pod or
    unallocated claim of the namespace, or of every namespace with -A.

    With -f, the inputs are simulated first, exactly as `drasim simulate` runs them (Timelines
    included), and the cluster is explained as the simulation leaves it, or at --at; inputs that are
    already an end state (`simulate -o yaml` output, a cluster dump) are read as they are. With
    --kubeconfig/--context the live cluster (GET and LIST only) is read, with the -f files on top.

    For every node (nodes with the same answer are grouped) and every request and firstAvailable
    alternative: how many devices each reason excluded, the real allocator's verdict, which
    alternative fits where, and hints for common traps.

    \b
    Examples:
      drasim explain pod/trainer-0 -n ml -f dump.json --node gpu-node-3 -o wide
      drasim explain resourceclaim my-claim -f cluster.yaml
      drasim explain pods -A -f cluster/
      kubectl dra explain pod/trainer-0 -n ml --context prod -f new-template.yaml
      drasim explain --scenario seed-08.yaml --step 1

    Exit codes: 0 explained; 2 bad input (also an object the API server would reject, after the
    explanation) or object not found.
    """
    targets = parse_refs(refs)
    if step is not None and scenario_path is None:
        raise click.UsageError("--step needs --scenario")
    if scenario_path is not None and (paths or kube.live):
        raise click.UsageError("use either -f/--kubeconfig/--context or --scenario, not both")
    if scenario_path is not None and at is not None:
        raise click.UsageError("--at needs -f (a scenario's steps are its instants: use --step)")
    nodes: list[str] | None = list(node_names) or None
    found: list[Explanation]
    listing = len(targets) > 1 or any(t.name is None for t in targets)
    inputs: Inputs | None = None
    if scenario_path is not None:
        sc = load_scenario(scenario_path)
        for warning in sc.warnings:
            click.echo(f"warning: {warning}", err=True)
        state, keys, step_node = _scenario_state(sc, step or 1, profile)
        nodes = nodes or [step_node]
        _ensure_nodes(state, nodes)
        if not targets:
            found = [explain_claims(state, keys, nodes, variant=sc.allocator,
                                    subject=f"scenario {sc.name}, step {step or 1}")]
        else:
            found = _explain_refs(state, targets, kube, nodes, sc.allocator)
    else:
        if not targets:
            raise click.UsageError("give TYPE and NAME (pod/NAME, resourceclaim NAME, pods -A), with -f PATH or "
                                   "--kubeconfig/--context (default: the bundled demo), or use --scenario FILE")
        when = None
        if at is not None:
            try:
                when = parse_duration(at)
            except ValueError as err:
                raise click.BadParameter(str(err), param_hint="'--at'") from None
        state, records, inputs = settled_inputs_records(list(paths), profile or profile_for(), kube, seed=seed,
                                                        at=when)
        for note in inputs.notes():
            click.echo(note, err=True)
        found = _explain_refs(state, targets, kube, nodes, None)
        for ex in found:
            _place(ex, state, records)
    if output == "name":
        emit_names(_name_of(ex) for ex in found)
    elif output not in ("table", "wide"):
        docs = [_report(ex) for ex in found]
        emit({"apiVersion": "v1", "kind": "List", "items": docs} if listing else docs[0], output)
    else:
        console = _console()
        if listing and not found:
            console.print("No pending pods or unallocated claims found.")
        for i, ex in enumerate(found):
            if i:
                console.print()
            render_text(ex, console, wide=output == "wide")
    leave_to_exit(state, found)
    finish(inputs)


def _place(ex: Explanation, state: ClusterState, records: Mapping[Key, PodRecord]) -> None:
    """A scheduled pod's placement as the simulation recorded it (its binding cycle's scores)."""
    if not isinstance(ex, PodExplanation) or not ex.pod:
        return
    ns, _, name = ex.pod.partition("/")
    pod = state.pods.get((ns, name))
    record = records.get((ns, name))
    if pod is None or record is None or not pod.spec.node_name or record.node != pod.spec.node_name:
        return
    chosen = sorted({r for names in record.chosen.values() for r in names})
    ex.placement = Placement(record.node, chosen, record.node_scores, record.higher_on, record.higher_scores)


def _report(ex: Explanation) -> dict[str, Any]:
    """The explanation's data with its hints and problems as diagnostics (one report format)."""
    data = to_dict(ex)
    data.pop("hints", None)
    data.pop("problems", None)
    return {"apiVersion": API_VERSION, **data, "diagnostics": diagnostics_data(from_explanation(ex))}


def _name_of(ex: Explanation) -> str:
    if isinstance(ex, ClaimExplanation):
        return object_name("ResourceClaim", ex.claim.rpartition("/")[2])
    if isinstance(ex, PodExplanation) and ex.pod:
        return object_name("Pod", ex.pod.rpartition("/")[2])
    return ex.subject


def _explain_refs(state: ClusterState, targets: list[ObjectRef], kube: KubeArgs, nodes: list[str] | None,
                  variant: str | None) -> list[Explanation]:
    namespace = kube.namespace or (kube.default_namespace() if kube.live else None)
    out: list[Explanation] = []
    for t in targets:
        if t.name is None:
            for key in _pending(state, t.kind, None if kube.all_namespaces else namespace or "default"):
                out.append(_explain_key(state, t.kind, key, nodes, variant))
            continue
        ref = f"{t.namespace}/{t.name}" if t.namespace else t.name
        keys = list(state.claims) if t.kind == "claim" else list(state.pods)
        key = _resolve(keys, ref, "resourceclaim" if t.kind == "claim" else "pod",
                       None if kube.all_namespaces else namespace)
        out.append(_explain_key(state, t.kind, key, nodes, variant))
    return out


def _pending(state: ClusterState, kind: str, namespace: str | None) -> list[Key]:
    """Pods not bound to a node, or claims without an allocation, in `namespace` (None: all), sorted."""
    if kind == "claim":
        keys = [k for k, c in state.claims.items() if c.status is None or c.status.allocation is None]
    else:
        keys = [k for k, p in state.pods.items() if not p.spec.node_name]
    return sorted(k for k in keys if namespace is None or k[0] == namespace)


def _explain_key(state: ClusterState, kind: str, key: Key, nodes: list[str] | None,
                 variant: str | None) -> Explanation:
    if kind == "claim":
        return explain_claim(state, key, nodes, variant=variant)
    return explain_pod(state, key, nodes, variant=variant)
