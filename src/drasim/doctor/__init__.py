"""`drasim doctor`: read-only health checks of a cluster's (or a dump's) DRA setup."""

from drasim.doctor.checks import diagnose
from drasim.doctor.model import DoctorReport, Finding

__all__ = ["DoctorReport", "Finding", "diagnose"]
