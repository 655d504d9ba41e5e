"""metav1.Time's JSON decoding: `time.Parse(time.RFC3339, text)` and the error Go's time package words.

The API server refuses a request whose timestamps do not parse (creationTimestamp, timeAdded,
allocationTimestamp, lastTransitionTime, managedFields[].time) with a 400: `... cannot be handled as a
ResourceClaim: parsing time "1.2.3" as "2006-01-02T15:04:05Z07:00": cannot parse "1.2.3" as "2006"`. Go's
`parse` walks the layout element by element; the first element the rest of the text does not fit is named
with that rest, a number out of its range is named by its field, and text left over is "extra text".
"""

from __future__ import annotations

LAYOUT = "2006-01-02T15:04:05Z07:00"
# The layout as Go's nextStdChunk splits it: (literal before the element, element, digits, range field, low, high).
_ELEMENTS = (("", "2006", 4, "year", 0, 9999), ("-", "01", 2, "month", 1, 12), ("-", "02", 2, "day", 1, 31),
             ("T", "15", 2, "hour", 0, 23), (":", "04", 2, "minute", 0, 59), (":", "05", 2, "second", 0, 59))
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _quote(text: str) -> str:
    """Go's time.quote: double quotes, `"` and `\\` escaped, other bytes outside printable ASCII as \\x.."""
    out = ['"']
    for byte in text.encode("utf-8", "surrogatepass"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\x{byte:02x}")
    out.append('"')
    return "".join(out)


def _cannot(value: str, rest: str, element: str) -> str:
    return f"parsing time {_quote(value)} as {_quote(LAYOUT)}: cannot parse {_quote(rest)} as {_quote(element)}"


def rfc3339_error(value: str) -> str | None:
    """Go's error for time.Parse(time.RFC3339, value), or None when it parses."""
    rest = value
    numbers = {}
    for literal, element, digits, name, low, high in _ELEMENTS:
        if not rest.startswith(literal):
            return _cannot(value, rest, literal)
        rest = rest[len(literal):]
        head = rest[:digits]
        if len(head) < digits or not head.isascii() or not head.isdigit():
            return _cannot(value, rest, element)
        number = int(head)
        if name != "day" and not low <= number <= high:  # the day is checked against its month at the end
            return f"parsing time {_quote(value)}: {name} out of range"
        numbers[name] = number
        rest = rest[digits:]
        if name == "second" and len(rest) >= 2 and rest[0] in ".," and rest[1].isascii() and rest[1].isdigit():
            end = 1
            while end < len(rest) and rest[end].isascii() and rest[end].isdigit():
                end += 1
            rest = rest[end:]
    if rest.startswith("Z"):
        rest = rest[1:]
    elif len(rest) >= 6 and rest[0] in "+-" and rest[3] == ":" and rest[1:3].isdigit() and rest[4:6].isdigit() \
            and rest[1:3].isascii() and rest[4:6].isascii():
        if int(rest[4:6]) > 60:  # Go's bounds (> not >=: offsets of 24 hours or 60 minutes pass); minute wins
            return f"parsing time {_quote(value)}: time zone offset minute out of range"
        if int(rest[1:3]) > 24:
            return f"parsing time {_quote(value)}: time zone offset hour out of range"
        rest = rest[6:]
    else:
        return _cannot(value, rest, "Z07:00")
    if rest:
        return f"parsing time {_quote(value)}: extra text: {_quote(rest)}"
    year, month, day = numbers["year"], numbers["month"], numbers["day"]
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= day <= _DAYS[month - 1] + (1 if month == 2 and leap else 0):
        return f"parsing time {_quote(value)}: day out of range"
    return None


def check(value: str) -> str:
    """A pydantic after-validator: the text unchanged, or ValueError with Go's words."""
    error = rfc3339_error(value)
    if error is not None:
        raise ValueError(error)
    return value


def instant(value: str) -> tuple[int, int] | None:
    """The instant `time.Parse(time.RFC3339, value)` reads, as (seconds since 1970 UTC, nanoseconds), or None
    when it does not parse: what metav1.Time's semantic equality (`a.UTC() == b.UTC()`) compares. Go keeps
    nine digits of a fraction and drops the rest."""
    if not isinstance(value, str) or rfc3339_error(value) is not None:
        return None
    date, clock = value[:10], value[11:]
    seconds = (_days_from_civil(int(date[0:4]), int(date[5:7]), int(date[8:10])) * 86400
               + int(clock[0:2]) * 3600 + int(clock[3:5]) * 60 + int(clock[6:8]))
    rest, nanos = clock[8:], 0
    if rest[:1] in (".", ","):
        end = 1
        while end < len(rest) and rest[end].isascii() and rest[end].isdigit():
            end += 1
        nanos = int(rest[1:end][:9].ljust(9, "0"))
        rest = rest[end:]
    if rest != "Z":
        offset = int(rest[1:3]) * 3600 + int(rest[4:6]) * 60
        seconds -= offset if rest[0] == "+" else -offset
    return seconds, nanos


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468
