"""Every read from a server or a kubeconfig's files is bounded: bodies (after decompression), pagination, messages,
token and certificate files (regular files only, never a FIFO or device), and list items of another kind."""

from __future__ import annotations

import gzip
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from apiserver import FakeApiServer, Route, kubeconfig_doc, status

from drasim.sources.kubehttp import ReadLimits, server_text
from drasim.sources.live import ClusterAccessError, connect, read_cluster

Start = Callable[..., FakeApiServer]
Write = Callable[..., str]
FIXTURES = Path(__file__).parent / "fixtures/k136"
SLICES = "/apis/resource.k8s.io/v1/resourceslices"
SMALL = ReadLimits(body_bytes=1024 * 1024, list_items=50, list_pages=20)


def fixture(path: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((FIXTURES / (path.strip("/") + ".json")).read_text())
    return doc


# --- bodies ----------------------------------------------------------------------------------------

def test_a_gzip_bomb_stops_at_the_body_bound(apiserver: Start, write_kubeconfig: Write) -> None:
    bomb = gzip.compress(b" " * (64 * 1024 * 1024), compresslevel=9)  # 64 MiB of blanks in ~64 KiB
    assert len(bomb) < 200_000
    route = Route(200, bomb, headers={"Content-Encoding": "gzip"})
    server = apiserver("k136", routes={"/api/v1/nodes": route})
    with pytest.raises(ClusterAccessError) as err:
        read_cluster(write_kubeconfig(server.url), limits=SMALL)
    assert "GET /api/v1/nodes (nodes): the response is larger than 1 MiB (after decompression)" in str(err.value)
    assert err.value.exit_code == 2


def test_gzip_bodies_are_inflated_and_read(apiserver: Start, write_kubeconfig: Write) -> None:
    nodes = gzip.compress(json.dumps(fixture("/api/v1/nodes")).encode())
    server = apiserver("k136", routes={"/api/v1/nodes": Route(200, nodes, headers={"Content-Encoding": "gzip"})})
    snap = read_cluster(write_kubeconfig(server.url))
    assert sum(type(o).__name__ == "Node" for o in snap.objects) == 3
    assert all(r.headers.get("accept-encoding") == "gzip" for r in server.requests)


def test_an_unasked_for_encoding_is_refused(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136", routes={"/version": Route(200, b"\x00\x01", headers={"Content-Encoding": "br"})})
    with pytest.raises(ClusterAccessError, match="unsupported Content-Encoding 'br'"):
        read_cluster(write_kubeconfig(server.url))


def test_disable_compression_asks_for_identity(apiserver: Start, tmp_path: Path) -> None:
    server = apiserver("k136")
    doc = kubeconfig_doc(server.url)
    doc["clusters"][0]["cluster"]["disable-compression"] = True
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(doc))
    read_cluster(str(path))
    assert {r.headers.get("accept-encoding") for r in server.requests} == {"identity"}


def test_a_declared_length_over_the_bound_is_refused_before_reading(apiserver: Start,
                                                                   write_kubeconfig: Write) -> None:
    big = b"[" + b" " * (2 * 1024 * 1024) + b"]"
    server = apiserver("k136", routes={"/version": Route(200, big)})
    with pytest.raises(ClusterAccessError, match="larger than 1 MiB"):
        read_cluster(write_kubeconfig(server.url), limits=SMALL)


# --- server messages ---------------------------------------------------------------------------------

def test_status_messages_are_stripped_of_control_characters_and_cut(apiserver: Start,
                                                                    write_kubeconfig: Write) -> None:
    message = "\x1b[2J\x1b]0;pwned\x07etcd \x1b[31mdown\x1b[0m\r\n\x00\u202e" + "x" * 5_000_000
    server = apiserver("k136", routes={"/api/v1/nodes": Route(500, status(500, "InternalError", message))})
    with pytest.raises(ClusterAccessError) as err:
        read_cluster(write_kubeconfig(server.url))
    text = str(err.value)
    assert "HTTP 500: etcd down" in text
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in text)
    assert "pwned" not in text and "[31m" not in text
    assert len(text) < 1_500  # the 5 MB message is not read whole either: error bodies stop at 64 KiB
    assert "more characters)" in text


@pytest.mark.parametrize(("raw", "shown"), [
    ("plain", "plain"), ("a\x1b[1mb", "ab"), ("tab\there", "tab here"), ("\x9b31mx", "x"),
    ("bell\x07", "bell"), ("é ✓ 漢字", "é ✓ 漢字")])
