"""kubeconfig as kubectl reads it: exec plugins v1/v1beta1, tls-server-name, proxy-url, insecure with a CA."""

from __future__ import annotations

import json
import shutil
import ssl
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from apiserver import TOKEN, FakeApiServer, kubeconfig_doc

from drasim.sources import kubeauth
from drasim.sources.live import ClusterAccessError, connect, load_kubeconfig, read_cluster

Start = Callable[..., FakeApiServer]
V1 = "client.authentication.k8s.io/v1"
V1BETA1 = "client.authentication.k8s.io/v1beta1"


def write_config(tmp_path: Path, doc: dict[str, Any], name: str = "config") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def plugin(tmp_path: Path, body: str, name: str = "plugin") -> str:
    script = tmp_path / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def credential(api_version: str, **status: str) -> str:
    return json.dumps({"apiVersion": api_version, "kind": "ExecCredential", "status": status})


def exec_config(tmp_path: Path, server: str, **exec_fields: Any) -> str:
    doc = kubeconfig_doc(server, token=None)
    doc["users"][0]["user"] = {"exec": exec_fields}
    return write_config(tmp_path, doc)


# --- exec plugins ----------------------------------------------------------------------------------

@pytest.mark.parametrize("api_version", [V1, V1BETA1])
def test_exec_plugin_token_is_used(api_version: str, apiserver: Start, tmp_path: Path) -> None:
    server = apiserver("k136")
    info = tmp_path / "exec-info.json"
    command = plugin(tmp_path, f"printf '%s' \"$KUBERNETES_EXEC_INFO\" > {info}\n"
                               f"echo '{credential(api_version, token=TOKEN)}'\n")
    fields: dict[str, Any] = {"apiVersion": api_version, "command": command, "provideClusterInfo": True,
                              "env": [{"name": "EXTRA", "value": "x"}]}
    if api_version == V1:
        fields["interactiveMode"] = "Never"
    snap = read_cluster(exec_config(tmp_path, server.url, **fields))
    assert snap.server_version == "v1.36.1"
    sent = json.loads(info.read_text())
    assert sent["apiVersion"] == api_version and sent["kind"] == "ExecCredential"
    assert sent["spec"]["interactive"] is False  # stdin is not a terminal under pytest
    assert sent["spec"]["cluster"]["server"] == server.url


def test_exec_v1_needs_an_interactive_mode(tmp_path: Path) -> None:
    config = exec_config(tmp_path, "http://127.0.0.1:9", apiVersion=V1, command="true")
    with pytest.raises(ClusterAccessError, match=r"users\[test-user\].user.exec.interactiveMode: interactiveMode "
                                                 "must be specified for test-user to use exec authentication plugin"):
        load_kubeconfig(config)


def test_exec_always_interactive_without_a_terminal_is_refused(tmp_path: Path) -> None:
    config = exec_config(tmp_path, "http://127.0.0.1:9", apiVersion=V1, command="true", interactiveMode="Always")
    with pytest.raises(ClusterAccessError, match="exec plugin cannot support interactive mode: standard input is "
                                                 "not a terminal"):
        connect(config)


