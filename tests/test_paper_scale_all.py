"""tools/paper_scale_all.py: which store entries need computing, in which order."""

import json

import pytest

import paper_scale_all as tool  # tools/ is on the path (tests/conftest.py)
from fastmix_companion.run import paper_scale_parameters
from fastmix_companion.store import ResultsStore
from fastmix_companion.studies import STUDIES, study_parameters


def test_an_empty_store_plans_every_study_with_figure1_after_section3(tmp_path):
    rows = tool.plan(root=tmp_path)
    names = [r[0] for r in rows]
    assert sorted(names) == sorted(STUDIES)
    assert all(r[1] == "missing" and r[2] is False for r in rows)
    assert names.index("section3_fastmix") < names.index("figure1_noise_scale")
    assert dict((r[0], r[3]) for r in rows)["figure1_noise_scale"] == ("section3_fastmix",)


def _store(tmp_path, name, params, version="0.1.0", complete=True):
    st = ResultsStore(name, tmp_path)
    st.path.mkdir(parents=True, exist_ok=True)
    (st.path / "parameters.json").write_text(json.dumps({"parameters": params}))
    (st.path / "provenance.json").write_text(
        json.dumps({"notebook": name, "fastmix_version": version, "complete": complete, "sittings": []})
    )


def test_current_entries_are_skipped_and_changed_parameters_start_afresh(tmp_path, monkeypatch):
    name = "appendix_f_coherence"
    params = study_parameters(name, paper_scale_parameters(name))
    monkeypatch.setattr("fastmix.__version__", "0.1.0")
    _store(tmp_path, name, params)
    assert name not in [r[0] for r in tool.plan([name], root=tmp_path)]
    forced = tool.plan([name], force=True, root=tmp_path)
    assert forced == [(name, "recomputed on request", True, ())]
    _store(tmp_path, name, {**params, "n_draws": 3})
    (row,) = tool.plan([name], root=tmp_path)
    assert row[1] == "stored with other parameters: n_draws" and row[2] is True


def test_an_entry_from_an_older_minor_version_starts_afresh(tmp_path, monkeypatch):
    name = "appendix_f_coherence"
    _store(tmp_path, name, study_parameters(name, paper_scale_parameters(name)), version="0.0.9")
    monkeypatch.setattr("fastmix.__version__", "0.1.0")
    (row,) = tool.plan([name], root=tmp_path)
    assert row[1].startswith("computed by fastmix 0.0.9") and row[2] is True


def test_requirements_order_and_cycles():
    rows = [("b", "missing", False, ("a",)), ("a", "missing", False, ()), ("c", "missing", False, ("z",))]
    assert [r[0] for r in tool._order(rows)] == ["a", "c", "b"]  # z is not planned, so c is ready
    with pytest.raises(SystemExit, match="cycle"):
        tool._order([("a", "m", False, ("b",)), ("b", "m", False, ("a",))])


def test_unknown_names_and_bad_jobs_are_refused(capsys):
    with pytest.raises(SystemExit, match="no paper-scale study for nonsense"):
        tool.plan(["nonsense"])
    with pytest.raises(SystemExit):
        tool.main(["--jobs", "0", "--dry-run"])
    assert "--jobs must be at least 1" in capsys.readouterr().err


def test_each_run_gets_one_thread_and_the_restart_flag():
    assert tool._command("x", True)[-3:] == ["x", "--no-progress", "--restart"]
    assert "--restart" not in tool._command("x", False)
    assert "OMP_NUM_THREADS" in tool.THREAD_VARIABLES and "OPENBLAS_NUM_THREADS" in tool.THREAD_VARIABLES
