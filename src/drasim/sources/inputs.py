"""Manifests as every command reads them: files, directories and stdin decoded, then admitted for a release
profile (validation.admission), with the Timelines among them (their objects admitted too)."""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import IO, TYPE_CHECKING, Any

from drasim.api.meta import object_ref
from drasim.api.profile import ReleaseProfile
from drasim.errors import DrasimError, InputError, RejectedError
from drasim.sources.files import (
    LoadResult,
    input_files,
    load_bytes,
    load_paths,
    read_stream,
)
from drasim.validation.admission import Admission, Submitted, admit
from drasim.validation.findings import Finding

if TYPE_CHECKING:
    from drasim.cluster.snapshot import ClusterSnapshot
    from drasim.sim.timeline import Apply, Timeline

# drasim.sim.timeline and drasim.controllers (the simulation's modules, a quarter of `drasim validate`'s imports)
# are imported where Timelines or a simulation's errors are handled: commands that read no Timeline never need them.

__all__ = ["Inputs", "admit_loaded", "read_inputs", "set_namespace"]


@dataclass
class Inputs:
    """The admitted objects (what a cluster of the profile would hold), the admission's findings, the
    loader's warnings and the Timelines (apply actions hold admitted objects only)."""

    admission: Admission
    load_warnings: list[str] = field(default_factory=list)
    timelines: list[Timeline] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    # Documents that could not be read (also among the admission's rejections): the command goes on without
    # them, as `kubectl apply` does, and exits non-zero at the end (`raise_unreadable`).
    unreadable: list[InputError] = field(default_factory=list)
    release: ReleaseProfile | None = None  # the profile the inputs were admitted for

    def raise_unreadable(self) -> None:
        """Raise an InputError (exit 2) when documents could not be read: commands call it at their end,
        after reporting everything else (each document is listed with the rejections)."""
        if not self.unreadable:
            return
        first = self.unreadable[0]
        if len(self.unreadable) == 1:
            raise InputError(first.message, source=first.source, obj=first.obj, path=first.path)
        raise InputError(f"{len(self.unreadable)} documents could not be read and were left out (each is listed "
                         f"with the rejections; the first: {first})")

    def raise_refused(self) -> None:
        """Raise an InputError (exit 2) when any input was refused: a document that does not decode or an object
        the API server would reject at admission. Commands call it at their end, after answering with the rest
        (each refusal is listed with its file, object and field path), as `kubectl apply -f` goes on past one."""
        if len(self.admission.rejected) <= len(self.unreadable):
            self.raise_unreadable()  # every refusal is a document that did not decode
            return
        lines = self.rejection_lines()
        if len(self.admission.rejected) == 1 and lines:
            more = f" (and {len(lines) - 1} more finding(s) on it, listed above)" if len(lines) > 1 else ""
            raise RejectedError(f"rejected at admission and left out: {lines[0]}{more}")
        raise RejectedError(f"{len(self.admission.rejected)} objects were rejected at admission and left out (each is "
                         f"listed above; the first: {lines[0] if lines else self.admission.rejected[0][1]})")

    @property
    def objects(self) -> list[Any]:
        return self.admission.objects

    @property
    def sources(self) -> list[str]:
        return self.admission.sources

    def locate(self, err: DrasimError) -> DrasimError:
        """`err` with the file of the input object it names, when it names no file (errors the simulation
        raises about an object, such as a workload beyond the scale limit, know the object only)."""
        if err.source is not None or err.obj is None:
            return err
        from drasim.controllers.events import ref

        source = next((s for o, s in zip(self.objects, self.sources, strict=True) if ref(o) == err.obj), None)
        if source is None:
            return err
        located = copy.copy(err)
        located.source = source
        return located

    def warning_lines(self) -> list[str]:
        """Loader warnings and admission warnings, one sentence each, as commands print them on stderr."""
        out = [w for w in self.load_warnings if "Timeline" not in w]
        out += [_line(source, f) for source, f in self.admission.warnings()]
        return out

    def rejection_lines(self) -> list[str]:
        """`FILE: KIND/NS/NAME: PATH: MESSAGE` for everything the API server would reject."""
        return [_line(source, f) for source, f in self.admission.errors()]

    def notes(self) -> list[str]:
        """Warnings and rejections, one line each, as commands that simulate first print them on stderr."""
        return [*(f"warning: {w}" for w in self.warning_lines()),
                *(f"rejected at admission: {line}" for line in self.rejection_lines())]


