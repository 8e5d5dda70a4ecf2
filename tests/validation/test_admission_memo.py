"""Admission's per-(kind, apiVersion) memo of served versions and its one pass over claims for adminAccess
report what checking each object alone reports, in the same order."""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api import resource as r
from drasim.api.core import Namespace
from drasim.api.decode import decode_object
from drasim.api.profile import SIMULATED, profile_for
from drasim.validation import admission
from drasim.validation.adminaccess import check_admin_access
from drasim.validation.admission import Submitted, admit
from hypothesis_budget import examples

VERSIONS = ("resource.k8s.io/v1", "resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3",
            "")
KINDS = ("DeviceClass", "DeviceTaintRule", "ResourceClaim", "Namespace")


def _doc(kind: str, name: str, admin: bool, labelled: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {"apiVersion": "v1" if kind == "Namespace" else "resource.k8s.io/v1", "kind": kind,
                           "metadata": {"name": name}}
    if kind == "Namespace":
        doc["metadata"]["name"] = "team"
        if labelled:
            doc["metadata"]["labels"] = {"resource.kubernetes.io/admin-access": "true"}
    elif kind == "ResourceClaim":
        doc["metadata"]["namespace"] = "team" if labelled else "default"
        doc["spec"] = {"devices": {"requests": [{"name": "r", "exactly": {
            "deviceClassName": "c", **({"adminAccess": True} if admin else {})}}]}}
    elif kind == "DeviceTaintRule":
        doc["spec"] = {"taint": {"key": "k", "effect": "NoSchedule"}}
    return doc


item = st.tuples(st.sampled_from(KINDS), st.sampled_from(VERSIONS), st.booleans(), st.booleans())


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(item, max_size=8), st.sampled_from(SIMULATED))
def test_admitted_as_one_object_at_a_time(items: list[tuple[str, str, bool, bool]], version: str) -> None:
    profile = profile_for(version)

    def submitted() -> list[Submitted]:
        return [Submitted(decode_object(_doc(kind, f"o{i}", admin, labelled), source="t"), f"f{i}",
                          api if kind != "Namespace" else "v1")
                for i, (kind, api, admin, labelled) in enumerate(items)]

    together = admit(submitted(), profile, owned=True)
    # The reference: each object's version check alone (no memo), in input order.
    notes = []
    for sub in submitted():
        note = admission._version_check(
            sub.obj, sub.api_version or admission._served_version(sub.obj.KIND, profile), profile)
        if note is not None:
            notes.append((sub.source, note))
    assert [(s, f) for s, f in together.findings if f.path == "apiVersion"] == notes
    # adminAccess: the same as a pass over every object that keeps each one in turn.
    with mock.patch.object(admission, "_admin_access", _admin_access_each):
        reference = admit(submitted(), profile, owned=True)
    assert _summary(together) == _summary(reference)


def _admin_access_each(out: admission.Admission) -> None:
    namespaces = {o.metadata.name: o for o in out.objects if isinstance(o, Namespace)}
    keep = []
    for i, obj in enumerate(out.objects):
        problems = check_admin_access(obj, namespaces, strict=True) if isinstance(
            obj, r.ResourceClaim | r.ResourceClaimTemplate) else []
        if problems:
            out.findings.extend((out.sources[i], f) for f in problems)
            out.rejected.append((out.sources[i], admission._ref(obj)))
            out.rejected_written.append((out.sources[i], out.written[i]))
        else:
            keep.append(i)
    out.objects = [out.objects[i] for i in keep]
    out.sources = [out.sources[i] for i in keep]
    out.written = [out.written[i] for i in keep]


def _summary(out: admission.Admission) -> tuple[Any, ...]:
    return (out.findings, out.rejected, [admission._ref(o) for o in out.objects], out.sources,
            [admission._ref(o) for o in out.written], [(s, admission._ref(o)) for s, o in out.rejected_written])


def test_a_claim_without_the_label_is_refused() -> None:
    claim = decode_object(_doc("ResourceClaim", "c", admin=True, labelled=False), source="t")
    out = admit([Submitted(claim, "f")], profile_for(SIMULATED[-1]), owned=True)
    assert out.rejected == [("f", "ResourceClaim/default/c")] and not out.objects
