"""sources/dump.py and `drasim dump`: round trips through load_paths, atomic writes, foreign files."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from apiserver import FakeApiServer
from click.testing import CliRunner

from drasim.api.kinds import KubeObject
from drasim.cli.dump import dump
from drasim.doctor import diagnose
from drasim.doctor.checks import ClusterSnapshot
from drasim.errors import InputError
from drasim.sources import dump as dump_module
from drasim.sources.dump import CLUSTER_INFO, read_dump, write_dump
from drasim.sources.files import load_paths
from drasim.sources.live import ClusterAccessError, read_cluster

Start = Callable[..., FakeApiServer]
Write = Callable[..., str]


def ordered(objects: list[KubeObject]) -> list[KubeObject]:
    return sorted(objects, key=lambda o: (o.kind, o.metadata.namespace or "", o.metadata.name))


@pytest.fixture
def snapshot136(apiserver: Start, write_kubeconfig: Write) -> ClusterSnapshot:
    return read_cluster(write_kubeconfig(apiserver("k136").url))


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_dump_loads_with_load_paths_into_the_same_objects(snapshot136: ClusterSnapshot, tmp_path: Path,
                                                          fmt: str) -> None:
    out = tmp_path / "dump"
    written = write_dump(snapshot136, str(out), fmt="json" if fmt == "json" else "yaml")
    assert written[0] == CLUSTER_INFO
    assert sorted(os.listdir(out)) == sorted(written)
    assert f"resourceslices.{fmt}" in written and f"devicetaintrules.{fmt}" in written
    loaded = load_paths([str(out)])
    assert ordered(loaded.objects) == ordered(snapshot136.objects)
    assert loaded.warnings == []  # drasim's own ClusterInfo document is not warned about


def test_read_dump_restores_the_cluster_profile(snapshot136: ClusterSnapshot, tmp_path: Path) -> None:
    write_dump(snapshot136, str(tmp_path / "d"))
    back = read_dump(str(tmp_path / "d"))
    assert back.server_version == "v1.36.1"
    assert back.resource_versions == ("v1", "v1beta2", "v1beta1")
    assert back.read_versions == snapshot136.read_versions
    assert back.source.startswith(f"dump {tmp_path / 'd'} of context test (http://127.0.0.1:")
    assert back.warnings == []
    live, offline = diagnose(snapshot136), diagnose(back)
    assert offline.findings == live.findings
    assert offline.to_json()["drivers"] == live.to_json()["drivers"]


def test_132_dump_is_written_in_v1(apiserver: Start, write_kubeconfig: Write, tmp_path: Path) -> None:
    snap = read_cluster(write_kubeconfig(apiserver("k132").url))
    write_dump(snap, str(tmp_path / "d"))
    text = (tmp_path / "d" / "resourceslices.yaml").read_text()
    assert "apiVersion: resource.k8s.io/v1\n" in text and "basic:" not in text
    info = (tmp_path / "d" / CLUSTER_INFO).read_text()
    assert "serverVersion: v1.32.4" in info and "- v1beta1" in info
    assert "ResourceClaim: resource.k8s.io/v1beta1" in info


def test_dump_is_deterministic(snapshot136: ClusterSnapshot, tmp_path: Path) -> None:
    write_dump(snapshot136, str(tmp_path / "a"))
    write_dump(snapshot136, str(tmp_path / "b"))
    for name in os.listdir(tmp_path / "a"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_existing_directory_is_kept_unless_overwrite(snapshot136: ClusterSnapshot, tmp_path: Path) -> None:
    base = tmp_path / "out"
    out = base / "dump"
    out.mkdir(parents=True)
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(InputError, match="directory exists and is not empty: choose a new one or pass --overwrite"):
        write_dump(snapshot136, str(out))
    assert os.listdir(out) == ["mine.txt"]
    write_dump(snapshot136, str(out), overwrite=True)
    assert "mine.txt" not in os.listdir(out) and CLUSTER_INFO in os.listdir(out)
    assert os.listdir(base) == ["dump"]  # no temporary or old directories left
    empty = tmp_path / "empty"
    empty.mkdir()
    write_dump(snapshot136, str(empty))  # an empty directory is fine without --overwrite
    assert CLUSTER_INFO in os.listdir(empty)


def test_failure_while_writing_leaves_nothing(snapshot136: ClusterSnapshot, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(objs: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(dump_module, "to_yaml", broken)
    base = tmp_path / "out"
    with pytest.raises(InputError, match="cannot write the dump: No space left on device"):
        write_dump(snapshot136, str(base / "dump"))
    assert os.listdir(base) == []


def test_dump_cli_writes_and_summarises(apiserver: Start, write_kubeconfig: Write, tmp_path: Path) -> None:
    server = apiserver("k136")
    out = tmp_path / "dump"
    result = CliRunner().invoke(dump, ["--kubeconfig", write_kubeconfig(server.url), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Kubernetes v1.36.1, resource.k8s.io v1, v1beta2, v1beta1" in result.output
    assert "resourceslices.yaml" in result.output and "3 ResourceSlice" in result.output
    assert (out / "pods.yaml").is_file()


def test_dump_cli_unreachable_cluster_creates_nothing(write_kubeconfig: Write, tmp_path: Path) -> None:
    out = tmp_path / "dump"
    result = CliRunner().invoke(dump, ["--kubeconfig", write_kubeconfig("http://127.0.0.1:1"), "-o", str(out),
                                       "--timeout", "2"])
    assert isinstance(result.exception, ClusterAccessError)
    assert not out.exists()


# --- reading directories that are not (only) dumps ------------------------------------------------

def test_foreign_files_are_skipped_with_warnings(snapshot136: ClusterSnapshot, tmp_path: Path) -> None:
    out = tmp_path / "dump"
    write_dump(snapshot136, str(out))
    (out / "README.txt").write_text("notes")
    (out / "values.yaml").write_text("replicas: 3\n")
    (out / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    back = read_dump(str(out))
    assert len(back.objects) == len(snapshot136.objects)
    assert any("README.txt: skipped: not a .yaml/.yml/.json file" in w for w in back.warnings)
    assert any("values.yaml: skipped: not Kubernetes objects drasim reads" in w and 'missing "kind"' in w
               for w in back.warnings)
    assert any("ConfigMap/x: skipped: kind ConfigMap (v1) is not used by drasim" in w for w in back.warnings)
    report = diagnose(back)
    assert any(f.id == "unread-objects" and f.severity == "warn" for f in report.findings)


def test_corrupt_dump_file_is_an_error(snapshot136: ClusterSnapshot, tmp_path: Path) -> None:
    out = tmp_path / "dump"
    write_dump(snapshot136, str(out))
    (out / "resourceslices.yaml").write_text("spec: [unclosed\n")
    with pytest.raises(InputError, match=r"resourceslices.yaml: invalid YAML \(line 2"):
        read_dump(str(out))


def test_unreadable_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    with pytest.raises(InputError, match=r"gone.yaml: no such file or directory"):
        read_dump(str(tmp_path))


def test_bad_dump_paths(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such directory"):
        read_dump(str(tmp_path / "missing"))
    (tmp_path / "file.yaml").write_text("")
    with pytest.raises(InputError, match="not a directory"):
        read_dump(str(tmp_path / "file.yaml"))
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / CLUSTER_INFO).write_text("kind: Something\n")
    with pytest.raises(InputError, match="not a drasim cluster-info file"):
        read_dump(str(tmp_path / "d"))


def test_plain_manifest_directory_has_an_unknown_profile(tmp_path: Path) -> None:
    (tmp_path / "class.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n"
        "spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n")
    back = read_dump(str(tmp_path))
    assert back.server_version is None and back.resource_versions is None and back.warnings == []
    ids = {f.id: f for f in diagnose(back).findings}
    assert ids["kubernetes-version"].severity == "warn"
    assert "unknown (no cluster-info.yaml)" in ids["kubernetes-version"].message