def _line(source: str, f: Finding) -> str:
    return f"{source}: {f.obj}: {f}"


def admit_loaded(loaded: LoadResult, profile: ReleaseProfile, *, check_versions: bool = True,
                 live: Sequence[Any] = ()) -> Admission:
    """Admit the objects of a live cluster (`live`, as its server served them), then what `load_paths` read
    (handed over: admission defaults those objects in place)."""
    items = [Submitted(o, s, v) for o, s, v in zip(loaded.objects, loaded.sources, loaded.api_versions, strict=True)]
    return admit([*live, *items], profile, unserved=loaded.unserved, check_versions=check_versions, owned=True,
                 unreadable=loaded.errors)


# Where a Timeline's `file:` may point, named after kustomize's --load-restrictor values: its own folder and
# below (the default: a manifest from someone else must not make drasim read any file), or anywhere.
ROOT_ONLY = "LoadRestrictionsRootOnly"
LOAD_RESTRICTORS = (ROOT_ONLY, "LoadRestrictionsNone")


def read_inputs(paths: Sequence[str], profile: ReleaseProfile, *, stdin: IO[Any] | None = None,
                timelines: bool = False, check_versions: bool = True, namespace: str | None = None,
                cluster: ClusterSnapshot | None = None, load_restrictor: str = ROOT_ONLY) -> Inputs:
    """Read `paths` (files, directories, `-` for stdin) and admit the objects for `profile`. With
    `timelines`, Timeline documents are parsed too and the objects they apply admitted alongside.

    `namespace` (kubectl's -n) goes to namespaced objects of the files that name none; a file naming another
    namespace is an error, as with `kubectl apply -n`. `cluster` (a live snapshot) is admitted first, so the
    files are applied on top of it: an object in both is the file's, with the duplicate warning.
    `load_restrictor` (LOAD_RESTRICTORS): whether a Timeline's `file:` may leave the Timeline's folder."""
    stdin_bytes: bytes | None = None
    if "-" in paths:
        stdin_bytes = read_stream(stdin if stdin is not None else sys.stdin.buffer, source="-")
    loaded = load_paths([p for p in paths if p != "-"], keep_going=True)
    if stdin_bytes is not None:
        loaded.add(load_bytes(stdin_bytes, source="-", keep_going=True), "-")
    if namespace is not None:
        set_namespace(loaded.objects, loaded.sources, namespace)
    live = [Submitted(o, cluster.source, live=True) for o in cluster.objects] if cluster is not None else []
    if cluster is not None:
        loaded.warnings[:0] = cluster.warnings
    if load_restrictor not in LOAD_RESTRICTORS:
        raise InputError(f"load restrictor {load_restrictor!r} is not one of {', '.join(LOAD_RESTRICTORS)}")
    found = _timelines(loaded, restricted=load_restrictor == ROOT_ONLY) if timelines else []
    admission = admit_loaded(loaded, profile, check_versions=check_versions, live=live)
    if found and namespace is not None:
        from drasim.sim.timeline import Apply

        for timeline in found:  # a Timeline's objects are applied with the same -n
            for ev in timeline.events:
                if isinstance(ev.action, Apply):
                    set_namespace(ev.action.objects, [timeline.source] * len(ev.action.objects), namespace)
    if found:
        found = _admit_timelines(found, admission, profile)
    files = sorted(set(loaded.sources) | {e.source for e in loaded.errors if e.source})
    return Inputs(admission, list(loaded.warnings), found, files, list(loaded.errors), profile)


def set_namespace(objects: Sequence[Any], sources: Sequence[str], namespace: str) -> None:
    """kubectl apply -n: namespaced objects without a namespace get `namespace`; another one is an error."""
    for obj, source in zip(objects, sources, strict=True):
        if not getattr(obj, "NAMESPACED", False):
            continue
        meta = obj.metadata
        if not meta.namespace:
            meta.namespace = namespace
        elif meta.namespace != namespace:
            raise InputError(f'the namespace from the provided object "{meta.namespace}" does not match the '
                             f'namespace "{namespace}". You must pass \'--namespace={meta.namespace}\' to perform '
                             "this operation.", source=source, obj=object_ref(obj.KIND, meta))


