"""Tests for fastmix_companion.store (the results store) and its agreement with the paper-scale registry."""

import json
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
    prov_path.write_text(json.dumps(record))
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
    (tmp_path / "demo" / "provenance.json").write_text(json.dumps(record))
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
    (tmp_path / "demo" / "provenance.json").write_text(json.dumps(record))
    assert "uncommitted" not in S.entry_markdown("demo", tmp_path)
    record["sittings"][-1]["dirty"] = True
    (tmp_path / "demo" / "provenance.json").write_text(json.dumps(record))
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
