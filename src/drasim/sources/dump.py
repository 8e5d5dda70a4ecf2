"""Dump directories: a cluster's DRA objects plus cluster-info.yaml, written atomically, read back offline."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, Literal

import yaml

from drasim import __version__
from drasim.api.encode import to_json, to_yaml
from drasim.api.kinds import KubeObject
from drasim.api.profile import SIMULATED, ReleaseProfile, parse_minor
from drasim.cluster.snapshot import ClusterSnapshot
from drasim.errors import InputError
from drasim.sources.files import EXTENSIONS, AliasBudget, decode_text, input_files, load_bytes, parse_yaml, read_input
from drasim.sources.outdir import MARKER, write_files
from drasim.validation.admission import Submitted, admit

__all__ = ["CLUSTER_INFO", "DUMP_FILES", "INFO_API_VERSION", "INFO_KIND", "admit_snapshot", "read_dump",
           "write_dump"]

CLUSTER_INFO = "cluster-info.yaml"
# cluster-info.yaml is an object of drasim's own kind: other commands reading the directory with `load_paths`
# skip it (with a warning naming the kind) instead of failing on a document without apiVersion/kind.
INFO_API_VERSION = "drasim.dev/v1alpha1"
INFO_KIND = "ClusterInfo"
# kind -> file stem, in the order written (cluster-scoped first, then what refers to it).
DUMP_FILES = {
    "Namespace": "namespaces", "Node": "nodes", "DeviceClass": "deviceclasses", "ResourceSlice": "resourceslices",
    "DeviceTaintRule": "devicetaintrules", "ResourceClaimTemplate": "resourceclaimtemplates",
    "ResourceClaim": "resourceclaims", "Pod": "pods",
}

Format = Literal["yaml", "json"]


def _info(snapshot: ClusterSnapshot) -> dict[str, Any]:
    counts = Counter(o.kind for o in snapshot.objects)
    return {
        "apiVersion": INFO_API_VERSION,
        "kind": INFO_KIND,
        "metadata": {"name": "cluster-info"},
        "source": snapshot.source,
        "serverVersion": snapshot.server_version,
        "kubernetesVersion": parse_minor(snapshot.server_version),
        "resourceVersions": list(snapshot.resource_versions) if snapshot.resource_versions is not None else None,
        "readVersions": dict(snapshot.read_versions),
        "objects": {kind: counts.get(kind, 0) for kind in DUMP_FILES if kind in snapshot.read_versions
                    or counts.get(kind)},
        "warnings": list(snapshot.warnings),
        "drasimVersion": __version__,
    }


def _sort_key(obj: KubeObject) -> tuple[str, str]:
    return obj.metadata.namespace or "", obj.metadata.name


def write_dump(snapshot: ClusterSnapshot, directory: str, *, fmt: Format = "yaml",
               overwrite: bool = False) -> list[str]:
    """Write `snapshot` to `directory`: one file per kind (`resourceslices.yaml`...) and cluster-info.yaml.

    Every file is complete before it appears (temporary file + rename); the directory's `.drasim-files`
    marker names them. An existing directory must be empty, or an earlier drasim output and `overwrite`
    given: then only drasim's own files are replaced or removed (see `outdir.write_files`).
    Returns the file names written (relative to `directory`). Raises InputError.
    """
    try:
        by_kind: dict[str, list[KubeObject]] = {}
        for obj in snapshot.objects:
            by_kind.setdefault(obj.kind, []).append(obj)
        files: dict[str, bytes] = {}
        header = "# Written by `drasim dump`: the cluster's version and API profile (objects: the other files).\n"
        files[CLUSTER_INFO] = (header + yaml.safe_dump(_info(snapshot), sort_keys=False,
                                                       default_flow_style=False)).encode("utf-8")
        for kind, stem in DUMP_FILES.items():
            objs = sorted(by_kind.get(kind, []), key=_sort_key)
            if objs:
                text = to_json(objs, as_list=True) + b"\n" if fmt == "json" else to_yaml(objs).encode("utf-8")
                files[f"{stem}.{fmt}"] = text
    except OSError as exc:
        raise InputError(f"cannot write the dump: {exc.strerror or exc}", source=directory) from None
    return write_files(directory, files, overwrite=overwrite, command="drasim dump")


def _read_info(path: str) -> dict[str, Any]:
    docs = [d for d in parse_yaml(decode_text(read_input(path, named=False), source=path), source=path)
            if d is not None]
    data = docs[0] if len(docs) == 1 else None
    if not isinstance(data, dict) or data.get("kind") != INFO_KIND:
        raise InputError(f"not a drasim cluster-info file (expected kind: {INFO_KIND})", source=path)
    return data


def _str_list(value: Any, path: str, key: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("expected a list of strings", source=path, path=key)
    return tuple(value)


def read_dump(directory: str) -> ClusterSnapshot:
    """Read a dump directory (or any directory of manifests) back into a snapshot.

    Files other than `.yaml/.yml/.json`, and manifests that are not Kubernetes objects drasim reads, are
    skipped with a warning; a dump's own files (`resourceslices.yaml`...) must decode, or InputError says why.
    Without cluster-info.yaml the server version and API versions are unknown.
    """
    if not os.path.exists(directory):
        raise InputError("no such directory", source=directory)
    if not os.path.isdir(directory):
        raise InputError("not a directory (expected a `drasim dump` output directory)", source=directory)
    info_path = os.path.join(directory, CLUSTER_INFO)
    warnings: list[str] = []
    info: dict[str, Any] = {}
    if os.path.isfile(info_path):  # without it the doctor reports the version as unknown
        info = _read_info(info_path)
    own = {f"{stem}{ext}" for stem in DUMP_FILES.values() for ext in EXTENSIONS}
    objects: list[KubeObject] = []
    sources: list[str] = []
    api_versions: list[str] = []
    unserved: list[tuple[str, str, str, str]] = []
    budget = AliasBudget()
    paths, skipped = input_files(directory, extensions=(), hidden=False)
    warnings.extend(skipped)
    for path in paths:
        if os.path.abspath(path) == os.path.abspath(info_path):
            continue
        if os.path.basename(path) == MARKER and os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory):
            continue  # drasim's own list of the files it wrote
        if not path.lower().endswith(EXTENSIONS):
            warnings.append(f"{path}: skipped: not a .yaml/.yml/.json file")
            continue
        data = read_input(path, named=False)  # unreadable is an error, not a skip: the dump would be silently partial
        is_own = os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory) and os.path.basename(path) in own
        try:
            # A document that does not decode is skipped alone (as kubectl apply goes on), except in the dump's
            # own files, which drasim wrote: one failing there means the dump is damaged.
            result = load_bytes(data, source=path, json=path.lower().endswith(".json") or None, budget=budget,
                                keep_going=not is_own)
        except InputError as exc:
            if is_own:
                raise
            warnings.append(f"{path}: skipped: not Kubernetes objects drasim reads ({exc})")
            continue
        warnings += [f"{path}: skipped: not Kubernetes objects drasim reads ({err})" for err in result.errors]
        objects.extend(result.objects)
        sources.extend([path] * len(result.objects))
        api_versions.extend(result.api_versions)
        unserved.extend((path, *u) for u in result.unserved)
        warnings.extend(result.warnings)
    read_versions = info.get("readVersions") or {}
    if not isinstance(read_versions, dict):
        raise InputError("expected a mapping", source=info_path, path="readVersions")
    server_version = info.get("serverVersion")
    source = f"dump {directory}" + (f" of {info['source']}" if isinstance(info.get("source"), str) else "")
    recorded = _str_list(info.get("warnings"), info_path, "warnings") or ()
    return ClusterSnapshot(
        objects=objects,
        server_version=server_version if isinstance(server_version, str) else None,
        resource_versions=_str_list(info.get("resourceVersions"), info_path, "resourceVersions"),
        read_versions={str(k): str(v) for k, v in read_versions.items()},
        source=source,
        warnings=[*recorded, *warnings],
        sources=sources,
        api_versions=api_versions,
        unserved=unserved,
    )


def admit_snapshot(snapshot: ClusterSnapshot, profile: ReleaseProfile) -> None:
    """Pass a dump's objects through admission (`validation.admission`) for `profile`, as every command reads its
    inputs: what that API server would reject is left out and listed in `snapshot.rejected`, its warnings
    in `admission_warnings`. A dump that records the versions its cluster served was listed in them: those
    are not checked again; nor are versions before 1.34 (no GA version then)."""
    check_versions = snapshot.resource_versions is None and profile.version in SIMULATED
    if profile.version in SIMULATED:  # no such release serves them: rejected as it would
        unserved = snapshot.unserved
    else:  # older releases served classic DRA (v1alpha2), which drasim does not read
        unserved = []
        snapshot.warnings += [f"{src}: {ref}: skipped: drasim does not read {version} {kind}"
                              for src, ref, version, kind in snapshot.unserved]
    items = [Submitted(o, src, v) for o, src, v in
             zip(snapshot.objects, snapshot.sources, snapshot.api_versions, strict=True)]
    # The snapshot's objects are handed over (it takes the admitted ones in their place).
    admission = admit(items, profile, unserved=unserved, check_versions=check_versions, owned=True)
    snapshot.objects = list(admission.objects)
    snapshot.sources = list(admission.sources)
    snapshot.api_versions = []  # no longer parallel: admission replaced duplicates
    snapshot.unserved = []
    snapshot.rejected = [f"{src}: {f.obj}: {f}" for src, f in admission.errors()]
    snapshot.admission_warnings = [f"{src}: {f.obj}: {f}" for src, f in admission.warnings()]
    snapshot.admitted_as = profile.describe() + ("" if parse_minor(snapshot.server_version) else
                                                 " (assumed: the dump does not say; see --kubernetes-version)")
