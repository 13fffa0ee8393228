"""Tests for fastmix.experiments: tidy output, seeds, cache hits, atomic writes."""

import os

import numpy as np
import pandas as pd
import pytest

from fastmix import experiments as E
from fastmix import regression as R


def _data(n=1000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.clip(X @ np.ones(d) / 2 + 0.2 * rng.standard_normal(n), -1, 1)
    return X, y


GRID = dict(methods=("OLS", "FastIHS", "IHM", "FastIHM", "AdaSSP"), epsilons=(1.0, 10.0), k2_ratios=(4, 8),
            n_trials=2, progress=False)


def test_tiny_grid_columns_and_values(tmp_path):
    X, y = _data()
    df = E.run_grid({"toy": (X, y)}, cache_dir=tmp_path, **GRID)
    # OLS, FastIHS: 1 cell each; IHM, AdaSSP: 2 eps; FastIHM: 2 eps x 2 ratios -> 1+1+2+2+4 = 10 cells
    assert len(df) == 10 * 2
    for col in ("dataset", "method", "epsilon", "k2_ratio", "trial", "root_seed", "spawn_key", "excess_risk",
                "runtime_ns", "runtime_s", "k", "k1", "k2", "delta", "rho", "T", "eps_spent", "delta_spent",
                "code_fingerprint", "fastmix_version", "n_used", "rows_added"):
        assert col in df.columns, col
    assert (df["runtime_ns"] > 0).all()
    ols_rows = df[df.method == "OLS"]
    np.testing.assert_allclose(ols_rows["excess_risk"], 0, atol=1e-12)
    assert (df["excess_risk"] > -1e-12).all()  # OLS is the minimiser on the original rows
    priv = df[df.method.isin(["IHM", "FastIHM", "AdaSSP"])]
    assert (priv["eps_spent"] <= priv["epsilon"] * (1 + 1e-12)).all()
    assert (priv["delta_spent"] <= priv["delta"] * (1 + 1e-12)).all()
    assert (df.loc[df.method == "FastIHM", "rows_added"] == 24).all()
    assert df["delta"].iloc[0] == pytest.approx(1 / 1000**2)
    assert not df["from_cache"].any()
    # the paper's speedup table can be formed
    sp = E.speedup_table(df)
    assert set(sp["method"]) >= {"IHM", "FastIHS", "FastIHM r=4", "FastIHM r=8"}
    assert E.summarize(df)["trials"].eq(2).all()


def test_cache_hit_does_not_recompute(tmp_path, monkeypatch):
    X, y = _data()
    first = E.run_grid({"toy": (X, y)}, cache_dir=tmp_path, **GRID)

    def boom(*a, **k):
        raise AssertionError("recomputed despite cache")

    for name in ("fast_ihm", "ihm", "fast_ihs", "adassp", "ols"):
        monkeypatch.setattr(R, name, boom)
    second = E.run_grid({"toy": (X, y)}, cache_dir=tmp_path, **GRID)
    assert second["from_cache"].all()
    pd.testing.assert_frame_equal(first.drop(columns="from_cache"), second.drop(columns="from_cache"))


def test_resume_and_no_partial_files(tmp_path, monkeypatch):
    X, y = _data()
    real = R.fast_ihm
    calls = {"n": 0}

    def flaky(*a, **k):
        calls["n"] += 1
        if calls["n"] == 3:  # die in the middle of the second FastIHM cell
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(R, "fast_ihm", flaky)
    with pytest.raises(KeyboardInterrupt):
        E.run_grid({"toy": (X, y)}, cache_dir=tmp_path, **GRID)
    files = os.listdir(tmp_path)
    assert not [f for f in files if f.startswith(".tmp-")]
    n_before = len(files)
    assert n_before >= 1
    monkeypatch.setattr(R, "fast_ihm", real)
    df = E.run_grid({"toy": (X, y)}, cache_dir=tmp_path, **GRID)
    assert df["from_cache"].sum() == 2 * n_before
    assert len(os.listdir(tmp_path)) == 10


def test_seeds_reproducible_and_content_keyed():
    X, y = _data()
    a = E.run_grid({"toy": (X, y)}, methods=("FastIHM",), epsilons=(1.0,), k2_ratios=(4,), n_trials=2,
                   progress=False, root_seed=7)
    b = E.run_grid({"toy": (X, y)}, methods=("IHM", "FastIHM"), epsilons=(1.0,), k2_ratios=(4,), n_trials=2,
                   progress=False, root_seed=7)
    c = E.run_grid({"toy": (X, y)}, methods=("FastIHM",), epsilons=(1.0,), k2_ratios=(4,), n_trials=2,
                   progress=False, root_seed=8)
    fa = a["excess_risk"].to_numpy()
    fb = b.loc[b.method == "FastIHM", "excess_risk"].to_numpy()
    np.testing.assert_array_equal(fa, fb)  # adding a method does not change other results
    assert not np.array_equal(fa, c["excess_risk"].to_numpy())
    assert a["trial"].tolist() == [0, 1] and a["excess_risk"].iloc[0] != a["excess_risk"].iloc[1]


def test_code_fingerprint_changes_key(tmp_path, monkeypatch):
    X, y = _data()
    E.run_grid({"toy": (X, y)}, methods=("OLS",), n_trials=1, cache_dir=tmp_path, progress=False)
    monkeypatch.setattr(E, "code_fingerprint", lambda: "different")
    df = E.run_grid({"toy": (X, y)}, methods=("OLS",), n_trials=1, cache_dir=tmp_path, progress=False)
    assert not df["from_cache"].any()


def test_dataset_by_name():
    pytest.importorskip("fastmix.datasets")
    df = E.run_grid(["synthetic_sphere"], methods=("OLS", "FastIHS"), n_trials=1, progress=False,
                    dataset_kwargs={"synthetic_sphere": {"n": 1024, "d": 4, "random_state": 0}})
    assert set(df["dataset"]) == {"synthetic_sphere"} and (df["n"] == 1024).all()


def test_paper_sketch_sizes_reexported():
    assert E.paper_sketch_sizes(32, 4, 1 / (10 * 2.0**38), 400) == (192, 12800)


def test_runtime_ratio_table_layout_and_values():
    rows = []
    for eps in (1.0, 2.0):
        for trial, scale in ((0, 1.0), (1, 3.0)):
            rows += [
                {"dataset": "a", "method": "IHM", "epsilon": eps, "k2_ratio": np.nan, "trial": trial, "runtime_s": 4.0 * scale},
                {"dataset": "a", "method": "IHM-gram", "epsilon": eps, "k2_ratio": np.nan, "trial": trial, "runtime_s": 0.5 * scale},
                {"dataset": "a", "method": "FastIHM", "epsilon": eps, "k2_ratio": 200.0, "trial": trial, "runtime_s": 2.0 * scale},
                {"dataset": "a", "method": "FastIHM", "epsilon": eps, "k2_ratio": 4.0, "trial": trial, "runtime_s": 1.0 * scale},
            ]
    rows.append({"dataset": "a", "method": "FastIHS", "epsilon": np.nan, "k2_ratio": np.nan, "trial": 0, "runtime_s": 0.25})
    ratios, seconds = E.runtime_ratio_table(pd.DataFrame(rows))
    assert set(ratios.columns) == {"IHM", "IHM-gram", "FastIHM r1", "FastIHM r2", "FastIHS"}
    assert seconds.loc["a", "IHM"] == pytest.approx(8.0)
    assert ratios.loc["a", "FastIHM r1"] == pytest.approx(4.0)  # r1 is the smallest k2 ratio
    assert ratios.loc["a", "FastIHM r2"] == pytest.approx(2.0)
    assert ratios.loc["a", "FastIHS"] == pytest.approx(32.0)
    gram, _ = E.runtime_ratio_table(pd.DataFrame(rows), baseline="IHM-gram")
    assert gram.loc["a", "IHM"] == pytest.approx(0.125)
    with pytest.raises(ValueError, match="baseline"):
        E.runtime_ratio_table(pd.DataFrame(rows), baseline="AdaSSP")


def test_runtime_ratio_table_matches_speedup_table():
    X, y = _data()
    df = E.run_grid({"toy": (X, y)}, methods=("FastIHS", "IHM", "FastIHM"), epsilons=(1.0,), k2_ratios=(4, 8),
                    n_trials=1, progress=False)
    ratios, _ = E.runtime_ratio_table(df)
    ref = E.speedup_table(df).set_index("method")["ihm_over_method"]
    assert ratios.loc["toy", "FastIHS"] == pytest.approx(ref["FastIHS"])
    assert ratios.loc["toy", "FastIHM r2"] == pytest.approx(ref["FastIHM r=8"])
