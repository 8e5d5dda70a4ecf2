"""`drasim fleet`: generate Nodes, ResourceSlices and DeviceClasses of real NVIDIA GPU models from the catalog."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from drasim import __version__
from drasim.api import core
from drasim.api import resource as r
from drasim.api.encode import encode_object, to_json, to_yaml
from drasim.api.kinds import KubeObject
from drasim.catalog.nvidia import PROFILE_FIELDS, Catalog, GpuModel, load_catalog
from drasim.cli.options import ReleaseProfile, profile_options
from drasim.cli.output import emit, emit_names, object_name, output_option
from drasim.errors import InputError
from drasim.fleet.generate import (
    DEFAULT_DRIVER_VERSION,
    MAX_FLEET_NODES,
    MAX_GPUS_PER_NODE,
    MODE_CHOICES,
    FleetResult,
    NodeSpec,
    fleet_too_big,
    generate_fleet,
    kind_counts,
    parse_node_spec,
)
from drasim.fleet.mig import estimated_profile_numbers
from drasim.sources import files
from drasim.sources.outdir import write_files
from drasim.validation.admission import Submitted, admit

__all__ = ["fleet", "header_lines", "list_models_text"]

_FILES = (("deviceclasses", r.DeviceClass), ("nodes", core.Node), ("resourceslices", r.ResourceSlice))
_MODEL_FIELDS = ("product_name", "architecture", "brand", "cuda_compute_capability", "memory_total_mib",
                 "multiprocessors")


@click.command("fleet")
@click.option("--nodes", "node_specs", multiple=True, metavar="[PREFIX=]MODEL[:MODE][:COUNT]",
              help=f"A group of nodes (repeatable), e.g. h100:4, a100-40gb:mig-dynamic:2, "
                   f"a100-80gb:mig-static:all-1g.10gb, dgx=h200:mig-off:3. MODE: {MODE_CHOICES} "
                   "(default full); LAYOUT: balanced (default), all-<profile> or <profile>[xN],... "
                   f"At most {MAX_FLEET_NODES:,} nodes in all.")
@click.option("--gpus-per-node", type=click.IntRange(1, MAX_GPUS_PER_NODE), default=None, metavar="N",
              help=f"GPUs per node for every group (default 8, at most {MAX_GPUS_PER_NODE}).")
@click.option("--device-plugin", is_flag=True,
              help="Nodes advertise nvidia.com/gpu (or nvidia.com/mig-<profile>) through the device plugin in "
                   "status.allocatable and publish no ResourceSlices.")
@click.option("--driver-version", default=DEFAULT_DRIVER_VERSION, show_default=True,
              help="NVIDIA driver version published in driverVersion (and its CUDA version).")
@click.option("--cuda-driver-version", default=None, metavar="X.Y",
              help="CUDA version for cudaDriverVersion (default: the one of the driver branch).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for GPU UUIDs and PCI bus ids.")
@click.option("--list-models", is_flag=True, help="Print the catalog's models and MIG profiles and exit.")
@output_option("yaml", "json", "name", default="yaml",
               help="yaml or json (a List); name: kind/name of each object; jsonpath over the List.")
@click.option("--output-dir", type=click.Path(file_okay=False), default=None,
              help="Write deviceclasses, nodes and resourceslices files into DIR instead of stdout.")
@profile_options(help_text="Warn about what the API server of this release would drop or reject in the output.")
def fleet(node_specs: tuple[str, ...], gpus_per_node: int | None, device_plugin: bool, driver_version: str,
          cuda_driver_version: str | None, seed: int, list_models: bool, output: str,
          output_dir: str | None, profile: ReleaseProfile) -> None:
    """Generate Nodes, ResourceSlices and DeviceClasses for real NVIDIA GPU models, shaped as the NVIDIA
    DRA driver (gpu.nvidia.com) publishes them. The output passes `drasim validate` and feeds the
    simulator directly. Values from unverified catalog entries are listed in a comment header (YAML)
    and reported on stderr.

    \b
    Modes:
      full         one plain `gpu` device per GPU, all in one slice (the driver without DynamicMIG)
      mig-static   pre-created MIG devices of LAYOUT on every GPU, parent GPUs hidden, one slice
      mig-dynamic  DynamicMIG: a counters-only slice, then one slice per GPU with every MIG
                   placement, plus the full GPU on Hopper and newer (not on Ampere)
      mig-off      DynamicMIG with MIG disabled: Ampere publishes a plain GPU per slice and no
                   counters; Hopper and newer still publish every placement, as mig-dynamic
    """
    catalog = load_catalog()
    if list_models:
        click.echo(list_models_text(catalog), nl=False)
        return
    if not node_specs:
        raise InputError("no nodes requested: give --nodes MODEL[:MODE][:COUNT] (e.g. --nodes h100:4), "
                         f"or --list-models to see the models; valid models: {', '.join(catalog.model_choices())}")
    for text in node_specs:  # before parsing: a count of thousands of digits is refused unread
        count = text.rsplit(":", 1)[-1].strip() if ":" in text else ""
        if count.isdigit() and len(count) > len(str(MAX_FLEET_NODES)):
            _too_many(text)
    specs = [parse_node_spec(s, gpus_per_node=gpus_per_node, device_plugin=device_plugin) for s in node_specs]
    if sum(spec.count for spec in specs) > MAX_FLEET_NODES:
        _too_many(" ".join(node_specs))
    # One node of each group first: a bad model, mode or count is named with its --nodes value, and admission
    # checks these samples (every node of a group has the same shape) instead of 100,000 copies.
    samples: list[KubeObject] = []
    for text, spec in zip(node_specs, specs, strict=True):
        try:
            if spec.count < 1:
                raise InputError(f"node count must be at least 1 (got {spec.count})")
            samples += generate_fleet([replace(spec, count=1)], driver_version=driver_version,
                                      cuda_driver_version=cuda_driver_version, seed=seed, catalog=catalog).objects
        except InputError as err:
            if "driver version" in err.message:  # about --driver-version or --cuda-driver-version, not the group
                raise
            raise InputError(f"--nodes {text!r}: {err.message}") from None
    result = generate_fleet(specs, driver_version=driver_version, cuda_driver_version=cuda_driver_version,
                            seed=seed, catalog=catalog)
    header = header_lines(result, specs, driver_version=driver_version, seed=seed,
                          cuda_driver_version=cuda_driver_version)
    if output_dir is not None and output not in ("yaml", "json"):
        raise click.UsageError("--output-dir writes yaml or json files: use -o yaml or -o json with it")
    if output_dir is not None:
        written = _write_dir(Path(output_dir), result.objects, output, header)
        click.echo(f"wrote {len(result.objects)} objects to {output_dir}: "
                   + ", ".join(f"{name} ({n})" for name, n in written), err=True)
    elif output == "json":
        data = to_json(result.objects, as_list=True)
        click.echo(data.decode())
        _warn_too_big(len(data))
    elif output == "name":
        emit_names(object_name(o.KIND, o.metadata.name) for o in result.objects)
    elif output.startswith("jsonpath="):
        emit({"apiVersion": "v1", "kind": "List", "items": [encode_object(o) for o in result.objects]}, output)
    else:
        _warn_too_big(_echo_yaml(result.objects, header))
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    # What the target release would do with the output (fields of disabled gates dropped, ...), on the samples.
    unique = {(o.KIND, o.metadata.name): o for o in samples}  # each sample repeats the classes
    admission = admit([Submitted(o, "fleet") for o in unique.values()], profile, owned=True)
    for line in _summarised(f for _, f in admission.findings):
        click.echo(line, err=True)
    if result.unverified:
        models = sorted({line.split(":", 1)[0].split(" ", 1)[0] for line in result.unverified})
        text = (f"warning: the output uses unverified or estimated catalog values for {', '.join(models)}")
        if output == "json":
            click.echo(text + ":", err=True)
            for line in result.unverified:
                click.echo(f"  {line}", err=True)
        else:
            click.echo(text + " (listed in the YAML comment header)", err=True)


def _warn_too_big(size: int) -> None:
    if size > files.MAX_FILE_BYTES:
        click.echo(f"warning: the output is {size // (1024 * 1024)} MiB, more than drasim reads from one file "
                   f"({files.MAX_FILE_BYTES // (1024 * 1024)} MiB): write it with --output-dir, which splits it "
                   "into files drasim reads back", err=True)


def _summarised(findings: Iterable[Any]) -> list[str]:
    """One warning per (field, message) with list indexes folded (`spec.devices[*].consumesCounters`),
    naming the first object and how many fields of how many objects it covers: a MIG layout on a release
    without partitionable devices would otherwise warn once per device."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for f in findings:
        path = _INDEX.sub("[*]", f.path)
        groups.setdefault((path, f.body()), []).append(f)
    out = []
    for (path, body), found in groups.items():
        objects = list(dict.fromkeys(f.obj for f in found))
        where = objects[0] + (f" and {len(objects) - 1} more" if len(objects) > 1 else "")
        count = f" ({len(found)} fields)" if len(found) > 1 else ""
        out.append(f"warning: {where}: {path}: {body}{count}" if path else f"warning: {where}: {body}{count}")
    return out


