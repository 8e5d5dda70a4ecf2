"""An SVG line chart of one sweep figure against one axis: a line per combination of the other axes, the mean
over seeds with a min-max whisker."""

from __future__ import annotations

from html import escape
from typing import Any

from drasim.errors import InputError
from drasim.sweep.run import SweepResult

COLOURS = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#4e79a7", "#59a14f", "#b07aa1",
           "#9c755f"]


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _label(v: float) -> str:
    return f"{v:g}" if abs(v) >= 0.01 or v == 0 else f"{v:.2g}"


def chart_svg(result: SweepResult, figure: str, axis: str, *, title: str = "") -> str:
    """The chart; the same result gives the same bytes."""
    if axis not in result.axes:
        raise InputError(f"--axis {axis!r} is not an axis of the sweep; axes: {', '.join(result.axes)}")
    if figure not in result.figures:
        raise InputError(f"--figure {figure!r} is not a figure of the sweep; figures: {', '.join(result.figures)}")
    others = [a for a in result.axes if a not in (axis, "seed")]
    varying = [a for a in others if len({r[a] for r in result.rows}) > 1]
    xs: list[Any] = list(dict.fromkeys(r[axis] for r in result.rows))
    numeric = all(_num(x) is not None for x in xs)
    if numeric:
        xs.sort()
    series: dict[tuple[Any, ...], dict[Any, list[float]]] = {}
    for r in result.rows:
        y = _num(r.get(figure))
        if y is None:
            continue
        series.setdefault(tuple(r[a] for a in varying), {}).setdefault(r[axis], []).append(y)
    width, height, left, right, top, bottom = 720, 420, 64, 200, 40, 56
    pw, ph = width - left - right, height - top - bottom
    all_y = [y for s in series.values() for ys in s.values() for y in ys] or [0.0]
    y0, y1 = min(0.0, min(all_y)), max(all_y)
    if y1 == y0:
        y1 = y0 + 1
    if numeric:
        lo, hi = float(min(xs)), float(max(xs))
        span = (hi - lo) or 1.0

        def fx(x: Any) -> float:
            return left + pw * (float(x) - lo) / span if hi != lo else left + pw / 2
    else:
        def fx(x: Any) -> float:
            return left + pw * (xs.index(x) + 0.5) / len(xs)

    def fy(y: float) -> float:
        return top + ph * (1 - (y - y0) / (y1 - y0))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{left}" y="22" font-size="14" font-weight="bold">{escape(title or f"{figure} vs {axis}")}</text>']
    for i in range(6):
        y = y0 + (y1 - y0) * i / 5
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{fy(y):.1f}" y2="{fy(y):.1f}" stroke="#e3e7eb"/>'
                   f'<text x="{left - 6}" y="{fy(y) + 4:.1f}" text-anchor="end">{_label(y)}</text>')
    for x in xs:
        out.append(f'<text x="{fx(x):.1f}" y="{top + ph + 18}" text-anchor="middle">{escape(str(x))}</text>')
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" stroke="#5c6670"/>'
               f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}" stroke="#5c6670"/>'
               f'<text x="{left + pw / 2}" y="{height - 14}" text-anchor="middle">{escape(axis)}</text>'
               f'<text x="16" y="{top + ph / 2}" text-anchor="middle" transform="rotate(-90 16 {top + ph / 2})">'
               f'{escape(figure)}</text>')
    def order(kv: tuple[tuple[Any, ...], Any]) -> tuple[tuple[int, float, str], ...]:
        return tuple((0, v, "") if (v := _num(x)) is not None else (1, 0.0, str(x)) for x in kv[0])

    for k, (key, points) in enumerate(sorted(series.items(), key=order)):
        colour = COLOURS[k % len(COLOURS)]
        ordered = [(x, points[x]) for x in xs if x in points]
        path = " ".join(f"{'M' if i == 0 else 'L'}{fx(x):.1f},{fy(sum(ys) / len(ys)):.1f}"
                        for i, (x, ys) in enumerate(ordered))
        out.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, ys in ordered:
            mean = sum(ys) / len(ys)
            if len(ys) > 1 and max(ys) > min(ys):
                out.append(f'<line x1="{fx(x):.1f}" x2="{fx(x):.1f}" y1="{fy(min(ys)):.1f}" y2="{fy(max(ys)):.1f}" '
                           f'stroke="{colour}"/>')
            out.append(f'<circle cx="{fx(x):.1f}" cy="{fy(mean):.1f}" r="3.5" fill="{colour}">'
                       f'<title>{escape(str(x))}: {_label(mean)}</title></circle>')
        name = ", ".join(f"{a}={v}" for a, v in zip(varying, key, strict=True)) or figure
        ly = top + 16 * k
        out.append(f'<rect x="{left + pw + 16}" y="{ly}" width="12" height="12" fill="{colour}"/>'
                   f'<text x="{left + pw + 34}" y="{ly + 10}">{escape(name)}</text>')
    out.append("</svg>\n")
    return "\n".join(out)
