"""Tests for fastmix_companion.store (the results store) and its agreement with the paper-scale registry."""

import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest

import fastmix
from fastmix_companion import store as S
from fastmix_companion.run import inspect_parameters, load_paper_scale, resolve_notebook
from fastmix_companion.studies import STUDIES, CellTable, run_study, study_module

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def _store(tmp_path, name="demo"):
    return S.ResultsStore(name, root=tmp_path)


def _rewrite_provenance(root, name, record):
    """Edit an entry's provenance on purpose, then adopt the edit (drop and rewrite the manifest)."""
    (root / name / "provenance.json").write_text(json.dumps(record))
    (root / name / S.MANIFEST_FILE).unlink()
    S.write_manifest(name, root, partial=True)


def test_cells_are_appended_resumed_and_read_back(tmp_path):
    st = _store(tmp_path)
    with st.sitting({"trials": 3, "eps": [1.0, 2.0]}):
        st.add_cell("runs", "a", [{"x": 1, "y": 0.5}, {"x": 2, "y": 0.25}])
        st.add_cell("runs", "b", pd.DataFrame({"x": [3], "y": [0.125]}))
    again = _store(tmp_path)
    assert again.cells_done("runs") == {"a", "b"}
    table = again.table("runs")
    assert list(table["cell"]) == ["a", "a", "b"]
    assert list(table["x"]) == [1, 2, 3]
    with pytest.raises(ValueError, match="already stored"):
        with again.sitting({"trials": 3, "eps": [1.0, 2.0]}):
            again.add_cell("runs", "a", [{"x": 9}])


def test_a_stored_entry_refuses_other_parameters_unless_restarted(tmp_path):
    st = _store(tmp_path)
    with st.sitting({"trials": 3}):
        st.add_cell("runs", "a", [{"x": 1}])
    with pytest.raises(ValueError, match="trials: stored 3, requested 4"):
        _store(tmp_path).start({"trials": 4})
    # numbers compare by value, so 3 and 3.0 resume the same run
    _store(tmp_path).start({"trials": 3.0})
    fresh = _store(tmp_path)
    fresh.start({"trials": 4}, restart=True)
    assert fresh.parameters() == {"trials": 4}
    assert fresh.tables() == []


def test_empty_cells_and_writes_before_start_are_errors(tmp_path):
    st = _store(tmp_path)
    with pytest.raises(RuntimeError, match="start"):
        st.add_cell("runs", "a", [{"x": 1}])
    st.start({})
    with pytest.raises(ValueError, match="no rows"):
        st.add_cell("runs", "a", [])
    with pytest.raises(FileNotFoundError, match="--paper-scale demo"):
        st.table("missing")
    with pytest.raises(ValueError, match="named after its notebook"):
        S.ResultsStore("../escape", root=tmp_path)


