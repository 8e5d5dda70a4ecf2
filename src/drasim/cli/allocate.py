"""`drasim allocate`: run scenario files through the allocator and print upstream-shaped JSON."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import click

from drasim.allocator import Features
from drasim.allocator.versions import allocator_features
from drasim.api.encode import yaml_documents
from drasim.cli.exits import finish
from drasim.cli.options import ReleaseProfile, profile_options
from drasim.cli.output import output_option
from drasim.cli.scenarios import load_scenario_input, scenario_paths
from drasim.errors import InputError
from drasim.runner.check import check_steps
from drasim.runner.scenario import ScenarioError, run_scenario


@click.command()
@click.argument("scenarios", nargs=-1, required=True)
@click.option("--check", is_flag=True, help="Compare with each file's expect block; exit 1 on any mismatch.")
@click.option("--features", "feature_flags", default=None,
              help="Override feature flags, e.g. 'prioritizedList=false,deviceTaints=true'.")
@profile_options(optional=True, help_text="Run that release's allocator: its feature gates (with --feature-gates), "
                                          "except those the file sets in `features:`.")
@click.option("--pretty", is_flag=True, help="Indent the JSON output.")
@output_option("json", "yaml", default=None, allow_jsonpath=False,
               help="json: one line per scenario (the default without --check); yaml: one document per scenario. "
                    "With --check, the records are printed only when -o is given.")
def allocate(scenarios: tuple[str, ...], check: bool, feature_flags: str | None,
             profile: ReleaseProfile | None, pretty: bool, output: str | None) -> None:
    """Run SCENARIO files (or directories, or - for stdin) and print one JSON object per scenario.

    With --check, each file's results are compared with its expect block: the failures are listed with
    their differences and a summary line is printed (exit 1 on any failure); -o json prints the records too."""
    if output is None and not check:
        output = "json"
    failed = 0
    total = 0
    records = output is not None  # the records go to stdout, so the check's lines go to stderr
    for path, base in scenario_paths(list(scenarios)):
        sc, expect = load_scenario_input(path, stdin=sys.stdin)
        if profile is not None:
            sc.features = _release_features(profile, sc.flags, path)
        if feature_flags:
            sc.features = _override(sc.features, feature_flags, path)
        try:
            out = run_scenario(sc)
        except ScenarioError as err:
            raise InputError(str(err), source=path) from None
        rel = str(Path(path).relative_to(base)) if base and path != "-" else path
        record = {"scenario": rel, **out}
        total += 1
        if check:
            problems = check_steps(out["steps"], expect)
            record["check"] = "pass" if not problems else "; ".join(problems)
            if problems:
                failed += 1
                click.echo(f"FAIL {rel}", err=records)
                for p in problems:
                    click.echo("  " + p.replace("\n", "\n  "), err=records)
        if output == "json":
            click.echo(json.dumps(record, indent=2 if pretty else None, ensure_ascii=False))
        elif output == "yaml":
            click.echo(yaml_documents([record]), nl=False)
    if check:
        click.echo(f"{total - failed} passed, {failed} failed", err=output is not None)
        finish(answer_no=failed > 0)


def _release_features(profile: ReleaseProfile, file_flags: dict[str, bool], source: str) -> Features:
    """The release's gates and code, with the scenario file's own `features:` on top."""
    base = allocator_features(profile)
    try:
        merged = Features.from_flags({**{k: getattr(base, a) for k, a in _FLAG_ATTRS.items()}, **file_flags})
    except ValueError as err:
        raise InputError(str(err), source=source, path="features") from None
    return dataclasses.replace(merged, release=base.release)


def _override(features: Features, spec: str, source: str) -> Features:
    flags = {}
    for part in spec.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise InputError(f"--features: expected name=true|false, got {part!r}", source=source)
        flags[key] = value.lower() == "true"
    try:
        current = {k: getattr(features, a) for k, a in _FLAG_ATTRS.items()}
        current.update(flags)
        return dataclasses.replace(Features.from_flags(current), release=features.release)
    except ValueError as err:
        raise InputError(f"--features: {err}", source=source) from None


_FLAG_ATTRS = {
    "adminAccess": "admin_access", "prioritizedList": "prioritized_list",
    "partitionableDevices": "partitionable_devices", "deviceTaints": "device_taints",
    "consumableCapacity": "consumable_capacity", "deviceBindingAndStatus": "device_binding_and_status",
    "listTypeAttributes": "list_type_attributes",
}
