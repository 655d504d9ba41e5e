"""Ported from apimachinery's field/path_test.go and errors_test.go (v0.36)."""

import pytest

from webhook import field
from webhook.field import ErrorType, FieldError, Path


def test_path_sequence():
    # TestPath: each step applied to the previous result.
    root = Path("root")
    p = root
    steps = [
        (lambda p: p, "root"),
        (lambda p: p.child("first"), "root.first"),
        (lambda p: p.child("second"), "root.first.second"),
        (lambda p: p.index(0), "root.first.second[0]"),
        (lambda p: p.child("third"), "root.first.second[0].third"),
        (lambda p: p.index(93), "root.first.second[0].third[93]"),
        (lambda p: p.parent, "root.first.second[0].third"),
        (lambda p: p.parent, "root.first.second[0]"),
        (lambda p: p.key("key"), "root.first.second[0][key]"),
    ]
    for i, (op, expected) in enumerate(steps):
        p = op(p)
        assert str(p) == expected, i
        assert p.root() is root


@pytest.mark.parametrize("build,expected", [
    (lambda: Path("root", "first"), "root.first"),
    (lambda: Path("root", "first").child("second", "third"), "root.first.second.third"),
    (lambda: Path("root", "first").child("second", "third").index(0), "root.first.second.third[0]"),
    (lambda: Path("spec", "devices").index(3).child("attributes").key("dra.example.com/model"),
     "spec.devices[3].attributes[dra.example.com/model]"),
    (lambda: Path("metadata").child("labels"), "metadata.labels"),
], ids=["two names", "four names", "index after names", "map key with slash", "child"])
def test_path_rendering(build, expected):
    assert str(build()) == expected


def _raw(type_, value="the value", detail="the details"):
    return FieldError(type_, "path.to.field", value, detail)


# TestErrorFormatting, case by case.
@pytest.mark.parametrize("error,expected", [
    (_raw(ErrorType.REQUIRED), "path.to.field: Required value: the details"),
    (field.required(Path("path.to.field"), "the details"), "path.to.field: Required value: the details"),
    (_raw(ErrorType.FORBIDDEN), "path.to.field: Forbidden: the details"),
    (field.forbidden(Path("path.to.field"), "the details"), "path.to.field: Forbidden: the details"),
    (_raw(ErrorType.TOO_LONG), "path.to.field: Too long: the details"),
    (field.too_long(Path("path.to.field"), "the value", 1), "path.to.field: Too long: may not be more than 1 byte"),
    (field.too_long(Path("path.to.field"), "the value", 2), "path.to.field: Too long: may not be more than 2 bytes"),
    (field.too_long(Path("path.to.field"), "the value", -1), "path.to.field: Too long: value is too long"),
    (_raw(ErrorType.TOO_MANY), 'path.to.field: Too many: "the value": the details'),
    (field.too_many(Path("path.to.field"), 2, 1), "path.to.field: Too many: 2: must have at most 1 item"),
    (field.too_many(Path("path.to.field"), 3, 2), "path.to.field: Too many: 3: must have at most 2 items"),
    (field.too_many(Path("path.to.field"), 2, -1), "path.to.field: Too many: 2: has too many items"),
    (field.too_many(Path("path.to.field"), -1, 1), "path.to.field: Too many: must have at most 1 item"),
    (_raw(ErrorType.INTERNAL), "path.to.field: Internal error: the details"),
    (field.internal_error(Path("path.to.field"), "the error"), "path.to.field: Internal error: the error"),
    (_raw(ErrorType.INVALID), 'path.to.field: Invalid value: "the value": the details'),
    (_raw(ErrorType.INVALID, -42), "path.to.field: Invalid value: -42: the details"),
    (_raw(ErrorType.INVALID, True), "path.to.field: Invalid value: true: the details"),
    (_raw(ErrorType.INVALID, {"s": "a", "i": 1}), 'path.to.field: Invalid value: {"i":1,"s":"a"}: the details'),
    (_raw(ErrorType.INVALID, ["a", "b"]), 'path.to.field: Invalid value: ["a","b"]: the details'),
    (_raw(ErrorType.INVALID, None), "path.to.field: Invalid value: null: the details"),
    (_raw(ErrorType.INVALID, field.OMIT), "path.to.field: Invalid value: the details"),
    (_raw(ErrorType.NOT_SUPPORTED), 'path.to.field: Unsupported value: "the value": the details'),
    (field.not_supported(Path("path.to.field"), "x", ["a", "b"]),
     'path.to.field: Unsupported value: "x": supported values: "a", "b"'),
    (field.not_supported(Path("path.to.field"), "x", []), 'path.to.field: Unsupported value: "x"'),
    (_raw(ErrorType.NOT_FOUND), 'path.to.field: Not found: "the value": the details'),
    (field.not_found(Path("path.to.field"), "v"), 'path.to.field: Not found: "v"'),
    (_raw(ErrorType.DUPLICATE), 'path.to.field: Duplicate value: "the value": the details'),
    (field.duplicate(Path("path.to.field"), "v"), 'path.to.field: Duplicate value: "v"'),
    (_raw(ErrorType.TYPE_INVALID), 'path.to.field: Invalid value: "the value": the details'),
    (field.too_few(Path("path.to.field"), 1, 2), "path.to.field: Too few: 1: must have at least 2 items"),
    (field.too_short(Path("path.to.field"), "x", 2), "path.to.field: Too short: must be at least 2 characters"),
])
def test_error_formatting(error, expected):
    assert str(error) == expected


