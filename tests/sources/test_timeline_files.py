"""A Timeline's `file:` reads only files in the Timeline's own folder (issue 15): `../`, absolute paths and
symbolic links out of the folder are refused with the Timeline's file, name and field path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from drasim.api.profile import profile_for
from drasim.cli.main import cli
from drasim.errors import InputError
from drasim.sources.inputs import read_inputs

RULE = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: drain}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]
"""


def timeline(file: str) -> str:
    return f"""apiVersion: drasim.dev/v1alpha1
kind: Timeline
metadata: {{name: maintenance}}
spec:
  events:
  - at: 1m
    action: delete
    kind: Pod
    name: nobody
  - at: 5m
    action: apply
    file: {file}
"""


def setup(tmp_path: Path, file: str) -> Path:
    """`tmp_path/secret/secret.yaml` outside, and `tmp_path/in/tl.yaml` naming `file`."""
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "secret.yaml").write_text(RULE)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "tl.yaml").write_text(timeline(file))
    return folder / "tl.yaml"


def refused(path: Path) -> InputError:
    # The Timeline is one document that cannot be read: recorded (nothing read outside), the command ends
    # with it as its error (exit 2) after using the other documents.
    inputs = read_inputs([str(path)], profile_for("1.36"), timelines=True)
    (err,) = inputs.unreadable
    assert inputs.timelines == []
    with pytest.raises(InputError):
        inputs.raise_unreadable()
    assert err.source == str(path) and err.obj == "Timeline/maintenance" and err.path == "spec.events[1].file"
    assert "outside" in err.message and "folder of this Timeline" in err.message
    return err


def test_parent_directory_is_refused(tmp_path: Path) -> None:
    refused(setup(tmp_path, "../secret/secret.yaml"))


def test_a_parent_hop_that_comes_back_inside_is_fine(tmp_path: Path) -> None:
    path = setup(tmp_path, "../in/rule.yaml")
    (path.parent / "rule.yaml").write_text(RULE)
    inputs = read_inputs([str(path)], profile_for("1.36"), timelines=True)
    assert [len(ev.action.objects) for ev in inputs.timelines[0].events[1:]] == [1]  # type: ignore[union-attr]


def test_absolute_path_is_refused_even_inside(tmp_path: Path) -> None:
    refused(setup(tmp_path, str(tmp_path / "secret" / "secret.yaml")))
    path = tmp_path / "in" / "tl.yaml"
    (path.parent / "rule.yaml").write_text(RULE)
    path.write_text(timeline(str(path.parent / "rule.yaml")))
    refused(path)


def test_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    path = setup(tmp_path, "rule.yaml")
    os.symlink(tmp_path / "secret" / "secret.yaml", path.parent / "rule.yaml")
    refused(path)


def test_symlink_inside_a_named_folder_is_refused(tmp_path: Path) -> None:
    path = setup(tmp_path, "rules")
    (path.parent / "rules").mkdir()
    (path.parent / "rules" / "ok.yaml").write_text(RULE.replace("drain", "ok"))
    os.symlink(tmp_path / "secret" / "secret.yaml", path.parent / "rules" / "leak.yaml")
    err = refused(path)
    assert "leak.yaml" in err.message


def test_symlinked_folder_out_is_refused(tmp_path: Path) -> None:
    path = setup(tmp_path, "rules")
    os.symlink(tmp_path / "secret", path.parent / "rules")
    refused(path)


def test_subfolder_is_fine_and_cli_names_the_place(tmp_path: Path) -> None:
    path = setup(tmp_path, "sub/rule.yaml")
    (path.parent / "sub").mkdir()
    (path.parent / "sub" / "rule.yaml").write_text(RULE)
    inputs = read_inputs([str(path)], profile_for("1.36"), timelines=True)
    assert [len(ev.action.objects) for ev in inputs.timelines[0].events[1:]] == [1]  # type: ignore[union-attr]
    path.write_text(timeline("../secret/secret.yaml"))
    result = CliRunner().invoke(cli, ["simulate", "-f", str(path)])
    assert isinstance(result.exception, InputError)
    assert str(result.exception).startswith(f"{path}: Timeline/maintenance: spec.events[1].file: file ")


def test_inputs_are_read_once_and_a_timeline_is_named_by_its_document(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # The loader sets Timelines aside while it decodes the objects (issue 14: read once, not twice); a bad
    # one in a stream is named by its position, as every other document that does not decode.
    import drasim.sources.files as files

    path = tmp_path / "all.yaml"
    path.write_text(RULE + "---\n" + timeline("missing.yaml").replace("action: delete", "action: explode"))
    reads: list[str] = []
    real = files.read_input
    monkeypatch.setattr(files, "read_input", lambda p, **kw: reads.append(p) or real(p, **kw))
    inputs = read_inputs([str(path)], profile_for("1.36"), timelines=True)
    assert reads == [str(path)]
    assert [o.metadata.name for o in inputs.objects] == ["drain"] and inputs.timelines == []
    (err,) = inputs.unreadable
    assert err.source == str(path) and err.obj == "document 2 Timeline/maintenance"
    assert err.path == "spec.events[0].action"
