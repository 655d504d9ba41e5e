""".ci/run, CI's entry point: it installs every tool the tests need, so that nothing is skipped in CI."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_builds_upstreams_tools_before_the_tests_and_says_it_is_ci():
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.strip().startswith("#")]
    assert lines.index("make upstream") < lines.index("make test")
    assert 'export CI="${CI:-true}"' in lines and lines.index('export CI="${CI:-true}"') < lines.index("make test")
    makefile = (ROOT / "Makefile").read_text()
    assert "upstream:\n\tbash tests/upstream/build.sh\n" in makefile
    assert "cmd/kubectl" in (ROOT / "tests" / "upstream" / "build.sh").read_text()  # the deploy tests' kubectl
