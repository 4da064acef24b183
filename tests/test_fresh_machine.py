"""What a new user meets on a fresh machine: the README's test command passes without a browser, the
browser test still runs (and fails when the browser is missing) in CI, and the docs stand alone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BROWSER_TEST = "tests/auditor/test_html.py::TestInChromium"


def pytest_without_browser(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The browser test with nothing on PATH, so no `chromium` can be found, whatever is installed."""
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if k != "CI"} | {"PATH": str(empty), **env}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", BROWSER_TEST],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


class TestTheBrowserTest:
    def test_without_a_browser_outside_ci_it_is_skipped_with_the_reason(self, tmp_path: Path) -> None:
        done = pytest_without_browser(tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "1 skipped" in done.stdout and "chromium is not installed" in done.stdout

    @pytest.mark.parametrize("value", ["true", "1"])
    def test_without_a_browser_in_ci_it_fails(self, tmp_path: Path, value: str) -> None:
        done = pytest_without_browser(tmp_path, CI=value)
        assert done.returncode == 1 and "1 failed" in done.stdout, done.stdout + done.stderr
        assert "chromium is not installed" in done.stdout

    def test_ci_installs_the_browser(self) -> None:
        script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
        assert "apt-get install -y -qq chromium" in script and "CI=true" in script


class TestTheDocs:
    def test_the_license_the_package_declares_is_shipped(self) -> None:
        text = (ROOT / "LICENSE").read_text(encoding="utf-8")
        assert "Apache License" in text and "Version 2.0, January 2004" in text
        assert "END OF TERMS AND CONDITIONS" in text
        assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")

    @pytest.mark.parametrize("doc", ["README.md", "docs/canary.md", "docs/no-store.md"])
    def test_docs_cite_nothing_outside_the_repository(self, doc: str) -> None:
        text = (ROOT / doc).read_text(encoding="utf-8")
        assert re.findall(r"DESIGN\s*§|DESIGN\.md|shared/", text) == []

    def test_the_readme_says_what_the_browser_test_needs(self) -> None:
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        head = readme[: readme.index("## What you can rely on")]
        assert "chromium" in head.lower() and "skipped" in head and "CI" in head
