"""`drasim simulate`: where every pod lands, which devices each claim gets and why pods stay pending."""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Iterable
from datetime import datetime
from fractions import Fraction
from typing import Any

import click

from drasim.allocator.budget import FILTER_BUDGET_STEPS, budget_text
from drasim.api.encode import encode_object, json_list_chunks, yaml_objects
from drasim.api.profile import ReleaseProfile, profile_for
from drasim.api.quantity import Quantity
from drasim.cli.exits import finish, leave_to_exit
from drasim.cli.kube import KubeArgs, command_inputs, freeze_heap, kube_options, no_collections
from drasim.cli.options import demo_profile, filename_option, load_restrictor_option, profile_options
from drasim.cli.output import emit, emit_names, object_name, output_option
from drasim.cli.textout import TextOut
from drasim.errors import DrasimError
from drasim.scheduler.dra import REASON_TIMEOUT
from drasim.sim.engine import SimulationOptions, SimulationResult
from drasim.sim.engine import simulate as run_simulation
from drasim.sim.groups import group_lines
from drasim.sim.report import (
    ClaimLine,
    PodLine,
    cluster_events,
    extra_documents,
    final_objects,
    pod_lines,
    pool_usage,
    repeated_events,
    workload_mix,
)
from drasim.sim.settle import simulation_options
from drasim.sim.timeline import Timeline, parse_duration
from drasim.sources.inputs import read_inputs


def load_inputs(paths: list[str], profile: ReleaseProfile | None = None, *, namespace: str | None = None
                ) -> tuple[list[Any], list[Timeline], list[str]]:
    """Admitted objects, timelines (their objects admitted too) and warnings (rejections included).
    Default profile: the demo's (1.36 with DeviceTaintRules served). `namespace`: kubectl's -n."""
    inputs = read_inputs(paths, profile or demo_profile(profile_for()), timelines=True, namespace=namespace)
    inputs.raise_unreadable()
    return inputs.objects, inputs.timelines, inputs.warning_lines() + inputs.rejection_lines()


@click.command("simulate")
@filename_option("Files, directories or - (stdin). Repeatable. Default: the bundled demo cluster and workloads.")
@load_restrictor_option
@profile_options()
@click.option("--strict", is_flag=True, hidden=True,
              help="No effect: objects the API server would reject always make the command exit 2 (kept so "
                   "scripts that pass it still run).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of every documented tie-break (top-scored nodes, generated names).")
@click.option("--score-all-nodes", is_flag=True, help="Turn off node sampling (percentageOfNodesToScore).")
@click.option("--horizon", default="168h", show_default=True, help="Stop the simulated clock after this long.")
@output_option("table", "wide", "json", "yaml", "name",
               help="table: pods, claims and devices; wide: also node selectors, scores and events; json/yaml: "
                    "the final objects, events and scores (a List); name: the final objects as kind/name.")
@kube_options()
@click.option("--fail-on-pending", is_flag=True,
              help="Exit 1 when a pod is still Pending at the end (2, refused input, outranks it).")
@click.option("--report", "report_path", default=None, metavar="FILE.html",
              help="Also write a self-contained HTML report (devices per node, fallback mix, pending pods, "
                   "timeline).")
