"""The `cel.expr` messages of a checked expression, built from descriptors so protobuf's C parser reads them.

Only the fields the estimator and the validators read are declared (numbers as in cel-spec's
`cel/expr/syntax.proto` and `cel/expr/checked.proto`); the parser skips the others. The compiler's
`Expression.serialize()` is a `google.protobuf.Any` whose field 2 holds the `CheckedExpr` bytes, so
`SerializedChecked` declares that field as the message itself: one parse, no copy.
"""

from __future__ import annotations

from functools import cache

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_INT64, _INT32, _BOOL = _F.TYPE_INT64, _F.TYPE_INT32, _F.TYPE_BOOL
_STRING, _BYTES = _F.TYPE_STRING, _F.TYPE_BYTES
_REPEATED = "repeated"

# message name -> [(field name, number, type or message name, "repeated" | oneof name | None)]
_MESSAGES: dict[str, list[tuple]] = {
    # Leaves stay bytes (`leaves.py` reads them): one access instead of a message wrapper and two more.
    "Expr": [("id", 2, _INT64, None), ("const_expr", 3, _BYTES, "expr_kind"),
             ("ident_expr", 4, _BYTES, "expr_kind"), ("select_expr", 5, "Expr.Select", "expr_kind"),
             ("call_expr", 6, "Expr.Call", "expr_kind"), ("list_expr", 7, "Expr.CreateList", "expr_kind"),
             ("struct_expr", 8, "Expr.CreateStruct", "expr_kind"),
             ("comprehension_expr", 9, "Expr.Comprehension", "expr_kind")],
    "Expr.Select": [("operand", 1, "Expr", None), ("field", 2, _STRING, None), ("test_only", 3, _BOOL, None)],
    "Expr.Call": [("target", 1, "Expr", None), ("function", 2, _STRING, None), ("args", 3, "Expr", _REPEATED)],
    "Expr.CreateList": [("elements", 1, "Expr", _REPEATED)],
    "Expr.CreateStruct": [("message_name", 1, _STRING, None), ("entries", 2, "Expr.CreateStruct.Entry", _REPEATED)],
    "Expr.CreateStruct.Entry": [("field_key", 2, _STRING, "key_kind"), ("map_key", 3, "Expr", "key_kind"),
                                ("value", 4, "Expr", None)],
    "Expr.Comprehension": [("iter_var", 1, _STRING, None), ("iter_range", 2, "Expr", None),
                           ("accu_var", 3, _STRING, None), ("accu_init", 4, "Expr", None),
                           ("loop_condition", 5, "Expr", None), ("loop_step", 6, "Expr", None),
                           ("result", 7, "Expr", None), ("iter_var2", 8, _STRING, None)],
    "SourceInfo": [("positions", 4, "SourceInfo.PositionsEntry", _REPEATED)],
    "SourceInfo.PositionsEntry": [("key", 1, _INT64, None), ("value", 2, _INT32, None)],
    "Reference": [("overload_id", 3, _STRING, _REPEATED)],
    "Type": [("dyn", 1, "Empty", "type_kind"), ("null", 2, _INT64, "type_kind"),
             ("primitive", 3, _INT64, "type_kind"), ("wrapper", 4, _INT64, "type_kind"),
             ("well_known", 5, _INT64, "type_kind"), ("list_type", 6, "Type.ListType", "type_kind"),
             ("map_type", 7, "Type.MapType", "type_kind"), ("function", 8, "Empty", "type_kind"),
             ("message_type", 9, _STRING, "type_kind"), ("type_param", 10, _STRING, "type_kind"),
             ("type", 11, "Type", "type_kind"), ("error", 12, "Empty", "type_kind"),
             ("abstract_type", 14, "Type.AbstractType", "type_kind")],
    "Type.ListType": [("elem_type", 1, "Type", None)],
    "Type.MapType": [("key_type", 1, "Type", None), ("value_type", 2, "Type", None)],
    "Type.AbstractType": [("name", 1, _STRING, None), ("parameter_types", 2, "Type", _REPEATED)],
    "Empty": [],
    # Source positions are read only to render an issue: `SerializedSourceInfo` parses them then.
    "CheckedExpr": [("reference_map", 2, "CheckedExpr.ReferenceMapEntry", _REPEATED),
                    ("type_map", 3, "CheckedExpr.TypeMapEntry", _REPEATED), ("expr", 4, "Expr", None)],
    "CheckedSourceInfo": [("source_info", 5, "SourceInfo", None)],
    # Types and references repeat across nodes and expressions: kept as bytes, decoded once per distinct value.
    "CheckedExpr.ReferenceMapEntry": [("key", 1, _INT64, None), ("value", 2, _BYTES, None)],
    "CheckedExpr.TypeMapEntry": [("key", 1, _INT64, None), ("value", 2, _BYTES, None)],
    "SerializedChecked": [("type_url", 1, _STRING, None), ("value", 2, "CheckedExpr", None)],
    "SerializedSourceInfo": [("value", 2, "CheckedSourceInfo", None)],
}
_MAP_ENTRIES = {"SourceInfo.PositionsEntry", "CheckedExpr.ReferenceMapEntry", "CheckedExpr.TypeMapEntry"}


def _file() -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(name="dra_webhook/cel_checked.proto", package="dra_webhook.cel",
                                              syntax="proto3")
    built: dict[str, descriptor_pb2.DescriptorProto] = {}
    for name in sorted(_MESSAGES, key=lambda n: n.count(".")):  # parents before nested messages
        parent, _, short = name.rpartition(".")
        message = (built[parent].nested_type if parent else file.message_type).add(name=short)
        built[name] = message
        if name in _MAP_ENTRIES:
            message.options.map_entry = True
        oneofs: list[str] = []
        for field_name, number, kind, extra in _MESSAGES[name]:
            field = message.field.add(name=field_name, number=number,
                                      label=_F.LABEL_REPEATED if extra == _REPEATED else _F.LABEL_OPTIONAL)
            if isinstance(kind, str):
                field.type, field.type_name = _F.TYPE_MESSAGE, f".dra_webhook.cel.{kind}"
            else:
                field.type = kind
            if extra not in (None, _REPEATED):
                if extra not in oneofs:
                    oneofs.append(extra)
                    message.oneof_decl.add(name=extra)
                field.oneof_index = oneofs.index(extra)
    return file


@cache
def _pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    return pool


@cache
def message_class(name: str):
    """The class of one of the messages above, e.g. "SerializedChecked" for `Expression.serialize()` output."""
    return message_factory.GetMessageClass(_pool().FindMessageTypeByName(f"dra_webhook.cel.{name}"))
