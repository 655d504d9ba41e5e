"""MkDocs hook: the reference pages' generated parts, from the program's own tables, at every build.

A page asks for a part with a comment on a line of its own, `<!-- generated: NAME -->`; the build puts
the part there. So the reference cannot drift from the code: the command-line reference is read from
the CLI's argparse parser, the warning codes from `webhook/offline/warningcodes.py`, the feature gates
from `webhook/profile.py` and the release behaviours from `webhook/behaviours.py`.
"""

from __future__ import annotations

import argparse
import html
import re
from dataclasses import fields

_MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.MULTILINE)


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell: HTML escaped, pipes and emphasis characters taken literally."""
    parts = " ".join(str(text).split()).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans at all
        parts = ["\\`".join(parts)]
    for i in range(0, len(parts), 2):  # outside code spans only: inside them every character is literal
        parts[i] = html.escape(parts[i], quote=False).replace("*", "\\*").replace("_", "\\_").replace("|", "\\|")
    return "`".join(parts)


def _code(text: str) -> str:
    return "`" + str(text) + "`"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    return dict(action.choices)


def _flag(action: argparse.Action) -> str:
    if not action.option_strings:
        name = action.metavar or action.dest
        return _code(name + (" ..." if action.nargs in ("*", "+") else ""))
    if action.nargs == 0:
        return ", ".join(_code(o) for o in action.option_strings)
    metavar = action.metavar or (("{" + ",".join(map(str, action.choices)) + "}") if action.choices
                                 else action.dest.upper())
    return ", ".join(_code(f"{o} {metavar}") for o in action.option_strings)


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if action.help is None or action.help == argparse.SUPPRESS:
        return ""
    text = parser._get_formatter()._expand_help(action)  # noqa: SLF001 - argparse's own %(default)s expansion
    if action.choices and action.metavar and action.option_strings:
        text += f" (one of: {', '.join(map(str, action.choices))})"
    if isinstance(action, argparse._AppendAction) and "repeat" not in text:  # noqa: SLF001
        text += " (repeatable)"
    return _cell(text)


def cli() -> str:
    """Every command and flag of `dra-webhook`, from `webhook.cli.build_parser()`."""
    from webhook.cli import build_parser

    parser = build_parser()
    out = ["| command | what it does |", "|---|---|"]
    commands = _subparsers(parser)
    sub_action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    helps = {c.dest: c.help for c in sub_action._choices_actions}  # noqa: SLF001
    for name in commands:
        out.append(f"| [{_code('dra-webhook ' + name)}](#dra-webhook-{name}) | {_cell(helps.get(name, ''))} |")
    out += ["", "Top-level flags: " + ", ".join(_code(f) for a in parser._actions  # noqa: SLF001
                                               for f in a.option_strings) + "."]
    for name, sub in commands.items():
        formatter = argparse.HelpFormatter(prog=sub.prog, width=10_000)
        formatter.add_usage(sub.usage, sub._actions, sub._mutually_exclusive_groups)  # noqa: SLF001
        usage = formatter.format_help().strip().removeprefix("usage: ")
        out += ["", f"## dra-webhook {name}", ""]
        if sub.description:
            out += [_cell(sub.description).replace("\\_", "_"), ""]
        out += ["```text", usage, "```", ""]
        actions = [a for a in sub._actions if not isinstance(a, argparse._HelpAction)]  # noqa: SLF001
        out += ["| argument or flag | what it does |", "|---|---|"]
        for action in actions:
            out.append(f"| {_flag(action)} | {_help(sub, action)} |")
        if sub.epilog:
            out += ["", _cell(sub.epilog)]
    return "\n".join(out)


def warning_codes() -> str:
    from webhook.offline.warningcodes import CODES

    out = ["| code | the warnings it names |", "|---|---|"]
    out += [f"| {_code(name)} | {_cell(meaning)} |" for name, (meaning, _) in CODES.items()]
    return "\n".join(out)


def feature_gates() -> str:
    from webhook.profile import DEFAULT_VERSION, GATES

    versions = list(GATES)
    names: list[str] = []
    for version in versions:
        names += [n for n in GATES[version] if n not in names]
    head = [f"{v} (default)" if v == DEFAULT_VERSION else v for v in versions]
    out = ["| gate | " + " | ".join(head) + " |", "|---|" + "---|" * len(versions)]
    for name in names:
        cells = []
        for version in versions:
            spec = GATES[version].get(name)
            if spec is None:
                cells.append("–")
            else:
                cells.append(f"{spec.stage}, {'on' if spec.default else 'off'}" + (", locked" if spec.locked else ""))
        out.append(f"| {_code(name)} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def _behaviour_comments() -> dict[str, str]:
    """The comment above each field of the Behaviours dataclass: what the behaviour means."""
    import inspect

    from webhook import behaviours

    comments: dict[str, str] = {}
    pending: list[str] = []
    for line in inspect.getsource(behaviours.Behaviours).splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            pending.append(stripped.lstrip("# "))
        elif ":" in stripped and not stripped.startswith(("class", "@")) and pending:
            comments[stripped.split(":", 1)[0]] = " ".join(pending)
            pending = []
        else:
            pending = []
    return comments


def behaviours() -> str:
    from webhook.behaviours import BEHAVIOURS, Behaviours

    versions = list(BEHAVIOURS)
    comments = _behaviour_comments()
    out = ["| behaviour | " + " | ".join(versions) + " | what it means |", "|---|" + "---|" * (len(versions) + 1)]
    for field in fields(Behaviours):
        values = []
        for version in versions:
            value = getattr(BEHAVIOURS[version], field.name)
            values.append({True: "yes", False: "–", None: "none"}.get(value, _code(value))
                          if isinstance(value, (bool, type(None))) else _code(value))
        out.append(f"| {_code(field.name)} | " + " | ".join(values) + f" | {_cell(comments.get(field.name, ''))} |")
    return "\n".join(out)


def _schema_type(spec: dict) -> str:
    options = spec.get("anyOf", [spec])
    names = []
    for option in options:
        if "$ref" in option:
            names.append(option["$ref"].rsplit("/", 1)[-1])
        elif "enum" in option:
            names.append(" \\| ".join(_code(v) for v in option["enum"]))
        elif option.get("type") == "array":
            item = option.get("items", {})
            names.append("list of " + (item["$ref"].rsplit("/", 1)[-1] if "$ref" in item else item.get("type", "any")))
        elif option.get("type") not in (None, "null"):
            names.append(option["type"] if option["type"] != "object" else "mapping")
        elif not option:
            names.append("any")
    return " or ".join(names) or "any"


def suite_keys() -> str:
    """The keys of a TestSuite, from the JSON Schema the program prints (`dra-webhook test --schema`)."""
    import json

    from webhook.offline.suite_schema import json_schema

    document = json.loads(json_schema())
    sections = [("TestSuite", document), *document.get("$defs", {}).items()]
    out: list[str] = []
    for name, spec in sections:
        required = set(spec.get("required", ()))
        out += [f"### {name}", "", "| key | type | required |", "|---|---|---|"]
        for key, value in spec.get("properties", {}).items():
            out.append(f"| {_code(key)} | {_schema_type(value)} | {'yes' if key in required else ''} |")
        out.append("")
    return "\n".join(out)


def api_limits() -> str:
    """The constants of webhook/limits.py with the comment beside or above each."""
    import inspect

    from webhook import limits

    out = ["| limit | value | note |", "|---|---|---|"]
    above: list[str] = []
    for line in inspect.getsource(limits).splitlines():
        match = re.match(r"^([A-Z][A-Z0-9_]+)\s*(?::[^=]+)?=\s*([^#]+?)\s*(?:#\s*(.*))?$", line)
        if match:
            value = getattr(limits, match[1])
            note = " ".join([*above, match[3] or ""]).strip()
            shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)
            out.append(f"| {_code(match[1])} | {shown} | {_cell(note)} |")
            above = []
        elif line.startswith("#"):
            above.append(line.lstrip("# "))
        else:
            above = []
    return "\n".join(out)


PARTS = {"api-limits": api_limits, "suite-keys": suite_keys, "cli": cli, "warning-codes": warning_codes, "feature-gates": feature_gates, "behaviours": behaviours}


def expand(markdown: str) -> str:
    """The page with every `<!-- generated: NAME -->` replaced by its part; an unknown name is an error."""
    def part(match: re.Match) -> str:
        name = match[1]
        if name not in PARTS:
            raise ValueError(f"unknown generated part {name!r}; the parts: {', '.join(PARTS)}")
        return PARTS[name]()

    return _MARKER.sub(part, markdown)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - MkDocs' hook signature
    return expand(markdown)
