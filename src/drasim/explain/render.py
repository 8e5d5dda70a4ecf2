"""Render explanations: rich tables for people (`table`, `wide`) and plain dicts for JSON."""

from __future__ import annotations

import dataclasses
from typing import Any

from rich import box
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from drasim.explain.model import (
    AllocatedDevice,
    AlternativeReport,
    ClaimExplanation,
    Explanation,
    Hint,
    NodeGroup,
    Placement,
    PodExplanation,
)

_STATUS_STYLE = {"allocated": "bold green", "unsatisfiable": "bold red", "error": "bold red"}
_NODES_SHOWN = 5  # node names listed per group in table mode (all of them in wide mode)
_DETAIL_WIDTH = 70  # detail text cut in table mode


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _plain(value: Any) -> Any:
    # Field names become camelCase like the rest of drasim's JSON; dict keys (request names) stay as written.
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {_camel(f.name): _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def to_dict(ex: Explanation) -> dict[str, Any]:
    """The explanation as JSON-ready data (camelCase fields, a `kind`, and a summary)."""
    out: dict[str, Any] = {"kind": type(ex).__name__}
    out.update(_plain(ex))
    if out.get("podGroup", "") is None:
        del out["podGroup"]  # pods of no PodGroup: the JSON as before
    nodes = [n for g in ex.groups for n in g.nodes]
    out["summary"] = {"nodes": len(nodes), "allocatableNodes": ex.allocatable_nodes}
    return out


def _nodes_text(nodes: list[str], wide: bool) -> str:
    label = "Node" if len(nodes) == 1 else f"{len(nodes)} nodes"
    shown = nodes if wide or len(nodes) <= _NODES_SHOWN else nodes[:_NODES_SHOWN]
    more = "" if len(shown) == len(nodes) else f", ... (+{len(nodes) - len(shown)} more)"
    return f"{label} {', '.join(shown)}{more}" if len(nodes) == 1 else f"{label}: {', '.join(shown)}{more}"


def _cut(text: str, wide: bool) -> str:
    if wide or len(text) <= _DETAIL_WIDTH:
        return text
    return text[: _DETAIL_WIDTH - 3] + "..."


def _status_cell(alt: AlternativeReport, first_available: bool) -> Text:
    if alt.problem is not None:
        return Text("error", style="red")
    if alt.chosen:
        return Text("chosen", style="green")
    if not first_available:
        return Text("")
    if alt.forced == "allocated":
        return Text("fits alone", style="green")
    if alt.forced == "error":
        return Text("error alone", style="red")
    return Text("does not fit", style="red")


def _excluded_cell(alt: AlternativeReport, wide: bool) -> Text:
    text = Text()
    lines = 0
    if alt.problem is not None:
        text.append(alt.problem, style="red")
        lines += 1
    for rc in alt.excluded:
        if lines:
            text.append("\n")
        text.append(f"{rc.count} {rc.label}", style="bold" if rc.reason in ("cel-error", "counters") else "")
        if rc.detail:
            text.append(f": {_cut(rc.detail, wide)}")
        if wide and rc.examples:
            text.append("\n    e.g. " + "; ".join(rc.examples), style="dim")
        lines += 1
    for note in alt.notes:
        if lines:
            text.append("\n")
        text.append(note, style="italic")
        lines += 1
    return text


def _requests_table(group: NodeGroup, wide: bool) -> Table:
    multi = len(group.claims) > 1
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    if multi:
        table.add_column("CLAIM", no_wrap=True)
    table.add_column("REQUEST", no_wrap=True)
    table.add_column("CLASS", no_wrap=True)
    table.add_column("NEED", justify="right")
    table.add_column("USABLE", justify="right")
    table.add_column("STATUS", no_wrap=True)
    table.add_column("WHY DEVICES WERE SKIPPED")
    for claim in group.claims:
        for req in claim.requests:
            for alt in req.alternatives:
                need = "all" if alt.needed is None else str(alt.needed)
                row: list[Any] = [claim.claim] if multi else []
                row += [alt.name + (" (admin)" if alt.admin_access else ""), alt.device_class, need,
                        f"{alt.usable}/{alt.considered}", _status_cell(alt, req.first_available),
                        _excluded_cell(alt, wide)]
                table.add_row(*row)
    return table


def _devices_text(devices: list[AllocatedDevice]) -> str:
    """`req: driver/pool/{a, b}` - devices of one request from one pool share their prefix."""
    parts: list[tuple[str, str, list[str]]] = []
    for d in devices:
        prefix, _, name = d.device.rpartition("/")
        if parts and parts[-1][0] == d.request and parts[-1][1] == prefix:
            parts[-1][2].append(name)
        else:
            parts.append((d.request, prefix, [name]))
    return "; ".join(f"{req} -> {prefix}/{names[0]}" if len(names) == 1 else
                     f"{req} -> {prefix}/{{{', '.join(names)}}}" for req, prefix, names in parts)


def _verdict_text(group: NodeGroup, wide: bool) -> Text:
    v = group.verdict
    text = Text("  allocator: ")
    text.append(v.status, style=_STATUS_STYLE.get(v.status, ""))
    if v.error:
        text.append(f": {v.error}")
        if v.node_local:
            text.append(" (node-local)")
    if v.devices:
        where = " (first node)" if len(group.nodes) > 1 else ""
        text.append(f"{where}: {_devices_text(v.devices)}")
    return text


def _hint_text(hint: Hint, wide: bool) -> Text:
    text = Text(f"hint [{hint.code}]: ", style="yellow").append(hint.message, style="")
    if hint.subjects:
        shown = hint.subjects if wide or len(hint.subjects) <= 10 else [*hint.subjects[:10], "..."]
        text.append(f" ({', '.join(shown)})")
    return text


def _render_group(console: Console, group: NodeGroup, wide: bool) -> None:
    console.print(Text(_nodes_text(group.nodes, wide), style="bold"))
    console.print(_verdict_text(group, wide))
    if group.problem:
        console.print(Text(f"  cannot gather pools: {group.problem}", style="red"))
    for pool in group.pools:
        console.print(f"  pool {pool.pool} is {pool.state} ({pool.detail}): {pool.devices} device(s) not used")
    if group.claims:
        console.print(_requests_table(group, wide))
    for claim in group.claims:
        for con in claim.constraints:
            scope = ", ".join(con.requests) if con.requests else "all requests"
            line = Text(f"  constraint {con.kind} {con.attribute} ({scope})")
            if len(group.claims) > 1:
                line.append(f" of {claim.claim}")
            if con.satisfiable is False:
                line.append(": not satisfiable", style="red")
                line.append(f" - {con.note}")
            if wide or con.satisfiable is False:
                for name, values in con.values.items():
                    line.append(f"\n    values among usable devices of {name}: {', '.join(values) or 'none'}")
            console.print(line)
    for hint in group.hints:
        console.print(Padding(_hint_text(hint, wide), (0, 0, 0, 2), expand=False))
    console.print()


def _scores_text(scores: dict[str, int]) -> str:
    return f"total {sum(scores.values())}: " + ", ".join(f"{k} {v}" for k, v in scores.items() if v) if scores else "-"


def _render_placement(console: Console, p: Placement) -> None:
    console.print(f"  scheduled on {p.node} with {', '.join(p.alternatives) or 'no firstAvailable alternative'}")
    console.print(f"    its scores: {_scores_text(p.scores)}")
    if p.higher_node is None:
        console.print("    no feasible node offered a higher alternative")
    else:
        console.print(f"    {p.higher_node} offered a higher alternative: {_scores_text(p.higher_scores)} (the "
                      "prioritized-list score makes it more likely, not certain)")


def render_text(ex: Explanation, console: Console, *, wide: bool = False) -> None:
    """Print the explanation: a header, one block per node group, then the claim-level summary and hints."""
    head = Text(ex.subject[:1].upper() + ex.subject[1:], style="bold")
    if isinstance(ex, ClaimExplanation):
        head.append(" (allocated; replayed as if it were not)" if ex.allocated else " (pending)")
    console.print(head)
    if isinstance(ex, ClaimExplanation) and ex.allocation:
        console.print("  current allocation: " + _devices_text(ex.allocation))
    if isinstance(ex, PodExplanation):
        for pc in ex.claims:
            if ex.pod is None:
                console.print(f"  claim {pc.claim} ({pc.state})")
            else:
                asked = f" for {', '.join(pc.extended)}" if pc.extended else ""
                console.print(f"  pod claim {pc.name}: {pc.claim or '-'} ({pc.state}){asked}")
    if isinstance(ex, PodExplanation) and ex.pod_group is not None:
        console.print(f"  {ex.pod_group}")
    if isinstance(ex, PodExplanation) and ex.placement is not None:
        _render_placement(console, ex.placement)
    if wide:
        console.print(f"  allocator features: {', '.join(ex.features) or 'none'}")
    for problem in ex.problems:
        console.print(Text(f"  problem: {problem}", style="red"))
    console.print()
    for group in ex.groups:
        _render_group(console, group, wide)
    if ex.excluded_nodes:
        shown = ex.excluded_nodes if wide else ex.excluded_nodes[:_NODES_SHOWN]
        console.print(Text(f"Not considered: {len(ex.excluded_nodes)} node(s)", style="bold"))
        for item in shown:
            console.print(f"  {item.node}: {item.reason}")
        if len(shown) < len(ex.excluded_nodes):
            console.print(f"  ... (+{len(ex.excluded_nodes) - len(shown)} more; -o wide lists all)")
        console.print()
    total = sum(len(g.nodes) for g in ex.groups)
    ok = ex.allocatable_nodes
    summary = Text("Summary: ", style="bold")
    summary.append(f"allocatable on {len(ok)} of {total} node(s)", style="green" if ok else "red")
    if ok:
        summary.append(": " + ", ".join(ok if wide or len(ok) <= _NODES_SHOWN else [*ok[:_NODES_SHOWN], "..."]))
    console.print(summary)
    for name, nodes in ex.alternatives.items():
        where = ", ".join(nodes if wide or len(nodes) <= _NODES_SHOWN else [*nodes[:_NODES_SHOWN], "..."])
        console.print(f"  alternative {name} alone: " + (f"fits on {where}" if nodes else "fits nowhere"))
    for hint in ex.hints:
        console.print(_hint_text(hint, wide))
