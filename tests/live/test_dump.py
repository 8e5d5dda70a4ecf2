"""sources/dump.py and `drasim dump`: round trips through load_paths, atomic writes, foreign files."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from apiserver import FakeApiServer, Route
from click.testing import CliRunner

from drasim.api.kinds import KubeObject
from drasim.cli.dump import dump
from drasim.cluster.snapshot import ClusterSnapshot
from drasim.doctor import diagnose
from drasim.errors import InputError
from drasim.sources import dump as dump_module
from drasim.sources.dump import CLUSTER_INFO, read_dump, write_dump
from drasim.sources.files import load_paths
from drasim.sources.live import ClusterAccessError, read_cluster
from drasim.sources.outdir import MARKER

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
    assert sorted(os.listdir(out)) == sorted([*written, MARKER])
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


def test_a_directory_drasim_did_not_write_is_refused(snapshot136: ClusterSnapshot, tmp_path: Path) -> None:
    out = tmp_path / "dump"
    (out / "x").mkdir(parents=True)
    (out / "x" / "keep").write_text("keep me")
    (out / "mine.txt").write_text("keep me")
    for overwrite in (False, True):
        with pytest.raises(InputError, match=r"not empty and was not written by drasim \(no .drasim-files"):
            write_dump(snapshot136, str(out), overwrite=overwrite)
    assert sorted(os.listdir(out)) == ["mine.txt", "x"] and (out / "x" / "keep").read_text() == "keep me"
    empty = tmp_path / "empty"
    empty.mkdir()
    write_dump(snapshot136, str(empty))  # an empty directory is fine without --overwrite
    assert CLUSTER_INFO in os.listdir(empty) and MARKER in os.listdir(empty)


def test_overwrite_replaces_only_drasims_own_files(snapshot136: ClusterSnapshot, tmp_path: Path) -> None:
    out = tmp_path / "dump"
    first = write_dump(snapshot136, str(out))
    marker = json.loads((out / MARKER).read_text())
    assert marker["files"] == sorted(first)
    (out / "x").mkdir()
    (out / "x" / "keep").write_text("keep me")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="holds an earlier drasim output: pass --overwrite"):
        write_dump(snapshot136, str(out))
    # Without pods this time: drasim's stale pods.yaml goes, the user's files stay.
    fewer = ClusterSnapshot(**{**snapshot136.__dict__, "objects": [o for o in snapshot136.objects
                                                                   if o.kind != "Pod"]})
    second = write_dump(fewer, str(out), overwrite=True)
    assert "pods.yaml" in first and "pods.yaml" not in second
    assert sorted(os.listdir(out)) == sorted([*second, MARKER, "notes.txt", "x"])
    assert (out / "x" / "keep").read_text() == "keep me" and (out / "notes.txt").read_text() == "mine"
    assert json.loads((out / MARKER).read_text())["files"] == sorted(second)
    # A file the marker does not name is never replaced, even under one of drasim's names.
    (out / MARKER).write_text(json.dumps({**marker, "files": [CLUSTER_INFO]}))
    with pytest.raises(InputError, match=r"refusing to replace deviceclasses.yaml, .*drasim did not write them"):
        write_dump(snapshot136, str(out), overwrite=True)


def test_dump_never_follows_a_symlink_in_the_directory(snapshot136: ClusterSnapshot, tmp_path: Path) -> None:
    out = tmp_path / "dump"
    write_dump(snapshot136, str(out))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / "resourceslices.yaml").unlink()
    (out / "resourceslices.yaml").symlink_to(victim)
    (out / "pods.yaml").unlink()
    (out / "pods.yaml").symlink_to(victim)
    fewer = ClusterSnapshot(**{**snapshot136.__dict__, "objects": [o for o in snapshot136.objects
                                                                   if o.kind != "Pod"]})
    write_dump(fewer, str(out), overwrite=True)
    assert victim.read_text() == "precious"
    assert not (out / "resourceslices.yaml").is_symlink() and "ResourceSlice" in (out / "resourceslices.yaml"
                                                                                 ).read_text()
    assert not os.path.lexists(out / "pods.yaml")  # drasim's own name: the link is removed, not followed
    # A planted marker link is not trusted.
    (out / MARKER).unlink()
    (out / MARKER).symlink_to(victim)
    with pytest.raises(InputError, match="symbolic link"):
        write_dump(snapshot136, str(out), overwrite=True)
    assert victim.read_text() == "precious"


def test_files_get_the_umask_mode_and_no_temporaries_remain(snapshot136: ClusterSnapshot, tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_dump(snapshot136, str(tmp_path / "d"))
        write_dump(snapshot136, str(tmp_path / "d"), overwrite=True)
    finally:
        os.umask(old)
    for name in os.listdir(tmp_path / "d"):
        assert not name.endswith(".tmp")
        assert stat.S_IMODE(os.stat(tmp_path / "d" / name).st_mode) == 0o640, name
    assert [n for n in os.listdir(tmp_path) if n.startswith((".", "d"))] == ["d"]


def test_file_names_stay_inside_the_directory(tmp_path: Path) -> None:
    from drasim.sources.outdir import write_files
    for bad in ("../escape.yaml", "/tmp/abs.yaml", "sub/x.yaml", "..", ".hidden"):
        with pytest.raises(InputError, match="not a plain file name"):
            write_files(str(tmp_path / "d"), {bad: b"x"}, overwrite=False, command="test")
    assert not (tmp_path / "escape.yaml").exists() and not (tmp_path / "d").exists()


def test_hostile_object_names_do_not_leave_the_directory(apiserver: Start, write_kubeconfig: Write,
                                                         tmp_path: Path) -> None:
    names = ["../../escape", "/etc/passwd", "..", "a/../../b"]
    items = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": n}, "spec": {}}
             for n in names]
    routes = {"/apis/resource.k8s.io/v1/deviceclasses": Route(200, {"kind": "DeviceClassList",
                                                                    "apiVersion": "resource.k8s.io/v1",
                                                                    "metadata": {}, "items": items})}
    snap = read_cluster(write_kubeconfig(apiserver("k136", routes=routes).url))
    out = tmp_path / "o" / "a" / "dump"
    write_dump(snap, str(out))
    assert os.listdir(tmp_path / "o") == ["a"] and os.listdir(tmp_path / "o" / "a") == ["dump"]
    assert all(not os.path.isdir(out / n) for n in os.listdir(out))


def test_failure_while_writing_leaves_nothing(snapshot136: ClusterSnapshot, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(objs: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(dump_module, "to_yaml", broken)
    base = tmp_path / "out"
    with pytest.raises(InputError, match="cannot write the dump: No space left on device"):
        write_dump(snapshot136, str(base / "dump"))
    assert not base.exists()


def test_failure_during_the_renames_keeps_the_marker_complete(snapshot136: ClusterSnapshot, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from drasim.sources import outdir
    out = tmp_path / "dump"
    write_dump(snapshot136, str(out))
    calls = iter(range(100))
    real = os.replace

    def flaky(src: str, dst: str) -> None:
        if next(calls) == 3:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(outdir.os, "replace", flaky)
    with pytest.raises(InputError, match="cannot write: No space left on device"):
        write_dump(snapshot136, str(out), overwrite=True)
    monkeypatch.undo()
    listed = set(json.loads((out / MARKER).read_text())["files"])
    assert set(os.listdir(out)) - {MARKER} <= listed  # whatever is there, drasim may replace it again
    write_dump(snapshot136, str(out), overwrite=True)
    assert not [n for n in os.listdir(out) if n.endswith(".tmp")]


def test_dump_cli_writes_and_summarises(apiserver: Start, write_kubeconfig: Write, tmp_path: Path) -> None:
    server = apiserver("k136")
    out = tmp_path / "dump"
    result = CliRunner().invoke(dump, ["--kubeconfig", write_kubeconfig(server.url), "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
    assert "Kubernetes v1.36.1, resource.k8s.io v1, v1beta2, v1beta1" in result.output
    assert "resourceslices.yaml" in result.output and "3 ResourceSlice" in result.output
    assert (out / "pods.yaml").is_file()


def test_dump_cli_unreachable_cluster_creates_nothing(write_kubeconfig: Write, tmp_path: Path) -> None:
    out = tmp_path / "dump"
    result = CliRunner().invoke(dump, ["--kubeconfig", write_kubeconfig("http://127.0.0.1:1"), "--output-dir", str(out),
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
