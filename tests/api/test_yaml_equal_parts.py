"""YAML of objects whose equal parts (labels, owners, conditions, allocation node selectors) are written once
is the plain dump of each object's wire form."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.api.decode import decode_documents
from drasim.api.encode import encode_object, yaml_documents, yaml_objects

# Few values, so equal parts are common; "1"/"true" strings beside ints and booleans, so equal-looking parts
# of other types are met too.
_WORD = st.sampled_from(["a", "b", "1", "true", "web-0"])
_LABELS = st.dictionaries(st.sampled_from(["app", "tier", "x"]), _WORD, max_size=2)
_OWNER = st.fixed_dictionaries({"apiVersion": st.just("apps/v1"), "kind": st.just("ReplicaSet"), "name": _WORD,
                                "uid": _WORD}, optional={"controller": st.booleans()})
_CONDITION = st.fixed_dictionaries({"type": st.just("PodScheduled"), "status": st.sampled_from(["True", "False"])},
                                   optional={"reason": _WORD})
_SELECTOR = st.fixed_dictionaries({"nodeSelectorTerms": st.lists(st.fixed_dictionaries({"matchFields": st.lists(
    st.fixed_dictionaries({"key": st.just("metadata.name"), "operator": st.just("In"),
                           "values": st.lists(_WORD, min_size=1, max_size=2)}), min_size=1, max_size=1)}),
    min_size=1, max_size=1)})


def _pod(i: int, labels: dict[str, str], owners: list[dict[str, Any]], conditions: list[dict[str, Any]]
         ) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "default", "labels": labels, "ownerReferences": owners},
            "spec": {"containers": [{"name": "c", "image": "i"}]}, "status": {"conditions": conditions}}


def _claim(i: int, selector: dict[str, Any] | None) -> dict[str, Any]:
    status = {"allocation": {"devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": "x"}]},
                             **({"nodeSelector": selector} if selector else {})}}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"c{i}", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "k"}}]}}, "status": status}


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=60)
@given(st.lists(st.tuples(_LABELS, st.lists(_OWNER, max_size=1), st.lists(_CONDITION, max_size=1)), max_size=6),
       st.lists(st.one_of(st.none(), _SELECTOR), max_size=6))
def test_equal_parts_print_the_plain_bytes(pods: list[Any], claims: list[Any]) -> None:
    docs = [_pod(i, *p) for i, p in enumerate(pods)] + [_claim(i, s) for i, s in enumerate(claims)]
    objs = decode_documents(docs, source="test").objects
    assert len(objs) == len(docs)
    assert yaml_objects(objs) == yaml_documents([encode_object(o) for o in objs])
