"""The documentation site builds with warnings as errors (`mkdocs build --strict`: every link between pages
and every anchor checked), the README's links into docs/ land on pages and headings that exist, and the
generated reference lists every command and flag of the program's own parser."""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = [sys.executable, "-m", "mkdocs"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def build(config_dir: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([*MKDOCS, "build", "--strict", "--config-file", str(config_dir / "mkdocs.yml"),
                           "--site-dir", str(site)], cwd=config_dir, capture_output=True, text=True, env=env,
                          timeout=300)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    result = build(ROOT, site)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert not warnings, "\n".join(warnings)
    return site


def page_of(site: Path, doc: str) -> Path:
    """The built HTML of a docs/ page (MkDocs' directory URLs)."""
    stem = doc.removesuffix(".md")
    return site / ("index.html" if stem == "index" else f"{stem.removesuffix('/index')}/index.html")


def test_the_site_builds_strict_with_no_warning(site):
    assert (site / "index.html").is_file()
    assert (site / "getting-started" / "index.html").is_file()
    assert "Keep a Changelog" in (site / "changelog" / "index.html").read_text()  # the root CHANGELOG.md, included


def test_a_broken_anchor_fails_the_build(tmp_path):
    """The strict build is a real link check: a link to a heading no page has fails it."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy2(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copy2(ROOT / "CHANGELOG.md", tmp_path / "CHANGELOG.md")
    page = tmp_path / "docs" / "faq.md"
    page.write_text(page.read_text() + "\nSee [nowhere](troubleshooting.md#no-such-heading).\n")
    result = build(tmp_path, tmp_path / "site")
    assert result.returncode != 0
    assert "no-such-heading" in result.stderr


def test_every_page_is_in_the_navigation(site):
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)

    def pages(nav) -> list[str]:
        found = []
        for item in nav:
            for value in (item.values() if isinstance(item, dict) else [item]):
                found += pages(value) if isinstance(value, list) else [value]
        return found

    listed = set(pages(config["nav"]))
    on_disk = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert on_disk == listed


def test_the_readme_links_land_on_files_and_headings(site):
    """README.md is not part of the site (GitHub shows it): its links are checked here, anchors included."""
    readme = (ROOT / "README.md").read_text()
    checked = 0
    for target in LINK.findall(readme):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        assert (ROOT / path).exists(), f"README.md links to {target}, which does not exist"
        if anchor:
            assert path.startswith("docs/"), target
            built = page_of(site, path.removeprefix("docs/")).read_text()
            assert f'id="{anchor}"' in built, f"README.md links to {target}: no such heading"
        checked += 1
    assert checked >= 15


def test_the_readme_is_a_landing_page():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200, len(lines)
    assert "## Quick start" in lines


def _flags(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    return {name: [o for a in p._actions for o in a.option_strings if o not in ("-h", "--help")]  # noqa: SLF001
            for name, p in sub.choices.items()}


def test_the_cli_reference_lists_every_command_and_flag(site):
    from webhook.cli import build_parser

    text = html.unescape(re.sub(r"<[^>]+>", "", (site / "reference" / "cli" / "index.html").read_text()))
    flags = _flags(build_parser())
    assert len(flags) >= 6
    for command, options in flags.items():
        section = text.split(f"dra-webhook {command}\n", 1)
        assert len(section) == 2, f"no section for {command}"
        for option in options:
            assert option in text, f"{command} {option} missing from the reference"


def test_the_generated_parts_follow_the_code():
    """A new flag, warning code or gate appears in the reference without anyone editing a page."""
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    try:
        import reference
    finally:
        sys.path.remove(str(ROOT / "docs" / "hooks"))
    from webhook.offline.warningcodes import CODES
    from webhook.profile import GATES

    codes = reference.warning_codes()
    assert all(f"`{code}`" in codes for code in CODES)
    gates = reference.feature_gates()
    assert all(f"`{gate}`" in gates for table in GATES.values() for gate in table)
    with pytest.raises(ValueError, match="unknown generated part"):
        reference.expand("<!-- generated: nothing-of-that-name -->")
    for page in (ROOT / "docs").rglob("*.md"):
        for name in re.findall(r"^<!-- generated: ([a-z-]+) -->$", page.read_text(), re.MULTILINE):
            assert name in reference.PARTS, f"{page}: {name}"


def test_the_json_output_reference_names_every_key_the_program_writes(tmp_path):
    """Every key `review -o json` and `test -o json` write is in the output reference's table of keys."""
    import json

    page = (ROOT / "docs" / "reference" / "output.md").read_text()
    table = page.split("### Keys", 1)[1]
    documented = {key for cell in re.findall(r"^\| ([^|]+) \|", table, re.MULTILINE)
                  for key in re.findall(r"`([A-Za-z_]+)`", cell)}
    seen: set[str] = set()
    runs = [["review", "--markdown", "--runtime-config", "resource.k8s.io/v1beta2=true", str(ROOT / "docs"),
             str(ROOT / "examples")], ["test", str(ROOT / "examples")]]
    for argv in runs:
        out = tmp_path / "out.json"
        subprocess.run([sys.executable, "-m", "webhook", *argv[:1], "-o", "json", *argv[1:]], stdout=out.open("w"),
                       timeout=300, check=False)
        data = json.loads(out.read_text())
        seen |= set(data) | set(data["summary"])
        for result in data["results"]:
            seen |= set(result)
            for message in result["messages"]:
                seen |= set(message)
    seen -= {"summary", "results"}
    assert seen - documented == set(), f"keys the reference does not name: {sorted(seen - documented)}"
    assert {"exitCode", "warningCodes", "patch", "column"} <= seen
