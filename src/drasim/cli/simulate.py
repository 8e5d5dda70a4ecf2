"""`drasim simulate`: where every pod lands, which devices each claim gets and why pods stay pending."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta
from fractions import Fraction
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from drasim.allocator.versions import allocator_features
from drasim.api.encode import encode_object, yaml_documents
from drasim.api.profile import ReleaseProfile, profile_for
from drasim.api.quantity import Quantity
from drasim.cli.options import demo_profile, filename_option, profile_options
from drasim.cluster import ClusterState
from drasim.demo import demo_paths
from drasim.errors import InputError
from drasim.sim.engine import SimulationOptions, SimulationResult
from drasim.sim.engine import simulate as run_simulation
from drasim.sim.report import (
    ClaimLine,
    PodLine,
    cluster_events,
    event_objects,
    pod_lines,
    pool_usage,
    scores_document,
    workload_mix,
)
from drasim.sim.settle import settle
from drasim.sim.timeline import Timeline, parse_duration
from drasim.sources.inputs import read_inputs


def load_inputs(paths: list[str], profile: ReleaseProfile | None = None) -> tuple[list[Any], list[Timeline], list[str]]:
    """Admitted objects, timelines (their objects admitted too) and warnings (rejections included).
    Default profile: the demo's (1.36 with DeviceTaintRules served)."""
    inputs = read_inputs(paths, profile or demo_profile(profile_for()), timelines=True)
    return inputs.objects, inputs.timelines, inputs.warning_lines() + inputs.rejection_lines()


def simulation_options(profile: ReleaseProfile, *, seed: int = 0, score_all_nodes: bool = False,
                       horizon: timedelta = timedelta(days=7)) -> SimulationOptions:
    """How `drasim simulate` runs for these flags (every command that simulates first uses the same)."""
    return SimulationOptions(features=allocator_features(profile), seed=seed, score_all_nodes=score_all_nodes,
                             horizon=horizon, extended_resources=profile.extended_resources)


def settled_state(paths: list[str], profile: ReleaseProfile, *, seed: int = 0, at: str | None = None
                  ) -> tuple[ClusterState, list[str]]:
    """The cluster as `drasim simulate` leaves these inputs (at `at` after the start, default the end; inputs
    that are already an end state are read as they are), and the warnings (rejections included). explain
    and taint dry-run read it."""
    when = None
    if at is not None:
        try:
            when = parse_duration(at)
        except ValueError as err:
            raise InputError(f"--at: {err}") from None
    inputs = read_inputs(paths, profile, timelines=True)
    state = settle(inputs.objects, inputs.timelines, simulation_options(profile, seed=seed), when)
    return state, inputs.warning_lines() + inputs.rejection_lines()


@click.command("simulate")
@filename_option("Files, directories or - (stdin). Repeatable. Default: the bundled demo cluster and workloads.")
@profile_options()
@click.option("--strict", is_flag=True, help="Exit 1 when the API server would reject any input object.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of every documented tie-break (top-scored nodes, generated names).")
@click.option("--score-all-nodes", is_flag=True, help="Turn off node sampling (percentageOfNodesToScore).")
@click.option("--horizon", default="168h", show_default=True, help="Stop the simulated clock after this long.")
@click.option("-o", "--output", type=click.Choice(["table", "wide", "yaml", "json"]), default="table",
              show_default=True)
@click.option("--fail-on-pending", is_flag=True, help="Exit 1 when a pod is still Pending at the end.")
@click.option("--report", "report_path", default=None, metavar="FILE.html",
              help="Also write a self-contained HTML report (devices per node, fallback mix, pending pods, "
                   "timeline).")