_INDEX = re.compile(r"\[\d+\]")


def _too_many(text: str) -> None:
    shown = text if len(text) <= 60 else text[:57] + "..."
    raise click.BadParameter(fleet_too_big(repr(shown)), param_hint="'--nodes'")


def header_lines(result: FleetResult, specs: Sequence[NodeSpec], *, driver_version: str, seed: int,
                 cuda_driver_version: str | None = None) -> list[str]:
    """The comment header of the YAML output: what was generated, from what, and what is unverified."""
    counts = kind_counts(result.objects)
    flags = [f"--driver-version {driver_version}"]
    if cuda_driver_version:
        flags.append(f"--cuda-driver-version {cuda_driver_version}")
    flags.append(f"--seed {seed}")
    # The CLI applies these two to every group; the summary lines below say it per group anyway.
    gpus = {s.gpus_per_node for s in specs}
    if len(gpus) == 1 and None not in gpus:
        flags.append(f"--gpus-per-node {specs[0].gpus_per_node}")
    if all(s.device_plugin for s in specs):
        flags.append("--device-plugin")
    flags += [f"--nodes {_spec_text(s)}" for s in specs]
    lines = [
        f"Generated by drasim {__version__} fleet from the bundled NVIDIA catalog (driver gpu.nvidia.com).",
        "Inputs: " + " ".join(flags),
        "Objects: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()),
        "Node groups:",
        *(f"  {line}" for line in result.summary),
    ]
    if result.unverified:
        lines.append("Values from unverified catalog entries (not confirmed on real hardware, or estimated):")
        lines += [f"  {line}" for line in result.unverified]
    else:
        lines.append("Every catalog value used is marked verified.")
    return lines


