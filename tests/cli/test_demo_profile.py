"""--runtime-config in the release profile: a beta version it names is served, one it does not name is not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from drasim.api.profile import parse_runtime_config, profile_for
from drasim.cli.options import demo_profile


def test_runtime_config_serves_the_version_it_names() -> None:
    plain = profile_for("1.36", {"DRADeviceTaintRules": True})
    assert plain.api_status("DeviceTaintRule", "resource.k8s.io/v1beta2") == "runtime-config"
    for entry in ("resource.k8s.io/v1beta2", "resource.k8s.io/v1beta2/devicetaintrules"):
        on = profile_for("1.36", {"DRADeviceTaintRules": True}, runtime_config=frozenset({entry}))
        assert on.api_status("DeviceTaintRule", "resource.k8s.io/v1beta2") == "served"
        assert f"--runtime-config={entry}=true" in on.describe()
    only_rules = profile_for("1.36", runtime_config=frozenset({"resource.k8s.io/v1beta2/devicetaintrules"}))
    assert only_rules.api_status("ResourceClaim", "resource.k8s.io/v1beta2") == "runtime-config"
    # Resource names as kube-apiserver spells them: a kind ending in "s" takes "es" (deviceclasses).
    classes = profile_for("1.36", runtime_config=frozenset({"resource.k8s.io/v1beta2/deviceclasses"}))
    assert classes.api_status("DeviceClass", "resource.k8s.io/v1beta2") == "served"


def test_demo_profile_serves_the_demos_taint_rule_where_the_release_has_its_version() -> None:
    for version in ("1.36", "1.37"):
        demo = demo_profile(profile_for(version))
        assert demo.gate("DRADeviceTaintRules")
        assert demo.api_status("DeviceTaintRule", "resource.k8s.io/v1beta2") == "served"
    # 1.35 has DeviceTaintRules only as v1alpha3: nothing to put in --runtime-config for the demo's version.
    assert demo_profile(profile_for("1.35")).runtime_config == frozenset()
    # The user's own gate setting wins: the demo does not turn DeviceTaintRules back on.
    off = demo_profile(profile_for("1.36", {"DRADeviceTaintRules": False}))
    assert not off.gate("DRADeviceTaintRules") and off.runtime_config == frozenset()


def test_runtime_config_flag_serves_the_beta_version_it_names(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "drasim", "simulate", "-o", "yaml"], capture_output=True, text=True,
                         check=True, timeout=300).stdout
    (tmp_path / "out.yaml").write_text(out)
    base = [sys.executable, "-m", "drasim", "validate", "-f", str(tmp_path / "out.yaml"),
            "--feature-gates", "DRADeviceTaintRules=true"]
    plain = subprocess.run(base, capture_output=True, text=True, check=False, timeout=300)
    assert "needs --runtime-config=resource.k8s.io/v1beta2=true" in plain.stdout + plain.stderr
    served = subprocess.run([*base, "--runtime-config", "resource.k8s.io/v1beta2=true"], capture_output=True,
                            text=True, check=False, timeout=300)
    assert served.returncode == 0, served.stdout + served.stderr
    assert "runtime-config" not in served.stderr and "warning" not in served.stdout.lower()
    bad = subprocess.run([*base, "--runtime-config", "apps/v1beta1=true"], capture_output=True, text=True,
                         check=False, timeout=300)
    assert bad.returncode == 2 and "--runtime-config" in bad.stderr


def test_parse_runtime_config() -> None:
    assert parse_runtime_config("resource.k8s.io/v1beta2=true, resource.k8s.io/v1beta1=false") == frozenset(
        {"resource.k8s.io/v1beta2"})
    assert parse_runtime_config("resource.k8s.io/v1beta2/devicetaintrules") == frozenset(
        {"resource.k8s.io/v1beta2/devicetaintrules"})
