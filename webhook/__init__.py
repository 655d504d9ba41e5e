"""dra-webhook: admission webhook for Kubernetes Dynamic Resource Allocation."""

__version__ = "0.1.0"
