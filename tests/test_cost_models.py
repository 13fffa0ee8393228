"""The studies' cost models (fastmix_companion.studies.cost_models) and the command line's refusals built on them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fastmix_companion import cli_checks
from fastmix_companion.studies import NOTEBOOK_COST_MODELS, STUDIES, study_module, study_parameters

ROOT = Path(__file__).resolve().parents[1]
PAPER_SCALE = json.loads((ROOT / "notebooks" / "paper_scale.json").read_text(encoding="utf-8"))


def _stored_seconds(notebook: str) -> float | None:
    """The summed sittings of the stored entry, when it was computed at the paper-scale parameters."""
    folder = ROOT / "results" / notebook
    try:
        record = json.loads((folder / "provenance.json").read_text(encoding="utf-8"))
        stored = json.loads((folder / "parameters.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    stored = stored.get("parameters", stored)
    wanted = PAPER_SCALE.get(notebook, {}).get("parameters", {})
    if any(stored.get(k) != v for k, v in wanted.items()):
        return None
    seconds = record.get("wall_time_seconds")
    return float(seconds) if seconds else None


@pytest.mark.parametrize("notebook", sorted(STUDIES))
def test_every_study_has_a_cost_model_at_its_defaults_and_at_paper_scale(notebook):
    module = study_module(notebook)
    assert "cost_model" in module.__all__
    for overrides in ({}, PAPER_SCALE.get(notebook, {}).get("parameters", {})):
        cost = module.cost_model(study_parameters(notebook, overrides))
        assert isinstance(cost, cli_checks.RunCost)
        assert cost.memory_bytes is not None and cost.memory_bytes > 0
        assert cost.seconds is not None and cost.seconds > 0
        assert cost.note


@pytest.mark.parametrize("notebook", sorted(n for n in STUDIES if n in PAPER_SCALE))
def test_the_paper_scale_estimate_is_within_a_factor_5_of_the_stored_run(notebook):
    stored = _stored_seconds(notebook)
    if stored is None:
        pytest.skip(f"no stored paper-scale run of {notebook} with its duration")
    cost = study_module(notebook).cost_model(study_parameters(notebook, PAPER_SCALE[notebook]["parameters"]))
    assert stored / 5 <= cost.seconds <= 5 * stored, (cost.seconds, stored)


def test_the_paper_scale_runs_fit_in_memory_and_the_defaults_are_quick():
    for notebook in STUDIES:
        params = PAPER_SCALE.get(notebook, {}).get("parameters", {})
        paper = study_module(notebook).cost_model(study_parameters(notebook, params))
        assert paper.memory_bytes < 20 * 2**30, notebook  # every stored run was computed on a 23 GiB machine
        quick = study_module(notebook).cost_model(study_parameters(notebook, {}))
        assert quick.seconds < cli_checks.LONG_RUN_SECONDS and quick.memory_bytes < 2**30, notebook


def test_a_notebook_without_a_study_takes_its_registered_cost_model():
    assert set(NOTEBOOK_COST_MODELS) == {"hello_fastmix"}
    cost = cli_checks.study_cost("hello_fastmix", {"n": 1024, "seed": 0})
    assert isinstance(cost, cli_checks.RunCost) and cost.memory_bytes < 2**30 and cost.seconds < 60
    big = cli_checks.study_cost("hello_fastmix", {"n": 2**40, "seed": 0})
    assert big.memory_bytes >= 8 * 2**40 and "n = 1,099,511,627,776" in big.note
    assert cli_checks.study_cost("what_holds", {}) is None  # no model: not checked


def test_a_large_but_admissible_run_needs_yes():
    line = (
        "error: figure3_runtime at these parameters is estimated to take about 13.5 h "
        "(shapes = 16x32,15x90, trials = 10000); add --yes to start it anyway"
    )
    with pytest.raises(ValueError) as info:
        cli_checks.check_run_cost(Path("figure3_runtime.py"), {"trials": 10000}, memory=2**40)
    assert f"error: {info.value}" == line


# The values as the command line takes them: -p n 2**40 is text, so 2^40 is written out; a list
# parameter takes integers, so 1e8 is written 100000000.
ABSURD = [
    ("appendix_f_coherence", ("-p", "n_draws", "1000000000"), "n_draws = 1000000000"),
    ("privacy_audit", ("-p", "n_releases", "1e13"), "n_releases = 10,000,000,000,000"),
    ("kernel_rates", ("-p", "n_values", "100000000"), "n_values up to 100,000,000"),
    ("hello_fastmix", ("-p", "n", str(2**40)), "n = 1,099,511,627,776"),
    ("kernel_rp_vs_rff", ("-p", "n_train", "10000000"), "n_train = 10000000"),
    ("section3_fastmix", ("-p", "log2_n", "24", "-p", "d", "4096"), "log2_n = 24, d = 4096"),
]


@pytest.mark.parametrize(("notebook", "args", "named"), ABSURD, ids=[a[0] for a in ABSURD])
def test_an_absurd_run_is_refused_in_one_line_before_anything_starts(tmp_path, notebook, args, named):
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "fastmix_companion.run", notebook, *args, "--output-dir", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert line.startswith(f"error: {notebook} at these parameters needs about "), line
    assert named in line and "of memory" in line and " available; " in line, line
    assert done.stdout == "" and not out.exists()