def simulate_cmd(paths: tuple[str, ...], profile: ReleaseProfile, strict: bool, seed: int, score_all_nodes: bool,
                 horizon: str, output: str, kube: KubeArgs, fail_on_pending: bool, report_path: str | None) -> None:
    """Simulate DRA scheduling: where every pod lands, which devices each claim gets through which
    firstAvailable alternative, which pods stay Pending and exactly why, and what taint rules do over
    time. Exit 0 when the simulation ran (pending pods are a result; see --fail-on-pending), 2 when some input
    was refused (listed under "Rejected at admission" after the answer for the rest).

    With --kubeconfig/--context the live cluster (read with GET and LIST only) is the starting point and
    the -f files are applied on top of it: "what happens if I apply this to my cluster"."""
    try:
        horizon_td = parse_duration(horizon)
        SimulationOptions().start + horizon_td
    except OverflowError:
        raise click.BadParameter(f"{horizon!r} ends past the year 9999", param_hint="'--horizon'") from None
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="'--horizon'") from None
    del strict  # kept for old scripts: rejections always exit 2 now (cli.exits)
    no_collections()
    inputs, profile = command_inputs(paths, profile, kube, timelines=True)
    options = simulation_options(profile, seed=seed, score_all_nodes=score_all_nodes, horizon=horizon_td)
    try:
        result = run_simulation(inputs.objects, inputs.timelines, options, owned=True)
    except DrasimError as err:
        raise inputs.locate(err) from None
    freeze_heap()
    result.rejected = inputs.admission.errors()
    if report_path is not None and inputs.unreadable:
        # Nothing partial is written: the report would show a cluster without the unreadable documents.
        click.echo(f"warning: {report_path} not written: some documents could not be read", err=True)
    elif report_path is not None:
        from drasim.report import report_html
        from drasim.sources.atomic import write_file
        where = ", ".join([*([kube.context or "the current context"] if kube.live else []), *paths])
        write_file(report_path, report_html(result, subtitle=f"{profile.describe()}, seed {seed}, "
                                             f"{where or 'the bundled demo'}"), what="--report")
        # On stderr: stdout stays the table or the -o document.
        click.echo(f"wrote {report_path} (HTML report; open it in a browser, no network needed)", err=True)
    machine = output not in ("table", "wide")
    # The documents of -o json|yaml|name read no claim lines and no details (they print the claims and pods
    # themselves); the table and the names print no scores, and only -o wide prints node selectors.
    lines = pod_lines(result, claims=not machine, scores=output not in ("table", "name"),
                      selectors=output == "wide", details=not machine)
    for w in inputs.warning_lines():
        click.echo(f"warning: {w}", err=True)
    rejected = inputs.rejection_lines()
    if rejected and machine:
        for line in rejected:
            click.echo(f"rejected at admission: {line}", err=True)
    if machine:
        final = final_objects(result, profile)
        if output == "name":
            emit_names(object_name(o.KIND, o.metadata.name) for o in final)
        else:
            # Printed and dropped by the YAML and JSON writers: Events as structs, and pods scored alike hold one
            # scores part (YAML writes it once). jsonpath walks plain data.
            shared: set[int] = set()
            extra = extra_documents(result, lines, shared=shared if output in ("yaml", "json") else None)
            if output == "yaml":
                # As bytes: click would scan a str for terminal colour codes to strip (YAML escapes control
                # characters, so there are none).
                click.echo(yaml_objects(final, extra, shared).encode(), nl=False)
            elif output == "json":
                # In pieces: the whole document (hundreds of MB for 50,000 pods) is never held at once; the
                # pieces are views (no copies), written to the binary stream as they come.
                _write_binary(itertools.chain(json_list_chunks(final, extra), (b"\n",)))
            else:
                emit({"apiVersion": "v1", "kind": "List", "items": [encode_object(o) for o in final] + extra},
                     output)
    else:
        out = TextOut()
        _render(result, lines, out, wide=output == "wide")
        out.close()
        if rejected:
            click.echo(f"\nRejected at admission ({len(inputs.admission.rejected)} object(s); the API server of "
                       f"{profile.describe()} would refuse them, so they are not simulated):")
            for line in rejected:
                click.echo(f"  {line}")
    leave_to_exit(result, lines)
    finish(inputs, answer_no=fail_on_pending and any(line.status == "Pending" for line in lines))


simulate = simulate_cmd


def _num(value: Fraction) -> str:
    """Counters as Kubernetes prints quantities (`14720Mi`, `42`)."""
    if value.denominator == 1:
        return Quantity.from_int(value.numerator, "BinarySI").canonical()
    return f"{float(value):g}"


def _ago(result: SimulationResult, when: Any) -> str:
    return _since(result.start, when)


@functools.lru_cache(maxsize=4096)
def _since(start: datetime, when: datetime) -> str:
    # Memoised: a run's events share few instants (-o wide lists 10,000+ events, each with its time).
    seconds = int((when - start).total_seconds())
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"+{h}h{m:02d}m{s:02d}s" if h else f"+{m}m{s:02d}s"


def _breakdown(lines: list[PodLine], out: TextOut) -> None:
    """Per pod, its top-scored nodes with each score plugin's weighted score (the last cycle)."""
    scored = [line for line in lines if line.score_plugins]
    if not scored:
        return
    names: dict[str, None] = {}  # the plugins in the order first seen
    for line in scored:
        for _node, _total, by_plugin in line.score_plugins[:3]:
            names.update(dict.fromkeys(by_plugin))
    plugins = list(names)
    # Nodes of one score class, and pods with equal scores, print the same plugin cells: made once.
    cells: dict[tuple[tuple[str, int], ...], list[str]] = {}
    rows: list[list[str]] = []
    for line in scored:
        for i, (node, total, by_plugin) in enumerate(line.score_plugins[:3]):
            scores = tuple(by_plugin.items())
            row = cells.get(scores)
            if row is None:
                row = cells[scores] = [str(by_plugin[p]) if p in by_plugin else "-" for p in plugins]
            rows.append([f"{line.key[0]}/{line.key[1]}" if i == 0 else "", node, str(total), *row])
    out.line("\nScores per plugin (top 3 nodes of each pod's last cycle):")
    out.table(["POD", "NODE", "TOTAL", *plugins], rows, no_wrap=["POD", "NODE", "TOTAL", *plugins],
              right=["TOTAL", *plugins])