def simulate_cmd(paths: tuple[str, ...], profile: ReleaseProfile, strict: bool, seed: int, score_all_nodes: bool,
                 horizon: str, output: str, fail_on_pending: bool, report_path: str | None) -> None:
    """Simulate DRA scheduling: where every pod lands, which devices each claim gets through which
    firstAvailable alternative, which pods stay Pending and exactly why, and what taint rules do over
    time. Exit 0 when the simulation ran (pending pods are a result); see --fail-on-pending."""
    try:
        horizon_td = parse_duration(horizon)
    except ValueError as err:
        raise InputError(f"--horizon: {err}") from None
    if not paths:
        profile = demo_profile(profile)
    inputs = read_inputs(list(paths) or demo_paths(), profile, timelines=True)
    options = simulation_options(profile, seed=seed, score_all_nodes=score_all_nodes, horizon=horizon_td)
    result = run_simulation(inputs.objects, inputs.timelines, options)
    result.rejected = list(inputs.admission.rejected)  # type: ignore[attr-defined]  # read by the report
    if report_path is not None:
        from drasim.report import write_report
        write_report(result, report_path, subtitle=f"{profile.describe()}, seed {seed}, "
                     f"{', '.join(paths) or 'the bundled demo'}")
    lines = pod_lines(result)
    for w in inputs.warning_lines():
        click.echo(f"warning: {w}", err=True)
    rejected = inputs.rejection_lines()
    if rejected and output in ("yaml", "json"):
        for line in rejected:
            click.echo(f"rejected at admission: {line}", err=True)
    if output in ("yaml", "json"):
        state = result.state
        # Evicted pods as they were when deleted (terminating, DisruptionTarget set) unless replaced since.
        evicted = [p for p in result.evicted if (p.metadata.namespace or "default", p.metadata.name) not in state.pods]
        final: list[Any] = [*state.nodes.values(), *state.slices.values(), *state.classes.values(),
                            *state.taint_rules.values(), *state.templates.values(), *state.claims.values(),
                            *state.pods.values(), *evicted]
        items = [encode_object(o) for o in final] + event_objects(result) + [scores_document(lines)]
        if output == "yaml":
            click.echo(yaml_documents(items), nl=False)
        else:
            click.echo(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2, default=str))
    else:
        _render(result, lines, wide=output == "wide")
        if rejected:
            click.echo(f"\nRejected at admission ({len(inputs.admission.rejected)} object(s); the API server of "
                       f"{profile.describe()} would refuse them, so they are not simulated):")
            for line in rejected:
                click.echo(f"  {line}")
    if strict and rejected:
        sys.exit(1)
    if fail_on_pending and any(line.status == "Pending" for line in lines):
        sys.exit(1)


simulate = simulate_cmd


def _console() -> Console:
    tty = sys.stdout.isatty()
    return Console(file=sys.stdout, highlight=False, soft_wrap=False, width=None if tty else 200,
                   no_color=not tty or "NO_COLOR" in os.environ)


def _num(value: Fraction) -> str:
    """Counters as Kubernetes prints quantities (`14720Mi`, `42`)."""
    if value.denominator == 1:
        return Quantity.from_int(value.numerator, "BinarySI").canonical()
    return f"{float(value):g}"


def _ago(result: SimulationResult, when: Any) -> str:
    delta: timedelta = when - result.start
    seconds = int(delta.total_seconds())
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"+{h}h{m:02d}m{s:02d}s" if h else f"+{m}m{s:02d}s"


def _breakdown(lines: list[PodLine]) -> Table | None:
    """Per pod, its top-scored nodes with each score plugin's weighted score (the last cycle)."""
    scored = [line for line in lines if line.score_plugins]
    if not scored:
        return None
    plugins: list[str] = []
    for line in scored:
        for _node, _total, by_plugin in line.score_plugins[:3]:
            plugins += [p for p in by_plugin if p not in plugins]
    table = Table(box=None, pad_edge=False, show_edge=False)
    for col in ("POD", "NODE", "TOTAL", *plugins):
        table.add_column(col, no_wrap=True, justify="left" if col in ("POD", "NODE") else "right")
    for line in scored:
        for i, (node, total, by_plugin) in enumerate(line.score_plugins[:3]):
            table.add_row(f"{line.key[0]}/{line.key[1]}" if i == 0 else "", node, str(total),
                          *(str(by_plugin[p]) if p in by_plugin else "-" for p in plugins))
    return table


