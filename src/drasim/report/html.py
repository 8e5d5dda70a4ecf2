"""The simulation report as one self-contained HTML file: inline CSS, SVG and script; no network access."""

from __future__ import annotations

import json
from collections import Counter
from html import escape
from typing import Any

from drasim.report.data import IDLE, MAX_EVENTS_LISTED, MAX_REPLICAS_LISTED, ReportData, WorkloadView

# Nodes drawn at once: every grid when the cluster is this small, else one page of a node group.
PAGE = 48

CSS = """
:root{--fg:#1d232a;--muted:#5c6670;--line:#d9dee3;--idle:#eef1f4;--bg:#fff}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:0;background:#f7f8fa}
header{background:#17212b;color:#fff;padding:14px 24px}
header h1{font-size:20px;margin:0 0 4px}
header p{margin:0;color:#c5ced8}
nav{padding:6px 24px;background:#222e3a}
nav a{color:#9fd0ff;margin-right:16px;text-decoration:none}
main{padding:8px 24px 40px;max-width:1400px}
section{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:12px 16px;margin:14px 0}
h2{font-size:16px;margin:0 0 8px}
.kpis{display:flex;flex-wrap:wrap;gap:10px}
.kpi{border:1px solid var(--line);border-radius:6px;padding:6px 12px;min-width:110px}
.kpi b{display:block;font-size:20px}
.legend{display:flex;flex-wrap:wrap;gap:8px 16px;margin:6px 0}
.legend span{display:inline-flex;align-items:center;gap:6px}
.sw{display:inline-block;width:14px;height:14px;border-radius:3px;border:1px solid rgba(0,0,0,.2)}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:3px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600}
.muted{color:var(--muted)}
details.group{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:4px 10px}
details.group>summary{cursor:pointer;display:flex;gap:14px;align-items:center;flex-wrap:wrap}
.node{display:inline-block;vertical-align:top;border:1px solid var(--line);border-radius:5px;padding:4px 6px;margin:4px}
.node h4{margin:0 0 3px;font-size:12px;font-weight:600}
.units{display:flex;flex-wrap:wrap;gap:3px;max-width:360px}
.unit{width:40px;height:40px;border:1px solid #9aa5b1;border-radius:4px;background:var(--idle);display:grid;
 gap:1px;padding:1px;overflow:hidden}
.unit.slots{width:84px}
.uwrap{display:flex;flex-direction:column;align-items:center}
.cap{font-size:10px;color:var(--muted)}
.cell{border-radius:2px;min-width:3px;min-height:3px}
.cell.idle{background:transparent}
.pager{margin:6px 0;display:flex;gap:8px;align-items:center}
.hint{margin:2px 0 2px 14px}
.hint code{background:#eef1f4;padding:0 4px;border-radius:3px}
.msg{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;white-space:pre-wrap}
svg text{font:11px system-ui,sans-serif;fill:var(--fg)}
"""