@pytest.mark.parametrize("text,expected", [
    ("plain", '"plain"'),
    ('quo"te', '"quo\\"te"'),
    ("back\\slash", '"back\\\\slash"'),
    ("new\nline\ttab", '"new\\nline\\ttab"'),
    ("\x00", '"\\x00"'),
    ("ünïcode", '"ünïcode"'),
    ("\u200b", '"\\u200b"'),
])
def test_go_quote(text, expected):
    assert field.go_quote(text) == expected


def test_html_characters_are_escaped_like_go_json():
    assert field.go_json({"a": "<&>"}) == '{"a":"\\u003c\\u0026\\u003e"}'


@pytest.mark.parametrize("errors,count", [
    ([], 0),
    ([field.invalid(Path("f"), "v", "d")], 1),
    ([field.invalid(Path("f"), "v", "d"), field.invalid(Path("f"), "v", "d")], 1),
    ([field.invalid(Path("f"), "v", "d"), field.internal_error(Path(""), "e")], 2),
], ids=["nil", "one", "duplicate folded", "two"])
def test_to_aggregate(errors, count):
    message = field.aggregate_message(errors)
    if count == 0:
        assert message == ""
    elif count == 1:
        assert message == str(errors[0])
    else:
        assert message == "[" + ", ".join(str(e) for e in errors) + "]"


@pytest.mark.parametrize("maker,expected", [
    (lambda: field.invalid(Path("f"), "v", "d"), ErrorType.INVALID),
    (lambda: field.not_supported(Path("f"), "v"), ErrorType.NOT_SUPPORTED),
    (lambda: field.duplicate(Path("f"), "v"), ErrorType.DUPLICATE),
    (lambda: field.not_found(Path("f"), "v"), ErrorType.NOT_FOUND),
    (lambda: field.required(Path("f"), "d"), ErrorType.REQUIRED),
    (lambda: field.internal_error(Path("f"), "e"), ErrorType.INTERNAL),
])
def test_make_funcs(maker, expected):
    error = maker()
    assert error.type is expected
    assert error.key == ("f", expected.value)


def test_bad_values_are_bounded_only_where_the_server_asks():
    from webhook.field import ECHOED_VALUE_CHARS, bounded_echo, invalid

    error = invalid("metadata.name", "a" * 100_000, "must be no more than 253 characters")
    assert len(error.body()) > 100_000  # offline: the whole value, as upstream renders it
    with bounded_echo():
        body = error.body()
        short = invalid("metadata.name", "a\nb", "bad").body()
        structured = invalid("spec", {"k": "v" * 1000}, "bad").body()
    assert body == 'Invalid value: "' + "a" * ECHOED_VALUE_CHARS + '...(truncated): must be no more than 253 characters'
    assert short == 'Invalid value: "a\\nb": bad'  # short values as ever
    assert structured.startswith('Invalid value: {"k":"vvv') and structured.endswith("...(truncated): bad")
    assert len(structured) < 2 * ECHOED_VALUE_CHARS
