"""The bundled demo cluster: real NVIDIA driver shapes, classes and claim templates."""

from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent


def demo_paths() -> list[str]:
    """The demo manifests, as paths the loaders accept."""
    return [str(p) for p in sorted(DEMO_DIR.glob("*.yaml"))]