def _render(result: SimulationResult, lines: list[PodLine], *, wide: bool) -> None:
    console = _console()
    placed = sum(1 for line in lines if line.node)
    pending = [line for line in lines if line.status == "Pending"]
    console.print(f"Simulated {len(lines)} pod(s) on {len(result.state.nodes)} node(s) for "
                  f"{_ago(result, result.end)}: {placed} placed, {len(pending)} pending.")
    table = Table(box=None, pad_edge=False, show_edge=False)
    for col in ("POD", "STATUS", "NODE", "CLAIM", "ALTERNATIVE", "DEVICES"):
        table.add_column(col, overflow="fold", no_wrap=col in ("POD", "NODE"))
    if wide:
        table.add_column("NODE SELECTOR", overflow="fold")
        table.add_column("TOP SCORES", overflow="fold")
    for line in lines:
        name = f"{line.key[0]}/{line.key[1]}"
        first = True
        claims: list[ClaimLine | None] = list(line.claims) or [None]
        for claim in claims:
            cells = [name if first else "", line.status if first else "", (line.node or "-") if first else ""]
            if claim is None:
                cells += ["-", "-", "-"]
            else:
                cells += [claim.pod_claim, ", ".join(claim.alternatives) or "-",
                          " ".join(d.rsplit("/", 1)[-1] for d in claim.devices) or "-"]
            if wide:
                cells += [claim.node_selector if claim else "",
                          " ".join(f"{n}={s}" for n, s in line.scores) if first else ""]
            table.add_row(*cells)
            first = False
    console.print(table)
    breakdown = _breakdown(lines) if wide else None
    if breakdown is not None:
        console.print("\nScores per plugin (top 3 nodes of each pod's last cycle):")
        console.print(breakdown)
    if pending:
        console.print("\nPending pods and why:")
        for line in pending:
            console.print(f"  {line.key[0]}/{line.key[1]}: {line.reason}")
    mixes = workload_mix(lines)
    if mixes:
        console.print("\nFallback mix per workload:")
        for mix in mixes:
            console.print(f"  {mix.line()}")
    pools = pool_usage(result.state)
    if pools:
        console.print("\nPools:")
        for pool in pools:
            counters = ""
            if pool.counters:
                full = sum(1 for used, total in pool.counters.values() if total and used >= total)
                counters = f"; {len(pool.counters)} counters, {full} exhausted"
            console.print(f"  {pool.driver}/{pool.pool}: {pool.used}/{pool.devices} devices in use{counters}")
            if wide:
                for label, (used, total) in sorted(pool.counters.items()):
                    if used:
                        console.print(f"      {label}: {_num(used)} of {_num(total)} consumed")
    # Scheduling failures repeat per attempt: their last message is under "Pending pods and why" (and in
    # the kubectl-style list of -o wide).
    notable = [e for e in result.events if e.reason not in ("Scheduled", "CreatedResourceClaim",
                                                             "ReservationAdded", "Created", "SuccessfulCreate",
                                                             "FailedScheduling")]
    if notable:
        console.print("\nEvents:")
        for event in notable:
            console.print(f"  {_ago(result, event.time)}  {event.kind:<7} {event.object}  {event.reason}: "
                          f"{event.message}")
    if wide:
        events = cluster_events(result)
        if events:
            console.print("\nkubectl get events:")
            table = Table(box=None, pad_edge=False, show_edge=False)
            for col in ("NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE"):
                table.add_column(col, overflow="fold", no_wrap=col != "MESSAGE")
            for ev in events:
                table.add_row(ev.namespace or "-", _ago(result, ev.last), ev.type, ev.reason, ev.object,
                              str(ev.count), ev.message)
            console.print(table)
    rules = [r for r in result.state.taint_rules.values() if r.status and r.status.conditions]
    if rules:
        console.print("\nDeviceTaintRules:")
        for rule in rules:
            for cond in rule.status.conditions if rule.status else []:
                console.print(f"  {rule.metadata.name}: {cond.type}={cond.status} ({cond.reason}) {cond.message}")
