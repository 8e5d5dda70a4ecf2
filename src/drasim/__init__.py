"""drasim: a faithful, fast simulator of Kubernetes Dynamic Resource Allocation."""

__version__ = "0.1.0"
DEFAULT_KUBERNETES_VERSION = "1.36"
