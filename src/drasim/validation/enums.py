"""The values the API server accepts for enumerated resource.k8s.io fields, listed as its errors list them."""

from __future__ import annotations

TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")  # sorted, as upstream lists them
TOLERATION_OPERATORS = ("Equal", "Exists")
ALLOCATION_MODES = ("All", "ExactCount")
CONFIG_SOURCES = ("FromClaim", "FromClass")
SKIP_NODE_OPERATIONS = ("NodePrepareResources", "NodeUnprepareResources", "*")
