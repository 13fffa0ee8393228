"""Tests for fastmix_companion.experiments: tidy output, seeds, cache hits, atomic writes."""

import os

import numpy as np
import pandas as pd
import pytest

from fastmix import regression as R
from fastmix_companion import experiments as E
from fastmix_companion import grid_cache as G


def _data(n=1000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.clip(X @ np.ones(d) / 2 + 0.2 * rng.standard_normal(n), -1, 1)
    return X, y


GRID = dict(
    methods=("OLS", "FastIHS", "IHM", "FastIHM", "AdaSSP"),
    epsilons=(1.0, 10.0),
    k2_ratios=(4, 8),
    n_trials=2,
    progress=False,
)


def test_tiny_grid_columns_and_values(tmp_path):
    X, y = _data()
    df = E.run_grid({"toy": (X, y)}, cache_dir=tmp_path, **GRID)
    # OLS, FastIHS: 1 cell each; IHM, AdaSSP: 2 eps; FastIHM: 2 eps x 2 ratios -> 1+1+2+2+4 = 10 cells
    assert len(df) == 10 * 2
    for col in (
        "dataset",
        "method",
        "epsilon",
        "k2_ratio",
        "trial",
        "root_seed",
        "spawn_key",
        "excess_risk",
        "runtime_ns",
        "runtime_s",
        "k",
        "k1",
        "k2",
        "delta",
        "rho",
        "T",
        "eps_spent",
        "delta_spent",
        "code_fingerprint",
        "fastmix_version",
        "n_used",
        "rows_added",
    ):
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
    cells = [f for f in files if f.endswith(".json")]  # a cell is an envelope and its rows
    assert sorted(files) == sorted([*cells, *(f.replace(".json", ".npz") for f in cells)])
    n_before = len(cells)
    assert n_before >= 1
    monkeypatch.setattr(R, "fast_ihm", real)
    df = E.run_grid({"toy": (X, y)}, cache_dir=tmp_path, **GRID)
    assert df["from_cache"].sum() == 2 * n_before
    assert len(os.listdir(tmp_path)) == 2 * 10


def test_seeds_reproducible_and_content_keyed():
    X, y = _data()
    a = E.run_grid(
        {"toy": (X, y)}, methods=("FastIHM",), epsilons=(1.0,), k2_ratios=(4,), n_trials=2, progress=False, root_seed=7
    )
    b = E.run_grid(
        {"toy": (X, y)},
        methods=("IHM", "FastIHM"),
        epsilons=(1.0,),
        k2_ratios=(4,),
        n_trials=2,
        progress=False,
        root_seed=7,
    )
    c = E.run_grid(
        {"toy": (X, y)}, methods=("FastIHM",), epsilons=(1.0,), k2_ratios=(4,), n_trials=2, progress=False, root_seed=8
    )
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
    df = E.run_grid(
        ["synthetic_sphere"],
        methods=("OLS", "FastIHS"),
        n_trials=1,
        progress=False,
        dataset_kwargs={"synthetic_sphere": {"n": 1024, "d": 4, "random_state": 0}},
    )
    assert set(df["dataset"]) == {"synthetic_sphere"} and (df["n"] == 1024).all()


def test_paper_sketch_sizes_reexported():
    assert E.paper_sketch_sizes(32, 4, 1 / (10 * 2.0**38), 400) == (192, 12800)


def test_runtime_ratio_table_layout_and_values():
    rows = []
    for eps in (1.0, 2.0):
        for trial, scale in ((0, 1.0), (1, 3.0)):
            rows += [
                {
                    "dataset": "a",
                    "method": "IHM",
                    "epsilon": eps,
                    "k2_ratio": np.nan,
                    "trial": trial,
                    "runtime_s": 4.0 * scale,
                },
                {
                    "dataset": "a",
                    "method": "IHM-gram",
                    "epsilon": eps,
                    "k2_ratio": np.nan,
                    "trial": trial,
                    "runtime_s": 0.5 * scale,
                },
                {
                    "dataset": "a",
                    "method": "FastIHM",
                    "epsilon": eps,
                    "k2_ratio": 200.0,
                    "trial": trial,
                    "runtime_s": 2.0 * scale,
                },
                {
                    "dataset": "a",
                    "method": "FastIHM",
                    "epsilon": eps,
                    "k2_ratio": 4.0,
                    "trial": trial,
                    "runtime_s": 1.0 * scale,
                },
            ]
    rows.append(
        {"dataset": "a", "method": "FastIHS", "epsilon": np.nan, "k2_ratio": np.nan, "trial": 0, "runtime_s": 0.25}
    )
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
    df = E.run_grid(
        {"toy": (X, y)},
        methods=("FastIHS", "IHM", "FastIHM"),
        epsilons=(1.0,),
        k2_ratios=(4, 8),
        n_trials=1,
        progress=False,
    )
    ratios, _ = E.runtime_ratio_table(df)
    ref = E.speedup_table(df).set_index("method")["ihm_over_method"]
    assert ratios.loc["toy", "FastIHS"] == pytest.approx(ref["FastIHS"])
    assert ratios.loc["toy", "FastIHM r2"] == pytest.approx(ref["FastIHM r=8"])


# --------------------------------------------------------------------------- a cache that cannot lie

SMALL = dict(methods=("IHM",), epsilons=(1.0, 10.0), n_trials=6, progress=False)


def _cells(tmp_path):
    X, y = _data(512)
    df = E.run_grid({"toy": (X, y)}, cache_dir=tmp_path, **SMALL)
    files = sorted(p for p in tmp_path.iterdir() if p.suffix == ".json")  # the envelopes
    assert len(files) == 2 and not df["from_cache"].any()
    return (X, y), df, files


def _envelope(path):
    import json

    return json.loads(path.read_text())


def _rewrite(path, env):
    import json

    path.write_text(json.dumps(env))


def _rows(path):
    return G.decode_frame(G.data_path(path).read_bytes())


def _rewrite_consistently(path, frame):
    """What a writer of the folder could do: new rows with an envelope that matches them."""
    G.write_cell(frame, path, _envelope(path)["key"], _envelope(path)["parameters"])


def _copy_cell(source, target):
    G.data_path(target).write_bytes(G.data_path(source).read_bytes())
    target.write_bytes(source.read_bytes())


def _rerun(data, tmp_path, expect_warning):
    if expect_warning:
        with pytest.warns(E.CacheMismatchWarning, match=expect_warning):
            return E.run_grid({"toy": data}, cache_dir=tmp_path, **SMALL)
    return E.run_grid({"toy": data}, cache_dir=tmp_path, **SMALL)


def _stale_rows(a, b):  # the rows change, the envelope does not
    rows = _rows(a)
    G.data_path(a).write_bytes(G.encode_frame(rows.assign(excess_risk=rows["excess_risk"] * 1000)))


@pytest.mark.parametrize(
    "forge, message",
    [
        (lambda a, b: _rewrite_consistently(a, _rows(a).iloc[:2]), "expected 6 rows, found 2"),
        (lambda a, b: _copy_cell(b, a), "it holds another cell"),
        (_stale_rows, "does not match its digest"),
        (lambda a, b: _rewrite(a, [1, 2, 3]), "not a fastmix grid-cell file"),
        (lambda a, b: _rewrite(a, {**_envelope(a), "format": "fastmix-grid-cell/2"}), "not a fastmix grid-cell file"),
        (lambda a, b: _rewrite_consistently(a, _rows(a).iloc[::-1].reset_index(drop=True)), "trials are not 0..n-1"),
        (
            lambda a, b: _rewrite(a, {**_envelope(a), "parameters": {**_envelope(a)["parameters"], "T": 99}}),
            "its parameters do not hash to its name",
        ),
        (lambda a, b: G.data_path(a).unlink(), "its data file .*npz is missing"),
    ],
)
def test_a_forged_cache_file_is_recomputed_with_a_warning(tmp_path, forge, message):
    data, first, (a, b) = _cells(tmp_path)
    forge(a, b)
    again = _rerun(data, tmp_path, message)
    assert again["from_cache"].sum() == 6  # the intact cell
    pd.testing.assert_frame_equal(
        first.drop(columns=["from_cache", "runtime_ns", "runtime_s"])
        .sort_values(["epsilon", "trial"])
        .reset_index(drop=True),
        again.drop(columns=["from_cache", "runtime_ns", "runtime_s"])
        .sort_values(["epsilon", "trial"])
        .reset_index(drop=True),
    )
    assert not _rerun(data, tmp_path, None)["from_cache"].eq(False).any()  # and the file is repaired


def test_a_truncated_file_is_recomputed(tmp_path):
    data, _, (a, _) = _cells(tmp_path)
    rows = G.data_path(a)
    rows.write_bytes(rows.read_bytes()[:40])
    assert _rerun(data, tmp_path, "does not match its digest")["from_cache"].sum() == 6
    a.write_bytes(a.read_bytes()[:40])  # the envelope, cut short
    assert _rerun(data, tmp_path, "unreadable envelope")["from_cache"].sum() == 6


def test_the_key_covers_the_environment(tmp_path, monkeypatch):
    data, _, _ = _cells(tmp_path)
    monkeypatch.setattr(E, "environment_fingerprint", lambda: {"threads": "another machine"})
    assert not _rerun(data, tmp_path, None)["from_cache"].any()


def test_the_code_fingerprint_covers_the_runner_and_validation():
    files = {label for label, _ in G._source_files()}
    expected = {"experiments.py", "grid_cache.py", "_validation.py", "_compat.py", "regression/fast_hessian_mixing.py"}
    assert expected <= files
    # the packages are hashed file by file, so a change to any of their modules changes the key
    assert {"accounting/ledger.py", "accounting/renyi_bounds.py"} <= files
    assert any(f.startswith("datasets/") for f in files)


def test_the_code_fingerprint_follows_every_file_of_a_package(tmp_path, monkeypatch):
    import shutil

    dirs = G._package_dirs()
    base = tmp_path / "fastmix"
    shutil.copytree(dirs["fastmix"], base, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(G, "_package_dirs", lambda: {**dirs, "fastmix": base})
    before = E.code_fingerprint()
    (base / "accounting" / "ledger.py").write_text("# changed\n", encoding="utf-8")
    assert E.code_fingerprint() != before
    shutil.rmtree(base / "datasets")
    with pytest.raises(RuntimeError, match="fastmix/datasets no longer exists"):
        E.code_fingerprint()


def test_a_cell_claimed_by_a_live_run_is_awaited_not_recomputed(tmp_path, monkeypatch):
    import socket
    import threading

    data, _, files = _cells(tmp_path / "other")
    target = tmp_path / "shared"
    target.mkdir()
    # another live process (our parent) claims both cells and writes them a moment later
    for f in files:
        (target / f.name).with_suffix(".claim").write_text(f"{socket.gethostname()} {os.getppid()}")

    def other_run():
        import time

        time.sleep(1.0)
        for f in files:
            _copy_cell(f, target / f.name)  # the rows, then the envelope, as write_cell does
            (target / f.name).with_suffix(".claim").unlink()

    monkeypatch.setattr(E, "_run_one", lambda *a, **k: (_ for _ in ()).throw(AssertionError("recomputed")))
    t = threading.Thread(target=other_run)
    t.start()
    got = E.run_grid({"toy": data}, cache_dir=target, **SMALL)
    t.join()
    assert got["from_cache"].all() and len(got) == 12


def test_a_claim_left_by_a_dead_run_is_taken_over(tmp_path):
    import socket
    import subprocess
    import sys

    X, y = _data(512)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    key_files = []
    E.run_grid({"toy": (X, y)}, cache_dir=tmp_path / "probe", **SMALL)
    key_files = sorted(p.name for p in (tmp_path / "probe").iterdir() if p.suffix == ".json")
    shared = tmp_path / "shared"
    shared.mkdir()
    for name in key_files:
        (shared / name).with_suffix(".claim").write_text(f"{socket.gethostname()} {pid}")
    got = E.run_grid({"toy": (X, y)}, cache_dir=shared, **SMALL)
    assert not got["from_cache"].any() and len(got) == 12
    assert not list(shared.glob("*.claim"))


# --------------------------------------------------------------------------- the settings shared by every run

_SETTINGS = dict(
    n_trials=2,
    root_seed=11,
    T=3,
    delta=1e-5,
    rho=1e-6,
    clip=1,
    calibration="closed_form",
    ihm_sketch="gram",
    n_policy="subsample",
    m_floor=0.5,
    shared_eta=False,
)


@pytest.mark.parametrize(
    "change, error, message",
    [
        (dict(n_trials=0), ValueError, "n_trials must be at least 1; got 0"),
        (dict(n_trials=2.5), TypeError, "n_trials must be an integer; got 2.5"),
        (dict(T=0), ValueError, "T must be at least 1; got 0"),
        (dict(root_seed=-1), ValueError, "root_seed must be a non-negative integer; got -1"),
        (dict(root_seed=1.0), TypeError, "root_seed must be a non-negative integer; got 1.0"),
        (dict(root_seed=True), TypeError, "root_seed must be a non-negative integer; got True"),
        (dict(delta=1.5), ValueError, "delta must lie strictly between 0 and 1; got 1.5"),
        (dict(rho=0.0), ValueError, r"rho must lie in \(0, 1\); got 0.0"),
        (dict(clip=0.0), ValueError, "clip must be > 0; got 0.0"),
        (dict(calibration="loose"), ValueError, "calibration must be one of .*; got 'loose'"),
        (dict(ihm_sketch="sparse"), ValueError, "ihm_sketch must be one of .*; got 'sparse'"),
        (dict(n_policy="drop"), ValueError, "n_policy must be one of .*; got 'drop'"),
        (dict(m_floor=-1.0), ValueError, "m_floor must be >= 0; got -1.0"),
        (dict(shared_eta="yes"), TypeError, "shared_eta must be True or False; got 'yes'"),
    ],
)
def test_grid_settings_refuse_a_bad_value_saying_what_they_got(change, error, message):
    with pytest.raises(error, match=message):
        E.GridSettings(**{**_SETTINGS, **change})
    with pytest.raises(error, match=message):  # run_grid checks them before loading or computing anything
        E.run_grid(["no such dataset"], methods=("OLS",), progress=False, **{**_SETTINGS, **change})


def test_grid_settings_keep_the_values_the_cache_key_hashes():
    import dataclasses

    s = E.GridSettings(**_SETTINGS)
    assert dataclasses.asdict(s) == _SETTINGS and type(s.clip) is int  # as given: clip=1 and 1.0 key apart
    assert E.GridSettings(n_trials=np.int64(2), T=3.0).n_trials == 2 and type(E.GridSettings(T=3.0).T) is int
    assert dataclasses.replace(s, root_seed=12) == E.GridSettings(**{**_SETTINGS, "root_seed": 12})
    assert E.GridSettings(**dataclasses.asdict(s)) == s
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.T = 5
    assert E.GridSettings().privacy_parameters(100) == (1e-4, 1e-5)  # Appendix H: 1/n^2 and delta/10
    assert s.privacy_parameters(100) == (1e-5, 1e-6)


def test_run_grid_hands_one_settings_object_to_every_run(monkeypatch):
    X, y = _data(256)
    seen = []
    real = E._run_one

    def spy(data, params, settings, **kw):
        seen.append(settings)
        return real(data, params, settings, **kw)

    monkeypatch.setattr(E, "_run_one", spy)
    E.run_grid({"toy": (X, y)}, methods=("IHM", "FastIHM"), epsilons=(1.0,), k2_ratios=(4,), **_SETTINGS)
    assert len(seen) == 2 * 2 and all(s == E.GridSettings(**_SETTINGS) for s in seen)


def test_the_same_settings_give_the_same_frame():
    X, y = _data(777, d=3, seed=5)
    grid = dict(methods=("OLS", "FastIHS", "IHM", "FastIHM", "AdaSSP"), epsilons=(2.0,), k2_ratios=(4,), progress=False)
    a, b = (E.run_grid({"toy": (X, y)}, **grid, **_SETTINGS).drop(columns=["runtime_ns", "runtime_s"]) for _ in "ab")
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert (a["root_seed"] == 11).all() and (a["T"] == 3).all() and (a["n_policy"] == "subsample").all()
    assert a.loc[a["method"] == "IHM", "ihm_sketch"].eq("gram").all()
    assert a.loc[a["method"] == "FastIHM", "calibration"].eq("closed_form").all()
    c = E.run_grid({"toy": (X, y)}, **grid, **{**_SETTINGS, "root_seed": 12})
    assert not np.array_equal(a["excess_risk"].iloc[2:], c["excess_risk"].iloc[2:])  # all but OLS draw


@pytest.mark.parametrize(
    "grid, name",
    [
        (dict(methods=("FastIHM",), epsilons=(1.0,), k2_ratios=(4,)), "5e56fafcb1cfe697488bfc6c"),
        (
            dict(methods=("IHM",), epsilons=(2.0,), ihm_sketch="gram", root_seed=3, T=3, clip=1.0),
            "b794dc007761f2f14b4c6c7b",
        ),
        (dict(methods=("OLS",)), "b755127e314c3e8073acd0a8"),
    ],
)
def test_the_cache_key_of_a_cell_is_pinned(tmp_path, monkeypatch, grid, name):
    # Regression pin: cache files written by earlier runs are found by these names (the SHA-256 of a
    # cell's parameters); a change here orphans every cached cell. The code and environment
    # fingerprints, which are meant to change them, are held fixed. The stems are those of the
    # earlier pickle format's "<stem>.pkl" files; a cell is now "<stem>.json" (its envelope) and
    # "<stem>.npz" (its rows), so only the extensions changed.
    monkeypatch.setattr(E, "code_fingerprint", lambda: "pinned-code")
    monkeypatch.setattr(E, "environment_fingerprint", lambda: {"machine": "pinned"})
    X, y = _data()
    E.run_grid({"toy": (X, y)}, n_trials=1, cache_dir=tmp_path, progress=False, **grid)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{name}.json", f"{name}.npz"]


# --------------------------------------------------------------------------- the columns the studies store


def test_result_columns_are_the_ordered_union_of_run_and_measured_columns():
    assert E.RESULT_COLUMNS == E.RUN_COLUMNS + E.MEASURED_COLUMNS
    assert len(set(E.RESULT_COLUMNS)) == len(E.RESULT_COLUMNS)
    assert E.result_columns() == E.RESULT_COLUMNS
    assert E.result_columns(("runtime_s", "mse")) == (*E.RUN_COLUMNS, "runtime_s", "mse")
    X, y = _data(256)
    df = E.run_grid({"toy": (X, y)}, methods=("FastIHM",), epsilons=(1.0,), k2_ratios=(4,), n_trials=1, progress=False)
    assert set(E.RESULT_COLUMNS) <= set(df.columns)  # every name is one run_grid writes
    kept = E.keep_result_columns(df, ("runtime_ns", "excess_risk"))
    assert list(kept.columns) == [*E.RUN_COLUMNS, "runtime_ns", "excess_risk"]
    assert kept["excess_risk"].tolist() == df["excess_risk"].tolist()
    assert list(E.keep_result_columns(df.drop(columns="eta")).columns) == [c for c in E.RESULT_COLUMNS if c != "eta"]


def test_result_columns_refuse_an_unknown_or_repeated_name():
    with pytest.raises(ValueError, match=r"\['runtime'\] are not measured columns"):
        E.result_columns(("runtime",))
    with pytest.raises(ValueError, match="not measured columns"):
        E.result_columns(("dataset",))  # a run column always comes first, it is not chosen
    with pytest.raises(ValueError, match=r"at most once; got \['mse'\]"):
        E.keep_result_columns(pd.DataFrame(), ("mse", "runtime_s", "mse"))