SCRIPT = r"""
(function(){
const D=JSON.parse(document.getElementById('drasim-data').textContent);
const W=D.w, PAGE=D.page;
function el(tag,cls,text){const e=document.createElement(tag);if(cls)e.className=cls;
 if(text!=null)e.textContent=text;return e;}
function cell(p,idle){const c=el('div',idle?'cell idle':'cell');
 if(!idle){const w=W[p[1]];c.style.background=w[1];c.dataset.workload=w[0];c.dataset.device=p[0];
  c.title=p[0]+' \u2190 '+w[0]+' ('+p[4]+')';
  if(p[2]>=0){c.style.gridColumn=(p[2]+1)+' / span '+p[3];c.style.gridRow='1';}}
 return c;}
function unit(u){const d=el('div','unit');const parts=u[4];
 d.dataset.unit=u[0];d.dataset.label=u[1];
 d.title=u[0]+' \u2014 '+u[1]+(u[3]?'\n'+u[3]:'')+(parts.length?'':'\nidle');
 if(u[2]>0){d.classList.add('slots');d.style.gridTemplateColumns='repeat('+u[2]+',1fr)';
  for(const p of parts)d.appendChild(cell(p,false));
  if(!parts.length)d.appendChild(cell(null,true));}
 else{const n=Math.max(parts.length,1);const cols=Math.ceil(Math.sqrt(n));
  d.style.gridTemplateColumns='repeat('+cols+',1fr)';
  if(parts.length)for(const p of parts)d.appendChild(cell(p,false));else d.appendChild(cell(null,true));}
 if(parts.length)d.classList.add('busy');
 if(u[2]>0){const w=el('div','uwrap');w.appendChild(d);
  w.appendChild(el('div','cap',u[0]+' '+u[6]+'/'+u[2]));return w;}
 return d;}
function node(i){const n=D.nodes[i];const d=el('div','node');d.dataset.node=n.n;
 const busy=n.u.filter(u=>u[4].length).length;
 d.appendChild(el('h4',null,n.n+'  '+busy+'/'+n.u.length));
 const us=el('div','units');for(const u of n.u)us.appendChild(unit(u));d.appendChild(us);return d;}
function page(box,idx,p,filter){box.innerHTML='';
 const shown=filter?idx.filter(i=>D.nodes[i].n.includes(filter)):idx;
 const pages=Math.max(1,Math.ceil(shown.length/PAGE));p=Math.min(p,pages-1);
 if(idx.length>PAGE){const bar=el('div','pager');
  const prev=el('button',null,'\u2039 prev');prev.disabled=p==0;prev.onclick=()=>page(box,idx,p-1,filter);
  const next=el('button',null,'next \u203a');next.disabled=p>=pages-1;next.onclick=()=>page(box,idx,p+1,filter);
  const f=el('input');f.placeholder='filter nodes';f.value=filter||'';
  f.onchange=()=>page(box,idx,0,f.value);
  bar.append(prev,el('span','muted','page '+(p+1)+' of '+pages+' ('+shown.length+' nodes)'),next,f);
  box.appendChild(bar);}
 const grid=el('div','grid');for(const i of shown.slice(p*PAGE,(p+1)*PAGE))grid.appendChild(node(i));
 box.appendChild(grid);}
document.querySelectorAll('details.group').forEach(det=>{
 const g=D.groups[+det.dataset.group];const box=det.querySelector('.nodes');
 det.addEventListener('toggle',()=>{if(det.open&&!box.dataset.done){box.dataset.done='1';page(box,g.nodes,0,'');}});
 if(det.open){box.dataset.done='1';page(box,g.nodes,0,'');}});
const find=document.getElementById('find');
if(find)find.onchange=()=>{const out=document.getElementById('found');out.innerHTML='';
 const hits=D.nodes.map((n,i)=>[n.n,i]).filter(x=>x[0].includes(find.value)).slice(0,PAGE);
 for(const h of hits)out.appendChild(node(h[1]));
 if(!hits.length)out.appendChild(el('span','muted','no node matches'));};
document.body.dataset.ready='1';
})();
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _bar(segments: list[tuple[str, int, str]], total: int, width: int = 360, height: int = 16) -> str:
    """A stacked horizontal SVG bar: (label, count, fill) segments over `total`."""
    if total <= 0:
        return f'<svg width="{width}" height="{height}" role="img"></svg>'
    x = 0.0
    rects = []
    for label, n, fill in segments:
        if n <= 0:
            continue
        w = width * n / total
        rects.append(f'<rect x="{x:.2f}" y="0" width="{w:.2f}" height="{height}" fill="{_e(fill)}" '
                     f'data-segment="{_e(label)}" data-count="{n}"><title>{_e(label)}: {n}</title></rect>')
        x += w
    return (f'<svg class="bar" width="{width}" height="{height}" role="img">'
            f'<rect width="{width}" height="{height}" fill="#eef1f4"/>{"".join(rects)}</svg>')


def _mix(w: WorkloadView) -> str:
    segments = [(alt, n, w.colour) for alt, n in w.mix]
    pending = w.replicas - w.placed
    if pending:
        segments.append(("pending", pending, "#c9ced4"))
    total = max(w.replicas, 1)
    x, rects = 0.0, []
    width, height = 360, 16
    for rank, (label, n, fill) in enumerate(segments):
        wd = width * n / total
        opacity = 1.0 if label == "pending" else max(0.35, 1.0 - 0.25 * rank)
        rects.append(f'<rect x="{x:.2f}" y="0" width="{wd:.2f}" height="{height}" fill="{_e(fill)}" '
                     f'fill-opacity="{opacity:.2f}" stroke="#fff" data-segment="{_e(label)}" data-count="{n}">'
                     f'<title>{_e(label)}: {n}</title></rect>')
        x += wd
    text = ", ".join(f"{n} {alt}" for alt, n in w.mix) or "none placed"
    if pending:
        text += f", {pending} pending"
    return (f'<svg class="mix" width="{width}" height="{height}" role="img">'
            f'<rect width="{width}" height="{height}" fill="#eef1f4"/>{"".join(rects)}</svg> '
            f'<span class="mixtext">{_e(text)}</span>')


def _clock(seconds: float) -> str:
    s = int(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"+{h}h{m:02d}m{s:02d}s" if h else f"+{m}m{s:02d}s"


def _timeline(data: ReportData) -> str:
    width, height, left, right = 900, 120, 40, 30
    end = max(data.end_seconds, 1.0)
    bins = 60
    span = width - left - right
    counts = Counter(min(int(t / end * bins), bins - 1) for t in data.scheduled_at)
    top = max(counts.values(), default=1)
    bw = span / bins
    bars = []
    for b, n in sorted(counts.items()):
        h = 50 * n / top
        bars.append(f'<rect class="placed" x="{left + b * bw:.2f}" y="{60 - h:.2f}" width="{max(bw - 1, 1):.2f}" '
                    f'height="{h:.2f}" fill="#4e79a7"><title>{n} pod(s) scheduled near '
                    f'{_clock(b * end / bins)}</title></rect>')
    marks = []
    for e in data.events:
        x = left + span * min(e.seconds / end, 1.0)
        if "Evict" in e.reason:
            fill = "#d55e00"
        elif e.obj.startswith("DeviceTaintRule/"):
            fill = "#7b3294"
        elif e.kind == "Warning":
            fill = "#c0392b"
        else:
            fill = "#5c6670"
        marks.append(f'<circle class="event" cx="{x:.2f}" cy="85" r="4" fill="{fill}"><title>{_e(_clock(e.seconds))} '
                     f'{_e(e.obj)} {_e(e.reason)}: {_e(e.message)}</title></circle>')
    axis = "".join(f'<text x="{left + span * i / 4:.1f}" y="110" text-anchor="middle">'
                   f'{_clock(end * i / 4)}</text>' for i in range(5))
    return (f'<svg class="timeline" width="{width}" height="{height}" role="img">'
            f'<text x="0" y="35">placed</text><text x="0" y="89">events</text>'
            f'<line x1="{left}" y1="60" x2="{left + span}" y2="60" stroke="#9aa5b1"/>{"".join(bars)}{"".join(marks)}'
            f'{axis}</svg>')


def _groups(data: ReportData, colours: dict[int, str]) -> str:
    out = []
    small = len(data.nodes) <= PAGE
    for gi, g in enumerate(data.groups):
        units = [u for i in g["nodes"] for u in data.nodes[i]["u"]]
        held: Counter[int] = Counter()
        for u in units:
            for w in {p[1] for p in u[4]}:
                held[w] += 1
        busy = sum(1 for u in units if u[4])
        segments = [(data.workloads[w].name, n, colours[w]) for w, n in sorted(held.items())]
        idle = len(units) - busy
        segments.append((IDLE, idle, "#eef1f4"))
        # Units shared by several workloads count once per workload: scale by the larger sum.
        total = max(sum(n for _, n, _ in segments), 1)
        out.append(
            f'<details class="group" data-group="{gi}"{" open" if small else ""}><summary>'
            f'<b>{_e(g["label"])}</b><span>{len(g["nodes"])} node(s)</span>'
            f'<span>{busy}/{len(units)} devices busy</span>{_bar(segments, total)}</summary>'
            f'<div class="nodes"></div></details>')
    return "".join(out)


def render(data: ReportData) -> str:
    """The whole page; the same data gives the same bytes."""
    colours = {i: w.colour for i, w in enumerate(data.workloads)}
    s = data.summary
    kpis = "".join(f'<div class="kpi"><b id="kpi-{k}">{v}</b>{label}</div>' for k, v, label in (
        ("pods", s["pods"], "pods"), ("placed", s["placed"], "placed"), ("pending", s["pending"], "pending"),
        ("nodes", s["nodes"], "nodes"), ("busy", f'{s["busy"]}/{s["units"]}', "devices busy"),
        ("rejected", len(data.rejected), "rejected at admission")))
    # The legend keys the device map: only workloads holding a device, and idle only if a device is.
    legend = "".join(
        f'<span class="legend-item" data-workload="{_e(w.name)}" data-colour="{_e(w.colour)}">'
        f'<i class="sw" style="background:{_e(w.colour)}"></i>{_e(w.name)}</span>' for w in data.workloads if w.units)
    if s["units"] > s["busy"]:
        legend += '<span class="legend-item"><i class="sw" style="background:#eef1f4"></i>idle</span>'
    workloads = []
    for w in data.workloads:
        if not w.replicas:
            continue
        rows = "".join(f"<tr><td>{_e(r.pod)}</td><td>{_e(r.status)}</td><td>{_e(r.node or '-')}</td>"
                       f"<td>{_e(r.alternatives or '-')}</td><td class='muted'>{_e(r.devices or '-')}</td></tr>"
                       for r in w.listed)
        more = (f'<p class="muted">first {MAX_REPLICAS_LISTED} of {w.replicas} replicas listed</p>'
                if w.replicas > len(w.listed) else "")
        workloads.append(
            f'<div class="workload" data-workload="{_e(w.name)}"><h3><i class="sw" style="background:'
            f'{_e(w.colour)}"></i> {_e(w.name)} <span class="muted">{w.replicas} replica(s), {w.placed} placed'
            f'</span></h3>{_mix(w)}<details><summary>replicas</summary><table><tr><th>pod</th><th>status</th>'
            f'<th>node</th><th>alternative</th><th>devices</th></tr>{rows}</table>{more}</details></div>')
    pending = []
    for g in data.pending:
        hints = "".join(f'<div class="hint"><code>{_e(code)}</code> {_e(msg)}</div>' for code, msg in g.hints)
        hints += "".join(f'<div class="hint"><code>problem</code> {_e(p)}</div>' for p in g.problems)
        pods = ", ".join(g.pods[:20]) + (f" and {len(g.pods) - 20} more" if len(g.pods) > 20 else "")
        pending.append(f'<li class="pending" data-workload="{_e(g.workload)}" data-count="{len(g.pods)}">'
                       f'<b>{_e(g.workload)}</b>: {len(g.pods)} pod(s) <span class="muted">{_e(pods)}</span>'
                       f'<div class="msg">{_e(g.message)}</div>{hints}</li>')
    rejected = "".join(f'<tr class="rejected"><td>{_e(r["object"])}</td><td>{_e(r["source"])}</td>'
                       f'<td>{_e(r["path"])}</td><td class="msg">{_e(r["message"])}</td></tr>' for r in data.rejected)
    events = "".join(f'<tr><td>{_clock(e.seconds)}</td><td>{_e(e.kind)}</td><td>{_e(e.obj)}</td>'
                     f'<td>{_e(e.reason)}</td><td class="msg">{_e(e.message)}</td></tr>' for e in data.events)
    if data.events_total > len(data.events):
        events += f'<tr><td colspan="5" class="muted">first {MAX_EVENTS_LISTED} of {data.events_total}</td></tr>'
    # Only a run with PodGroups has the section: every other page keeps its bytes.
    groups = (f'<section id="podgroups"><h2>PodGroups ({len(data.pod_groups)})</h2><ul>'
              + "".join(f'<li class="podgroup">{_e(line)}</li>' for line in data.pod_groups) + "</ul></section>\n"
              if data.pod_groups else "")
    payload: dict[str, Any] = {
        "w": [[w.name, w.colour] for w in data.workloads], "page": PAGE, "nodes": data.nodes,
        "groups": data.groups,
    }
    # Inside <script> only "</" could end the element early; JSON allows "\u003c" for "<".
    blob = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    find = ("" if len(data.nodes) <= PAGE else
            '<p>Find a node: <input id="find" placeholder="name contains"></p><div id="found"></div>')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{_e(data.title)}</title><style>{CSS}</style></head>
<body><header><h1>{_e(data.title)}</h1><p>{_e(data.subtitle)}</p></header>
<nav><a href="#devices">devices</a><a href="#workloads">workloads</a><a href="#pending">pending</a>
<a href="#rejected">rejected</a><a href="#timeline">timeline</a></nav>
<main>
<section id="summary"><div class="kpis">{kpis}</div><div class="legend" id="legend">{legend}</div></section>
<section id="devices"><h2>Devices per node</h2>
<p class="muted">Nodes with the same devices form a group; open a group to see every device, coloured by the workload
holding it. Partitions are drawn inside their GPU at their memory slices; hover for device, claim request and
counters.</p>{find}{_groups(data, colours)}</section>
<section id="workloads"><h2>Workloads and their fallback mix</h2>{"".join(workloads) or '<p class="muted">none</p>'}
</section>
{groups}<section id="pending"><h2>Pending pods ({s["pending"]})</h2>
<ul id="pending-list">{"".join(pending)}</ul>{"" if pending else '<p class="muted">none</p>'}</section>
<section id="rejected"><h2>Rejected at admission ({len(data.rejected)})</h2>
{f'<table><tr><th>object</th><th>file</th><th>field</th><th>message</th></tr>{rejected}</table>' if rejected
 else '<p class="muted">none</p>'}</section>
<section id="timeline"><h2>Timeline (simulated clock)</h2>{_timeline(data)}
<table><tr><th>time</th><th>type</th><th>object</th><th>reason</th><th>message</th></tr>{events}</table></section>
</main>
<script id="drasim-data" type="application/json">{blob}</script>
<script>{SCRIPT}</script>
</body></html>
"""
