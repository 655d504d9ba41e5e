"""Conversion of older resource.k8s.io versions to the v1 shape that validation reads.

The API server validates its internal form, which matches v1, so errors carry v1 paths even for
v1beta1 clients. Each converter takes a copy of the object and returns `(v1_object, warnings)`; it
must tolerate wrongly typed input (it only moves what is dict/list shaped); type checking happens
afterwards, on the v1 shape. Which converter serves which (kind, version) is `webhook.kinds`'s to say.
"""
