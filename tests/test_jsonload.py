"""webhook.jsonload gives what json.loads gives (values, key order, exceptions), for the inputs where
orjson and the standard library part ways and for ordinary ones."""

from __future__ import annotations

import json

import pytest

from webhook import jsonload


def _reject(name: str):
    raise ValueError(f"{name} is not valid JSON")


CASES = [
    b'{"a":"\\ud800"}',  # a lone surrogate: orjson refuses, json.loads keeps it
    b'{"a":"\\ud83d\\ude00"}',
    b'{"a":1e400}',  # beyond float: orjson refuses, json.loads gives inf
    b'{"a":-0.0}', b'{"a":-0}', b'{"a":0.1}', b'{"a":1E2}', b'{"a":5e-324}', b'{"a":1.5e-400}',
    b'{"a":123456789012345678}',  # 18 digits: always int64
    b'{"a":9223372036854775807}', b'{"a":-9223372036854775808}',
    b'{"a":18446744073709551616}',  # orjson would give a float
    b'{"a":-9223372036854775809}', b'{"a":123456789012345678901234567890}',
    b'{"a":[1,2,{"b":99999999999999999999999}]}',
    b'\xef\xbb\xbf{"a":1}',  # a byte order mark
    b'{"a":"\t"}', b'{"a":"\\u0000"}', b'{"a":"\xff"}', b'{"a":"\xed\xa0\x80"}',
    b'{"b":1,"a":2,"b":3}',  # duplicate keys: the last value, the first position
    b'[' * 1100 + b']' * 1100,  # deeper than orjson goes
    b'{"a":NaN}', b'{"a":Infinity}', b'{"a":-Infinity}',
    b' {"a":1} \n', b'"text"', b'{"k":true,"n":null}', b'', b'{', b'{"a":1}x',
]


def _outcome(parse, data: bytes):
    try:
        value = parse(data)
    except RecursionError:
        return ("RecursionError",)
    except (ValueError, UnicodeDecodeError) as exc:
        return (type(exc).__name__, str(exc))
    return ("value", repr(value), [type(v).__name__ for v in value.values()] if isinstance(value, dict) else None)


@pytest.mark.parametrize("data", CASES, ids=[repr(c[:24]) for c in CASES])
@pytest.mark.parametrize("parse_constant", [None, _reject], ids=["default", "rejecting constants"])
def test_the_same_values_and_errors_as_json_loads(data, parse_constant):
    expected = _outcome(lambda d: json.loads(d, parse_constant=parse_constant), data)
    assert _outcome(lambda d: jsonload.loads(d, parse_constant=parse_constant), data) == expected


def test_a_real_review_body_parses_the_same(tmp_path):
    from support import review_body, valid_slice

    body = json.dumps(review_body(valid_slice(devices=64)), ensure_ascii=False).encode()
    assert jsonload.loads(body) == json.loads(body)