def _spec_text(spec: NodeSpec) -> str:
    text = f"{spec.model}:{spec.mode}:{spec.count}"
    return f"{spec.name_prefix}={text}" if spec.name_prefix else text


def _echo_yaml(objects: Sequence[KubeObject], header: list[str], chunk: int = 1000) -> int:
    """`_yaml` written a chunk of objects at a time: 100,000 nodes never exist as one string (~600 MB).
    Returns the bytes written."""
    text = "".join(f"# {line}".rstrip() + "\n" for line in header)
    click.echo(text, nl=False)
    size = len(text.encode())
    for start in range(0, len(objects), chunk):
        text = ("---\n" if start else "") + to_yaml(objects[start:start + chunk])
        click.echo(text, nl=False)
        size += len(text.encode())
    return size


def _yaml(objects: Sequence[KubeObject], header: list[str]) -> str:
    comment = "".join(f"# {line}".rstrip() + "\n" for line in header)
    body = to_yaml(objects) if objects else ""
    return comment + body


def _write_dir(directory: Path, objects: Sequence[KubeObject], output: str,
               header: list[str]) -> list[tuple[str, int]]:
    """Write one file per kind, each complete before it appears. The directory must be new, empty or an
    earlier drasim output (its `.drasim-files` marker names the files that may be replaced)."""
    contents: dict[str, bytes] = {}
    counts: list[tuple[str, int]] = []

    def encode(chosen: Sequence[KubeObject]) -> bytes:
        return to_json(chosen, as_list=True) + b"\n" if output == "json" else _yaml(chosen, header).encode()

    for base, kind in _FILES:
        chosen = [o for o in objects if isinstance(o, kind)]
        chunks = [chosen]
        parts = [encode(chosen)]
        # A file drasim itself could not read back (sources.files.MAX_FILE_BYTES) is written in parts instead,
        # `resourceslices-01.yaml`...: a directory is read in name order, so the objects keep their order.
        while max(len(p) for p in parts) > files.MAX_FILE_BYTES and len(chunks) < len(chosen):
            step = -(-len(chosen) // min(len(chosen), len(chunks) * 2))
            chunks = [chosen[i:i + step] for i in range(0, len(chosen), step)]
            parts = [encode(c) for c in chunks]
        width = len(str(len(parts)))
        for i, (chunk, data) in enumerate(zip(chunks, parts, strict=True)):
            name = f"{base}.{output}" if len(parts) == 1 else f"{base}-{i + 1:0{width}d}.{output}"
            contents[name] = data
            counts.append((name, len(chunk)))
    try:
        write_files(str(directory), contents, overwrite=True, command="drasim fleet")
    except InputError as err:
        raise InputError(f"--output-dir {directory}: {err.message}") from None
    return counts


# --- --list-models ---------------------------------------------------------------------------------------------

def _rows(rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def _modes(model: GpuModel) -> str:
    return "full, mig-dynamic, mig-static, mig-off" if model.mig_supported else "full"


def _model_unverified(model: GpuModel) -> str:
    names = [f for f in _MODEL_FIELDS if not model.is_verified(f)]
    if model.mig_supported and not model.mig_verified:
        names.append("mig geometry")
    return ("no: " + ", ".join(names)) if names else "yes"


def list_models_text(catalog: Catalog) -> str:
    """The --list-models report: one row per model, then each MIG model's profiles with verified marks.
    Numbers marked `*` are not in the catalog; they are the generator's documented estimates."""
    out = [f"NVIDIA GPU catalog ({len(catalog.models)} models, driver {catalog.driver_name})", ""]
    rows: list[list[str]] = [["MODEL", "ALIASES", "PRODUCT", "ARCH", "MEMORY", "SMS", "MIG", "MODES", "VERIFIED"]]
    for m in catalog.models:
        rows.append([
            m.id, ", ".join(a for a in m.aliases if a != m.id) or "-", m.product_name, m.architecture,
            f"{m.memory_total_mib} MiB", str(m.multiprocessors if m.multiprocessors is not None else "?"),
            f"{len(m.profiles)} profiles" if m.mig_supported else "no", _modes(m), _model_unverified(m),
        ])
    out += _rows(rows)
    for m in catalog.models:
        if not m.mig_supported:
            continue
        numbers = estimated_profile_numbers(m)
        full = "the full GPU and every placement" if m.full_gpu_with_mig else "placements only, no full GPU"
        out += ["", f"{m.id} ({m.product_name}): {m.mig_memory_slices} memory slices, {m.mig_compute_slices} "
                    f"compute slices; mig-dynamic publishes {m.mig_placements_per_gpu} MIG devices per GPU ({full})"]
        prow: list[list[str]] = [["PROFILE", "GI", "MEMORY", "SLICES", "SMS", "CE", "DEC", "ENC", "JPG", "OFA",
                                  "MAX", "PLACEMENTS", "VERIFIED"]]
        for p in m.profiles:
            values, estimated = numbers[p.name]

            def cell(cap: str, suffix: str = "", values: dict[str, int] = values,
                     estimated: frozenset[str] = estimated) -> str:
                return f"{values[cap]}{suffix}" + ("*" if cap in estimated else "")

            missing = [f for f in (*PROFILE_FIELDS, "placements") if not p.is_verified(f)]
            prow.append([
                p.name, str(p.gi_profile_id), cell("memory", " MiB"), str(p.memory_slices), cell("multiprocessors"),
                cell("copyEngines"), cell("decoders"), cell("encoders"), cell("jpegEngines"), cell("ofaEngines"),
                str(p.max_instances), f"{p.placement_size}@{','.join(map(str, p.placement_starts))}",
                ("no: " + ", ".join(missing)) if missing else "yes",
            ])
        out += _rows(prow, indent="  ")
    out += ["", "* estimated: the catalog has no value (see drasim.fleet.generate for the rules)"]
    return "\n".join(out) + "\n"
