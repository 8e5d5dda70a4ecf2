"""`drasim dump`: save a cluster's DRA objects and profile to a directory for offline use (read-only)."""

from __future__ import annotations

from collections import Counter

import click

from drasim.api.profile import RELEASES
from drasim.cli.kube import cluster_options
from drasim.cli.options import ReleaseProfile, profile_options
from drasim.sources.dump import DUMP_FILES, write_dump
from drasim.sources.live import read_cluster

__all__ = ["dump"]


@click.command("dump")
@cluster_options
@click.option("--output-dir", "directory", metavar="DIR", default=None,
              help="Directory to write (created; must be new or empty, or an earlier dump with --overwrite).")
@click.option("-o", "old_directory", metavar="DIR", default=None, hidden=True,
              help="Deprecated spelling of --output-dir (kubectl's -o is the output format).")
@click.option("--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True,
              help="File format (JSON reads faster for clusters with thousands of slices).")
@click.option("--overwrite", is_flag=True,
              help="Replace the files of an earlier drasim output in DIR (nothing else in DIR is touched).")
@profile_options(RELEASES, optional=True, help_text="The release to record when the server does not report "
                 "its version.")
def dump(kubeconfig: str | None, context: str | None, timeout: float, directory: str | None,
         old_directory: str | None, fmt: str, overwrite: bool, profile: ReleaseProfile | None) -> None:
    """Save every DRA-relevant object of the cluster to DIR: ResourceSlices, DeviceClasses, ResourceClaims,
    ResourceClaimTemplates, DeviceTaintRules, Nodes, Namespaces and the Pods that use claims (all as
    resource.k8s.io/v1, whatever version the server serves), plus cluster-info.yaml (server version, served
    resource.k8s.io versions). Every drasim command reads DIR like any manifest directory; `drasim doctor
    --from-dump DIR` checks it. Only GET requests are sent. Each file is complete before it appears, and
    DIR/.drasim-files names the files drasim wrote: --overwrite replaces or removes only those, and a
    non-empty DIR without that marker is refused.

    Exit codes: 0 written, 2 cannot connect or bad input.
    """
    if old_directory is not None:
        if directory is not None:
            raise click.UsageError("give the directory once, with --output-dir")
        click.echo("warning: -o DIR is deprecated: use --output-dir DIR (-o is kubectl's output format)", err=True)
        directory = old_directory
    if directory is None:
        raise click.UsageError("Missing option '--output-dir'.")
    snapshot = read_cluster(kubeconfig, context, timeout=timeout)
    if profile is not None and snapshot.server_version is None:
        snapshot.server_version = f"v{profile.version}.0"
    written = write_dump(snapshot, directory, fmt="json" if fmt == "json" else "yaml", overwrite=overwrite)
    for warning in snapshot.warnings:
        click.echo(f"warning: {warning}", err=True)
    counts = Counter(o.kind for o in snapshot.objects)
    served = ", ".join(snapshot.resource_versions or ()) or "not served"
    click.echo(f"Read {snapshot.source}: Kubernetes {snapshot.server_version}, resource.k8s.io {served}")
    click.echo(f"Wrote {directory}:")
    stems = {stem: kind for kind, stem in DUMP_FILES.items()}
    for name in written:
        kind = stems.get(name.rpartition(".")[0])
        click.echo(f"  {name:<32} {counts[kind]} {kind}" if kind else f"  {name}")
