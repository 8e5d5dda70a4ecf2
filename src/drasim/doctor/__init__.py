"""`drasim doctor`: read-only health checks of a cluster's (or a dump's) DRA setup."""

from drasim.doctor.checks import ClusterSnapshot, DoctorReport, Finding, diagnose

__all__ = ["ClusterSnapshot", "DoctorReport", "Finding", "diagnose"]