def test_provenance_records_every_sitting_and_survives_an_interruption(tmp_path):
    st = _store(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        with st.sitting({"seed": 1}):
            st.add_cell("runs", "a", [{"x": 1}])
            raise KeyboardInterrupt
    prov = st.provenance()
    assert prov["complete"] is False
    assert prov["sittings"][-1]["finished"] is False
    assert prov["sittings"][-1]["cells_computed"] == 1
    assert S.entry_status("demo", tmp_path).state == "partial"
    with st.sitting({"seed": 1}):
        st.add_cell("runs", "b", [{"x": 2}])
    st.mark_complete()
    prov = st.provenance()
    assert len(prov["sittings"]) == 2 and prov["sittings"][-1]["finished"] is True
    assert prov["complete"] is True
    assert prov["fastmix_version"] == fastmix.__version__
    for key in ("git", "packages", "threads", "machine", "cpu_count", "data_sources", "wall_time_seconds"):
        assert key in prov
    assert "load_before" in prov["sittings"][-1]
    assert S.entry_status("demo", tmp_path).state == "complete"


def test_stale_entries_flags_older_minor_versions_partial_and_missing(tmp_path):
    for name in ("old", "current", "partial"):
        st = _store(tmp_path, name)
        with st.sitting({}):
            st.add_cell("runs", "a", [{"x": 1}])
        if name != "partial":
            st.mark_complete()
    prov_path = tmp_path / "old" / "provenance.json"
    record = json.loads(prov_path.read_text())
    record["fastmix_version"] = "0.0.9"
    _rewrite_provenance(tmp_path, "old", record)
    stale = dict(S.stale_entries(["old", "current", "partial", "never"], root=tmp_path, current_version="0.1.3"))
    assert "older" in stale["old"]
    assert "current" not in stale
    assert stale["partial"].startswith("partial")
    assert stale["never"] == "missing"
    # a newer patch release of the same minor version is not stale
    assert "old" not in dict(S.stale_entries(["old"], root=tmp_path, current_version="0.0.12"))


def test_entry_markdown_names_the_command_or_the_commit(tmp_path):
    assert "python -m fastmix_companion.run --paper-scale demo" in S.entry_markdown("demo", tmp_path)
    st = _store(tmp_path)
    with st.sitting({}):
        st.add_cell("runs", "a", [{"x": 1}])
    text = S.entry_markdown("demo", tmp_path)
    assert "not finished" in text and fastmix.__version__ in text
    assert "older version" not in text


def test_each_sitting_records_the_steal_time_and_the_page_note_gives_its_share(tmp_path, monkeypatch):
    readings = iter([100.0, 103.0, 104.0])  # start, after the cell, end of the sitting
    monkeypatch.setattr(S, "steal_seconds", lambda: next(readings))
    st = _store(tmp_path)
    with st.sitting({}):
        st.add_cell("runs", "a", [{"x": 1}])
    st.mark_complete()
    record = st.provenance()
    assert record["sittings"][-1]["steal_seconds"] == 4.0
    record["sittings"][-1]["seconds"], record["cpu_count"] = 100.0, 2
    _rewrite_provenance(tmp_path, "demo", record)
    assert "hypervisor steal 2.0% of CPU time" in S.entry_markdown("demo", tmp_path)
    # where /proc/stat has no steal field nothing is recorded and the note says nothing of it
    monkeypatch.setattr(S, "steal_seconds", lambda: float("nan"))
    other = _store(tmp_path, "other")
    with other.sitting({}):
        other.add_cell("runs", "a", [{"x": 1}])
    assert "steal_seconds" not in other.provenance()["sittings"][-1]
    assert "steal" not in S.entry_markdown("other", tmp_path)


def test_entry_markdown_says_when_the_code_had_uncommitted_changes(tmp_path):
    st = _store(tmp_path)
    with st.sitting({}):
        st.add_cell("runs", "a", [{"x": 1}])
    st.mark_complete()
    record = st.provenance()
    for sitting in record["sittings"]:
        sitting["dirty"] = False
    record["git"]["dirty"] = False
    _rewrite_provenance(tmp_path, "demo", record)
    assert "uncommitted" not in S.entry_markdown("demo", tmp_path)
    record["sittings"][-1]["dirty"] = True
    _rewrite_provenance(tmp_path, "demo", record)
    assert "with uncommitted changes to the code in the checkout (1 sitting(s))" in S.entry_markdown("demo", tmp_path)


def test_entry_markdown_says_when_an_older_minor_version_computed_the_entry(tmp_path, monkeypatch):
    st = _store(tmp_path)
    with st.sitting({}):
        st.add_cell("runs", "a", [{"x": 1}])
    st.mark_complete()
    major, minor = (int(v) for v in fastmix.__version__.split(".")[:2])
    monkeypatch.setattr("fastmix.__version__", f"{major}.{minor + 1}.0")
    text = S.entry_markdown("demo", tmp_path)
    assert "**Computed by an older version:**" in text and f"{major}.{minor + 1}.0" in text
    monkeypatch.setattr("fastmix.__version__", f"{major}.{minor}.7")  # a patch release is not older
    assert "older version" not in S.entry_markdown("demo", tmp_path)


def test_cell_table_skips_stored_cells(tmp_path):
    st = _store(tmp_path)
    calls = []

    def compute(key):
        calls.append(key)
        return [{"value": len(calls)}]

    with st.sitting({}):
        table = CellTable(st, "runs", log=None)
        for key in ("a", "b"):
            table.compute(key, lambda key=key: compute(key))
    with st.sitting({}):
        table = CellTable(st, "runs", log=None)
        for key in ("a", "b", "c"):
            table.compute(key, lambda key=key: compute(key))
        assert list(table.frame()["cell"]) == ["a", "b", "c"]
    assert calls == ["a", "b", "c"]
    memory = CellTable(None, "runs", log=None)
    memory.compute("x", lambda: [{"value": 1}])
    memory.compute("x", lambda: pytest.fail("computed twice"))
    assert list(memory.frame()["cell"]) == ["x"]


# --------------------------------------------------------------------------- studies and the registry


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_study_defaults_are_the_notebook_parameters(name):
    """A study's DEFAULTS are its notebook's parameters cell: the live smoke run and the stored run agree."""
    spec = inspect_parameters(resolve_notebook(name))
    defaults = study_module(name).DEFAULTS
    missing = sorted(set(defaults) - set(spec))
    assert not missing, f"{name}: study parameters {missing} are not in the notebook's parameters cell"
    for key, value in defaults.items():
        assert S.parameters_differ({key: spec[key].default_value}, {key: value}) == {}, (name, key)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_registry_entries_of_studies_use_study_parameters(name):
    registry = load_paper_scale()
    assert name in registry, f"{name} has a study but no entry in notebooks/paper_scale.json"
    unknown = sorted(set(registry[name]["parameters"]) - set(study_module(name).DEFAULTS))
    assert not unknown, f"{name}: registry parameters {unknown} are not study parameters"


def _stored_entries():
    if not RESULTS.is_dir():
        return []
    return sorted(p.name for p in RESULTS.iterdir() if (p / S.PARAMETERS_FILE).is_file())


@pytest.mark.parametrize("name", _stored_entries() or ["(none)"])
def test_stored_parameters_are_the_registry_setting(name):
    """A committed store entry was computed with exactly the paper-scale setting the registry records."""
    if name == "(none)":
        pytest.skip("the results store holds no entries")
    assert name in STUDIES, f"results/{name}/ has no study in fastmix_companion.studies"
    expected = {**study_module(name).DEFAULTS, **load_paper_scale()[name]["parameters"]}
    stored = S.ResultsStore(name, RESULTS).parameters()
    diff = S.parameters_differ(stored, expected)
    assert not diff, (
        f"results/{name}/parameters.json differs from notebooks/paper_scale.json: {diff}; "
        f"recompute with python -m fastmix_companion.run --paper-scale {name} --restart"
    )


def test_parameter_comparison_detects_a_changed_registry(tmp_path):
    """The guard above can fail: a registry that changed after the run is reported."""
    stored = {"trials": 30, "log2_n": 19, "datasets": "a,b"}
    assert S.parameters_differ(stored, {**stored, "trials": 10}) == {"trials": (30, 10)}
    assert S.parameters_differ(stored, {**stored, "datasets": "a"}) == {"datasets": ("a,b", "a")}
    assert S.parameters_differ(stored, {**stored, "extra": 1}) == {"extra": (None, 1)}


def test_run_study_writes_and_resumes_through_the_command_line(tmp_path, capsys):
    from fastmix_companion.run import main

    args = [
        "--paper-scale",
        "figure2_dp_ols",
        "--output-dir",
        str(tmp_path),
        "-p",
        "datasets",
        "synthetic_sphere",
        "-p",
        "log2_n",
        "10",
        "-p",
        "d",
        "3",
        "-p",
        "trials",
        "2",
        "-p",
        "epsilons",
        "1.259",
        "-p",
        "use_paper_ratios",
        "False",
        "-p",
        "k2_ratios",
        "4,40",
    ]
    registry = load_paper_scale()["figure2_dp_ols"]["parameters"]
    for key in ("nycflights_rows", "dense_check_epsilon"):
        if key in registry:
            args += ["-p", key, str(registry[key])]
    assert main(args) == 0
    st = S.ResultsStore("figure2_dp_ols", tmp_path)
    first = st.table("runs")
    assert S.entry_status("figure2_dp_ols", tmp_path).state == "complete"
    record = st.provenance()
    assert main(args) == 0  # resumes: nothing new to compute, nothing new recorded
    assert st.provenance() == record
    pd.testing.assert_frame_equal(first, st.table("runs"))
    changed = list(args)
    changed[changed.index("trials") + 1] = "3"
    assert main(changed) == 2
    assert "other parameters" in capsys.readouterr().err


def test_run_study_in_memory_matches_the_store(tmp_path):
    params = {
        "datasets": "synthetic_sphere",
        "log2_n": 10,
        "d": 3,
        "trials": 2,
        "epsilons": "1.259",
        "k2_ratios": "4,40",
        "dense_check_epsilon": 0.0,
    }
    memory = run_study("figure2_dp_ols", params, log=None)["runs"]
    st = S.ResultsStore("figure2_dp_ols", tmp_path)
    stored = run_study("figure2_dp_ols", params, store=st, log=None)["runs"]
    cols = ["cell", "method", "epsilon", "k2_ratio", "trial", "excess_risk"]
    pd.testing.assert_frame_equal(
        memory[cols].reset_index(drop=True), stored[cols].reset_index(drop=True), check_dtype=False, rtol=1e-8
    )


def test_load_returns_every_table_or_none_until_the_required_ones_exist(tmp_path):
    st = _store(tmp_path)
    assert st.load() is None
    with st.sitting({}):
        st.add_cell("runs", "a", [{"x": 1}])
    assert st.load("runs", "datasets") is None
    st.put_table("datasets", pd.DataFrame({"name": ["s"]}))
    loaded = st.load("runs")
    assert sorted(loaded) == ["datasets", "runs"] and list(loaded["runs"]["x"]) == [1]


def test_a_sitting_keeps_the_commit_it_started_from(tmp_path, monkeypatch):
    """The code a sitting runs is what it imported at its start; a commit made meanwhile is noted."""
    import fastmix_companion.provenance as P

    real = P.collect_provenance
    commits = iter(["aaaa", "bbbb", "bbbb", "bbbb"])

    def fake(*a, **k):
        out = real(*a, **k)
        out["git"] = {"commit": next(commits), "dirty": False}
        return out

    monkeypatch.setattr(P, "collect_provenance", fake)
    st = _store(tmp_path)
    with st.sitting({"seed": 1}):
        st.add_cell("runs", "a", [{"x": 1}])
    prov = st.provenance()
    last = prov["sittings"][-1]
    assert last["commit"] == "aaaa" and prov["git"]["commit"] == "aaaa"
    assert last["commit_at_end"] == "bbbb"
    assert S.entry_status("demo", tmp_path).commit == "aaaa"


def test_superseded_cells_are_recomputed_and_stay_on_record(tmp_path):
    st = _store(tmp_path)
    with st.sitting({"seed": 1}) as s:
        s.add_cell("runs", "a", [{"x": 1}])
        s.add_cell("runs", "b", [{"x": 2}, {"x": 3}])
    st.mark_complete()
    assert S.entry_status("demo", tmp_path).state == "complete"
    with pytest.raises(ValueError, match="say why"):
        st.supersede_cells("runs", ["b"], " ")
    with pytest.raises(ValueError, match="no cell 'c'"):
        st.supersede_cells("runs", ["c"], "a reason")
    assert st.supersede_cells("runs", ["b"], "two other jobs shared the cores") == 2
    assert S.entry_status("demo", tmp_path).state == "partial"
    again = _store(tmp_path)
    assert again.cells_done("runs") == {"a"}
    record = again.provenance()["superseded_cells"][-1]
    assert record["cells"] == ["b"] and [r["x"] for r in record["rows"]] == [2, 3]
    with again.sitting({"seed": 1}) as s:
        s.add_cell("runs", "b", [{"x": 5}])
    again.mark_complete()
    assert list(again.table("runs")["x"]) == [1, 5]
    note = S.entry_markdown("demo", tmp_path)
    assert "**Recomputed cells:** 1 cell(s) (b) were computed again: two other jobs shared the cores." in note


def test_reading_a_complete_entry_back_leaves_its_record_unchanged(tmp_path):
    st = _store(tmp_path)
    with st.sitting({"seed": 1}) as s:
        s.add_cell("runs", "a", [{"x": 1}])
    st.mark_complete()
    record = (tmp_path / "demo" / S.PROVENANCE_FILE).read_text(encoding="utf-8")
    again = _store(tmp_path)
    with again.sitting({"seed": 1}) as s:
        assert s.cells_done("runs") == {"a"}  # a resumed run finds every cell stored
    assert (tmp_path / "demo" / S.PROVENANCE_FILE).read_text(encoding="utf-8") == record
    with again.sitting({"seed": 1}) as s:
        s.add_cell("runs", "b", [{"x": 2}])  # a cell computed: the sitting is recorded
    assert len(again.provenance()["sittings"]) == 2


# --------------------------------------------------------------------------- manifests and integrity


def _complete_entry(root, name="demo"):
    st = _store(root, name)
    with st.sitting({"seed": 1}) as s:
        s.add_cell("runs", "a", [{"x": 1, "y": 0.5}, {"x": 2, "y": 0.25}])
        s.add_cell("runs", "b", [{"x": 3, "y": 0.125}])
    st.mark_complete()
    return st


def test_the_manifest_records_each_file_digest_rows_cells_and_the_provenance_fingerprints(tmp_path):
    import hashlib

    st = _complete_entry(tmp_path)
    manifest = json.loads((st.path / S.MANIFEST_FILE).read_text())
    runs = manifest["tables"]["runs"]
    assert runs["rows"] == 3 and runs["cells"] == ["a", "b"] and runs["columns"] == ["cell", "x", "y"]
    assert runs["sha256"] == hashlib.sha256((st.path / "runs.csv").read_bytes()).hexdigest()
    prov = st.provenance()
    assert manifest["provenance"]["sha256"] == hashlib.sha256((st.path / "provenance.json").read_bytes()).hexdigest()
    assert manifest["provenance"]["fingerprints"]["git_commit"] == prov["git"]["commit"]
    assert manifest["provenance"]["fingerprints"]["fastmix_version"] == fastmix.__version__
    assert manifest["provenance"]["fingerprints"]["complete"] is True  # rewritten by mark_complete
    assert st.verify() == manifest
    assert S.verify_entries(root=tmp_path) == []


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _forge_provenance(path):
    record = json.loads(path.read_text())
    record["git"]["commit"] = "0" * 40
    record["fastmix_version"] = "9.9.9"
    path.write_text(json.dumps(record, indent=2) + "\n")


TAMPERING = {
    "an edited value": ("runs.csv", lambda p: _edit(p, "0.125", "0.126"), "a value was changed"),
    "an extra row for a cell never computed": (
        "runs.csv",
        lambda p: p.write_text(p.read_text() + "zz,9,0.5\n"),
        "cell(s) the store never computed: 'zz'",
    ),
    "a row of an existing cell added": (
        "runs.csv",
        lambda p: p.write_text(p.read_text() + "b,4,0.0625\n"),
        "it has 4 rows where the manifest records 3",
    ),
    "the last row cut off": ("runs.csv", lambda p: p.write_bytes(p.read_bytes()[:-4]), "cut off"),
    "a row missing a field": ("runs.csv", lambda p: _edit(p, "b,3,0.125", "b,3"), "2 field(s) where the header has 3"),
    "an empty table": ("runs.csv", lambda p: p.write_text(""), "the file is empty"),
    "a deleted table": ("runs.csv", lambda p: p.unlink(), "missing (the manifest records 3 rows)"),
    "a table the store never wrote": (
        "extra.csv",
        lambda p: p.write_text("cell,x\nq,1\n"),
        "a table the store never wrote",
    ),
    "corrupt provenance JSON": ("provenance.json", lambda p: p.write_text('{"git": '), "not valid JSON"),
    "edited parameters": ("parameters.json", lambda p: _edit(p, '"seed": 1', '"seed": 2'), "contents were edited"),
    "a forged provenance": (
        "provenance.json",
        _forge_provenance,
        "fastmix_version is '9.9.9' where the manifest records",
    ),
    "a corrupt manifest": ("manifest.json", lambda p: p.write_text("{"), "not valid JSON"),
    "a deleted manifest": ("manifest.json", lambda p: p.unlink(), "--write-manifests demo"),
}


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_every_read_refuses_a_tampered_entry_with_one_clear_error(tmp_path, case):
    file, tamper, what = TAMPERING[case]
    _complete_entry(tmp_path)
    tamper(tmp_path / "demo" / file)
    for read in (
        lambda: _store(tmp_path).load(),
        lambda: _store(tmp_path).load("runs"),
        lambda: _store(tmp_path).cells_done("runs"),
        lambda: S.entry_status("demo", tmp_path),
        lambda: S.entry_markdown("demo", tmp_path),
    ):
        with pytest.raises(S.StoreIntegrityError) as err:
            read()
        message = str(err.value)
        assert str(tmp_path / "demo" / file) in message or file == "manifest.json", message
        assert what in message, message
        assert "python -m fastmix_companion.run --paper-scale demo --restart" in message, message
    assert isinstance(err.value, ValueError)
    ((name, message),) = S.verify_entries(root=tmp_path)
    assert name == "demo" and what in message
    # and no writer builds on it: resuming refuses too, before computing anything
    with pytest.raises(S.StoreIntegrityError):
        with _store(tmp_path).sitting({"seed": 1}) as s:
            s.add_cell("runs", "c", [{"x": 5, "y": 1.0}])


def test_a_forged_provenance_names_the_commit_and_the_version(tmp_path):
    _complete_entry(tmp_path)
    _forge_provenance(tmp_path / "demo" / "provenance.json")
    with pytest.raises(S.StoreIntegrityError, match="git_commit is '0000000000") as err:
        _store(tmp_path).load()
    assert f"where the manifest records '{fastmix.__version__}'" in str(err.value)


def test_a_table_that_reads_differently_than_its_manifest_says_is_refused(tmp_path, monkeypatch):
    """The rows pandas reads are checked against the manifest's count, not trusted."""
    import pandas as pd

    st = _complete_entry(tmp_path)
    real = pd.read_csv
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: real(*a, **k).iloc[:-1])
    with pytest.raises(S.StoreIntegrityError, match="reads as 2 rows where its manifest records 3"):
        st.table("runs")


