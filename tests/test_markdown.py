"""Docs as tests: the manifests inside Markdown (fenced blocks, kubectl heredocs), each cause at the
Markdown file's own line."""

from __future__ import annotations

import json
import time
from pathlib import Path

import jsonschema

from webhook import cli

# A guide as users write them: a valid DeviceClass, a heredoc template whose `expression:` sits beside
# `cel:` (line 33), a Pod (skipped) and, in a numbered list, a claim with `count: -2` (line 67).
GUIDE = """\
# Using the example GPU driver

## The device class

```yaml
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
```

## A claim template

```console
$ kubectl apply -f - <<EOF
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: single-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel:
            expression: device.attributes["gpu.example.com"].model == "a100"
EOF
```

## A pod

```yaml
apiVersion: v1
kind: Pod
metadata:
  name: pod
spec:
  containers:
  - name: c
    image: busybox
```

Wait for the pod to be scheduled.

## A claim

1. Create the claim:

   ```yaml
   apiVersion: resource.k8s.io/v1
   kind: ResourceClaim
   metadata:
     name: two-gpus
   spec:
     devices:
       requests:
       - name: gpu
         exactly:
           deviceClassName: gpu.example.com
           count: -2
   ```
"""

README = """\
# example-driver

Install the driver:

```sh
helm install example-driver oci://example.com/charts/driver --namespace dra
kubectl get pods -n dra
```

Then request a GPU:

```yaml
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: single-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
```

Its output:

```
NAME                 READY   STATUS
example-driver-abc   1/1     Running
```
"""

