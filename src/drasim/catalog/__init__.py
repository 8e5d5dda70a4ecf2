"""Bundled knowledge of real hardware (NVIDIA GPU models, MIG profiles, the driver's publishing rules) as data:
the fleet generator and lint read the same catalog."""
