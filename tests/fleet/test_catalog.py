"""The bundled NVIDIA catalog: loading, aliases, MIG geometry and verified tracking."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from drasim.catalog.nvidia import CATALOG_FILE, GpuModel, load_catalog, normalize_model_name
from drasim.errors import InputError

CATALOG = load_catalog()
MIG_MODELS = [m for m in CATALOG.models if m.mig_supported]
RAW = yaml.safe_load(Path(CATALOG.path).read_text())


def test_catalog_loads_every_model_and_profile() -> None:
    assert CATALOG.driver_name == "gpu.nvidia.com"
    assert len(CATALOG.models) == 14
    assert sum(len(m.profiles) for m in CATALOG.models) == 82
    assert {m.id for m in CATALOG.models} >= {"a100-sxm4-40gb", "h100-80gb-hbm3", "h200", "b200", "l40s", "t4"}


@pytest.mark.parametrize(("alias", "model_id"), [
    ("h100", "h100-80gb-hbm3"),
    ("h100-80gb", "h100-80gb-hbm3"),
    ("h100-nvl", "h100-nvl"),
    ("h200", "h200"),
    ("a100-40gb", "a100-sxm4-40gb"),
    ("a100-80gb", "a100-sxm4-80gb"),
    ("a100-40gb-pcie", "a100-pcie-40gb"),
    ("h100-80gb-pcie", "h100-pcie"),
    ("l40s", "l40s"),
    ("gh200", "gh200-96gb"),
    ("NVIDIA H100 80GB HBM3", "h100-80gb-hbm3"),  # the NVML product name
    ("NVIDIA-A100-SXM4-40GB", "a100-sxm4-40gb"),  # the GPU feature discovery label form
    ("Tesla T4", "t4"),
    ("  H200  ", "h200"),
])
def test_aliases_resolve(alias: str, model_id: str) -> None:
    assert CATALOG.model(alias).id == model_id


def test_every_id_and_alias_resolves_to_its_own_model() -> None:
    for m in CATALOG.models:
        assert CATALOG.model(m.id) is m
        for alias in m.aliases:
            assert CATALOG.model(alias).id == m.id
    # An alias belongs to exactly one model.
    all_aliases = [a for m in CATALOG.models for a in m.aliases]
    assert len(all_aliases) == len(set(all_aliases))


def test_unknown_model_lists_the_choices() -> None:
    with pytest.raises(InputError) as err:
        CATALOG.model("v100")
    message = str(err.value)
    assert "unknown GPU model 'v100'" in message
    assert "h100-80gb-hbm3 (h100" in message and "l40s" in message


def test_normalize_model_name() -> None:
    assert normalize_model_name("NVIDIA H100 80GB HBM3") == "h100-80gb-hbm3"
    assert normalize_model_name("nvidia_a100_sxm4_40gb") == "a100-sxm4-40gb"


@pytest.mark.parametrize("model", MIG_MODELS, ids=lambda m: m.id)
def test_mig_placements_match_the_catalogs_device_counts(model: GpuModel) -> None:
    assert model.mig_placements_per_gpu == model.dra["mig_devices_per_gpu"]
    per_gpu = model.mig_placements_per_gpu + (1 if model.full_gpu_with_mig else 0)
    assert per_gpu == model.dra["devices_per_gpu"]
    for p in model.profiles:
        assert p.placement_starts, p.name
        assert all(s >= 0 and s + p.placement_size <= model.mig_memory_slices for s in p.placement_starts)
        assert 1 <= p.compute_slices <= model.mig_compute_slices
        assert p.placement_size == p.memory_slices


def test_architecture_rule_full_gpu_with_mig() -> None:
    # Hopper and newer publish the full GPU next to the MIG placements; Ampere does not.
    for m in MIG_MODELS:
        assert m.full_gpu_with_mig == (m.architecture in ("Hopper", "Blackwell")), m.id


def test_non_mig_models() -> None:
    for model_id in ("l40s", "t4"):
        m = CATALOG.model(model_id)
        assert not m.mig_supported and m.profiles == ()
        assert m.mig_placements_per_gpu == 0


def test_profile_lookup_and_values() -> None:
    a100 = CATALOG.model("a100-40gb")
    p = a100.profile("1g.5gb+me")
    assert (p.gi_profile_id, p.memory_mib, p.memory_slices, p.multiprocessors) == (20, 4864, 1, 14)
    assert p.media_extensions and p.compute_slices == 1
    assert a100.profile("7g.40gb").compute_slices == 7
    with pytest.raises(InputError, match=re.escape("no MIG profile '9g.9gb'; valid profiles: 1g.5gb, 1g.5gb+me")):
        a100.profile("9g.9gb")


def test_verified_tracking() -> None:
    h100 = CATALOG.model("h100")
    assert all(h100.is_verified(f) for f in ("product_name", "brand", "memory_total_mib"))
    assert all(p.is_verified(f) for p in h100.profiles for f in ("memory_mib", "placements", "gi_profile_id"))
    a100 = CATALOG.model("a100-40gb")
    assert not a100.is_verified("brand")
    b200 = CATALOG.model("b200")
    assert not b200.mig_verified
    p = b200.profile("1g.23gb")
    assert p.memory_mib is None and not p.is_verified("memory_mib") and p.is_verified("copy_engines")
    assert CATALOG.model("a100-80gb").profile("1g.20gb").is_verified("gi_profile_id") is False


def test_values_are_read_from_the_yaml() -> None:
    assert Path(CATALOG.path).name == CATALOG_FILE
    raw_models = {m["id"]: m for m in RAW["gpu_models"]}
    for m in CATALOG.models:
        raw = raw_models[m.id]
        assert m.product_name == raw["product_name"]["value"]
        assert m.is_verified("product_name") == raw["product_name"]["verified"]
        assert m.memory_total_mib == raw["memory_total_mib"]["value"]
        for p, rp in zip(m.profiles, raw["mig"].get("profiles", []), strict=True):
            assert (p.name, p.memory_mib, p.placement_starts) == (rp["name"], rp["memory_mib"],
                                                                   tuple(rp["placement_starts"]))
            assert p.verified == {k for k, v in rp["verified"].items() if v}


def test_device_classes_and_attributes() -> None:
    classes = {c.name: c for c in CATALOG.device_classes}
    gpu = classes["gpu.nvidia.com"]
    assert gpu.cel == "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
    assert gpu.extended_resource_name == "nvidia.com/gpu" and gpu.condition is None
    assert classes["mig.nvidia.com"].extended_resource_name is None
    assert classes["compute-domain-daemon.nvidia.com"].condition is not None
    gpu_attrs = dict(CATALOG.attributes["gpu"])
    assert gpu_attrs["uuid"] is True and gpu_attrs["addressingMode"] is False
    assert dict(CATALOG.attributes["mig"])["uuid"] is False


def test_load_catalog_from_a_path(tmp_path: Path) -> None:
    small = dict(RAW, gpu_models=[m for m in RAW["gpu_models"] if m["id"] == "t4"])
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(small))
    cat = load_catalog(str(path))
    assert [m.id for m in cat.models] == ["t4"]
    assert cat.model("tesla-t4").product_name == "Tesla T4"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(dict(small, schema="other/v9")))
    with pytest.raises(ValueError, match="schema"):
        load_catalog(str(bad))