def _timelines(loaded: LoadResult, *, restricted: bool = True) -> list[Timeline]:
    """The Timeline documents the loader set aside (drasim's own documents), with `file:` references loaded.
    A Timeline that cannot be read is added to the load's errors (like any other document) and left out."""
    from drasim.sim.timeline import is_timeline, parse_timeline, resolve_files

    found: list[Timeline] = []
    for source, where, doc in loaded.own:
        if not is_timeline(doc):
            continue
        try:
            timeline = parse_timeline(doc, source=source, where=where)
            if restricted:
                _check_timeline_files(timeline)
            found.append(resolve_files(timeline, partial(_load_apply, _folder(timeline))))
        except InputError as err:
            loaded.errors.append(err)
    return found


def _load_apply(folder: str, name: str) -> Apply:
    """The objects of a Timeline's `file:` `name` in `folder` (with their apiVersions and unserved documents,
    for admission)."""
    from drasim.sim.timeline import Apply

    loaded = load_paths([os.path.join(folder, name)], named=False)  # the Timeline's author named it: no pipes
    return Apply(objects=tuple(loaded.objects), api_versions=tuple(loaded.api_versions),
                 unserved=tuple(u[1:] for u in loaded.unserved))


def _check_timeline_files(timeline: Timeline) -> None:
    """Refuse a `file:` that resolves outside the folder of the Timeline naming it (`../`, an absolute path,
    a symbolic link out of it, or such a link inside a folder it names): a manifest from someone else must
    not make drasim read any file on the machine."""
    from drasim.sim.timeline import Apply

    base = _folder(timeline)
    root = os.path.realpath(base or ".")
    for ev in timeline.events:
        if not (isinstance(ev.action, Apply) and ev.action.file is not None and not ev.action.objects):
            continue
        name = ev.action.file
        path = os.path.join(base, name)
        targets = [path]
        if not os.path.isabs(name) and os.path.isdir(path) and _inside(root, os.path.realpath(path)):
            targets += input_files(path)[0]
        for target in targets:
            if os.path.isabs(name) or not _inside(root, os.path.realpath(target)):
                what = "" if target == path else f" (its entry {os.path.relpath(target, base or '.')!r} links there)"
                raise InputError(f"file {name!r} is outside {base or '.'!r}, the folder of this Timeline{what}: "
                                 "a Timeline applies only files in its own folder or below (with --load-restrictor "
                                 f"{ROOT_ONLY}, the default; {LOAD_RESTRICTORS[1]} allows any file)",
                                 source=timeline.source, obj=timeline.ref, path=f"{ev.path}.file")


def _folder(timeline: Timeline) -> str:
    """The folder a Timeline's `file:` names are relative to ("" for stdin: the working directory)."""
    return os.path.dirname(timeline.source) if timeline.source not in ("", "-") else ""


def _inside(root: str, real: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _admit_timelines(timelines: list[Timeline], admission: Admission, profile: ReleaseProfile) -> list[Timeline]:
    """Each apply action's objects through the admission every input gets (the apiVersion each was written
    in, defaulting, validation with the profile's gates; namespaces looked up among the inputs too): what
    the API server would reject is reported with the inputs' rejections and never applied."""
    from drasim.api.core import Namespace
    from drasim.sim.timeline import Apply, Timeline

    namespaces = [o for o in admission.objects if isinstance(o, Namespace)]
    out = []
    for timeline in timelines:
        events = []
        for ev in timeline.events:
            if isinstance(ev.action, Apply) and (ev.action.objects or ev.action.unserved):
                action = ev.action
                source = f"{timeline.source}: {timeline.ref} {ev.path}"
                items = [Submitted(ns, "", "") for ns in namespaces]
                versions = action.api_versions or ("",) * len(action.objects)
                items += [Submitted(o, source, v) for o, v in zip(action.objects, versions, strict=True)]
                result = admit(items, profile, unserved=[(source, *u) for u in action.unserved],
                               owned=True)  # fresh from the timeline's file
                admission.findings += [(s, f) for s, f in result.findings if s == source]
                admission.rejected += [(s, ref) for s, ref in result.rejected if s == source]
                kept = tuple(o for o, s in zip(result.objects, result.sources, strict=True) if s == source)
                # An action whose objects were all refused applies nothing (its file was read: no `file` left).
                ev = replace(ev, action=replace(action, objects=kept, api_versions=(), unserved=(),
                                                file=action.file if kept else None))
            events.append(ev)
        out.append(Timeline(name=timeline.name, source=timeline.source, events=events))
    return out
