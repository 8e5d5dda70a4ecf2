"""`drasim lint`: API validation plus the checks that catch what bites DRA users, for humans and CI."""

from __future__ import annotations

import os

import click

from drasim.api.profile import SIMULATED
from drasim.cli.exits import finish
from drasim.cli.kube import KubeArgs, command_inputs, kube_options, no_collections
from drasim.cli.options import ReleaseProfile, filename_option, load_restrictor_option, profile_options
from drasim.cli.output import emit, emit_names, output_option, ref_name
from drasim.cli.reports import enabled_gates, envelope, from_lint, sarif_log
from drasim.cluster import ClusterState
from drasim.lint import RULES, LintFinding, lint_objects
from drasim.lint.versions import LINT_VERSIONS

__all__ = ["lint"]

_SEVERITY_COLOURS = {"error": "red", "warning": "yellow"}


def _rules(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    unknown = sorted(set(value) - set(RULES))
    if unknown:
        raise click.BadParameter(f"unknown rule {', '.join(unknown)}; see --list-rules")
    return value


@click.command("lint")
@filename_option()
@load_restrictor_option
@profile_options(LINT_VERSIONS, help_text="Check against the feature gates and API versions of this release.")
@output_option("table", "json", "yaml", "sarif", "name",
               help="table; json/yaml: a LintReport (docs/json-output.md); sarif: a SARIF 2.1.0 log for code "
                    "scanning; name: the objects with findings as kind/name.")
@kube_options()
@click.option("--skip", multiple=True, metavar="RULE", callback=_rules, help="Leave out a rule. Repeatable.")
@click.option("--list-rules", is_flag=True, help="Describe every rule and exit.")
def lint(paths: tuple[str, ...], profile: ReleaseProfile, output: str, kube: KubeArgs, skip: tuple[str, ...],
         list_rules: bool) -> None:
    """Find what bites DRA users before it reaches a cluster: everything `drasim validate` reports, plus
    taint rules that hit every device, selectors reading attributes no device publishes or matching
    nothing, MIG profiles the fleet lacks, shared extended resource names, firstAvailable in replicated
    workloads, counters in the wrong place and features the target release does not have.
    Exits 1 when there are errors, 0 with warnings only."""
    colour = False if os.environ.get("NO_COLOR") else None  # None: click colours only on a terminal
    if list_rules:
        _print_rules(output, colour)
        return
    no_collections()  # lint simulates the workloads it is given (pod-pending)
    # Before 1.34 there is no resource.k8s.io/v1: objects are linted as if converted to that release's version.
    inputs, profile = command_inputs(paths, profile, kube, check_versions=profile.version in SIMULATED,
                                     timelines=True)
    for warning in inputs.load_warnings:
        click.echo(f"warning: {warning}", err=True)
    findings = lint_objects([], profile=profile, admission=inputs.admission, skip=skip, timelines=inputs.timelines,
                            pending_hints=_pending_hints)
    errors = sum(1 for f in findings if f.severity == "error")
    n_objects = len(inputs.objects) + len(inputs.admission.rejected)
    diagnostics = [from_lint(f, RULES) for f in findings]
    if output == "name":
        emit_names(dict.fromkeys(ref_name(f.obj) for f in findings if f.obj and f.severity != "info"))
    elif output == "sarif":
        emit(sarif_log(diagnostics, RULES), "json")
    elif output != "table":
        emit(envelope("LintReport", diagnostics, kubernetesVersion=profile.version,
                      featureGates=enabled_gates(profile), files=inputs.files, objects=n_objects), output)
    else:
        _print_table(findings, n_objects, len(inputs.files), profile.describe(), errors, colour)
    finish(inputs, answer_no=errors > 0, rejections_answer=True)


def _pending_hints(state: ClusterState, key: tuple[str, str]) -> list[str]:
    """explain's problems and hints for a pod the simulation left Pending (lint cannot import explain)."""
    # Imported here: only a pod left Pending needs explain, whose modules cost every other lint run.
    from drasim.explain import explain_pod
    from drasim.explain.summary import reasons

    return reasons(explain_pod(state, key))


def _print_table(
    all_findings: list[LintFinding], n_objects: int, n_files: int, version: str, errors: int, colour: bool | None
) -> None:
    click.echo(f"Linted {n_objects} object(s) from {n_files} file(s) for {version}.")
    findings = [f for f in all_findings if f.severity != "info"]
    notes = [f for f in all_findings if f.severity == "info"]
    if not findings:
        click.echo("No problems found.")
        _print_notes(notes)
        return
    last: tuple[str | None, str] | None = None
    for f in findings:
        if (f.source, f.obj) != last:
            last = (f.source, f.obj)
            click.echo("")
            click.echo(click.style(f"{f.source}: {f.obj}" if f.source else f.obj, bold=True), color=colour)
        label = click.style(f"{f.severity.upper():7}", fg=_SEVERITY_COLOURS.get(f.severity), bold=True)
        click.echo(f"  {label} {f.rule}  {f}", color=colour)
    click.echo("")
    click.echo(f"{errors} error(s), {len(findings) - errors} warning(s).")
    _print_notes(notes)


def _print_notes(notes: list[LintFinding]) -> None:
    for f in notes:
        click.echo(f"note: {f.rule} {f.message}")


def _print_rules(output: str, colour: bool | None) -> None:
    if output == "name":
        emit_names(RULES)
        return
    if output == "sarif":
        emit(sarif_log([], RULES), "json")
        return
    if output != "table":
        emit([{"id": r.id, "severity": r.severity, "what": r.what, "why": r.why} for r in RULES.values()], output)
        return
    for rule in RULES.values():
        click.echo(click.style(rule.id, bold=True) + f"  ({rule.severity})", color=colour)
        click.echo(f"  {rule.what}")
        click.echo(f"  Why: {rule.why}")