def test_server_text(raw: str, shown: str) -> None:
    assert server_text(raw) == shown


def test_server_version_is_sanitised(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136", routes={"/version": Route(200, {"gitVersion": "v1.36.1\x1b[2J"})})
    assert read_cluster(write_kubeconfig(server.url)).server_version == "v1.36.1"


# --- pagination ------------------------------------------------------------------------------------

def endless(query: dict[str, list[str]], headers: dict[str, str]) -> dict[str, Any]:
    n = int((query.get("continue") or ["0"])[0])
    return {"kind": "NodeList", "apiVersion": "v1", "metadata": {"continue": str(n + 1)}, "items": []}


def test_endless_pagination_stops_at_the_page_bound(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136", routes={"/api/v1/nodes": Route(200, endless)})
    with pytest.raises(ClusterAccessError, match=r"GET /api/v1/nodes \(nodes\): the list did not end after 20 "
                                                 r"pages \(0 items\)"):
        read_cluster(write_kubeconfig(server.url), limits=SMALL)
    assert sum(r.path == "/api/v1/nodes" for r in server.requests) == 20


def test_default_limits_bound_pages_and_items() -> None:
    limits = ReadLimits()
    assert 0 < limits.list_pages <= 10_000 and 0 < limits.list_items <= 1_000_000
    assert limits.body_bytes <= 256 * 1024 * 1024 and limits.message_chars <= 1_000


def test_the_same_continue_token_twice_is_refused(apiserver: Start, write_kubeconfig: Write) -> None:
    page = {"kind": "NodeList", "apiVersion": "v1", "metadata": {"continue": "again"}, "items": []}
    server = apiserver("k136", routes={"/api/v1/nodes": Route(200, page)})
    with pytest.raises(ClusterAccessError, match="sent the same continue token twice"):
        read_cluster(write_kubeconfig(server.url))


def test_too_many_items_are_refused(apiserver: Start, write_kubeconfig: Write) -> None:
    nodes = fixture("/api/v1/nodes")
    nodes["items"] = [{**nodes["items"][0], "metadata": {"name": f"n{i}"}} for i in range(60)]
    server = apiserver("k136", routes={"/api/v1/nodes": Route(200, nodes)})
    with pytest.raises(ClusterAccessError, match="the list has more than 50 items"):
        read_cluster(write_kubeconfig(server.url), limits=SMALL, page_size=10)


# --- items of another kind -------------------------------------------------------------------------

def test_a_pod_inside_the_resourceslices_list_is_refused(apiserver: Start, write_kubeconfig: Write) -> None:
    slices = fixture(SLICES)
    pod = fixture("/api/v1/pods")["items"][0]
    slices["items"].insert(1, {"kind": "Pod", "apiVersion": "v1", **pod})
    server = apiserver("k136", routes={SLICES: Route(200, slices)})
    with pytest.raises(ClusterAccessError, match=r"returned an object of kind 'Pod' \(items\[1\]\) where a "
                                                 r"ResourceSliceList of resource.k8s.io/v1 was expected"):
        read_cluster(write_kubeconfig(server.url))


def test_a_list_of_another_kind_is_refused(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136", routes={SLICES: Route(200, fixture("/api/v1/pods"))})
    with pytest.raises(ClusterAccessError, match="returned a list of kind 'PodList' where a ResourceSliceList"):
        read_cluster(write_kubeconfig(server.url))


def test_items_that_are_not_objects_are_one_message(apiserver: Start, write_kubeconfig: Write) -> None:
    page = {"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": [1, "x"]}
    server = apiserver("k136", routes={"/api/v1/nodes": Route(200, page)})
    with pytest.raises(ClusterAccessError, match="did not return a Kubernetes list"):
        read_cluster(write_kubeconfig(server.url))


@pytest.mark.parametrize("path", ["/api/v1/nodes", "/version"])
def test_deeply_nested_json_from_the_server_is_refused_before_decoding(apiserver: Start, write_kubeconfig: Write,
                                                                       path: str) -> None:
    # msgspec would overflow the stack near 1,000 levels (a traceback); the file guard's limit applies.
    body = b'{"items": ' + b"[" * 5_000 + b"]" * 5_000 + b"}"
    server = apiserver("k136", routes={path: Route(200, body)})
    with pytest.raises(ClusterAccessError, match=rf"GET {path}: invalid JSON \(line 1, column 210\): nested more "
                                                 r"than 200 levels deep"):
        read_cluster(write_kubeconfig(server.url))


def test_a_deeply_nested_error_status_is_shown_as_text(apiserver: Start, write_kubeconfig: Write) -> None:
    server = apiserver("k136", routes={"/api/v1/nodes": Route(500, b"[" * 5_000)})
    with pytest.raises(ClusterAccessError, match=r"HTTP 500: \[\[\["):
        read_cluster(write_kubeconfig(server.url))


# --- token and certificate files -------------------------------------------------------------------

def token_file_config(tmp_path: Path, server: str, token_file: str) -> str:
    doc = kubeconfig_doc(server, token=None)
    doc["users"][0]["user"] = {"tokenFile": token_file}
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_token_file_is_read_and_sent(apiserver: Start, tmp_path: Path) -> None:
    server = apiserver("k136")
    (tmp_path / "token").write_text("drasim-test-token\n")
    os.symlink(tmp_path / "token", tmp_path / "link")  # secret mounts are symbolic links: followed
    snap = read_cluster(token_file_config(tmp_path, server.url, "link"))
    assert snap.server_version == "v1.36.1"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_token_file_is_refused_without_hanging(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    config = token_file_config(tmp_path, "http://127.0.0.1:9", str(tmp_path / "fifo"))
    done: list[BaseException] = []

    def attempt() -> None:
        try:
            connect(config)
        except ClusterAccessError as exc:
            done.append(exc)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(20)
    if thread.is_alive():  # unblock the open so the thread can end, then fail
        fd = os.open(tmp_path / "fifo", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("reading a FIFO tokenFile hung")
    assert done and "users[test-user].user.tokenFile: unable to read tokenFile" in str(done[0])
    assert "a FIFO, not a regular file" in str(done[0])


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_token_file_is_refused(tmp_path: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    with pytest.raises(ClusterAccessError, match="a character device, not a regular file"):
        connect(token_file_config(tmp_path, "http://127.0.0.1:9", device))


def test_a_huge_token_file_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(64 * 1024 * 1024)  # sparse: nothing is written
    with pytest.raises(ClusterAccessError, match=r"due to its size \(67,108,864 bytes; at most 4,194,304"):
        connect(token_file_config(tmp_path, "http://127.0.0.1:9", str(big)))


@pytest.mark.parametrize(("section", "entry", "field", "what"), [
    ("users", {"client-certificate": "pki/missing.crt", "client-key": "k.key"}, "client-certificate", "client-cert"),
    ("clusters", {"server": "https://127.0.0.1:9", "certificate-authority": "pki/missing.crt"},
     "certificate-authority", "certificate-authority"),
])
def test_a_missing_file_names_the_file_and_the_field(section: str, entry: dict[str, str], field: str, what: str,
                                                      tmp_path: Path) -> None:
    doc = kubeconfig_doc("https://127.0.0.1:9", token=None)
    doc[section][0][section[:-1]] = entry
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ClusterAccessError) as err:
        connect(str(path))
    missing, name = tmp_path / "pki/missing.crt", doc[section][0]["name"]
    assert str(err.value) == (f"{path}: {section}[{name}].{section[:-1]}.{field}: unable to read {what} {missing} "
                              f"for {name} due to open {missing}: no such file or directory")


def test_a_certificate_without_a_key_is_refused_with_kubectls_words(tmp_path: Path) -> None:
    doc = kubeconfig_doc("https://127.0.0.1:9", token=None)
    doc["users"][0]["user"] = {"client-certificate-data": "Zm9v"}
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ClusterAccessError, match="client-key-data or client-key must be specified for test-user"):
        connect(str(path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_in_kubeconfig_env_is_refused_without_hanging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.mkfifo(tmp_path / "fifo")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "fifo"))
    with pytest.raises(ClusterAccessError, match=r"cannot read kubeconfig: .* being a FIFO, not a regular file"):
        connect()


class _Dribble:
    """A response whose chunks keep coming (a server sending a byte now and then)."""

    headers: dict[str, str] = {}

    def iter_raw(self) -> Any:
        while True:
            yield b" "


def test_a_dribbling_response_ends_at_the_request_deadline() -> None:
    from drasim.sources.kubehttp import _read_body

    with pytest.raises(TimeoutError):
        _read_body(_Dribble(), 1024 * 1024, deadline=0.0)  # the monotonic clock is long past 0