@pytest.mark.parametrize(("fields", "message"), [
    ({"apiVersion": "client.authentication.k8s.io/v1alpha1", "command": "x"},
     'exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"'),
    ({"apiVersion": V1, "command": "x", "interactiveMode": "Sometimes"}, 'invalid interactiveMode for test-user: '
                                                                         '"Sometimes"'),
    ({"apiVersion": V1BETA1}, "command must be specified for test-user"),
])
def test_exec_configuration_errors(fields: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(ClusterAccessError, match=message):
        load_kubeconfig(exec_config(tmp_path, "http://127.0.0.1:9", **fields))


@pytest.mark.parametrize(("output", "message"), [
    (credential(V1BETA1, token="t0ken-value"), "exec plugin is configured to use API version "
                                               f"{V1}, plugin returned version {V1BETA1}"),
    (json.dumps({"apiVersion": V1, "kind": "ExecCredential"}), "exec plugin didn't return a status field"),
    (credential(V1), "exec plugin didn't return a token or cert/key pair"),
    (credential(V1, clientCertificateData="cert"), "exec plugin returned only certificate or key, not both"),
    ("not json", "decoding stdout"),
])
def test_exec_credential_checks(output: str, message: str, tmp_path: Path) -> None:
    command = plugin(tmp_path, f"cat <<'EOF'\n{output}\nEOF\n")
    config = exec_config(tmp_path, "http://127.0.0.1:9", apiVersion=V1, command=command, interactiveMode="Never")
    with pytest.raises(ClusterAccessError, match=message):
        connect(config)


@pytest.mark.parametrize(("bound", "value", "script", "message"), [
    ("EXEC_TIMEOUT", 0.5, "exec sleep 30\n", r"did not finish within 0.5s \(stopped\)"),
    ("EXEC_OUTPUT_MAX", 10_000, "exec yes drasim-output-line\n", r"printed more than 10,000 bytes \(stopped\)"),
])
def test_exec_plugins_are_bounded_in_time_and_output(bound: str, value: float, script: str, message: str,
                                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kubeauth, bound, value)
    config = exec_config(tmp_path, "http://127.0.0.1:9", apiVersion=V1BETA1, command=plugin(tmp_path, script))
    with pytest.raises(ClusterAccessError, match=message):
        connect(config)


def test_missing_plugin_says_so_with_the_install_hint(tmp_path: Path) -> None:
    config = exec_config(tmp_path, "http://127.0.0.1:9", apiVersion=V1BETA1, command=str(tmp_path / "nope"),
                         installHint="install it with: brew install nope")
    with pytest.raises(ClusterAccessError) as err:
        connect(config)
    assert f"exec: executable {tmp_path / 'nope'} not found" in str(err.value)
    assert "install it with: brew install nope" in str(err.value)


def test_relative_plugin_path_is_relative_to_the_kubeconfig(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    plugin(tmp_path / "bin", "exit 0\n")
    config = exec_config(tmp_path, "http://127.0.0.1:9", apiVersion=V1BETA1, command="bin/plugin")
    entry = load_kubeconfig(config).user.exec
    assert entry is not None and entry.command == str(tmp_path / "bin" / "plugin")


# --- TLS: tls-server-name, insecure with a CA, client certificates --------------------------------------------

@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make test certificates")
    root = tmp_path_factory.mktemp("pki")
    for name, cn in (("server", "kubernetes.test"), ("client", "drasim-user")):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", str(root / f"{name}.key"), "-out", str(root / f"{name}.crt"),
                        "-days", "2", "-subj", f"/CN={cn}", "-addext", f"subjectAltName=DNS:{cn}"],
                       check=True, capture_output=True)
    return root


def tls_server(apiserver: Start, pki: Path, *, client_ca: bool = False) -> FakeApiServer:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki / "server.crt", pki / "server.key")
    if client_ca:
        ctx.load_verify_locations(pki / "client.crt")
        ctx.verify_mode = ssl.CERT_REQUIRED
    return apiserver("k136", tls=ctx)


def tls_config(tmp_path: Path, server: FakeApiServer, pki: Path, **cluster: Any) -> str:
    doc = kubeconfig_doc(server.url)
    doc["clusters"][0]["cluster"].update({"certificate-authority": str(pki / "server.crt"), **cluster})
    return write_config(tmp_path, doc)


def test_tls_server_name_is_sent_and_checked(apiserver: Start, pki: Path, tmp_path: Path) -> None:
    server = tls_server(apiserver, pki)
    snap = read_cluster(tls_config(tmp_path, server, pki, **{"tls-server-name": "kubernetes.test"}))
    assert snap.server_version == "v1.36.1"


def test_without_tls_server_name_the_address_must_match_the_certificate(apiserver: Start, pki: Path,
                                                                        tmp_path: Path) -> None:
    server = tls_server(apiserver, pki)
    with pytest.raises(ClusterAccessError, match=r"certificate|hostname|IP address mismatch"):
        read_cluster(tls_config(tmp_path, server, pki))


def test_a_wrong_tls_server_name_fails(apiserver: Start, pki: Path, tmp_path: Path) -> None:
    server = tls_server(apiserver, pki)
    with pytest.raises(ClusterAccessError, match=r"certificate|hostname"):
        read_cluster(tls_config(tmp_path, server, pki, **{"tls-server-name": "other.test"}))


def test_insecure_with_a_ca_is_refused_as_client_go_does(apiserver: Start, pki: Path, tmp_path: Path) -> None:
    server = tls_server(apiserver, pki)
    with pytest.raises(ClusterAccessError, match=r"clusters\[test-cluster\].cluster.insecure-skip-tls-verify: "
                                                 "specifying a root certificates file with the insecure flag is not "
                                                 "allowed"):
        connect(tls_config(tmp_path, server, pki, **{"insecure-skip-tls-verify": True}))