BAD_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: Bad_Name
"""


def review(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(["review", *argv])
    return code, capsys.readouterr().out


def results(capsys, *argv: str) -> tuple[int, dict]:
    code, out = review(capsys, *argv, "-o", "json")
    return code, json.loads(out)


def write(path: Path, text: str, newline: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode())
    return path


def annotations(out: str) -> list[str]:
    return [line.split(",title=")[0] for line in out.splitlines() if line.startswith("::error")]


def test_a_guide_is_checked_block_by_block_at_its_own_lines(tmp_path, capsys):
    path = write(tmp_path / "guide.md", GUIDE)
    lines = GUIDE.splitlines()
    assert lines[32].strip().startswith("expression:") and lines[66].strip() == "count: -2"
    code, out = review(capsys, str(path), "-o", "github")
    assert annotations(out) == [f"::error file={path},line=33,col=13", f"::error file={path},line=67,col=12"]
    assert "4 object(s): 1 allowed, 2 denied, 0 unreadable, 1 skipped" in out
    assert code == 1
    code, report = results(capsys, str(path))
    assert [(r["name"], r["verdict"], r["line"]) for r in report["results"]] == [
        ("DeviceClass/gpu.example.com (CREATE)", "allowed", 6),
        ("ResourceClaimTemplate/single-gpu (CREATE)", "denied", 20),
        ("Pod/pod (CREATE)", "skipped", 40),
        ("ResourceClaim/two-gpus (CREATE)", "denied", 57)]


def test_a_readme_with_a_valid_template_and_a_shell_block_passes(tmp_path, capsys):
    path = write(tmp_path / "README.md", README)
    code, out = review(capsys, str(path), "-v")
    assert out.splitlines() == [f"{path}:13 (document 0): ResourceClaimTemplate/single-gpu (CREATE): allowed",
                                "  defaults: 2 JSON Patch operation(s) (--output json shows them)",
                                "rules: Kubernetes 1.36, its default feature gates",
                                "1 object(s): 1 allowed, 0 denied, 0 unreadable, 0 skipped",
                                "exit 0: every object passed"]
    assert code == 0


def test_heredocs_with_other_delimiters_prompts_and_pipes(tmp_path, capsys):
    body = BAD_CLASS.replace("\n", "\n> ").rstrip("> ")
    text = (
        "```bash\n"
        "cat <<'MANIFEST' | kubectl create -f -\n" + BAD_CLASS + "MANIFEST\n"  # name at line 6
        "kubectl apply -f - <<-\tEOT\n"  # name at line 12, after a tab
        + "".join(f"\t{x}\n" for x in BAD_CLASS.splitlines()) + "\tEOT\n"
        "kubectl get deviceclasses <<EOF\nnot: read\nEOF\n"  # no kubectl apply/create -f -: not read
        "```\n"
        "```shell-session\n"
        '% kubectl apply --filename=- <<"END"\n> ' + body + "> END\n"  # line 23, after the PS2 prompt
        "```\n"
        "```sh\nkubectl -n dra apply -f -<<EOF\n" + BAD_CLASS + "EOF\n```\n")  # line 31
    path = write(tmp_path / "heredocs.md", text)
    code, report = results(capsys, str(path))
    lines = text.splitlines()
    places = [(r["verdict"], m["line"], m["column"]) for r in report["results"] for m in r["messages"]]
    assert places == [("denied", 6, 3), ("denied", 12, 4), ("denied", 23, 5), ("denied", 31, 3)]
    assert [lines[line - 1][column - 1:column + 4] for _, line, column in places] == ["name:"] * 4
    assert code == 1


def test_crlf_line_endings_point_at_the_same_lines(tmp_path, capsys):
    path = write(tmp_path / "guide.md", GUIDE, newline="\r\n")
    code, out = review(capsys, str(path), "-o", "github")
    assert annotations(out) == [f"::error file={path},line=33,col=13", f"::error file={path},line=67,col=12"]
    assert code == 1


def test_cr_line_endings_point_at_the_same_lines(tmp_path, capsys):
    """CommonMark counts a carriage return alone as a line ending: such a file is read line by line too."""
    path = write(tmp_path / "guide.md", GUIDE, newline="\r")
    code, out = review(capsys, str(path), "-o", "github")
    assert annotations(out) == [f"::error file={path},line=33,col=13", f"::error file={path},line=67,col=12"]
    assert code == 1


def test_kubectl_commands_are_found_in_linear_time(tmp_path, capsys):
    """`kubectl`, the verb and `-f -` are searched one after the other: a line of many `kubectl`s and verbs
    with no `-f -` costs a pass over it, not one per pair of places (a pattern with `.*` between them did)."""
    line = "$ " + "kubectl apply create " * 190 + "<<EOF"
    body = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: Bad_Name\nEOF\n"
    path = write(tmp_path / "many.md", ("```console\n" + line + "\n" + body + "```\n\n") * 50)
    started = time.process_time()
    code, report = results(capsys, str(path))
    assert time.process_time() - started < 10  # was ~30 s of CPU; linear: well under 1 s
    assert code == 0 and report["summary"]["denied"] == 0  # no `-f -`: not fed to kubectl


def test_fences_in_nested_lists_and_tildes(tmp_path, capsys):
    text = ("- Step one\n"
            "  - Step two:\n"
            "\n"
            "    ~~~~ yml title=\"class.yaml\"\n" + "".join(f"    {x}\n" for x in BAD_CLASS.splitlines()) + "    ~~~~\n"
            "    1. Then:\n"
            "      ```json\n"
            "      {\"apiVersion\": \"resource.k8s.io/v1\", \"kind\": \"DeviceClass\",\n"
            "       \"metadata\": {\"name\": \"Also_Bad\"}}\n"
            "      ```\n")
    path = write(tmp_path / "nested.md", text)
    code, report = results(capsys, str(path))
    places = [(m["line"], m["column"]) for r in report["results"] for m in r["messages"]]
    lines = text.splitlines()
    assert places == [(8, 7), (13, 21)]
    assert lines[7][6:].startswith("name: Bad_Name") and lines[12][20:].startswith('"name": "Also_Bad"')
    assert code == 1


def test_fragments_are_counted_never_denied(tmp_path, capsys):
    text = ("```yaml\n" + BAD_CLASS + "spec:\n  ...\n```\n"
            "```yaml\n" + BAD_CLASS.replace("Bad_Name", "<your-class-name>") + "```\n"
            "```yaml\nspec:\n  devices:\n    requests:\n    - name: gpu\n      count: -2\n```\n"
            "```yaml\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nspec:\n  devices: {requests: []}\n```\n"
            "```sh\nkubectl apply -f - <<EOF\n" + BAD_CLASS.replace("Bad_Name", "${CLASS}") + "EOF\n```\n")
    path = write(tmp_path / "fragments.md", text)
    code, report = results(capsys, str(path))
    assert [(r["verdict"], r["line"], r["messages"][0]["message"]) for r in report["results"]] == [
        ("fragment", 2, "fragment, not checked: elided with '...'"),
        ("fragment", 10, "fragment, not checked: placeholder <your-class-name>"),
        ("fragment", 16, "fragment, not checked: no apiVersion and kind"),
        ("fragment", 23, "fragment, not checked: no metadata.name"),
        ("fragment", 30, "fragment, not checked: shell variables in the heredoc")]
    assert report["summary"]["fragment"] == 5
    assert code == 0


def test_directories_include_markdown_only_when_asked(tmp_path, capsys):
    write(tmp_path / "docs/guide.md", GUIDE)
    write(tmp_path / "class.yaml", BAD_CLASS.replace("Bad_Name", "fine"))
    code, report = results(capsys, str(tmp_path))
    assert [r["file"] for r in report["results"]] == [str(tmp_path / "class.yaml")] and code == 0
    code, report = results(capsys, str(tmp_path), "--markdown")
    assert [r["verdict"] for r in report["results"]] == ["allowed", "allowed", "denied", "skipped", "denied"]
    assert code == 1


def test_the_docs_hook_reads_the_markdown_files_pre_commit_passes(tmp_path):
    import os
    import subprocess
    import sys

    import yaml

    root = Path(__file__).resolve().parent.parent
    hook = {h["id"]: h for h in yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())}["dra-webhook-docs"]
    assert hook["types"] == ["markdown"] and hook["require_serial"] is True
    files = [str(write(tmp_path / "README.md", README)), str(write(tmp_path / "docs/guide.md", GUIDE))]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    result = subprocess.run([*hook["entry"].split(), *files], capture_output=True, text=True, cwd=tmp_path, env=env,
                            timeout=60)
    assert result.stdout.count("object(s):") == 1 and "5 object(s): 2 allowed, 2 denied" in result.stdout
    assert result.returncode == 1


def test_a_suite_points_at_the_cause_in_a_markdown_document_and_in_itself(tmp_path, capsys):
    write(tmp_path / "guide.md", GUIDE)
    suite = write(tmp_path / "suite.yaml", """\