def _write_binary(chunks: Iterable[bytes | memoryview]) -> None:
    """Write the chunks to stdout's binary stream (click.echo takes no views), else through click.echo."""
    sys.stdout.flush()  # whatever click.echo wrote to the text layer comes first
    stream = getattr(sys.stdout, "buffer", None)
    for chunk in chunks:
        if stream is not None:
            stream.write(chunk)
        else:
            click.echo(bytes(chunk), nl=False)
    if stream is not None:
        stream.flush()


def _render(result: SimulationResult, lines: list[PodLine], out: TextOut, *, wide: bool) -> None:
    placed = sum(1 for line in lines if line.node)
    pending = [line for line in lines if line.status == "Pending"]
    out.line(f"Simulated {len(lines)} pod(s) on {len(result.state.nodes)} node(s) for "
             f"{_ago(result, result.end)}: {placed} placed, {len(pending)} pending.")
    if result.steady_state:
        out.line(f"Steady state at {_ago(result, result.end)}: {result.steady_state}; nothing ahead can change "
                 "that, so the simulation stops here.")
    columns = ["POD", "STATUS", "NODE", "CLAIM", "ALTERNATIVE", "DEVICES"]
    # Only where some claim charges its node (DRANodeAllocatableResources): other tables stay as they were.
    charges = any(c.node_resources for line in lines for c in line.claims)
    if charges:
        columns.append("NODE RESOURCES")
    if wide:
        columns += ["NODE SELECTOR", "TOP SCORES"]
    rows: list[list[str]] = []
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
            if charges:
                cells.append((claim.node_resources if claim else "") or "-")
            if wide:
                cells += [claim.node_selector if claim else "",
                          " ".join(f"{n}={s}" for n, s in line.scores) if first else ""]
            rows.append(cells)
            first = False
    out.table(columns, rows, no_wrap=("POD", "NODE"))
    if wide:
        _breakdown(lines, out)
    if pending:
        out.line("\nPending pods and why:")
        for line in pending:
            out.line(f"  {line.key[0]}/{line.key[1]}: {line.reason}")
        if any(REASON_TIMEOUT in line.reason for line in pending):
            out.line(f'  ("{REASON_TIMEOUT}": {budget_text(FILTER_BUDGET_STEPS)})')
    groups = group_lines(result)
    if groups:
        out.line("\nPodGroups:")
        for group in groups:
            out.line(f"  {group.line()}")
    mixes = workload_mix(lines)
    if mixes:
        out.line("\nFallback mix per workload:")
        for mix in mixes:
            out.line(f"  {mix.line()}")
    pools = pool_usage(result.state)
    if pools:
        out.line("\nPools:")
        for pool in pools:
            counters = ""
            if pool.counters:
                full = sum(1 for used, total in pool.counters.values() if total and used >= total)
                counters = f"; {len(pool.counters)} counters, {full} exhausted"
            out.line(f"  {pool.driver}/{pool.pool}: {pool.used}/{pool.devices} devices in use{counters}")
            if wide:
                for label, (used, total) in sorted(pool.counters.items()):
                    if used:
                        out.line(f"      {label}: {_num(used)} of {_num(total)} consumed")
    # Scheduling failures repeat per attempt: their last message is under "Pending pods and why" (and in
    # the kubectl-style list of -o wide).
    notable = [e for e in result.events if e.reason not in ("Scheduled", "CreatedResourceClaim",
                                                             "ReservationAdded", "Created", "SuccessfulCreate",
                                                             "FailedScheduling")]
    if notable:
        out.line("\nEvents:")
        for event, count, last in repeated_events(notable):
            again = f" (x{count}, last {_ago(result, last)})" if count > 1 else ""
            out.line(f"  {_ago(result, event.time)}  {event.kind:<7} {event.object}  {event.reason}: "
                     f"{event.message}{again}")
    if wide:
        events = cluster_events(result)
        if events:
            out.line("\nkubectl get events:")
            columns = ["NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE"]
            out.table(columns, [[ev.namespace or "-", _ago(result, ev.last), ev.type, ev.reason, ev.object,
                                 str(ev.count), ev.message] for ev in events], no_wrap=columns[:-1])
    rules = [r for r in result.state.taint_rules.values() if r.status and r.status.conditions]
    if rules:
        out.line("\nDeviceTaintRules:")
        for rule in rules:
            for cond in rule.status.conditions if rule.status else []:
                out.line(f"  {rule.metadata.name}: {cond.type}={cond.status} ({cond.reason}) {cond.message}")
