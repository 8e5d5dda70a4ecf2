"""An explanation in a few sentences: why a pod's claims do not fit, per node group (lint's pod-pending words)."""

from __future__ import annotations

from drasim.explain.model import AlternativeReport, Explanation

__all__ = ["reasons"]

# Node groups and excluded reasons put into words; the rest is `drasim explain`'s to show.
_GROUPS = 2
_EXCLUDED = 2


def _alt_text(alt: AlternativeReport) -> str | None:
    if alt.problem:
        return f"{alt.name}: {alt.problem}"
    if alt.forced == "allocated":
        return None  # this alternative alone would fit: not the reason
    needed = alt.needed if alt.needed is not None else 1
    if alt.usable >= needed and alt.usable:
        return None
    why = "; ".join(f"{e.count} {e.label}" + (f" ({e.detail})" if e.detail else "") for e in alt.excluded[:_EXCLUDED])
    wanted = "all" if alt.needed is None else str(needed)
    text = (f"{alt.name} (class {alt.device_class}): needs {wanted}, {alt.usable} of {alt.considered} device(s) usable"
            + (f", {why}" if why else ""))
    return " ".join(text.split())  # selectors written over several lines read as one


def reasons(ex: Explanation) -> list[str]:
    """explain's problems, its reasons per node group that cannot allocate (alternatives short of devices,
    hints), and its pod-level hints: the words lint prints beside the scheduler's message."""
    out = list(ex.problems)
    failing = [g for g in ex.groups if g.verdict.status != "allocated"]
    for g in failing[:_GROUPS]:
        where = f"node {g.nodes[0]}" if len(g.nodes) == 1 else f"{len(g.nodes)} nodes ({g.nodes[0]}, ...)"
        parts = [t for c in g.claims for r in c.requests for a in r.alternatives if (t := _alt_text(a))]
        if g.verdict.error:
            parts.insert(0, g.verdict.error)
        if g.problem:
            parts.insert(0, g.problem)
        if parts:
            out.append(f"On {where}: " + "; ".join(parts) + ".")
        out += [h.message for h in g.hints]
    out += [h.message for h in ex.hints]
    return list(dict.fromkeys(out))
