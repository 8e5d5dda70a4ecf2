"""Integer fields decode with their Go types' ranges (int64, int32), refused in the API server's words."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.decode import decode_json_bytes, decode_object
from drasim.api.meta import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from drasim.errors import InputError
from hypothesis_budget import examples


def _claim(n: int) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
            "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "x", "count": n}}]}}}


def _beta_claim(n: int) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "metadata": {"name": "c"},
            "spec": {"devices": {"requests": [{"name": "g", "deviceClassName": "x", "count": n}]}}}


def _slice(n: int) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": "d", "nodeName": "n", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "x", "attributes": {"a": {"int": n}}}]}}


def _deployment(n: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": n, "template": {"spec": {"containers": [{"name": "c"}]}}}}


def _job(n: int) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"parallelism": n, "template": {"spec": {"containers": [{"name": "c"}]}}}}


def _pod(n: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"priority": n, "containers": [{"name": "c"}],
                     "tolerations": [{"key": "k", "operator": "Exists", "tolerationSeconds": 1}]}}


# (document, range, path in drasim's words, the Go struct field upstream's error names, the value read back)
CASES: list[tuple[Callable[[int], dict[str, Any]], tuple[int, int], str, str, Callable[[Any], int]]] = [
    (_claim, (INT64_MIN, INT64_MAX), "spec.devices.requests[0].exactly.count",
     "ExactDeviceRequest.spec.devices.requests.exactly.count of type int64",
     lambda o: o.spec.devices.requests[0].exactly.count),
    (_beta_claim, (INT64_MIN, INT64_MAX), "spec.devices.requests[0].count",
     "DeviceRequest.spec.devices.requests.count of type int64", lambda o: o.spec.devices.requests[0].exactly.count),
    (_slice, (INT64_MIN, INT64_MAX), "spec.devices[0].attributes.a.int",
     "DeviceAttribute.spec.devices.attributes.int of type int64", lambda o: o.spec.devices[0].attributes["a"].int_),
    (_deployment, (INT32_MIN, INT32_MAX), "spec.replicas", "DeploymentSpec.spec.replicas of type int32",
     lambda o: o.spec.replicas),
    (_job, (INT32_MIN, INT32_MAX), "spec.parallelism", "JobSpec.spec.parallelism of type int32",
     lambda o: o.spec.parallelism),
    (_pod, (INT32_MIN, INT32_MAX), "spec.priority", "PodSpec.spec.priority of type int32",
     lambda o: o.spec.priority),
]


def _decode(doc: dict[str, Any], via_json: bool) -> Any:
    if via_json:  # the typed JSON decoder (v1) and the dict path must agree
        (obj,) = decode_json_bytes(json.dumps(doc).encode(), source="in.json").objects
        return obj
    return decode_object(doc, source="in.yaml")


@settings(max_examples=examples(200))
@given(case=st.sampled_from(CASES), offset=st.integers(-3, 3), low=st.booleans(), far=st.integers(0, 2**80),
       via_json=st.booleans())
def test_integers_decode_within_their_go_type_and_are_refused_past_it(
        case: Any, offset: int, low: bool, far: int, via_json: bool) -> None:
    make, (lo, hi), path, go_field, read = case
    bound = lo if low else hi
    for n in (bound + offset, bound + (-far if low else far)):
        if lo <= n <= hi:
            assert read(_decode(make(n), via_json)) == n
            continue
        with pytest.raises(InputError) as err:
            _decode(make(n), via_json)
        kind, version = make(0)["kind"], make(0)["apiVersion"].rpartition("/")[2]
        assert err.value.path == path
        assert err.value.message == (f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot '
                                     f"unmarshal number {n} into Go struct field {go_field}")


def test_the_cli_refuses_a_count_of_two_to_the_63(tmp_path: Any) -> None:
    """The issue's case: `validate` and `lint` no longer say "No problems found"; the claim is left out."""
    from click.testing import CliRunner

    from drasim.cli.main import cli

    path = tmp_path / "claim.json"
    path.write_text(json.dumps(_claim(2**63)))
    for command in ("validate", "lint", "simulate"):
        result = CliRunner().invoke(cli, [command, "-f", str(path)])
        assert isinstance(result.exception, InputError) and result.exception.exit_code == 2, command
        assert "cannot unmarshal number 9223372036854775808" in str(result.exception)
        assert "No problems found" not in result.output


@settings(max_examples=examples(100))
@given(case=st.sampled_from(CASES), value=st.floats(allow_nan=False, allow_infinity=False).filter(
    lambda f: not f.is_integer()) | st.integers(2**64, 2**70).map(float), via_json=st.booleans())
def test_a_number_that_is_not_whole_is_refused_in_the_api_servers_words(case: Any, value: float,
                                                                         via_json: bool) -> None:
    """`count: 1.5`, or a YAML integer past uint64 (a float in Go's YAML too), as the API server refuses them."""
    make, _, path, go_field, _ = case
    with pytest.raises(InputError) as err:
        _decode(make(value), via_json)  # type: ignore[arg-type]
    kind, version = make(0)["kind"], make(0)["apiVersion"].rpartition("/")[2]
    assert err.value.path == path
    assert err.value.message == (f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot '
                                 f"unmarshal number {value!r} into Go struct field {go_field}")
