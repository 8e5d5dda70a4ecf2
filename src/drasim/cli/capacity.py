"""`drasim capacity`: how many more replicas of a pod or workload fit, and through which alternatives."""

from __future__ import annotations

import click

from drasim.api.profile import ReleaseProfile
from drasim.cli.exits import finish
from drasim.cli.kube import KubeArgs, command_inputs, kube_options
from drasim.cli.options import filename_option, load_restrictor_option, profile_options
from drasim.cli.output import emit, output_option
from drasim.errors import DrasimError
from drasim.sim.capacity import DEFAULT_MAX, capacity
from drasim.sim.settle import simulation_options
from drasim.sim.workloads import MAX_WORKLOAD_PODS
from drasim.sources.inputs import read_inputs

__all__ = ["capacity_cmd"]


@click.command("capacity")
@filename_option("The cluster: files, directories or - (stdin). Repeatable. Default: the bundled demo.")
@click.option("--workload", "workload_path", required=True, metavar="FILE",
              help="One Pod, Deployment, ReplicaSet, StatefulSet or Job, plus the claim templates it needs.")
@click.option("--max", "max_replicas", type=click.IntRange(0, MAX_WORKLOAD_PODS), default=DEFAULT_MAX,
              show_default=True, help="Stop after this many replicas fit.")
@load_restrictor_option
@profile_options()
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every documented tie-break.")
@output_option("table", "json", "yaml", aliases={"text": "table"},
               help="table: one sentence; json/yaml: replicas, byAlternative, stopReason.")
@kube_options()
def capacity_cmd(paths: tuple[str, ...], workload_path: str, max_replicas: int, profile: ReleaseProfile, seed: int,
                 output: str, kube: KubeArgs) -> None:
    """How many more replicas of a pod or workload fit on the cluster as it stands (its simulation run to
    the end, existing allocations respected), scheduled one at a time by the real scheduler and allocator,
    and through which firstAvailable alternatives; stops at the first replica that does not fit.

    A workload already in the cluster (same kind, namespace and name) grows from its current replicas.

    \b
    Example:
      drasim capacity -f examples/cluster/ --workload examples/inference.yaml
      24 more replicas fit: 16 via gpu/h100, 8 via gpu/a100-pair; the 25th fails: 0/4 nodes are ...
    """
    inputs, profile = command_inputs(paths, profile, kube, timelines=True)
    objects, timelines = inputs.objects, inputs.timelines
    asked = read_inputs([workload_path], profile, timelines=True, namespace=kube.namespace)
    asked.raise_unreadable()  # the question itself could not be read
    workload = asked.objects
    for note in [*inputs.notes(), *asked.notes()]:
        click.echo(note, err=True)
    options = simulation_options(profile, seed=seed)
    try:
        result = capacity(objects, workload, timelines=timelines, options=options, max_replicas=max_replicas,
                          source=workload_path)
    except DrasimError as err:
        raise inputs.locate(err) from None
    if output != "table":
        emit(result.to_dict(), output)
    else:
        click.echo(result.summary(max_replicas))
    asked.raise_refused()
    finish(inputs)
