"""Invisible and format characters are escaped in every output (issue 37): one helper, `visible`."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest

from webhook.offline.visible import visible

# A soft hyphen, zero-width space/joiners, word joiner, U+180E, the BOM, tag characters spelling "hi",
# a bidi isolate, an invisible operator, a Hangul filler, a variation selector, a line separator.
HIDDEN = "\u00ad\u200b\u200c\u200d\u2060\u180e\ufeff\U000e0068\U000e0069\u2066\u2062\u3164\ufe0f\u2028\x85"


@pytest.mark.parametrize("char", list(HIDDEN), ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_each_hidden_character_is_escaped(char):
    out = visible(f"a{char}b")
    assert char not in out and out.startswith("a\\") and out.endswith("b")


def test_every_format_character_of_this_python_is_escaped():
    format_chars = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    assert len(format_chars) > 150
    kept = [f"U+{ord(c):04X}" for c in format_chars if visible(c) == c]
    assert not kept


def test_ordinary_unicode_is_kept():
    assert visible("gpu-é-日本-\U0001f600") == "gpu-é-日本-\U0001f600"
    assert visible("\U000e0041") == "\\U000e0041"


def _hidden_class(tmp_path):
    path = tmp_path / "hidden.json"
    name = "gpu" + HIDDEN + "class"
    path.write_text(json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                "metadata": {"name": name, "labels": {name: name}}}))
    return str(path)


@pytest.mark.parametrize("output", ["text", "tap", "github", "junit", "sarif", "json"])
def test_no_hidden_character_reaches_any_output_format(tmp_path, capsys, output):
    from webhook import cli

    code = cli.main(["review", "-o", output, _hidden_class(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "gpu" in out
    if output == "json":  # the names exactly as written, every character outside ASCII escaped by JSON itself
        assert out.isascii() and "gpu" + HIDDEN + "class" in json.dumps(json.loads(out), ensure_ascii=False)
        return
    if output == "sarif":  # read its strings as a SARIF viewer does: JSON's escapes undone
        out = json.dumps(json.loads(out), ensure_ascii=False)
    assert not [f"U+{ord(c):04X}" for c in HIDDEN if c in out]
