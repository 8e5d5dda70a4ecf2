"""`drasim explain`: why a claim or pod got what it got, or why nothing, per node and request.

Exit codes: 0 the subject was explained (whatever the verdict); 2 bad input, or the claim, pod,
node or scenario step was not found.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import click
from rich.console import Console

from drasim.allocator import AllocationError, Allocator, DeviceID, Features
from drasim.allocator.versions import allocator_features
from drasim.api.core import Node
from drasim.api.defaults import apply_claim_defaults
from drasim.api.meta import ObjectMeta
from drasim.api.profile import ReleaseProfile, profile_for
from drasim.api.resource import ResourceClaim
from drasim.cli.options import profile_options
from drasim.cli.simulate import settled_state
from drasim.cluster import ClusterState, Key
from drasim.errors import InputError
from drasim.explain import Explanation, explain_claim, explain_claims, explain_pod
from drasim.explain.render import render_text, to_dict
from drasim.sources.scenario import Scenario, load_scenario

__all__ = ["explain"]

def _split_ref(ref: str) -> tuple[str | None, str]:
    ns, sep, name = ref.partition("/")
    if not sep:
        return None, ref
    if not ns or not name or "/" in name:
        raise InputError(f"expected NAMESPACE/NAME or NAME, got {ref!r}")
    return ns, name


def _resolve(keys: Sequence[Key], ref: str, kind: str) -> Key:
    """`ns/name`, or a bare name: the only object of that name, else the one in `default`."""
    ns, name = _split_ref(ref)
    if ns is not None:
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
                         "give NAMESPACE/NAME")
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
    # Colour only on a terminal (rich also honours NO_COLOR); a fixed width keeps pipes readable.
    tty = sys.stdout.isatty()
    return Console(file=sys.stdout, highlight=False, soft_wrap=False, width=None if tty else 160,
                   force_terminal=tty, no_color=not tty or "NO_COLOR" in os.environ)


@click.command("explain")
@click.argument("kind", required=False, type=click.Choice(["claim", "pod"]))
@click.argument("name", required=False, metavar="[NAMESPACE/]NAME")
@click.option("-f", "--filename", "paths", multiple=True, metavar="PATH",
              help="File, directory (read recursively), cluster dump or - for stdin. Repeatable.")
@click.option("--scenario", "scenario_path", default=None, metavar="FILE",
              help="A scenario file: explain the claims of one of its steps (or KIND NAME in that step's state).")
@click.option("--step", type=int, default=None, metavar="N",
              help="With --scenario: the step to explain, 1 = the first (default 1). Earlier steps run first.")
@click.option("--node", "node_names", multiple=True, metavar="NODE",
              help="Only these nodes (repeatable). Default: every node (with --scenario: the step's node).")
@profile_options(optional=True, help_text="Feature gates and API versions of this release (with --scenario: "
                                          "default the file's features).")
@click.option("--at", "at", default=None, metavar="DURATION",
              help="With -f: the instant after the simulation start to explain (5m, 1h30m). Default: the end.")
@click.option("--seed", type=int, default=0, show_default=True, help="With -f: the simulation's seed.")
@click.option("-o", "--output", type=click.Choice(["table", "wide", "json"]), default="table", show_default=True,
              help="table: grouped summary; wide: every node, device examples and details; json: everything.")
def explain(kind: str | None, name: str | None, paths: tuple[str, ...], scenario_path: str | None,
            step: int | None, node_names: tuple[str, ...], profile: ReleaseProfile | None, at: str | None,
            seed: int, output: str) -> None:
    """Explain why a ResourceClaim or Pod got its devices, or why it got none.

    With -f, the inputs are simulated first, exactly as `drasim simulate` runs them (Timelines
    included), and the cluster is explained as the simulation leaves it, or at --at; inputs that are
    already an end state (`simulate -o yaml` output, a cluster dump) are read as they are.

    For every node (nodes with the same answer are grouped) and every request and firstAvailable
    alternative: how many devices each reason excluded, the real allocator's verdict, which
    alternative fits where, and hints for common traps.

    \b
    Examples:
      drasim explain claim default/my-claim -f cluster.yaml
      drasim explain pod ml/trainer-0 -f dump.json --node gpu-node-3 -o wide
      drasim explain --scenario seed-08.yaml --step 1

    Exit codes: 0 explained; 2 bad input or object not found.
    """
    if (kind is None) != (name is None):
        raise click.UsageError("give both KIND (claim or pod) and NAME, or neither (with --scenario)")
    if step is not None and scenario_path is None:
        raise click.UsageError("--step needs --scenario")
    if scenario_path is not None and paths:
        raise click.UsageError("use either -f or --scenario, not both")
    if scenario_path is not None and at is not None:
        raise click.UsageError("--at needs -f (a scenario's steps are its instants: use --step)")
    nodes: list[str] | None = list(node_names) or None
    ex: Explanation
    if scenario_path is not None:
        sc = load_scenario(scenario_path)
        for warning in sc.warnings:
            click.echo(f"warning: {warning}", err=True)
        state, keys, step_node = _scenario_state(sc, step or 1, profile)
        nodes = nodes or [step_node]
        _ensure_nodes(state, nodes)
        if kind is None:
            ex = explain_claims(state, keys, nodes, variant=sc.allocator,
                                subject=f"scenario {sc.name}, step {step or 1}")
        else:
            assert name is not None
            ex = _explain_one(state, kind, name, nodes, sc.allocator)
    else:
        if kind is None or name is None:
            raise click.UsageError("give KIND and NAME with -f PATH, or use --scenario FILE")
        if not paths:
            raise click.UsageError("give the cluster objects with -f PATH (files, directories, dumps, -)")
        state, warnings = settled_state(list(paths), profile or profile_for(), seed=seed, at=at)
        for warning in warnings:
            click.echo(f"warning: {warning}", err=True)
        ex = _explain_one(state, kind, name, nodes, None)
    if output == "json":
        click.echo(json.dumps(to_dict(ex), indent=2, ensure_ascii=False))
    else:
        render_text(ex, _console(), wide=output == "wide")


def _explain_one(state: ClusterState, kind: str, name: str, nodes: list[str] | None,
                 variant: str | None) -> Explanation:
    if kind == "claim":
        return explain_claim(state, _resolve(list(state.claims), name, "resourceclaim"), nodes, variant=variant)
    return explain_pod(state, _resolve(list(state.pods), name, "pod"), nodes, variant=variant)