def _old_code_entry(root, name="old_entry", complete=True, runs="cell,x,y\na,1,0.5\nb,3,0.125\n"):
    """An entry as the store wrote it before manifests: the same files, no manifest.json."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "parameters.json").write_text(json.dumps({"notebook": name, "parameters": {"seed": 1}}, indent=2))
    record = {
        "notebook": name,
        "fastmix_version": "0.3.0",
        "git": {"commit": "b" * 40, "dirty": False},
        "sittings": [{"finished": complete, "seconds": 1.0}],
        "complete": complete,
    }
    (folder / "provenance.json").write_text(json.dumps(record, indent=2) + "\n")
    (folder / "runs.csv").write_text(runs)
    return folder


def test_an_entry_without_a_manifest_is_refused_until_adopted_by_the_command(tmp_path, capsys):
    from fastmix_companion.manifest import main

    _old_code_entry(tmp_path)
    with pytest.raises(S.StoreIntegrityError, match="--write-manifests old_entry") as err:
        _store(tmp_path, "old_entry").load()
    assert "has no manifest.json" in str(err.value)
    # a run that changed the entry a moment ago may still be writing it
    assert main(["--write-manifests", "--root", str(tmp_path), "old_entry"]) == 1
    assert "another run may be writing it" in capsys.readouterr().err
    assert main(["--write-manifests", "--root", str(tmp_path), "--settle", "0"]) == 0
    assert "old_entry: manifest written (1 tables)" in capsys.readouterr().out
    tables = _store(tmp_path, "old_entry").load("runs")
    assert list(tables["runs"]["x"]) == [1, 3]
    assert S.entry_status("old_entry", tmp_path).state == "complete"
    # adopting again does not rewrite the manifest over an edit: it verifies instead
    _edit(tmp_path / "old_entry" / "runs.csv", "0.125", "0.5")
    assert main(["--write-manifests", "--root", str(tmp_path), "--settle", "0"]) == 1
    assert "a value was changed" in capsys.readouterr().err
    with pytest.raises(S.StoreIntegrityError, match="already has a manifest"):
        S.write_manifest("old_entry", tmp_path)


@pytest.mark.parametrize(
    ("runs", "complete", "refusal"),
    [
        ("cell,x,y\na,1,0.5\nb,3", True, "cut off"),
        ("cell,x,y\na,1,0.5\nb,3\n", True, "2 field(s) where the header has 3"),
        ("", True, "the file is empty"),
        ("x,y\n1,0.5\n", True, "no 'cell' column"),
        ("cell,x,y\na,1,0.5\n", False, "not complete"),
    ],
)
def test_adoption_refuses_an_entry_that_does_not_read_cleanly(tmp_path, runs, complete, refusal):
    folder = _old_code_entry(tmp_path, runs=runs, complete=complete)
    with pytest.raises(S.StoreIntegrityError, match=re.escape(refusal)):
        S.write_manifest("old_entry", tmp_path)
    assert not (folder / S.MANIFEST_FILE).exists()


def test_adoption_refuses_corrupt_json_and_adopts_a_partial_run_on_request(tmp_path):
    folder = _old_code_entry(tmp_path, complete=False)
    manifest = S.write_manifest("old_entry", tmp_path, partial=True)
    assert manifest["tables"]["runs"]["cells"] == ["a", "b"]
    # the adopted partial run resumes with the new store, which keeps the manifest up to date
    st = _store(tmp_path, "old_entry")
    with st.sitting({"seed": 1}) as s:
        assert s.cells_done("runs") == {"a", "b"}
        s.add_cell("runs", "c", [{"x": 4, "y": 0.0}])
    st.mark_complete()
    assert list(_store(tmp_path, "old_entry").load()["runs"]["cell"]) == ["a", "b", "c"]
    other = _old_code_entry(tmp_path, "broken")
    (other / "provenance.json").write_text("{")
    with pytest.raises(S.StoreIntegrityError, match=r"provenance\.json is not valid JSON"):
        S.write_manifest("broken", tmp_path)
    assert folder.is_dir()


def test_a_writer_stopped_before_its_manifest_moved_is_completed_on_the_next_read(tmp_path, monkeypatch):
    import fastmix_companion.manifest as M

    st = _complete_entry(tmp_path)
    real = os.replace

    def stop_before_the_manifest(src, dst):
        if str(dst).endswith(S.MANIFEST_FILE):
            raise KeyboardInterrupt
        real(src, dst)

    monkeypatch.setattr(M.os, "replace", stop_before_the_manifest)
    with pytest.raises(KeyboardInterrupt):
        st.put_table("extra", pd.DataFrame({"x": [1]}))
    monkeypatch.setattr(M.os, "replace", real)
    loaded = _store(tmp_path).load()
    assert sorted(loaded) == ["extra", "runs"]
    assert not (tmp_path / "demo" / ".manifest__pending.json").exists()


def test_the_release_refuses_and_the_book_stops_on_a_tampered_entry(tmp_path):
    import importlib.util
    import sys
    import types

    pytest.importorskip("sphinx", reason="the book's Sphinx extension needs the book extra")
    from sphinx.errors import ExtensionError

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import release
    finally:
        sys.path.pop(0)
    _complete_entry(tmp_path, "figure2_dp_ols")
    assert not [r for r in release.stale_store_entries(results=tmp_path) if r[0] == "figure2_dp_ols"]
    spec = importlib.util.spec_from_file_location("fastmix_book_check", ROOT / "book" / "_ext" / "fastmix_book.py")
    book = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(book)
    app = types.SimpleNamespace(config=types.SimpleNamespace(fastmix_results_dir=tmp_path))
    book.verify_results_store(app)  # an intact store builds
    _edit(tmp_path / "figure2_dp_ols" / "runs.csv", "0.125", "0.126")
    reasons = dict(release.stale_store_entries(results=tmp_path))
    assert reasons["figure2_dp_ols"].startswith("fails its integrity check") and "runs.csv" in reasons["figure2_dp_ols"]
    with pytest.raises(ExtensionError, match=r"runs\.csv: a value was changed"):
        book.verify_results_store(app)


def test_every_committed_entry_matches_its_manifest():
    """The book reads these entries: each has a manifest and matches it."""
    assert _stored_entries(), "the results store holds no entries"
    assert S.verify_entries(root=RESULTS) == []
    for name in _stored_entries():
        assert (RESULTS / name / S.MANIFEST_FILE).is_file(), name


# --------------------------------------------------------------------------- concurrent writers

_WRITER = """
import sys, time
from pathlib import Path
from fastmix_companion.store import ResultsStore
root, go, first, last = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
while not go.exists():
    time.sleep(0.01)
