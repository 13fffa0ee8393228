"""Smoke-test every notebook in notebooks/ by executing it through papermill.

Each jupytext percent notebook ``notebooks/<name>.py`` is read with jupytext and run in
process with :func:`papermill.execute_notebook`, with the small parameters in
``SMOKE_PARAMETERS[<name>]`` (notebooks without an entry run with their defaults).
A cell that raises fails the test with papermill's error, which shows the cell and the
traceback. Keep the smoke parameters small: the whole file should run in seconds.

When you add a notebook, add an entry here if its defaults take more than a few seconds.
"""

from pathlib import Path

import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(p for p in NOTEBOOK_DIR.glob("*.py") if not p.name.startswith(("_", ".")))

#: Small parameters per notebook name, injected by papermill for the smoke run.
SMOKE_PARAMETERS: dict[str, dict] = {
    "hello_fastmix": {"n": 64},
    "figure1_noise_scale": {"n_eps": 7},
    "section3_fastmix": {
        "log2_n": 10,
        "d": 8,
        "n_draws": 2,
        "log2_k2_min": 5,
        "log2_k2_max": 8,
        "tiny_log2_n": 5,
        "tiny_d": 3,
        "tiny_k2": 16,
        "n_gamma": 3,
    },
    "appendix_f_coherence": {"log2_ns": "10,12", "n_draws": 3, "k_per_octave": 1},
    "kernel_rp_vs_rff": {
        "n_train": 100,
        "n_val": 50,
        "n_test": 100,
        "dims": "1,3",
        "epsilons": "1,100",
        "sweep_epsilons": "1",
        "n_reps": 2,
        "rep_block": 2,
    },
    "kernel_rates": {"n_values": "100,200", "eps_values": "1,10", "n_fixed": 100, "n_test": 100, "n_reps": 2},
    "appendix_j_statistics": {"log2_n": 12, "d": 8, "spread_log2_n": 10, "n_seeds": 2},
    "privacy_audit": {"n": 32, "d": 3, "k2": 8, "k1": 6, "n_alphas": 12, "n_starts": 0, "n_releases": 2000},
    "figure2_dp_ols": {
        "datasets": "synthetic_sphere",
        "log2_n": 10,
        "d": 4,
        "k2_ratios": "4,16",
        "epsilons": "1.259,10.0",
        "trials": 2,
    },
    "figure3_runtime": {"shapes": "10x4", "k2_ratios": "4,8,16", "epsilons": "1.259", "trials": 2},
    "appendix_i_airline": {
        "dataset": "nycflights",
        "log2_n": 11,
        "epsilons": "1.0,10.0",
        "n_trials": 2,
        "k2_ratios": "4,8,16",
    },
    "solver_choice": {"log2_ns": "9", "ds": "4,8", "epsilons": "1.259", "trials": 2},
    "regime_map": {"log2_ns": "8,9", "n_sweep_d": 4, "ds": "2,4", "d_sweep_log2_n": 8, "repeats": 2},
    "beyond_one_machine": {"log2_ns": "10", "out_of_core_log2_n": 11, "d": 3, "chunk_log2_rows": 9, "repeats": 1},
}

pytestmark = pytest.mark.notebook


def test_smoke_parameters_refer_to_existing_notebooks():
    names = {p.stem for p in NOTEBOOKS}
    assert set(SMOKE_PARAMETERS) <= names, (
        f"SMOKE_PARAMETERS has entries for missing notebooks: {set(SMOKE_PARAMETERS) - names}"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path):
    import jupytext
    import papermill

    from fastmix_companion.run import ensure_kernel, inspect_parameters, validate_parameters

    parameters = SMOKE_PARAMETERS.get(path.stem, {})
    if parameters:
        # a typo in SMOKE_PARAMETERS should fail loudly, not be silently injected
        parameters = validate_parameters(parameters, inspect_parameters(path), notebook=path.name)
    nb = jupytext.read(str(path))
    papermill.execute_notebook(
        nb,
        str(tmp_path / f"{path.stem}.ipynb"),
        parameters=parameters,
        kernel_name=ensure_kernel("python3"),
        language="python",
        cwd=str(path.parent),
        progress_bar=False,
    )


#: Pages that draw nothing at random (they read stored results), so they need no seed.
NO_RANDOM_DRAWS = {"what_holds"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_parameters_cell_is_readable_by_papermill(path):
    """papermill's inspector skips any parameter line holding more than one '=' (help text included)."""
    import jupytext
    from papermill.translators import PythonTranslator

    nb = jupytext.read(str(path))
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"{path.name} needs exactly one cell tagged 'parameters'"
    lines = [ln for ln in cells[0].source.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    bad = [ln for ln in lines if ln.count("=") != 1]
    assert not bad, f"{path.name}: parameter lines papermill cannot parse (one '=' only): {bad}"
    names = {p.name for p in PythonTranslator.inspect(cells[0])}
    draws = "default_rng" in path.read_text(encoding="utf-8") or path.stem not in NO_RANDOM_DRAWS
    assert "seed" in names or not draws, f"{path.name}: the parameters cell should define a seed"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_provenance_records_every_parameter(path):
    """The provenance cell records the parameters cell's own values, every one of them.

    A notebook with a study builds ``PARAMS = {name: globals()[name] for name in study.DEFAULTS}``
    (the study's DEFAULTS are the parameters cell, checked in tests/test_studies_*.py) and passes
    it to provenance_report, so no parameter is copied by hand; any other notebook passes a dict
    literal, which must name every parameter.
    """
    import ast
    import re

    from fastmix_companion.run import inspect_parameters
    from fastmix_companion.studies import has_study, study_module

    source = re.sub(r"^\s*[%!].*$", "", path.read_text(encoding="utf-8"), flags=re.M)  # magics are not Python
    tree = ast.parse(source)
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "provenance_report"
    ]
    assert len(calls) == 1, f"{path.name}: the last cell should call provenance_report once"
    given = next(
        (kw.value for kw in calls[0].keywords if kw.arg == "parameters"), calls[0].args[0] if calls[0].args else None
    )
    declared = set(inspect_parameters(path))
    if isinstance(given, ast.Name):  # a name bound once in the notebook
        bound = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == given.id for t in node.targets)
        ]
        assert len(bound) == 1, f"{path.name}: {given.id} should be bound once"
        given = bound[0]
    if isinstance(given, ast.DictComp):
        assert has_study(path.stem), f"{path.name}: only a notebook with a study can take its names from DEFAULTS"
        text = ast.unparse(given)
        assert re.fullmatch(r"\{name: globals\(\)\[name\] for name in \w+\.DEFAULTS\}", text), text
        assert set(study_module(path.stem).DEFAULTS) == declared
        return
    assert isinstance(given, ast.Dict), f"{path.name}: pass the parameters to provenance_report as a dict literal"
    recorded = {key.value for key in given.keys if isinstance(key, ast.Constant)}
    missing = declared - recorded
    assert not missing, f"{path.name}: the provenance record leaves out parameters {sorted(missing)}"
