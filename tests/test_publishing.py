"""Publishing tools: the link check of the built book and the notebooks for Binder and Colab."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, skip_or_fail

# tools/check_links.py, tools/launch_notebooks.py, tools/release.py (tests/conftest.py puts tools/ on the path)
import check_links
import launch_notebooks
import release

# --------------------------------------------------------------------------- link check


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "html"
    (site / "sub").mkdir(parents=True)
    (site / "img.png").write_bytes(b"png")
    (site / "index.html").write_text(
        '<a href="sub/page.html#part">ok</a> <a href="#top">self</a> <h1 id="top">t</h1>'
        '<img src="img.png"> <a href="https://example.org/x">out</a> <a href="mailto:a@b">m</a>'
        '<a href="sub/">folder</a>'
    )
    (site / "sub" / "index.html").write_text('<a href="../index.html">up</a>')
    (site / "sub" / "page.html").write_text('<section id="part"><a href="../index.html#top">back</a></section>')
    return site


def test_link_check_passes_a_consistent_site(tmp_path):
    report = check_links.check_html(_site(tmp_path))
    assert report.pages == 3 and report.broken == []
    assert report.internal == 6
    assert set(report.external) == {"https://example.org/x"}


@pytest.mark.parametrize(
    "bad, message",
    [
        ('<a href="sub/missing.html">x</a>', "missing"),
        ('<a href="sub/page.html#nowhere">x</a>', "no id 'nowhere'"),
        ('<img src="figure.png">', "missing"),
        ('<a href="#gone">x</a>', "no id 'gone'"),
    ],
)
def test_link_check_reports_broken_links_and_anchors(tmp_path, bad, message):
    site = _site(tmp_path)
    (site / "index.html").write_text((site / "index.html").read_text() + bad)
    report = check_links.check_html(site)
    assert len(report.broken) == 1 and message in report.broken[0]


def test_built_book_has_no_broken_internal_link(book):
    report = check_links.check_html(book)
    assert report.broken == [], "\n".join(report.broken[:20])
    assert report.pages >= 15 and report.internal > 1000  # it did look at the book
    print(f"{report.pages} pages, {report.internal} internal links, {len(report.external)} external (not fetched)")


def test_link_check_command_lists_external_links(book, tmp_path):
    assert check_links.main(["--html", str(book), "--out", str(tmp_path)]) == 0
    listing = (tmp_path / "external-links.txt").read_text().splitlines()
    assert any(line.startswith("https://arxiv.org/abs/2605.30600") for line in listing)
    assert json.loads((tmp_path / "report.json").read_text())["broken"] == []


# --------------------------------------------------------------------------- launch notebooks


def test_launch_notebooks_are_valid_and_pin_the_commit(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("jupytext")
    written = launch_notebooks.write_launch_notebooks(tmp_path, "https://github.com/o/r", "0123abc")
    names = {p.stem for p in written}
    assert names == {p.stem for p in (ROOT / "notebooks").glob("*.py")}
    for path in written:
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
        setup = [c for c in nb.cells if launch_notebooks.SETUP_TAG in c.metadata.get("tags", [])]
        assert len(setup) == 1
        assert "fastmix[fast,ml,data] @ git+https://github.com/o/r.git@0123abc" in setup[0].source
        assert nb.cells[0].cell_type == "markdown" and nb.cells[1] is setup[0]
        # the parameters cell survives, so papermill still works on the converted notebook
        assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells), path.name
        assert all(c.get("outputs", []) == [] for c in nb.cells if c.cell_type == "code")


def test_launch_setup_cell_does_nothing_where_fastmix_is_installed(monkeypatch):
    pytest.importorskip("jupytext")
    import subprocess

    nb = launch_notebooks.convert(ROOT / "notebooks" / "hello_fastmix.py", "https://github.com/o/r", "abc")
    setup = next(c for c in nb.cells if launch_notebooks.SETUP_TAG in c.metadata.get("tags", []))
    calls = []
    monkeypatch.setattr(subprocess, "check_call", lambda *a, **k: calls.append(a))
    exec(compile(setup.source, "setup", "exec"), {"__name__": "__main__"})
    assert calls == []  # fastmix is importable here, so nothing is installed


# --------------------------------------------------------------------------- release


def test_release_archive_is_self_contained_and_reproducible(tmp_path):
    site = _site(tmp_path)
    (site / ".buildinfo").write_text("sphinx build hash")
    extras = {"CITATION.cff": ROOT / "CITATION.cff"}
    info = {"version": "9.9", "commit": "abc"}
    first = release.make_archive(
        site, tmp_path / "a" / "book.zip", version="9.9", extras=extras, info=info, epoch=1_700_000_000
    )
    second = release.make_archive(
        site, tmp_path / "b" / "book.zip", version="9.9", extras=extras, info=info, epoch=1_700_000_000
    )
    assert first.read_bytes() == second.read_bytes()
    import hashlib
    import zipfile

    digest = first.with_name("book.zip.sha256").read_text().split()[0]
    assert digest == hashlib.sha256(first.read_bytes()).hexdigest()
    with zipfile.ZipFile(first) as archive:
        names = archive.namelist()
        assert "fastmix-book-9.9/index.html" in names and "fastmix-book-9.9/sub/page.html" in names
        assert "fastmix-book-9.9/CITATION.cff" in names
        assert not any(n.endswith(".buildinfo") for n in names)
        assert json.loads(archive.read("fastmix-book-9.9/RELEASE.json")) == info
        archive.extractall(tmp_path / "unzipped")
    # the unzipped book is as consistent as the folder it came from
    assert check_links.check_html(tmp_path / "unzipped" / "fastmix-book-9.9").broken == []


def test_release_refuses_without_a_book(tmp_path):
    with pytest.raises(SystemExit, match="no built book"):
        release.make_archive(tmp_path, tmp_path / "x.zip", version="1")


def test_release_version_is_the_package_version():
    import fastmix

    assert release.package_version() == fastmix.__version__


def test_addresses_in_the_book_config_match_pyproject():
    """pyproject's [project.urls] is the single source of the repository address."""
    import yaml

    pyproject = (ROOT / "pyproject.toml").read_text()
    repository = next(
        line.split("=", 1)[1].strip().strip('"') for line in pyproject.splitlines() if line.startswith("Repository")
    )
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["repository"]["url"] == repository
    launch = config["launch_buttons"]
    assert launch["binderhub_url"] and launch["colab_url"]
    assert config["sphinx"]["config"]["fastmix_launch_branch"] == "launch"
    assert not re.match(r"^(https?:)?//", config["sphinx"]["config"]["mathjax_path"])


