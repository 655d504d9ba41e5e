"""validateUID, the check of `shareID`: google/uuid's Validate plus the normalized-form rule."""

from __future__ import annotations

from webhook.field import ErrorList, Path, invalid

_HEX = frozenset("0123456789abcdefABCDEF")
_HEX_PAIRS = (0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34)
UUID_NORMALIZED_LENGTH = 36


def _is_hex_pair(s: str, i: int) -> bool:
    return s[i] in _HEX and s[i + 1] in _HEX


def uuid_validate(value: str) -> str:
    """google/uuid's Validate: '' when valid, else its error text. Lengths count bytes, as in Go."""
    raw = value.encode("utf-8", "surrogatepass")
    s = raw.decode("latin-1")  # one char per byte, so indexing matches Go's
    length = len(s)
    if length == 36:
        pass
    elif length == 36 + 9:
        if s[:9].lower() != "urn:uuid:":
            return f'invalid urn prefix: "{value[:9]}"'
        s = s[9:]
    elif length == 36 + 2:
        if s[0] != "{" or s[-1] != "}":
            return "invalid bracketed UUID format"
        s = s[1:-1]
    elif length == 32:
        if not all(_is_hex_pair(s, i) for i in range(0, 32, 2)):
            return "invalid UUID format"
    else:
        return f"invalid UUID length: {length}"
    if len(s) == 36:
        if s[8] != "-" or s[13] != "-" or s[18] != "-" or s[23] != "-":
            return "invalid UUID format"
        if not all(_is_hex_pair(s, i) for i in _HEX_PAIRS):
            return "invalid UUID format"
    return ""


def validate_uid(uid: str, path: Path) -> ErrorList:
    """validateUID: parseable as a UUID, and in the 36-character lower-case form."""
    problem = uuid_validate(uid)
    if problem:
        return [invalid(path, uid, f"error validating uid: {problem}")]
    if len(uid.encode("utf-8", "surrogatepass")) != UUID_NORMALIZED_LENGTH or uid != uid.lower():
        return [invalid(path, uid, "uid must be in RFC 4122 normalized form, "
                                   "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters")]
    return []
