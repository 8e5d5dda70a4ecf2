"""`drasim doctor`: the read-only DRA checklist of a live cluster (or a dump), as tables or JSON."""

from __future__ import annotations

import sys

import click
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from drasim.api.profile import DEFAULT_VERSION, RELEASES, parse_minor, profile_for
from drasim.cli.exits import finish
from drasim.cli.kube import cluster_options
from drasim.cli.options import ReleaseProfile, demo_profile, profile_options
from drasim.cli.output import emit, output_option
from drasim.cli.reports import envelope, from_doctor
from drasim.cli.textout import rich_console
from drasim.cluster.snapshot import ClusterSnapshot
from drasim.doctor.checks import diagnose
from drasim.doctor.model import MAX_VALUES, AttributeInfo, DoctorReport

__all__ = ["cluster_options", "doctor", "make_console", "render_table"]


_STYLE = {"ok": "green", "warn": "yellow", "error": "bold red"}
_LABEL = {"ok": "OK", "warn": "WARN", "error": "ERROR"}
# Findings whose detail lines repeat a table printed above them (JSON output keeps the details).
_SHOWN_IN_TABLES = frozenset({"feature-gates", "drivers", "device-classes", "device-taint-rules"})


def make_console() -> Console:
    """A console on stdout: colour only on a terminal (and never with NO_COLOR); no wrapping when piped."""
    return rich_console(sys.stdout)


@click.command("doctor")
@cluster_options
@click.option("--from-dump", "from_dump", metavar="DIR", default=None,
              help="Check a directory written by `drasim dump` instead of a cluster.")
@output_option("table", "json", "yaml", help="table, or the report as json/yaml.")
@profile_options(RELEASES, optional=True, help_text="The release to assume when the cluster or dump does not say "
                 "(a dump without cluster-info.yaml); --feature-gates: the gates the cluster overrides.")
def doctor(kubeconfig: str | None, context: str | None, timeout: float, from_dump: str | None,
           output: str, profile: ReleaseProfile | None) -> None:
    """Check a cluster's DRA setup without changing anything (GET requests only): server version and the
    DRA feature gates it has, whether resource.k8s.io is served and in which versions, DeviceClasses and
    the devices they match, drivers and pools (complete or not), the attribute names and values drivers
    publish (the exact strings for CEL selectors), DeviceTaintRules, claims.

    Exit codes: 0 no errors (warnings possible), 1 errors found, 2 cannot connect or bad input.
    """
    snapshot = _snapshot(kubeconfig, context, timeout, from_dump)
    if profile is not None:
        if snapshot.server_version is None:
            snapshot.server_version = f"v{profile.version}.0"
        snapshot.feature_gates = dict(profile.overrides)
    if from_dump is not None:
        # A live cluster's objects were admitted by its API server; a dump may be any directory of manifests.
        from drasim.sources.dump import admit_snapshot

        admit_snapshot(snapshot, _dump_profile(snapshot, profile))
    report = diagnose(snapshot)
    if output == "table":
        render_table(report, make_console())
    else:
        data = report.to_json()
        data.pop("findings", None)
        diagnostics = [from_doctor(f) for f in report.findings]
        fields = {k: v for k, v in data.items() if k not in ("errors", "warnings")}
        emit(envelope("DoctorReport", diagnostics, **fields), output)
    finish(answer_no=bool(report.errors))


def _dump_profile(snapshot: ClusterSnapshot, profile: ReleaseProfile | None) -> ReleaseProfile:
    """The release the dump names (else --kubernetes-version, else the default; the nearest one drasim
    knows) with --feature-gates, and DeviceTaintRules served when the dump lists them (its cluster did)."""
    minor = parse_minor(snapshot.server_version) or DEFAULT_VERSION
    if minor not in RELEASES:
        minor = RELEASES[0] if tuple(map(int, minor.split("."))) < (1, 30) else RELEASES[-1]
    out = profile_for(minor, profile.overrides if profile is not None else None, releases=RELEASES)
    return demo_profile(out) if "DeviceTaintRule" in snapshot.read_versions else out


def _snapshot(kubeconfig: str | None, context: str | None, timeout: float, from_dump: str | None
              ) -> ClusterSnapshot:
    if from_dump is not None:
        if kubeconfig or context:
            raise click.UsageError("--from-dump reads a directory: it cannot be combined with --kubeconfig/--context")
        from drasim.sources.dump import read_dump

        return read_dump(from_dump)
    from drasim.sources.live import read_cluster

    return read_cluster(kubeconfig, context, timeout=timeout)


