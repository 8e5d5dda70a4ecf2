"""The cluster state a scheduler sees: nodes, slices (+ DeviceTaintRules merged), classes, claims, pods."""

from drasim.cluster.state import EPOCH, ClusterState, Key, key_of

__all__ = ["EPOCH", "ClusterState", "Key", "key_of"]