def test_sphinx_linkcheck_finds_no_broken_link_and_fetches_nothing(book, tmp_path):
    """Sphinx's own linkcheck on the sources (no execution): external links come back 'ignored'."""
    if importlib.util.find_spec("jupyter_book") is None:
        skip_or_fail("jupyter-book is not installed (the book extra)")
    records = check_links.sphinx_linkcheck(ROOT, tmp_path)
    statuses = {r["status"] for r in records}
    assert "broken" not in statuses, [r for r in records if r["status"] == "broken"]
    external = [r for r in records if r["uri"].startswith(("http://", "https://"))]
    assert external and all(r["status"] == "ignored" for r in external)
    # the build folder of the real book is untouched: linkcheck wrote only into tmp_path
    assert not (book / "output.json").exists()


def test_release_refuses_a_store_that_is_unfinished_stale_or_missing(tmp_path):
    from fastmix_companion.store import ResultsStore
    from fastmix_companion.studies import STUDIES

    results = tmp_path / "results"
    name = sorted(STUDIES)[0]
    store = ResultsStore(name, results)
    with store.sitting({"seed": 0}):
        store.add_cell("runs", "a", [{"x": 1}])
    reasons = dict(release.stale_store_entries(results=results))
    assert reasons[name].startswith("partial")
    assert all(reasons[other] == "missing" for other in STUDIES if other != name)
    store.mark_complete()
    assert name not in dict(release.stale_store_entries(results=results))


# --------------------------------------------------------------------------- release: CHANGELOG and tag

_HEAD = "# Changelog\n\nIntro text.\n\n"
_RELEASED = "## [1.0.0] - 2027-01-15\n\n### Added\n\n- A feature.\n"
_LINKS = "\n[Unreleased]: https://github.com/o/r/compare/v1.0.0...HEAD\n[1.0.0]: https://github.com/o/r/releases/tag/v1.0.0\n"


@pytest.mark.parametrize(
    ("changelog", "fragment"),
    [
        (_HEAD + "## [Unreleased]\n\n" + _RELEASED + _LINKS, None),
        (_HEAD + "## [Unreleased]\n\n### Added\n\n" + _RELEASED + _LINKS, None),  # empty headings only
        (
            _HEAD + "## [Unreleased]\n\n### Added\n\n- Not yet released.\n\n" + _RELEASED + _LINKS,
            "changes are listed under `## [Unreleased]`",
        ),
        (_HEAD + "## [Unreleased]\n\n### Added\n\n- A feature.\n" + _LINKS, "no section for version 1.0.0"),
        (_HEAD + "## [1.0.0] - Unreleased\n\n### Added\n\n- A feature.\n", "not dated (still 'Unreleased')"),
        (_HEAD + "## [1.0.0]\n\n- A feature.\n", "not dated (no YYYY-MM-DD)"),
        (_HEAD + "## [1.0.0] - 2027-01-15\n\n### Added\n" + _LINKS, "lists no changes"),
    ],
    ids=["released", "empty-unreleased", "unreleased-entries", "missing", "still-unreleased", "undated", "empty"],
)
def test_release_reads_the_changelog(changelog, fragment):
    problems = release.changelog_problems(changelog, "1.0.0")
    if fragment is None:
        assert problems == []
    else:
        assert len(problems) == 1 and fragment in problems[0], problems