def test_insecure_without_a_ca_connects(apiserver: Start, pki: Path, tmp_path: Path) -> None:
    server = tls_server(apiserver, pki)
    doc = kubeconfig_doc(server.url)
    doc["clusters"][0]["cluster"]["insecure-skip-tls-verify"] = True
    assert read_cluster(write_config(tmp_path, doc)).server_version == "v1.36.1"


def test_client_certificate_from_files_and_from_an_exec_plugin(apiserver: Start, pki: Path, tmp_path: Path) -> None:
    server = tls_server(apiserver, pki, client_ca=True)
    doc = kubeconfig_doc(server.url)
    doc["clusters"][0]["cluster"].update({"certificate-authority": str(pki / "server.crt"),
                                          "tls-server-name": "kubernetes.test"})
    doc["users"][0]["user"].update({"client-certificate": str(pki / "client.crt"),
                                    "client-key": str(pki / "client.key")})
    assert read_cluster(write_config(tmp_path, doc)).server_version == "v1.36.1"
    out = credential(V1, clientCertificateData=(pki / "client.crt").read_text(),
                     clientKeyData=(pki / "client.key").read_text(), token=TOKEN)
    doc["users"][0]["user"] = {"exec": {"apiVersion": V1, "interactiveMode": "Never",
                                        "command": plugin(tmp_path, f"cat <<'EOF'\n{out}\nEOF\n")}}
    assert read_cluster(write_config(tmp_path, doc, "exec-config")).server_version == "v1.36.1"


# --- proxies ---------------------------------------------------------------------------------------

def test_proxy_url_carries_the_requests(apiserver: Start, tmp_path: Path) -> None:
    proxy = apiserver("k136")  # answers absolute-URI requests as a forward proxy would pass them on
    doc = kubeconfig_doc("http://kubernetes.invalid:6443")
    doc["clusters"][0]["cluster"]["proxy-url"] = proxy.url
    snap = read_cluster(write_config(tmp_path, doc))
    assert snap.server_version == "v1.36.1"
    assert "/version" in proxy.paths()


@pytest.mark.parametrize("url", ["socks5://127.0.0.1:1080", "ftp://proxy:21"])
def test_unsupported_proxy_schemes_are_refused_by_name(url: str, tmp_path: Path) -> None:
    doc = kubeconfig_doc("https://10.0.0.1:6443")
    doc["clusters"][0]["cluster"]["proxy-url"] = url
    with pytest.raises(ClusterAccessError, match=r"clusters\[test-cluster\].cluster.proxy-url: proxy scheme"):
        load_kubeconfig(write_config(tmp_path, doc))


def test_wrong_types_name_the_field(tmp_path: Path) -> None:
    doc = kubeconfig_doc("https://10.0.0.1:6443")
    doc["clusters"][0]["cluster"]["insecure-skip-tls-verify"] = "yes"
    path = write_config(tmp_path, doc)
    with pytest.raises(ClusterAccessError) as err:
        load_kubeconfig(path)
    assert str(err.value) == (f"{path}: clusters[test-cluster].cluster.insecure-skip-tls-verify: expected true or "
                              "false, got str")


def test_token_and_basic_auth_together_are_refused_as_kubectl_does(tmp_path: Path) -> None:
    doc = kubeconfig_doc("https://10.0.0.1:6443")
    doc["users"][0]["user"].update({"username": "admin", "password": "pw"})
    with pytest.raises(ClusterAccessError, match=r"users\[test-user\].user: more than one authentication method "
                                                 r"found for test-user; found \[token basicAuth\], only one is "
                                                 "allowed"):
        load_kubeconfig(write_config(tmp_path, doc))


@pytest.mark.parametrize(("user", "message"), [
    ({"exec": {"apiVersion": V1BETA1, "command": "x", "env": True}}, r"exec.env: expected a list"),
    ({"exec": {"apiVersion": V1BETA1, "command": "x", "env": [{"name": "A", "value": 1}]}},
     r"exec.env\[0\]: expected a string name"),
    ({"exec": {"apiVersion": V1BETA1, "command": "x\0y"}}, "holds a NUL character"),
    ({"tokenFile": "~no-such-user-drasim/token"}, r"tokenFile: cannot expand .*: no such user"),
])
def test_malformed_user_entries_name_the_field(user: dict[str, Any], message: str, tmp_path: Path) -> None:
    doc = kubeconfig_doc("https://10.0.0.1:6443", token=None)
    doc["users"][0]["user"] = user
    with pytest.raises(ClusterAccessError, match=message):
        load_kubeconfig(write_config(tmp_path, doc))
