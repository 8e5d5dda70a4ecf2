"""`drasim capacity`: how many more replicas of a pod or workload fit, and through which alternatives."""

from __future__ import annotations

import json

import click

from drasim.api.profile import ReleaseProfile
from drasim.cli.options import demo_profile, filename_option, profile_options
from drasim.cli.simulate import load_inputs, simulation_options
from drasim.demo import demo_paths
from drasim.sim.capacity import DEFAULT_MAX, capacity

__all__ = ["capacity_cmd"]


@click.command("capacity")
@filename_option("The cluster: files, directories or - (stdin). Repeatable. Default: the bundled demo.")
@click.option("--workload", "workload_path", required=True, metavar="FILE",
              help="One Pod, Deployment, ReplicaSet, StatefulSet or Job, plus the claim templates it needs.")
@click.option("--max", "max_replicas", type=click.IntRange(min=0), default=DEFAULT_MAX, show_default=True,
              help="Stop after this many replicas fit.")
@profile_options()
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every documented tie-break.")
@click.option("-o", "--output", type=click.Choice(["text", "json"]), default="text", show_default=True)
def capacity_cmd(paths: tuple[str, ...], workload_path: str, max_replicas: int, profile: ReleaseProfile, seed: int,
                 output: str) -> None:
    """How many more replicas of a pod or workload fit on the cluster as it stands (its simulation run to
    the end, existing allocations respected), scheduled one at a time by the real scheduler and allocator,
    and through which firstAvailable alternatives; stops at the first replica that does not fit.

    A workload already in the cluster (same kind, namespace and name) grows from its current replicas.

    \b
    Example:
      drasim capacity -f cluster/ --workload inference.yaml
      24 more replicas fit: 16 via gpu/h100, 8 via gpu/a100-pair; the 25th fails: 0/9 nodes are ...
    """
    if not paths:
        profile = demo_profile(profile)
    objects, timelines, warnings = load_inputs(list(paths) or demo_paths(), profile)
    workload, _, workload_warnings = load_inputs([workload_path], profile)
    for w in [*warnings, *workload_warnings]:
        click.echo(f"warning: {w}", err=True)
    options = simulation_options(profile, seed=seed)
    result = capacity(objects, workload, timelines=timelines, options=options, max_replicas=max_replicas,
                      source=workload_path)
    if output == "json":
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        click.echo(result.summary(max_replicas))
