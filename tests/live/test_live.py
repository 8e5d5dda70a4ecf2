"""sources/live.py against a fake API server: three kinds of cluster, paging, kubeconfigs, and clear errors."""

from __future__ import annotations

import socket
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import yaml
from apiserver import TOKEN, FakeApiServer, Route, kubeconfig_doc, status

from drasim.api import core
from drasim.api import resource as r
from drasim.sources.live import ClusterAccessError, connect, load_kubeconfig, read_cluster

Start = Callable[..., FakeApiServer]
Write = Callable[..., str]


def kinds(objects: Sequence[object]) -> Counter[str]:
    return Counter(type(o).__name__ for o in objects)


def test_136_cluster_reads_v1_and_taint_rules_in_v1beta2(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136")
    snap = read_cluster(write_kubeconfig(server.url))
    assert snap.server_version == "v1.36.1"
    assert snap.resource_versions == ("v1", "v1beta2", "v1beta1")
    # 1.36 has no v1 DeviceTaintRule: the newest version serving it is v1beta2.
    assert snap.read_versions["ResourceSlice"] == "resource.k8s.io/v1"
    assert snap.read_versions["DeviceTaintRule"] == "resource.k8s.io/v1beta2"
    assert kinds(snap.objects) == {"Namespace": 6, "Node": 3, "DeviceClass": 2, "ResourceSlice": 3,
                                   "DeviceTaintRule": 1, "ResourceClaimTemplate": 1, "ResourceClaim": 2, "Pod": 2}
    assert all(o.api_version == "resource.k8s.io/v1" for o in snap.objects if isinstance(o, r.DeviceTaintRule))
    # Only pods that reference claims are kept (coredns is not).
    assert sorted(o.metadata.name for o in snap.objects if isinstance(o, core.Pod)) == ["train-0", "train-1"]
    assert snap.warnings == []
    assert str(snap.source).startswith("context test (http://127.0.0.1:")
    assert all(req.headers.get("authorization") == f"Bearer {TOKEN}" for req in server.requests)
    assert "/apis/resource.k8s.io/v1beta1/resourceslices" not in server.paths()


def test_lists_are_paged_with_limit_and_continue(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136")
    whole = read_cluster(write_kubeconfig(server.url))
    paged_server = apiserver("k136")
    paged = read_cluster(write_kubeconfig(paged_server.url), page_size=1)
    assert paged.objects == whole.objects
    slice_calls = [q for q in paged_server.requests if q.path == "/apis/resource.k8s.io/v1/resourceslices"]
    assert [c.query.get("continue") for c in slice_calls] == [None, ["1"], ["2"]]
    assert all(c.query["limit"] == ["1"] for c in slice_calls)


def test_132_cluster_is_read_in_v1beta1_and_converted(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k132")
    snap = read_cluster(write_kubeconfig(server.url))
    assert snap.server_version == "v1.32.4"
    assert snap.resource_versions == ("v1beta1",)
    assert snap.read_versions["ResourceClaim"] == "resource.k8s.io/v1beta1"
    assert "DeviceTaintRule" not in snap.read_versions
    slc = next(o for o in snap.objects if isinstance(o, r.ResourceSlice))
    assert slc.api_version == "resource.k8s.io/v1"
    # v1beta1 `devices[].basic` lifted onto the device.
    assert slc.spec.devices[0].attributes["productName"].string == "NVIDIA H100 80GB HBM3"
    assert str(slc.spec.devices[0].capacity["memory"].value) == "81559Mi"
    claim = next(o for o in snap.objects if isinstance(o, r.ResourceClaim))
    # v1beta1 flattened request fields become `exactly`.
    exactly = claim.spec.devices.requests[0].exactly
    assert exactly is not None and exactly.device_class_name == "gpu.nvidia.com" and exactly.count == 1
    assert claim.status is not None and claim.status.allocation is not None
    template = next(o for o in snap.objects if isinstance(o, r.ResourceClaimTemplate))
    assert template.spec.spec.devices.requests[0].exactly is not None
    assert all(p.startswith(("/version", "/apis", "/api/v1")) for p in server.paths())
    assert not any("/v1/" in p and "resource.k8s.io" in p for p in server.paths())


def test_cluster_without_dra_reads_core_objects_only(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("nodra")
    snap = read_cluster(write_kubeconfig(server.url))
    assert snap.server_version == "v1.33.5-eks-113cf36"
    assert snap.resource_versions == ()
    assert kinds(snap.objects) == {"Namespace": 2, "Node": 1}
    assert not any(p.startswith("/apis/resource.k8s.io") for p in server.paths())


def test_an_object_drasim_cannot_read_is_left_out_with_a_warning(apiserver: Start, write_kubeconfig: Write) -> None:
    fixture = Path(__file__).parent / "fixtures/k136/apis/resource.k8s.io/v1/resourceslices.json"
    doc = yaml.safe_load(fixture.read_text())
    doc["items"][1]["spec"]["devices"][0]["bogusField"] = True
    server = apiserver("k136", routes={"/apis/resource.k8s.io/v1/resourceslices": Route(200, doc)})
    snap = read_cluster(write_kubeconfig(server.url))
    assert kinds(snap.objects)["ResourceSlice"] == 2
    assert len(snap.warnings) == 1
    assert "ResourceSlice/gpu-node-2-gpu.nvidia.com-8d2mf" in snap.warnings[0]
    assert 'unknown field "bogusField"' in snap.warnings[0]


# --- errors ----------------------------------------------------------------------------------------

def test_forbidden_list_names_the_resource_and_what_to_check(apiserver: Start, write_kubeconfig: Write) -> None:
    message = ('resourceclaims.resource.k8s.io is forbidden: User "system:serviceaccount:default:viewer" cannot '
               'list resource "resourceclaims" in API group "resource.k8s.io" at the cluster scope')
    route = Route(403, status(403, "Forbidden", message, group="resource.k8s.io", kind="resourceclaims"))
    server = apiserver("k136", routes={"/apis/resource.k8s.io/v1/resourceclaims": route})
    with pytest.raises(ClusterAccessError) as err:
        read_cluster(write_kubeconfig(server.url))
    text = str(err.value)
    assert err.value.exit_code == 2
    assert "not allowed to read resourceclaims.resource.k8s.io (403 Forbidden)" in text
    assert message in text
    assert "kubectl auth can-i list resourceclaims.resource.k8s.io --all-namespaces" in text
    assert "context test" in text


def test_rejected_credentials(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136")
    with pytest.raises(ClusterAccessError, match=r"rejected the credentials \(401 Unauthorized\) while reading "
                                                 r"the server version.*context test"):
        read_cluster(write_kubeconfig(server.url, token="expired"))


def test_connection_refused(write_kubeconfig: Write) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ClusterAccessError) as err:
        read_cluster(write_kubeconfig(f"http://127.0.0.1:{port}"), timeout=2)
    assert err.value.exit_code == 2
    assert f"cannot connect to the API server at http://127.0.0.1:{port} (context test)" in str(err.value)
    assert "kubectl --context test cluster-info" in str(err.value)


def test_timeout(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136", routes={"/apis": Route(200, {"kind": "APIGroupList", "groups": []}, delay=1.0)})
    with pytest.raises(ClusterAccessError, match=r"timed out after 0.2s reading API discovery \(GET /apis\)"):
        read_cluster(write_kubeconfig(server.url), timeout=0.2)


def test_not_a_kubernetes_server(apiserver: Start, write_kubeconfig: Write) -> None:
    html = Route(200, b"<html><body>Welcome to nginx!</body></html>", content_type="text/html")
    server = apiserver(None, routes={"/version": html})
    with pytest.raises(ClusterAccessError, match=r"GET /version did not return JSON: is http://127.0.0.1:\d+ a "
                                                 r"Kubernetes API server\?"):
        read_cluster(write_kubeconfig(server.url))


def test_server_error_is_reported_with_status_message(apiserver: Start, write_kubeconfig: Write) -> None:
    route = Route(500, status(500, "InternalError", "etcdserver: request timed out"))
    server = apiserver("k136", routes={"/api/v1/nodes": route})
    with pytest.raises(ClusterAccessError, match=r"GET /api/v1/nodes \(nodes\) failed: HTTP 500: etcdserver: "
                                                 r"request timed out"):
        read_cluster(write_kubeconfig(server.url))


def test_the_client_cannot_send_anything_but_get(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136")
    with connect(write_kubeconfig(server.url)) as client:
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            with pytest.raises(ClusterAccessError, match=f"refusing to send {method} /api/v1/nodes"):
                client._http.request(method, "/api/v1/nodes", json={})
    assert server.requests == []


# --- kubeconfig ------------------------------------------------------------------------------------

def test_missing_kubeconfig(tmp_path: Path) -> None:
    with pytest.raises(ClusterAccessError, match="kubeconfig not found: pass --kubeconfig PATH or set KUBECONFIG"):
        load_kubeconfig(str(tmp_path / "nope"))


def test_default_kubeconfig_is_home_kube_config(tmp_path: Path) -> None:
    # conftest points HOME at tmp_path/home and clears KUBECONFIG.
    with pytest.raises(ClusterAccessError) as err:
        load_kubeconfig()
    assert err.value.source == "~/.kube/config"
    config = tmp_path / "home/.kube/config"
    config.parent.mkdir(parents=True)
    config.write_text(yaml.safe_dump(kubeconfig_doc("https://10.0.0.1:6443")))
    target = load_kubeconfig().target
    assert (target.context, target.server) == ("test", "https://10.0.0.1:6443")


def test_unknown_context_lists_the_available_ones(write_kubeconfig: Write) -> None:
    path = write_kubeconfig("https://10.0.0.1:6443", context="kind-dra", current="kind-dra")
    with pytest.raises(ClusterAccessError) as err:
        load_kubeconfig(path, "prod")
    assert str(err.value) == f"{path}: context 'prod' not found in kubeconfig (contexts: kind-dra)"
    assert err.value.exit_code == 2


def test_no_current_context(write_kubeconfig: Write) -> None:
    path = write_kubeconfig("https://10.0.0.1:6443", current=None)
    with pytest.raises(ClusterAccessError, match=r"no current-context: pass --context NAME \(contexts: test\)"):
        load_kubeconfig(path)
    assert load_kubeconfig(path, "test").target.context == "test"


def test_context_pointing_at_a_missing_cluster(tmp_path: Path) -> None:
    doc = kubeconfig_doc("https://10.0.0.1:6443")
    doc["clusters"] = []
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ClusterAccessError, match="refers to cluster 'test-cluster', which the kubeconfig does not"):
        load_kubeconfig(str(path))


def test_malformed_kubeconfig(tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_text("clusters: [unclosed\n")
    with pytest.raises(ClusterAccessError, match="kubeconfig is not valid YAML"):
        load_kubeconfig(str(path))


def test_kubeconfig_env_merges_files_like_kubectl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = tmp_path / "a"
    first.write_text(yaml.safe_dump(kubeconfig_doc("https://a:6443", context="a", current="a")))
    second = tmp_path / "b"
    second.write_text(yaml.safe_dump(kubeconfig_doc("https://b:6443", context="b", current="b")))
    monkeypatch.setenv("KUBECONFIG", f"{first}:{second}")
    assert load_kubeconfig().target.server == "https://a:6443"  # current-context of the first file wins
    assert load_kubeconfig(context="b").target.server == "https://b:6443"


def test_relative_certificate_paths_resolve_against_the_kubeconfig(tmp_path: Path) -> None:
    doc = kubeconfig_doc("https://10.0.0.1:6443")
    doc["clusters"][0]["cluster"]["certificate-authority"] = "pki/ca.crt"
    path = tmp_path / "conf" / "config"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(doc))
    config = load_kubeconfig(str(path))
    assert config.cluster.certificate_authority == str(tmp_path / "conf" / "pki" / "ca.crt")


def test_missing_exec_credential_plugin(apiserver: Start, tmp_path: Path) -> None:
    server = apiserver("k136")
    doc = kubeconfig_doc(server.url, token=None)
    doc["users"][0]["user"] = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                        "command": str(tmp_path / "no-such-plugin")}}
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ClusterAccessError, match=r"getting credentials failed: .*no-such-plugin"):
        read_cluster(str(path))
    assert server.requests == []
