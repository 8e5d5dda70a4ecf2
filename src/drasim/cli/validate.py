"""`drasim validate`: check DRA objects the way the API server would, before they reach a cluster."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import click

from drasim.api import resource as r
from drasim.api.meta import object_ref
from drasim.cli.exits import finish
from drasim.cli.kube import KubeArgs, command_inputs, kube_options
from drasim.cli.options import ReleaseProfile, filename_option, profile_options
from drasim.cli.output import emit, emit_names, output_option, ref_name
from drasim.cli.reports import enabled_gates, envelope, from_validation
from drasim.validation.findings import Finding
from drasim.validation.pools import check_pools

__all__ = ["validate"]


@dataclass
class _DriverSummary:
    pools: set[str] = field(default_factory=set)
    slices: int = 0
    devices: int = 0
    counter_sets: int = 0


def _ref(obj: object) -> str:
    kind = getattr(obj, "KIND", type(obj).__name__)
    meta = getattr(obj, "metadata", None)
    return object_ref(kind, meta) if meta is not None else kind


@click.command("validate")
@filename_option()
@profile_options(help_text="Validate with the feature gates and API versions of this release.")
@output_option("table", "json", "yaml", "name",
               help="table; json/yaml: the report; name: the objects with findings as kind/name.")
@kube_options()
def validate(paths: tuple[str, ...], profile: ReleaseProfile, output: str, kube: KubeArgs) -> None:
    """Report what the API server would reject in ResourceSlices, DeviceClasses, ResourceClaims,
    ResourceClaimTemplates, DeviceTaintRules and the DRA fields of Pods and workloads (API versions the
    release does not serve included) and admin access without the namespace label. Fields the API server
    silently drops (feature gate off), versions it only serves with --runtime-config, objects defined
    twice and pools whose slices disagree (counter sets no slice declares, names used twice, slices
    missing: the API server validates each slice alone) are warnings. Exits 1 only for what the API
    server would reject."""
    inputs, profile = command_inputs(paths, profile, kube)
    admission = inputs.admission
    features = profile.validation_features()
    version = profile.describe()
    slices = [o for o in admission.objects if isinstance(o, r.ResourceSlice)]
    sourced: list[tuple[str | None, Finding]] = [*admission.findings,
                                                 *((None, f) for f in check_pools(slices, features))]
    findings = [f for _, f in sourced]

    sources: dict[str, str] = {}
    for obj, source in zip(admission.objects, admission.sources, strict=True):
        sources.setdefault(_ref(obj), source)
    for where, f in sourced:
        if where is not None:
            sources.setdefault(f.obj, where)

    read = [*admission.objects, *(o for _, o in admission.rejected_written)]
    kinds = Counter(getattr(o, "KIND", type(o).__name__) for o in read)
    drivers: dict[str, _DriverSummary] = {}
    for o in admission.objects:
        if isinstance(o, r.ResourceSlice):
            d = drivers.setdefault(o.spec.driver, _DriverSummary())
            d.pools.add(o.spec.pool.name)
            d.slices += 1
            d.devices += len(o.spec.devices)
            d.counter_sets += len(o.spec.shared_counters)
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = len(findings) - errors

    if output == "name":
        emit_names(dict.fromkeys(ref_name(f.obj) for f in findings if f.obj))
    elif output != "table":
        emit(envelope("ValidationReport", [from_validation(f, sources.get(f.obj)) for f in findings], **{
                    "kubernetesVersion": profile.version,
                    "featureGates": enabled_gates(profile),
                    "files": inputs.files,
                    "rejected": len(admission.rejected),
                    "objects": dict(sorted(kinds.items())),
                    "drivers": {
                        name: {
                            "pools": len(s.pools),
                            "slices": s.slices,
                            "devices": s.devices,
                            "counterSets": s.counter_sets,
                        }
                        for name, s in sorted(drivers.items())
                    },
                    "loadWarnings": inputs.load_warnings,
                }), output)
    else:
        for warning in inputs.load_warnings:
            click.echo(f"warning: {warning}", err=True)
        _print_table(inputs.files, kinds, drivers, findings, sources, version, errors, warnings,
                     len(admission.rejected))
    finish(inputs, answer_no=errors > 0, rejections_answer=True)


def _print_table(
    files: list[str],
    kinds: Counter[str],
    drivers: dict[str, _DriverSummary],
    findings: list[Finding],
    sources: dict[str, str],
    version: str,
    errors: int,
    warnings: int,
    rejected: int = 0,
) -> None:
    n_files = len(set(files))
    click.echo(
        f"Read {sum(kinds.values())} object(s) from {n_files} file(s); "
        f"validated with {version} feature gates"
        + (f"; {rejected} rejected." if rejected else ".")
    )
    if kinds:
        click.echo("")
        _echo_rows([("KIND", "COUNT"), *((k, str(n)) for k, n in sorted(kinds.items()))])
    if drivers:
        click.echo("")
        rows: list[tuple[str, ...]] = [("DRIVER", "POOLS", "SLICES", "DEVICES", "COUNTER SETS")]
        for name, s in sorted(drivers.items()):
            rows.append((name or '""', str(len(s.pools)), str(s.slices), str(s.devices), str(s.counter_sets)))
        _echo_rows(rows)
    click.echo("")
    if not findings:
        click.echo("No problems found.")
        return
    click.echo(f"{errors} error(s), {warnings} warning(s):")
    by_object: dict[str, list[Finding]] = {}
    for f in findings:
        by_object.setdefault(f.obj, []).append(f)
    for obj, items in by_object.items():
        source = sources.get(obj)
        click.echo("")
        click.echo(f"{source}: {obj}" if source else obj)
        for f in items:
            click.echo(f"  {f.severity.upper():7} {f}")


def _echo_rows(rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        click.echo("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
