"""API-server validation and admission of DRA objects (resource.k8s.io/v1 and the core/v1 fields DRA touches)."""
