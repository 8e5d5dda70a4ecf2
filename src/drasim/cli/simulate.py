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

from drasim import DEFAULT_KUBERNETES_VERSION
from drasim.allocator.search import FILTER_BUDGET_STEPS, budget_text
from drasim.allocator.versions import features_for_version
from drasim.api.encode import encode_object, yaml_documents
from drasim.api.quantity import Quantity
from drasim.cli.options import filename_option
from drasim.demo import demo_paths
from drasim.errors import InputError
from drasim.scheduler.dra import REASON_TIMEOUT
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
from drasim.sim.timeline import Timeline, find_timelines, parse_duration, resolve_files
from drasim.sources.files import EXTENSIONS, load_paths, parse_yaml

VERSIONS = ["1.34", "1.35", "1.36", "1.37"]


def _files(paths: list[str]) -> list[str]:
    out: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                out += [os.path.join(root, n) for n in sorted(names) if n.lower().endswith(EXTENSIONS)]
        elif path != "-":
            out.append(path)
    return out


def _timelines(paths: list[str], stdin_text: str | None) -> list[Timeline]:
    """Timeline documents in the inputs (the object loader skips them), with `file:` references loaded."""
    found: list[Timeline] = []
    sources = []
    for path in _files(paths):
        with open(path, encoding="utf-8-sig") as f:
            sources.append((path, f.read()))
    if stdin_text is not None:
        sources.append(("-", stdin_text))
    for source, text in sources:
        if "Timeline" not in text:
            continue
        found += find_timelines(parse_yaml(text, source=source), source=source)
    return [resolve_files(t, lambda p: load_paths([p]).objects) for t in found]


def load_inputs(paths: list[str]) -> tuple[list[Any], list[Timeline], list[str]]:
    """Objects, timelines and load warnings (timeline documents are not warned about)."""
    stdin_text = sys.stdin.read() if "-" in paths else None
    loaded = load_paths([p for p in paths if p != "-"])
    objects, warnings = list(loaded.objects), list(loaded.warnings)
    if stdin_text is not None:
        from drasim.sources.files import load_bytes
        objects += load_bytes(stdin_text.encode(), source="-").objects
    warnings = [w for w in warnings if "Timeline" not in w]
    return objects, _timelines(paths, stdin_text), warnings


@click.command("simulate")
@filename_option("Files, directories or - (stdin). Repeatable. Default: the bundled demo cluster and workloads.")
@click.option("--kubernetes-version", "version", type=click.Choice(VERSIONS), default=DEFAULT_KUBERNETES_VERSION,
              show_default=True, help="Feature gates of this release.")
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
def simulate_cmd(paths: tuple[str, ...], version: str, seed: int, score_all_nodes: bool, horizon: str,
                 output: str, fail_on_pending: bool, report_path: str | None) -> None:
    """Simulate DRA scheduling: where every pod lands, which devices each claim gets through which
    firstAvailable alternative, which pods stay Pending and exactly why, and what taint rules do over
    time. Exit 0 when the simulation ran (pending pods are a result); see --fail-on-pending."""
    try:
        horizon_td = parse_duration(horizon)
    except ValueError as err:
        raise InputError(f"--horizon: {err}") from None
    objects, timelines, warnings = load_inputs(list(paths) or demo_paths())
    options = SimulationOptions(features=features_for_version(version), seed=seed,
                                score_all_nodes=score_all_nodes, horizon=horizon_td,
                                extended_resources=version not in ("1.34", "1.35"))
    result = run_simulation(objects, timelines, options)
    if report_path is not None:
        from drasim.report import write_report
        write_report(result, report_path, subtitle=f"Kubernetes {version}, seed {seed}, "
                     f"{', '.join(paths) or 'the bundled demo'}")
    lines = pod_lines(result)
    for w in warnings:
        click.echo(f"warning: {w}", err=True)
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
        if any(REASON_TIMEOUT in line.reason for line in pending):
            console.print(f'  ("{REASON_TIMEOUT}": {budget_text(FILTER_BUDGET_STEPS)})')
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
