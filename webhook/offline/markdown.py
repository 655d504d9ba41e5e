"""The manifests inside Markdown: fenced code blocks and the heredocs of `kubectl apply -f - <<EOF`.

One linear pass over the lines finds the fenced code blocks as CommonMark has them: a line of three or
more backticks or tildes opens one (its indentation, however deep a list nests it, is taken off the
lines inside, as CommonMark takes it off up to the fence's own), the info string's first word is its
language, a line of the same character at least as long closes it, and the end of the file closes
what is left open. Inside block quotes (`> `, nested, with lists in them) a fence is read from the lines
with their markers taken off; a line with fewer markers ends the quote and the block (lazy continuation
does not apply to code), and columns count the markers. Not implemented: indented code blocks, HTML.

What is read:
- ```yaml, ```yml, ```json blocks: every document;
- unlabelled blocks, when they hold Kubernetes objects (`apiVersion` and `kind` in every document);
- in sh, shell, bash, zsh and console blocks, the body of a heredoc (`<<EOF`, `<<-EOF`, `<<'EOF'`, any
  delimiter) fed to `kubectl apply` or `kubectl create` with `-f -`, on the line or through a pipe
  (`cat <<EOF | kubectl apply -f -`), or written to a file by `cat` (`cat <<EOF > x.yaml`, `>>`) or `tee`
  that a later command of the same block applies or creates (`kubectl apply -f x.yaml`); prompts (`$ `, `% `) and the console's `> ` before each line of
  the body are taken off.

A block right after the comment `<!-- dra-webhook: skip -->` (blank lines between allowed) is not read: a
guide may show what the API server refuses.

A block that is clearly a fragment (`...`, `# ...`, `- ...`, `key: ...`, a placeholder such as
`<your-namespace>`, a template's `{{ }}`, a shell variable in a heredoc that expands them, a document
without `apiVersion` or `kind`, one of ours without `metadata.name` or `generateName`)
becomes one chunk marked as such: reported "fragment, not checked", never parsed for a verdict. Every
chunk carries the line (and indentation) of its text in the Markdown file, so every position reported
is the Markdown file's own.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import Iterator

from webhook.offline import loading
from webhook.offline.lines import split_lines  # CommonMark's line endings: \r\n, \r, \n

_YAML = {"yaml", "yml"}
_JSON = {"json"}
_SHELL = {"sh", "shell", "bash", "zsh", "console", "shell-session", "shellsession", "terminal"}

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
_QUOTE = re.compile(r"[ ]{0,3}>[ ]?")  # a block quote's marker (CommonMark 5.1)
_SKIP = re.compile(r"^[ \t]*<!--[ \t]*dra-webhook:[ \t]*skip[ \t]*-->[ \t]*$")
_PROMPT = re.compile(r"^(?:[$%]|#(?=\s*(?:kubectl|cat)\b))\s+")  # `# ` is root's prompt only before a command
_PROMPT_PS2 = re.compile(r"^>(?:\s+|$)")  # the console's prompt on a continued line
_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_.-]*)\2")
# `kubectl`, then `apply` or `create`, then `-f -`, each searched from where the one before ended: one
# pattern with `.*` between the words backtracks over every pair of places (cubic in the line).
_KUBECTL = re.compile(r"\bkubectl\b")
_APPLY_VERB = re.compile(r"\b(?:apply|create)\b")
_STDIN_FLAG = re.compile(r"(?:\s-f\s*-|\s--filename[= ]-)(?=\s|$|\||<)")
_FILE_FLAG = re.compile(r"(?<!\S)(?:-f|--filename)(?:=|[ \t]+)([^\s|;&<>()]+)")
# Where `cat` or `tee` writes a heredoc: the first redirection of standard output (not `2>`, `>&2`).
_CAT = re.compile(r"(?:^|[\s;&|(])cat(?=[\s<>]|$)")
_REDIRECT = re.compile(r"(?<![0-9&<>])(>>?)(?!&)[ \t]*([^\s|;&<>()]+)")
_TEE = re.compile(r"(?:^|[\s;&|(])tee((?:[ \t]+-[-a-z]+)*)[ \t]+([^\s|;&<>()-][^\s|;&<>()]*)")
_TEE_APPEND = re.compile(r"(?<!\S)(?:--append|-[a-z]*a[a-z]*)(?!\S)")
# `...` opening a line, or standing for a whole list item or value (`- ...`, `devices: ...`, a comment after it).
_ELISION = re.compile(r"^[ \t]*(?:#[ \t]*)?(?:\.\.\.|\u2026)"
                      r"|^[ \t]*(?:-[ \t]+|[\w.\-/\"']+:[ \t]+)(?:\.\.\.|\u2026)[ \t]*(?:#.*)?$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9_.-]*(?: [A-Za-z0-9_.-]+)*>")
_TEMPLATE = re.compile(r"\{\{")
# A line longer than this is no command a reader types (and the patterns above stay linear in the line).
MAX_COMMAND_CHARS = 4096
_SHELL_VARIABLE = re.compile(r"\$(?:\{|\(|[A-Za-z_])")
_OBJECT_KEYS = re.compile(r"^(?:apiVersion|kind)[ \t]*:", re.MULTILINE)


def chunks(file: str, text: str) -> Iterator[loading.Chunk]:
    """The chunks of a Markdown file: one per document found in it (fragments included, marked), numbered
    in order, each at its line in the file."""
    index = 0
    for line, column, body, language, expands in _bodies(split_lines(text)):
        for chunk in _block_chunks(file, body, language, expands):
            yield replace(chunk, index=index, line=chunk.line + line - 1, column=column)
            index += 1


def _bodies(lines: list[str]) -> Iterator[tuple[int, int, str, str, bool]]:
    """(first line, columns taken off, text, language, whether shell variables expand in it) of every
    fenced block to read, and of every heredoc of a shell block."""
    i, count = 0, len(lines)
    skip = False  # the last line that was not blank asks to skip the next block
    while i < count:
        depth, width, line = _unquote(lines[i].rstrip("\r"))
        match = _FENCE.match(line)
        if not match or (match.group(2)[0] == "`" and "`" in match.group(3)):
            skip = bool(_SKIP.match(line)) or (skip and not line.strip())
            i += 1
            continue
        indent, fence, info = match.groups()
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end, closed, content = i + 1, False, []
        while end < count:
            taken, _, inner = _unquote(lines[end].rstrip("\r"), depth)
            if taken < depth:
                break  # the block quote ends, and the block with it (no lazy continuation in code)
            if closing.match(inner):
                closed = True
                break
            content.append(_dedent(inner, len(indent)))
            end += 1
        language = (info.strip().lstrip("{.").split() or [""])[0].rstrip("}").lower()
        if skip:
            language, skip = "(skipped)", False
        if language in _SHELL:
            for offset, column, body, expands in _heredocs(content):
                yield i + 2 + offset, width + len(indent) + column, body, "yaml", expands
        elif language in _YAML or language in _JSON or language == "":
            yield i + 2, width + len(indent), "\n".join(content) + "\n", language, False
        i = end + 1 if closed else end  # a line that ended the quote is read again, outside it


def _unquote(line: str, depth: int | None = None) -> tuple[int, int, str]:
    """(block quote markers taken off, columns they took, the rest) of a line: every marker (`>`, up to
    three spaces before it, one space after it) it opens with, or `depth` of them at most (inside a
    quoted fence, a further `>` is the code's own)."""
    taken = width = 0
    while depth is None or taken < depth:
        marker = _QUOTE.match(line, width)
        if not marker:
            break
        taken, width = taken + 1, marker.end()
    return taken, width, line[width:]


def _dedent(line: str, width: int) -> str:
    taken = 0
    while taken < width and taken < len(line) and line[taken] in " \t":
        taken += 1
    return line[taken:]


def _heredocs(content: list[str]) -> Iterator[tuple[int, int, str, bool]]:
    """(line offset in the block, column offset, body, expands) of each heredoc fed to kubectl apply/create:
    on its standard input, or written to a file (`cat <<EOF > x.yaml`, `tee`) that a later command of
    the block applies (`kubectl apply -f x.yaml`)."""
    written: dict[str, list[tuple[int, int, str, bool]]] = {}  # file -> the heredocs it holds, in order
    i = 0
    while i < len(content):
        command = _PROMPT.sub("", content[i].strip(), count=1)
        i += 1
        # A heredoc's body starts after the command's last line: `kubectl create -f - <<EOF && \`
        # goes on on the next line (the shell joins a backslash-newline before reading the body).
        if command.endswith("\\"):
            parts, length = [command], len(command)
            while parts[-1].endswith("\\") and i < len(content) and length <= MAX_COMMAND_CHARS:
                parts[-1] = parts[-1][:-1]
                parts.append(_PROMPT_PS2.sub("", content[i].strip(), count=1))
                length += len(parts[-1]) + 1
                i += 1
            command = " ".join(parts)  # joined once: a long run of continued lines stays linear
        if len(command) > MAX_COMMAND_CHARS:
            continue
        match = _HEREDOC.search(command) if "<<" in command else None
        if match:
            heredoc, i = _heredoc(content, i, match)
            if _kubectl_reads_stdin(command):
                yield heredoc
            elif target := _written_file(command):
                name, append = target
                if append:
                    written.setdefault(name, []).append(heredoc)
                else:
                    written[name] = [heredoc]
        if written and "kubectl" in command:
            for name in _applied_files(command):
                yield from written.pop(name, [])  # applied once: a second apply of it is no new check


def _heredoc(content: list[str], i: int, match: re.Match) -> tuple[tuple[int, int, str, bool], int]:
    """The heredoc whose body starts at line `i` of the block, and the line after its delimiter."""
    strip_tabs, quoted, delimiter = match.group(1) == "-", bool(match.group(2)), match.group(3)
    start = i
    tabs = 0
    if strip_tabs and start < len(content):  # the shell takes every leading tab off; columns: the first line's
        tabs = len(content[start]) - len(content[start].lstrip("\t"))
    body = []
    while i < len(content):
        line = content[i]
        line = line[2:] if line.startswith("> ") or line == ">" else line  # the console's PS2 prompt
        if (line.lstrip("\t") if strip_tabs else line).rstrip() == delimiter:
            break
        body.append(line.lstrip("\t") if strip_tabs else line)
        i += 1
    prompted = start < len(content) and content[start].startswith("> ")
    return (start, (2 if prompted else 0) + tabs, "\n".join(body) + "\n", not quoted), i + 1


def _written_file(command: str) -> tuple[str, bool] | None:
    """(file, whether appended to) a heredoc goes to: `cat` redirected (`>`, `>>`) or `tee [-a]`; None
    when it goes elsewhere (another program may change it: envsubst, sed)."""
    tee = _TEE.search(command)
    if tee:
        return _file_name(tee.group(2)), bool(_TEE_APPEND.search(tee.group(1)))
    if _CAT.search(command):
        redirect = _REDIRECT.search(command)
        if redirect:
            return _file_name(redirect.group(2)), redirect.group(1) == ">>"
    return None


def _kubectl_apply_end(command: str) -> int | None:
    """Where `kubectl … apply` (or `create`) ends in the command, None without one: the first `kubectl`,
    then the first verb after it (the earliest pair, so whatever follows either is found after it too)."""
    kubectl = _KUBECTL.search(command)
    verb = kubectl and _APPLY_VERB.search(command, kubectl.end())
    return verb.end() if verb else None


def _kubectl_reads_stdin(command: str) -> bool:
    """Whether `kubectl apply` or `kubectl create` reads its objects from standard input (`-f -`)."""
    end = _kubectl_apply_end(command)
    return end is not None and _STDIN_FLAG.search(command, end) is not None


def _applied_files(command: str) -> list[str]:
    """The files `kubectl apply` or `kubectl create` reads (`-f x.yaml`, `--filename=x.yaml`)."""
    end = _kubectl_apply_end(command)
    if end is None:
        return []
    return [_file_name(name) for name in _FILE_FLAG.findall(command, end)]


def _file_name(word: str) -> str:
    return posixpath.normpath(word.strip("'\""))  # `./x.yaml` and `x.yaml` are one file


def _fragment(body: str, expands: bool) -> str:
    """Why a block is a fragment of a manifest, not one ("" if it is not one)."""
    if _ELISION.search(body):
        return "elided with '...'"
    if _TEMPLATE.search(body):
        return "a template ('{{ }}')"
    placeholder = _PLACEHOLDER.search(body)
    if placeholder:
        return f"placeholder {placeholder.group(0)}"
    if expands and _SHELL_VARIABLE.search(body):
        return "shell variables in the heredoc"
    return ""


def _block_chunks(file: str, body: str, language: str, expands: bool) -> Iterator[loading.Chunk]:
    if language == "" and not _OBJECT_KEYS.search(body) and '"apiVersion"' not in body:
        return  # an unlabelled block that is no manifest: output, a listing, prose
    why = _fragment(body, expands)
    if why:
        if language != "" or _all_objects(file, body):
            yield loading.Chunk(file, 0, 1, body, fragment=why)
        return
    for chunk in loading.split(file, body, json_file=language == "json"):
        try:
            values = [doc.value for doc in loading.parse(chunk)]
        except loading.InputError:
            if language == "":
                continue  # unlabelled, and not YAML after all
            if "resource.k8s.io" not in chunk.text:
                yield replace(chunk, fragment="does not parse as YAML")
            else:
                yield chunk  # one of ours that does not parse: reported as unreadable
            continue
        if not values:
            continue
        if not all(isinstance(v, dict) and isinstance(v.get("apiVersion"), str) and isinstance(v.get("kind"), str)
                   for v in values):
            if language != "":
                yield replace(chunk, fragment="no apiVersion and kind")
        elif any(_unnamed(v) for v in values):
            yield replace(chunk, fragment="no metadata.name")  # shows a spec, not an object to create
        else:
            yield chunk


def _unnamed(value: dict) -> bool:
    """One of ours without a name: kubectl would refuse it before any check, so docs mean it as a sketch."""
    if not value["apiVersion"].startswith("resource.k8s.io/"):
        return False
    meta = value.get("metadata")
    return not (isinstance(meta, dict) and (meta.get("name") or meta.get("generateName")))


def _all_objects(file: str, body: str) -> bool:
    """Whether an unlabelled block parses, and all its values are objects (an apiVersion and a kind)."""
    try:
        values = [doc.value for chunk in loading.split(file, body) for doc in loading.parse(chunk)]
    except loading.InputError:
        return False
    return bool(values) and all(isinstance(v, dict) and "apiVersion" in v and "kind" in v for v in values)