def test_changelog_sections_stop_at_the_link_definitions():
    sections = release.changelog_sections(_HEAD + "## [Unreleased]\n\n" + _RELEASED + _LINKS)
    assert list(sections) == ["Unreleased", "1.0.0"]
    assert sections["1.0.0"] == ("- 2027-01-15", "### Added\n\n- A feature.")
    assert sections["Unreleased"][1] == ""


@pytest.fixture
def git_repo(tmp_path, monkeypatch):
    """A temporary repository with one commit holding a released CHANGELOG and the version."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    config = tmp_path / "gitconfig"
    config.write_text("")
    for name, value in {
        "GIT_CONFIG_GLOBAL": str(config),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.org",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.org",
    }.items():
        monkeypatch.setenv(name, value)
    repo = tmp_path / "repo"
    (repo / "fastmix").mkdir(parents=True)
    (repo / "fastmix" / "__init__.py").write_text('__version__ = "1.0.0"\n')
    (repo / "CHANGELOG.md").write_text(_HEAD + "## [Unreleased]\n\n" + _RELEASED + _LINKS)

    def git(*args):
        return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "Release 1.0.0")
    return repo, git


def test_tag_dry_run_tags_nothing(git_repo):
    repo, git = git_repo
    command = release.create_tag(repo, "1.0.0", dry_run=True)
    assert command[-1] == "v1.0.0" and "--annotate" in command
    assert git("tag", "--list") == ""


def test_tag_is_annotated_at_head_with_the_changelog_section(git_repo):
    repo, git = git_repo
    release.create_tag(repo, "1.0.0")
    assert git("cat-file", "-t", "v1.0.0").strip() == "tag"  # annotated, not lightweight
    assert git("rev-parse", "v1.0.0^{commit}") == git("rev-parse", "HEAD")
    message = git("tag", "--list", "--format=%(contents)", "v1.0.0")
    assert message.startswith("fastmix 1.0.0\n\n### Added\n\n- A feature.")  # '###' lines are kept
    with pytest.raises(release.ReleaseError, match="already exists"):
        release.create_tag(repo, "1.0.0")
    assert git("tag", "--list").split() == ["v1.0.0"]


def test_tag_refuses_a_dirty_tree_but_not_untracked_files(git_repo):
    repo, git = git_repo
    (repo / "notes.txt").write_text("untracked\n")
    assert release.tag_problems(repo, "1.0.0") == []
    (repo / "fastmix" / "__init__.py").write_text('__version__ = "1.0.0"\n# edited\n')
    with pytest.raises(release.ReleaseError, match=r"uncommitted changes \(fastmix/__init__.py\)"):
        release.create_tag(repo, "1.0.0")
    assert git("tag", "--list") == ""


def test_tag_refuses_unreleased_changes(git_repo):
    repo, git = git_repo
    (repo / "CHANGELOG.md").write_text(_HEAD + "## [Unreleased]\n\n- Later work.\n\n" + _RELEASED + _LINKS)
    git("commit", "-q", "-am", "Later work")
    with pytest.raises(release.ReleaseError) as caught:
        release.create_tag(repo, "1.0.0")
    assert len(caught.value.problems) == 1 and "Unreleased" in caught.value.problems[0]
    assert git("tag", "--list") == ""


def test_release_command_stops_at_the_preflight(git_repo, capsys):
    repo, git = git_repo
    (repo / "CHANGELOG.md").write_text(_HEAD + "## [1.0.0] - Unreleased\n\n- A feature.\n")
    git("commit", "-q", "-am", "Not released yet")
    assert release.main(["--root", str(repo), "--preflight"]) == 1
    err = capsys.readouterr().err
    assert "still 'Unreleased'" in err and "nothing was built or tagged" in err
    assert release.main(["--root", str(repo)]) == 1
    assert git("tag", "--list") == "" and not (repo / "dist").exists()


def test_release_command_passes_the_preflight_of_a_releasable_tree(git_repo, capsys):
    """The tag checks pass; the next step (the results store, absent here) stops it, untagged."""
    repo, git = git_repo
    assert release.main(["--root", str(repo), "--preflight"]) == 1
    captured = capsys.readouterr()
    assert "v1.0.0 is free and the tree is clean" in captured.out
    assert "results store is not up to date" in captured.err
    assert git("tag", "--list") == ""
