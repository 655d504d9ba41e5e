"""The examples of the user documentation (README.md and docs/), read as a reader reads them.

- A ```console block holds commands (`$ command`, continued with `\\` and `> `) each followed by the
  output it prints. Every command states its exit code as a trailing comment, `# exit N`. In the
  output, a line `...` alone stands for any number of lines.
- A ```sh block holds command lines; each `dra-webhook` line that runs without a cluster, a network or
  an editor's placeholder (no kubectl, curl, pip, docker, helm, make, git; no `[`, `<`, `OWNER`) states
  its exit code the same way, and is run.

The fenced manifests are read by the product itself (`dra-webhook review --markdown`); a block whose
expected verdict is not "allowed" says which with `<!-- dra-webhook: expect denied -->` (or `fragment`,
`skipped`, `unreadable`) on a line before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXIT = re.compile(r"[ \t]+#[ \t]*exit[ \t]+(\d+)\b.*$")
EXPECT = re.compile(r"^<!--[ \t]*dra-webhook:[ \t]*expect[ \t]+(allowed|denied|fragment|skipped|unreadable)[ \t]*-->$")
FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*([\w-]*)")
# Commands that need what a test run has not: a cluster, the network, an installer, a placeholder to fill in.
NOT_RUN = re.compile(r"\b(?:kubectl|curl|pipx?|docker|helm|make|git|mkdocs)\b|\[|<|OWNER|\.venv/bin/activate")


def documents() -> list[Path]:
    """README.md and every page of docs/, in a stable order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass
class Command:
    file: str
    line: int
    command: str
    exit: int | None
    output: list[str] | None = None  # None: an sh line, whose output is not shown


@dataclass
class Block:
    file: str
    line: int  # the line of the opening fence
    language: str
    lines: list[str] = field(default_factory=list)
    expect: str | None = None


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file at the top level of the text (the docs put none in lists)."""
    found: list[Block] = []
    text = path.read_text(encoding="utf-8").splitlines()
    rel = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    i, expect = 0, None
    while i < len(text):
        match = FENCE.match(text[i])
        if not match:
            marker = EXPECT.match(text[i].strip())
            if marker:
                expect = marker[1]
            elif text[i].strip():
                expect = None if not text[i].startswith("<!--") else expect
            i += 1
            continue
        fence, language = match[1], match[2].lower()
        block = Block(rel, i + 1, language, expect=expect)
        i += 1
        while i < len(text) and not text[i].startswith(fence[0] * len(fence)):
            block.lines.append(text[i])
            i += 1
        i += 1
        expect = None
        found.append(block)
    return found


def _joined(lines: list[str], start: int, prompt: str) -> tuple[str, int]:
    """A command line from `start`, its continuation lines (a trailing `\\`, then `> `) joined."""
    command = lines[start][len(prompt):]
    i = start
    while command.rstrip().endswith("\\") and i + 1 < len(lines):
        i += 1
        command = command.rstrip()[:-1] + " " + re.sub(r"^>\s?", "", lines[i]).lstrip()
    return command, i + 1


def console_commands(block: Block) -> list[Command]:
    commands: list[Command] = []
    i = 0
    while i < len(block.lines):
        if not block.lines[i].startswith("$ "):
            raise AssertionError(f"{block.file}:{block.line + 1 + i}: console output without a `$ ` command")
        command, i = _joined(block.lines, i, "$ ")
        output: list[str] = []
        while i < len(block.lines) and not block.lines[i].startswith("$ "):
            output.append(block.lines[i])
            i += 1
        commands.append(_command(block, command, output))
    return commands


def _command(block: Block, command: str, output: list[str] | None) -> Command:
    match = EXIT.search(command)
    return Command(block.file, block.line, EXIT.sub("", command).rstrip() if match else command.rstrip(),
                   int(match[1]) if match else None, output)


def shell_commands(block: Block) -> list[Command]:
    """The `dra-webhook` lines of an sh block that a test can run."""
    commands: list[Command] = []
    i = 0
    while i < len(block.lines):
        command, i = _joined(block.lines, i, "")
        runnable = re.search(r"(?:^|\|\s*)dra-webhook\s", command.split("#", 1)[0]) and not NOT_RUN.search(
            EXIT.sub("", command))
        if runnable:
            commands.append(_command(block, command, None))
    return commands


def all_commands() -> list[Command]:
    commands: list[Command] = []
    for path in documents():
        for block in blocks(path):
            if block.language == "console":
                commands += console_commands(block)
            elif block.language in ("sh", "shell", "bash"):
                commands += shell_commands(block)
    return commands


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the printed lines are the shown ones, a `...` line standing for any number of lines."""
    parts: list[list[str]] = [[]]
    for line in expected:
        if line.strip() == "...":
            parts.append([])
        else:
            parts[-1].append(line.rstrip())
    actual = [line.rstrip() for line in actual]
    if len(parts) == 1:
        return parts[0] == actual
    first, *middle, last = parts
    if actual[:len(first)] != first or (last and actual[len(actual) - len(last):] != last):
        return False
    position, end = len(first), len(actual) - len(last)
    if end < position:
        return False
    for part in middle:
        for start in range(position, end - len(part) + 1):
            if actual[start:start + len(part)] == part:
                position = start + len(part)
                break
        else:
            return False
    return True