store = ResultsStore("shared", root)
stored = 0
with store.sitting({"seed": 0}) as s:
    for i in range(first, last):
        key = f"cell{i:03d}"
        if key not in s.cells_done("runs"):
            stored += s.add_cell("runs", key, [{"i": i, "value": i / 7}])
print(stored)
"""


def _race(tmp_path, ranges):
    import subprocess
    import sys

    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(tmp_path / "store"), str(go), str(a), str(b)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for a, b in ranges
    ]
    go.touch()  # both start writing at once
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    return [int(out.strip()) for out, _ in outs], S.ResultsStore("shared", tmp_path / "store")


def test_two_processes_writing_different_cells_keep_all_80_rows(tmp_path):
    stored, st = _race(tmp_path, [(0, 40), (40, 80)])
    assert stored == [40, 40]
    runs = st.load("runs")["runs"]
    assert len(runs) == 80 and sorted(runs["i"]) == list(range(80))
    assert st.cells_done("runs") == {f"cell{i:03d}" for i in range(80)}
    sittings = st.provenance()["sittings"]
    assert len(sittings) == 2 and sorted(s["cells_computed"] for s in sittings) == [40, 40]
    assert all(s["finished"] for s in sittings)


def test_two_processes_writing_the_same_cells_store_each_once(tmp_path):
    stored, st = _race(tmp_path, [(0, 40), (0, 40)])
    assert sum(stored) == 40
    runs = st.load("runs")["runs"]
    assert len(runs) == 40 and not runs["cell"].duplicated().any()
    assert sorted(runs["i"]) == list(range(40))
    assert sum(s["cells_computed"] for s in st.provenance()["sittings"]) == 40