apiVersion: dra-webhook/v1alpha1
kind: TestSuite
tests:
  - name: the guide's claim
    object: guide.md#3
    expect: {allowed: true}
  - name: inline
    object:
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata:
        name: Bad_Name
    expect: {allowed: true}
""")
    code = cli.main(["test", str(suite), "-o", "json"])
    report = json.loads(capsys.readouterr().out)
    placed = [(m.get("file"), m.get("line"), m.get("column")) for r in report["results"] for m in r["messages"]
              if m.get("column")]
    assert placed == [(str(tmp_path / "guide.md"), 67, 12), (None, 12, 9)]
    assert code == 1
    cli.main(["test", str(suite), "-o", "github"])
    errors = [line.split(",title=")[0] for line in capsys.readouterr().out.splitlines() if line.startswith("::error")]
    assert f"::error file={tmp_path / 'guide.md'},line=67,col=12" in errors
    assert f"::error file={suite},line=12,col=9" in errors
    cli.main(["test", str(suite), "-o", "sarif"])
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, json.loads((Path(__file__).parent / "schemas/sarif-2.1.0-subset.json").read_text()))
    locations = [r["locations"][0]["physicalLocation"] for r in log["runs"][0]["results"]]
    regions = [(location["artifactLocation"]["uri"], location["region"]) for location in locations]
    assert (str(tmp_path / "guide.md"), {"startLine": 67, "startColumn": 12}) in regions
    assert (str(suite), {"startLine": 12, "startColumn": 9}) in regions


def test_unlabelled_fences_are_read_only_when_they_hold_objects(tmp_path, capsys):
    text = ("```\n" + BAD_CLASS + "```\n"  # an object: checked (name at line 5)
            "```\n$ kubectl get deviceclasses\nNAME   AGE\ngpu    1d\n```\n"  # output: not read
            "````\n" + BAD_CLASS + "  # ...\n````\n"  # an object, elided: a fragment
            "```text\n" + BAD_CLASS + "```\n")  # another language: not read
    path = write(tmp_path / "plain.md", text)
    code, report = results(capsys, str(path))
    assert [(r["verdict"], r["line"]) for r in report["results"]] == [("denied", 2), ("fragment", 13)]
    assert report["results"][0]["messages"][0]["line"] == 5
    assert code == 1


def test_a_block_after_a_skip_comment_is_not_read(tmp_path, capsys):
    text = ("This one is refused:\n\n<!-- dra-webhook: skip -->\n\n```yaml\n" + BAD_CLASS + "```\n"
            "```yaml\n" + BAD_CLASS + "```\n")
    path = write(tmp_path / "refused.md", text)
    code, report = results(capsys, str(path))
    assert [(r["verdict"], r["line"]) for r in report["results"]] == [("denied", 12)]
    assert code == 1


def test_markdown_without_manifests_is_skipped_not_an_empty_run(tmp_path, capsys):
    path = write(tmp_path / "CHANGELOG.md", "# Changes\n\n```sh\nmake test\n```\n")
    code, out = review(capsys, str(path), "-v")
    assert out.splitlines() == [f"{path}: (Markdown): skipped", "  no manifest in it",
                                "rules: Kubernetes 1.36, its default feature gates",
                                "1 object(s): 0 allowed, 0 denied, 0 unreadable, 1 skipped",
                                "exit 0: no object to check (1 skipped)"]
    assert code == 0


def test_a_heredoc_body_starts_after_a_command_continued_with_a_backslash(tmp_path, capsys):
    # As KEP-5677 writes it: the heredoc's command goes on on the next line, the body follows that line.
    text = ("```bash\n"
            "$ kubectl create -f - <<EOF && sleep 2 && \\\n"
            "  kubectl get deviceclass/Bad_Name -o yaml\n"
            + BAD_CLASS + "EOF\n"  # name at line 7
            "cat <<EOF \\\n"
            "> | kubectl apply -f -\n"
            + BAD_CLASS + "EOF\n"  # name at line 14: the pipe to kubectl is on the continued line
            "```\n")
    path = write(tmp_path / "continued.md", text)
    code, report = results(capsys, str(path))
    places = [(r["verdict"], m["line"], m["column"]) for r in report["results"] for m in r["messages"]]
    assert places == [("denied", 7, 3), ("denied", 14, 3)]
    assert [text.splitlines()[line - 1].strip() for _, line, _ in places] == ["name: Bad_Name"] * 2
    assert code == 1


def test_an_elided_list_item_or_value_makes_a_fragment(tmp_path, capsys):
    # As the NVIDIA driver's guide shows `kubectl get resourceslices -o yaml`: `- ...  # one entry per device`.
    slice_ = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n"
    elided = ["  devices:\n  - ...                 # one entry per allocatable device\n",
              "  devices: ...\n",
              "  devices:\n    - \u2026\n"]
    blocks = ["```yaml\n" + slice_ + body + "```\n" for body in elided]
    # Not an elision: `...` inside a value. The block is checked (and Bad_Name denied).
    blocks.append("```yaml\n" + BAD_CLASS + "spec:\n  selectors:\n  - cel:\n"
                  "      expression: '\"...\" == device.driver'\n```\n")
    path = write(tmp_path / "elided.md", "".join(blocks))
    code, report = results(capsys, str(path))
    starts = [2 + sum(block.count("\n") for block in blocks[:i]) for i in range(len(blocks))]
    assert [(r["verdict"], r["line"], r["messages"][0]["message"]) for r in report["results"]] == [
        ("fragment", line, "fragment, not checked: elided with '...'") for line in starts[:3]] + [
        ("denied", starts[3], report["results"][3]["messages"][0]["message"])]
    assert report["results"][3]["messages"][0]["field"] == "metadata.name"
    assert code == 1


def test_fences_inside_block_quotes_nested_and_in_lists(tmp_path, capsys):
    quoted = "".join(f"> {x}\n" for x in BAD_CLASS.splitlines())
    nested = "".join(f"> >   {x}\n" for x in BAD_CLASS.splitlines())
    text = ("> Note:\n"
            "> ```yaml\n" + quoted + "> ```\n"  # name at line 6, column 5
            "\n"
            "> > - In a list in a nested quote:\n"
            "> >   ```yaml\n" + nested + "> >   ```\n"  # name at line 14, column 9
            "\n"
            "> ```yaml\n"
            "> apiVersion: resource.k8s.io/v1\n"
            "kind: DeviceClass\n"  # no lazy continuation in code: the quote and its block end here
            "\n"
            "> ```yaml\n" + quoted.replace("name: Bad_Name", "name: ok") + "\n"  # a blank line ends the quote
            "After the quote.\n")
    path = write(tmp_path / "quotes.md", text)
    code, report = results(capsys, str(path))
    lines = text.splitlines()
    places = [(r["verdict"], m["line"], m["column"]) for r in report["results"][:2] for m in r["messages"]]
    assert places == [("denied", 6, 5), ("denied", 14, 9)]
    assert [lines[line - 1][column - 1:] for _, line, column in places] == ["name: Bad_Name"] * 2
    # The third block is `apiVersion` alone (a fragment), the line after it no manifest; the last is read.
    assert [(r["verdict"], r["line"]) for r in report["results"][2:]] == [("fragment", 18), ("allowed", 22)]
    assert code == 1


def test_a_parse_error_in_an_indented_or_quoted_block_names_the_files_column(tmp_path, capsys):
    bad = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: a: b\n"
    text = ("1. Step:\n"
            "   ```yaml\n" + "".join(f"   {x}\n" for x in bad.splitlines()) + "   ```\n"
            "> ```yaml\n" + "".join(f"> {x}\n" for x in bad.splitlines()) + "> ```\n")
    path = write(tmp_path / "broken.md", text)
    code, report = results(capsys, str(path))
    found = [r["messages"][0]["message"] for r in report["results"]]
    assert [r["verdict"] for r in report["results"]] == ["unreadable"] * 2
    # PyYAML's own column for the unclosed flow sequence, shifted by the block's three spaces, then by `> `.
    plain = review_text_error(bad)
    assert [m.rsplit("(", 1)[1] for m in found] == [
        f"line {plain[0] + 2}, column {plain[1] + 3})", f"line {plain[0] + 8}, column {plain[1] + 2})"]
    assert code != 0


def review_text_error(text: str) -> tuple[int, int]:
    """(line, column) of the parse error PyYAML reports for `text` alone, 1-based."""
    import yaml
    try:
        list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return mark.line + 1, mark.column + 1
    raise AssertionError("parses")


def test_a_heredoc_written_to_a_file_then_applied_is_read(tmp_path, capsys):
    other = BAD_CLASS.replace("Bad_Name", "Other_Bad")
    text = ("```bash\n"
            "$ cat <<EOF > class.yaml\n" + BAD_CLASS + "EOF\n"  # name at line 6
            "kubectl apply -f ./class.yaml\n"
            "cat > unused.yaml <<'EOF'\n" + other + "EOF\n"  # never applied: not read
            "tee -a two.yaml <<EOF >/dev/null\n" + other + "EOF\n"  # name at line 19
            "cat <<EOF >> two.yaml && kubectl create --filename=two.yaml\n" + BAD_CLASS + "EOF\n"  # line 25
            "kubectl apply -f two.yaml\n"  # applied again: no new check
            "cat <<EOF > fine.yaml\n" + BAD_CLASS.replace("Bad_Name", "fine") + "EOF\n"  # allowed
            "envsubst <<EOF > subst.yaml\n" + other + "EOF\n"  # envsubst may change it: not read
            "kubectl apply -f fine.yaml -f subst.yaml\n"
            "```\n")
    path = write(tmp_path / "files.md", text)
    code, report = results(capsys, str(path))
    lines = text.splitlines()
    assert [(r["verdict"], r["line"]) for r in report["results"]] == [
        ("denied", 3), ("denied", 16), ("denied", 22), ("allowed", 29)]
    places = [(m["line"], m["column"]) for r in report["results"] for m in r["messages"]]
    assert places == [(6, 3), (19, 3), (25, 3)]
    assert [lines[line - 1].strip() for line, _ in places] == [
        "name: Bad_Name", "name: Other_Bad", "name: Bad_Name"]
    assert code == 1


def test_a_console_heredoc_inside_a_block_quote_keeps_both_prompts_columns(tmp_path, capsys):
    body = "".join(f"> > {x}\n" for x in BAD_CLASS.splitlines())  # the quote's `> `, then the console's
    text = "> ```console\n> $ kubectl apply -f - <<EOF\n" + body + "> > EOF\n> ```\n"
    path = write(tmp_path / "quoted-console.md", text)
    code, report = results(capsys, str(path))
    [message] = report["results"][0]["messages"]
    assert (message["line"], message["column"]) == (6, 7)
    assert text.splitlines()[5][6:] == "name: Bad_Name"
    assert code == 1