# --- table output ----------------------------------------------------------------------------------

def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    for c in columns:
        table.add_column(c, overflow="fold")
    return table


def _values(a: AttributeInfo) -> str:
    quote = a.type == "string"
    shown = [f'"{v}"' if quote else v for v in a.values]
    if a.distinct == a.devices and a.distinct > 2:
        return f"unique per device, e.g. {shown[0]}"
    if a.distinct > MAX_VALUES:
        shown.append(f"(+{a.distinct - MAX_VALUES} more)")
    return ", ".join(shown)


def render_table(report: DoctorReport, console: Console) -> None:
    """Print the report: cluster profile, feature gates, pools, attributes, classes, rules, findings."""
    console.print(Text(f"drasim doctor: {report.source}", style="bold"))
    info = _table("Cluster", "", "")
    info.show_header = False
    info.add_row("Server version", report.server_version or "unknown")
    served = report.resource_versions
    info.add_row("resource.k8s.io served", "unknown" if served is None else ", ".join(served) or "NOT SERVED")
    by_version: dict[str, list[str]] = {}
    for kind, version in sorted(report.read_versions.items()):
        if version.startswith("resource.k8s.io/"):
            by_version.setdefault(version, []).append(kind)
    for version, kinds in by_version.items():
        info.add_row(f"Read as {version}", ", ".join(kinds))
    info.add_row("Objects", ", ".join(f"{n} {kind}" for kind, n in sorted(report.objects.items())) or "none")
    console.print(info)

    if report.features:
        gates = _table(f"DRA feature gates (Kubernetes {report.minor} defaults)", "GATE", "MATURITY", "DEFAULT",
                       "WHAT")
        for g in report.features:
            gates.add_row(g.name, g.maturity + (" (locked)" if g.locked else ""),
                          Text("on", style="green") if g.enabled else Text("off", style="dim"), g.about)
        console.print(gates)

    if report.drivers:
        pools = _table("Drivers and pools", "DRIVER", "POOL", "SCOPE", "GENERATION", "SLICES", "DEVICES",
                       "COMPLETE")
        for d in report.drivers:
            for p in d.pools:
                complete = Text("yes", style="green") if p.complete else Text("NO", style="bold red")
                pools.add_row(d.name, p.name, p.scope, str(p.generation), f"{p.slices}/{p.expected}",
                              str(p.devices), complete)
        console.print(pools)
        for d in report.drivers:
            if not d.attributes and not d.capacities:
                continue
            attrs = _table(f"{d.name}: attributes and capacities ({d.devices} devices)", "NAME", "TYPE",
                           "DEVICES", "VALUES", "CEL")
            for a in d.attributes:
                attrs.add_row(a.qualified, a.type, str(a.devices), _values(a), a.cel())
            for c in d.capacities:
                attrs.add_row(c.qualified, "capacity", str(c.devices), _values(c), c.cel(capacity=True))
            console.print(attrs)

    if report.classes:
        classes = _table("DeviceClasses", "CLASS", "DEVICES", "DRIVERS", "EXTENDED RESOURCE")
        for cls in report.classes:
            devices = Text("compile error", style="bold red") if cls.compile_error else str(cls.devices)
            classes.add_row(cls.name, devices, ", ".join(cls.drivers), cls.extended_resource_name or "")
        console.print(classes)

    if report.taint_rules:
        rules = _table("DeviceTaintRules", "RULE", "SELECTOR", "TAINT", "DEVICES")
        for t in report.taint_rules:
            rules.add_row(t.name, t.selector, t.taint, str(t.devices))
        console.print(rules)

    findings = _table("Findings", "", "CHECK", "MESSAGE")
    for f in report.findings:
        message = Text(f.message)
        for line in () if f.id in _SHOWN_IN_TABLES else f.details:
            message.append("\n  " + line, style="dim")
        findings.add_row(Text(_LABEL[f.severity], style=_STYLE[f.severity]), f.id, message)
    console.print(findings)
    summary = f"{report.errors} error(s), {report.warnings} warning(s)"
    console.print(Text(summary, style=_STYLE["error" if report.errors else "warn" if report.warnings else "ok"]))
