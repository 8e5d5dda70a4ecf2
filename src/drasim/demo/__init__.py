"""The bundled demo cluster: real NVIDIA driver shapes, classes and claim templates."""

from pathlib import Path

from drasim.api.profile import ReleaseProfile, profile_for

DEMO_DIR = Path(__file__).resolve().parent


def demo_paths() -> list[str]:
    """The demo manifests, as paths the loaders accept."""
    return [str(p) for p in sorted(DEMO_DIR.glob("*.yaml"))]


# The demo's DeviceTaintRule is written in this version: the only one 1.36 has beside v1alpha3.
_DEMO_TAINT_RULE_VERSION = "resource.k8s.io/v1beta2"


def demo_profile(profile: ReleaseProfile) -> ReleaseProfile:
    """The profile for the bundled demo: its cluster runs DeviceTaintRules as a platform team would set it
    up (the gate serving them on, and their beta version in --runtime-config where the release has it),
    unless the user set that gate."""
    gate = profile.taint_rule_gate()
    if gate in profile.overrides or profile.stage(gate) == "-":
        return profile
    runtime = profile.runtime_config
    if _DEMO_TAINT_RULE_VERSION.rpartition("/")[2] in profile.api_versions("DeviceTaintRule"):
        runtime = runtime | {f"{_DEMO_TAINT_RULE_VERSION}/devicetaintrules"}
    return profile_for(profile.version, {**profile.overrides, gate: True}, releases=(profile.version,),
                       runtime_config=runtime)


__all__ = ["DEMO_DIR", "demo_paths", "demo_profile"]
