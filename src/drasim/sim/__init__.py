"""The simulation layer: workloads expanded into pods, and timelines of changes at simulated times."""
