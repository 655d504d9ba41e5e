"""Driver profiles: each DRA driver's own rules for its `opaque.parameters`, as data.

A profile (one YAML file per driver, `profiles.py`) names the drivers it covers and, per configuration
kind, a CRD-style structural `openAPIV3Schema` with `x-kubernetes-validations` CEL rules (`schema.py`,
`rules.py`). `registry.py` loads the bundled profiles (`bundled/`) and the operator's, and reloads them
when their files change; `check.py` applies them to ResourceClaims, ResourceClaimTemplates and
DeviceClasses; `validate.py` turns a schema into field errors at real sub-paths.
"""
