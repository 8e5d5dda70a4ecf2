"""The findings of validate, lint, doctor and explain as the one Diagnostic type (`drasim.diagnostics`), the
report envelopes their `-o json|yaml` print, and lint's SARIF 2.1.0 log."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from drasim import __version__
from drasim.diagnostics import API_VERSION, Diagnostic, ObjectReference, Severity, parse_object_ref, split_position

if TYPE_CHECKING:
    from drasim.api.profile import ReleaseProfile
    from drasim.doctor.model import Finding as DoctorFinding
    from drasim.explain import Explanation
    from drasim.lint import LintFinding
    from drasim.lint.rules import Rule
    from drasim.validation.findings import Finding

__all__ = ["diagnostics_data", "enabled_gates", "envelope", "from_doctor", "from_explanation", "from_lint",
           "from_validation", "sarif_log"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _severity(text: str) -> Severity:
    return "error" if text == "error" else "warning" if text in ("warning", "warn") else "info"


def enabled_gates(profile: ReleaseProfile) -> list[str]:
    """The DRA feature gates the API server of `profile` has on (a report's `featureGates`)."""
    from drasim.api.gates import GATE_NAMES

    features = profile.validation_features()
    return [gate for flag, gate in GATE_NAMES.items() if getattr(features, flag)]


def from_validation(f: Finding, source: str | None) -> Diagnostic:
    """An API validation finding; its code is the API server's error type (`FieldValueInvalid`)."""
    code = "Message" if f.type == "Message" else f"FieldValue{f.type}"
    where, ref = split_position(f.obj)  # a document that did not decode: `document 3 Pod/ml/p`
    return Diagnostic(severity=_severity(f.severity), code=code, message=f"{f.body()} ({where})" if where else f.body(),
                      file=source, object=parse_object_ref(ref), field=f.path or None)


def from_lint(f: LintFinding, rules: Mapping[str, Rule] | None = None) -> Diagnostic:
    """A lint finding; its code is the rule id and its hint why the rule matters."""
    rule = (rules or {}).get(f.rule)
    where, ref = split_position(f.obj)
    return Diagnostic(severity=_severity(f.severity), code=f.rule, message=f"{f.message} ({where})" if where
                      else f.message, file=f.source, object=parse_object_ref(ref), field=f.path or None,
                      hint=rule.why if rule else None)


def from_doctor(f: DoctorFinding, source: str | None = None) -> Diagnostic:
    """A doctor check (`ok` checks are `info`); details are kept."""
    return Diagnostic(severity=_severity(f.severity), code=f.id, message=f.message, file=source,
                      object=parse_object_ref(f.obj), details=list(f.details))


def from_explanation(ex: Explanation) -> list[Diagnostic]:
    """An explanation's hints (per node group, with its nodes) and problems."""
    subject = _subject(ex)
    out: list[Diagnostic] = []
    seen: set[tuple[str, str]] = set()
    for group in ex.groups:
        for h in group.hints:
            if (h.code, h.message) in seen:
                continue
            seen.add((h.code, h.message))
            nodes = [n for g in ex.groups for n in g.nodes if any(x.code == h.code and x.message == h.message
                                                                  for x in g.hints)]
            out.append(Diagnostic(severity="warning", code=h.code, message=h.message, object=subject,
                                  details=[f"nodes: {', '.join(nodes)}"] if nodes else []))
    for h in ex.hints:
        if (h.code, h.message) not in seen:
            seen.add((h.code, h.message))
            out.append(Diagnostic(severity="warning", code=h.code, message=h.message, object=subject))
    out += [Diagnostic(severity="error", code="problem", message=p, object=subject) for p in ex.problems]
    return out


def _subject(ex: Explanation) -> ObjectReference | None:
    from drasim.explain.model import ClaimExplanation, PodExplanation

    key = ex.claim if isinstance(ex, ClaimExplanation) else ex.pod if isinstance(ex, PodExplanation) else None
    if not key:
        return None
    ns, _, name = key.rpartition("/")
    return ObjectReference(kind="ResourceClaim" if isinstance(ex, ClaimExplanation) else "Pod", name=name,
                           namespace=ns or None)


def diagnostics_data(diagnostics: Iterable[Diagnostic]) -> list[dict[str, Any]]:
    """JSON-ready diagnostics (fields left at their defaults are omitted)."""
    data: list[dict[str, Any]] = msgspec.to_builtins(list(diagnostics))
    return data


def envelope(kind: str, diagnostics: Sequence[Diagnostic], **fields: Any) -> dict[str, Any]:
    """A report: `apiVersion`, `kind`, the tool's own fields, the error and warning counts and the diagnostics."""
    return {"apiVersion": API_VERSION, "kind": kind, **fields,
            "errors": sum(1 for d in diagnostics if d.severity == "error"),
            "warnings": sum(1 for d in diagnostics if d.severity == "warning"),
            "diagnostics": diagnostics_data(diagnostics)}


# --- SARIF 2.1.0 ----------------------------------------------------------------------------------

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(file: str) -> str | None:
    """A file as a SARIF artifact URI: relative to the working directory when under it, else file://."""
    if file == "-" or file.startswith(("context ", "GET ")) or not os.path.exists(file):
        return None
    path = Path(file).resolve()
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_uri()


def sarif_log(diagnostics: Sequence[Diagnostic], rules: Mapping[str, Rule]) -> dict[str, Any]:
    """A minimal valid SARIF 2.1.0 log: one run of drasim lint, every rule described, one result per
    diagnostic, located by file (when it is one) and by object (a logical location)."""
    index = {rule_id: i for i, rule_id in enumerate(rules)}
    results: list[dict[str, Any]] = []
    for d in diagnostics:
        result: dict[str, Any] = {"ruleId": d.code, "level": _LEVEL[d.severity],
                                  "message": {"text": f"{d.field}: {d.message}" if d.field else d.message}}
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        location: dict[str, Any] = {}
        uri = _uri(d.file) if d.file else None
        if uri is not None:
            location["physicalLocation"] = {"artifactLocation": {"uri": uri}}
        if d.object is not None:
            location["logicalLocations"] = [{"fullyQualifiedName": str(d.object) + (f".{d.field}" if d.field else ""),
                                             "name": d.object.name, "kind": "object"}]
        if location:
            result["locations"] = [location]
        results.append(result)
    driver_rules = [{"id": r.id, "name": r.id, "shortDescription": {"text": r.what}, "fullDescription": {"text": r.why},
                     "defaultConfiguration": {"level": "error" if r.severity == "error" else "warning"}}
                    for r in rules.values()]
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "drasim", "version": __version__, "semanticVersion": __version__,
                                          "rules": driver_rules}},
                      "results": results}]}
