"""Shared pytest configuration: markers, and the built book for the publishing tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The repository tools (tools/*.py) are scripts, not a package; tests import them by name, the
# way they import each other when run as `python tools/<name>.py`.
sys.path.insert(0, str(ROOT / "tools"))
#: The HTML that the README's book command writes; another folder via FASTMIX_BOOK_HTML.
BOOK_HTML = Path(os.environ.get("FASTMIX_BOOK_HTML", ROOT / "_build" / "html"))
#: Set by .ci/run: the built-book and browser tests must run, not skip.
REQUIRE_BOOK = os.environ.get("FASTMIX_REQUIRE_BROWSER", "") not in ("", "0")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "notebook: executes a notebook through papermill (select with -m notebook, skip with -m 'not notebook')",
    )


#: Tables that tests measure and report rather than assert, by title; printed at the end of the run.
MEASUREMENTS = pytest.StashKey[dict[str, list[str]]]()


def report_table(config: pytest.Config, title: str, lines: list[str]) -> None:
    """Print ``lines`` under ``title`` in the run's closing summary (shown with ``-q`` too, unlike ``print``)."""
    config.stash.setdefault(MEASUREMENTS, {})[title] = lines


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    for title, lines in config.stash.get(MEASUREMENTS, {}).items():
        terminalreporter.write_sep("-", title)
        for line in lines:
            terminalreporter.write_line(line)


def skip_or_fail(reason: str):
    """Skip a publishing test that lacks its book or browser, or fail when CI requires them."""
    if REQUIRE_BOOK:
        pytest.fail(f"{reason} (FASTMIX_REQUIRE_BROWSER is set, so this cannot be skipped)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def book() -> Path:
    """The built book's HTML folder (tests using it skip when the book was not built)."""
    if not (BOOK_HTML / "index.html").is_file():
        skip_or_fail(f"no built book at {BOOK_HTML}; build it with the README's book command")
    return BOOK_HTML


@pytest.fixture(scope="module")
def client():
    """A ``distributed.Client`` on a LocalCluster of two single-threaded worker processes (one per test module)."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def committed_entry(notebook: str):
    """The committed tables and parameters of ``results/<notebook>/``, read as the files are (CSV and JSON)."""
    import json

    import pandas as pd

    folder = ROOT / "results" / notebook
    if not (folder / "parameters.json").is_file():
        pytest.skip(f"results/{notebook}/ is not computed yet")
    tables = {p.stem: pd.read_csv(p) for p in sorted(folder.glob("*.csv"))}
    return tables, json.loads((folder / "parameters.json").read_text(encoding="utf-8"))["parameters"]
