"""Tests for fastmix_companion.grid_cache: cells stored as data (JSON and .npz), never unpickled."""

import io
import json
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from fastmix_companion import experiments as E
from fastmix_companion import grid_cache as G


class _Planted:
    """An object whose unpickling writes a marker file: proof that a pickle was loaded."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (_touch, (self.marker,))


def _touch(path):
    with open(path, "w") as fh:
        fh.write("a planted pickle ran")


def _frame(n=4):
    return pd.DataFrame(
        {
            "dataset": pd.Series(["toy"] * n),  # pandas' default text dtype (str from pandas 3, else object)
            "trial": np.arange(n, dtype=np.int64),
            "excess_risk": np.array([0.1 + 0.2, -0.0, np.nan, 1e-310, np.pi, -np.inf, 2.0**-1074, 1 / 3][:n]),
            "runtime_ns": np.array([2**62 + 1, 0, -5, 7, 1, 2, 3, 4][:n], dtype=np.int64),
            "calibration": [None, "tight", np.nan, 3, 2.5, True, "x", None][:n],
            "flag": np.array([True, False, True, False, True, True, False, False][:n]),
            "n_used": pd.array([1, None, 3, 4, 5, 6, 7, 8][:n], dtype="Int64"),
        }
    )


def _write(tmp_path, df, key="0123456789abcdef01234567"):
    path = G.cache_path(tmp_path, key)
    G.write_cell(df, path, key)
    return path, key


# --------------------------------------------------------------------------- round trip


def test_a_frame_round_trips_exactly(tmp_path):
    df = _frame(8)
    path, key = _write(tmp_path, df)
    got = G.read_cell(path, key, 8)
    pd.testing.assert_frame_equal(got, df, check_exact=True)
    assert got.dtypes.equals(df.dtypes)
    assert got["excess_risk"].to_numpy().tobytes() == df["excess_risk"].to_numpy().tobytes()  # bit for bit
    assert got["calibration"].iloc[0] is None and np.isnan(got["calibration"].iloc[2])  # None and NaN kept apart
    assert [type(v) for v in got["calibration"]] == [type(v) for v in df["calibration"]]
    assert got["runtime_ns"].iloc[0] == 2**62 + 1 and got["n_used"].isna().tolist()[1]


def test_a_run_grid_frame_round_trips_exactly():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((256, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.clip(X.sum(axis=1) / 2, -1, 1)
    methods = ("OLS", "IHM", "FastIHM", "AdaSSP", "FastIHS")
    df = E.run_grid({"toy": (X, y)}, methods=methods, epsilons=(1.0,), k2_ratios=(4,), n_trials=2, progress=False)
    back = G.decode_frame(G.encode_frame(df))
    pd.testing.assert_frame_equal(back, df, check_exact=True)
    assert back.dtypes.equals(df.dtypes)


@pytest.mark.parametrize(
    "df, message",
    [
        (pd.DataFrame({"trial": [0], "x": [[1, 2]]}), "column 'x' holds a list value"),
        (pd.DataFrame({"trial": [0, 1]}, index=[3, 4]), "index 0..n-1"),
        (pd.DataFrame([[0, 1]], columns=["trial", "trial"]), "distinct strings"),
        (pd.DataFrame({"c": pd.Categorical(["a"], categories=["a", "b"])}), "would not read back exactly"),
    ],
)
def test_a_frame_that_would_not_read_back_exactly_is_refused(tmp_path, df, message):
    with pytest.raises((TypeError, ValueError), match=message):
        _write(tmp_path, df)
    assert not list(tmp_path.iterdir())


def test_the_envelope_is_json_with_parameters_rows_and_digest(tmp_path):
    params = {"dataset": "toy", "method": "IHM", "epsilon": 1.0, "code": "abc", "environment": {"threads": [1, 2]}}
    key = G.cache_key(params)
    path = G.cache_path(tmp_path, key)
    G.write_cell(_frame(), path, key, params)
    env = json.loads(path.read_text())
    assert path.name == f"{key}.json" and G.data_path(path).name == f"{key}.npz"
    assert env["key"] == key and env["parameters"] == params and env["n_rows"] == 4
    assert env["sha256"] == G._sha256(G.data_path(path).read_bytes())
    with pytest.raises(ValueError, match="hash to"):
        G.write_cell(_frame(), path, key, {**params, "epsilon": 2.0})


# --------------------------------------------------------------------------- nothing is unpickled


def test_a_planted_pickle_is_never_executed(tmp_path):
    """A .pkl at a cell's old name, and pickle bytes posing as its rows, never run."""
    marker = tmp_path.parent / f"{tmp_path.name}-marker"
    bomb = pickle.dumps(_Planted(marker))
    pickle.loads(bomb)  # the bomb works: unpickling it writes the marker
    assert marker.exists()
    marker.unlink()

    df = _frame()
    path, key = _write(tmp_path, df)
    (tmp_path / f"{key}.pkl").write_bytes(bomb)  # the earlier format's name for this cell
    with pytest.warns(G.LegacyCacheWarning, match=r"1 \.pkl file\(s\) of an earlier grid-cache format"):
        got = G.read_cell(path, key, 4)
    pd.testing.assert_frame_equal(got, df, check_exact=True)
    assert not marker.exists()

    # pickle bytes as the rows, with an envelope that vouches for them (someone who can write the folder)
    G.data_path(path).write_bytes(bomb)
    env = json.loads(path.read_text())
    path.write_text(json.dumps({**env, "sha256": G._sha256(bomb)}))
    with pytest.warns(G.CacheMismatchWarning, match="unreadable data file"):
        assert G.read_cell(path, key, 4) is None
    # and an .npz whose member is a pickled object array
    buffer = io.BytesIO()
    np.savez(buffer, schema=np.array("{}"), c0=np.array([_Planted(marker)], dtype=object))
    G.data_path(path).write_bytes(buffer.getvalue())
    path.write_text(json.dumps({**env, "sha256": G._sha256(buffer.getvalue())}))
    with pytest.warns(G.CacheMismatchWarning, match="unreadable data file"):
        assert G.read_cell(path, key, 4) is None
    # the envelope itself as a pickle
    path.write_bytes(bomb)
    with pytest.warns(G.CacheMismatchWarning, match="unreadable envelope"):
        assert G.read_cell(path, key, 4) is None
    assert not marker.exists()


def test_run_grid_ignores_old_pickles_with_one_warning_and_never_loads_them(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((256, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.clip(X @ np.ones(4) / 2, -1, 1)
    grid = dict(methods=("OLS", "IHM"), epsilons=(1.0,), n_trials=1, progress=False)
    E.run_grid({"toy": (X, y)}, cache_dir=tmp_path / "probe", **grid)
    stems = sorted(p.stem for p in (tmp_path / "probe").glob("*.json"))
    assert len(stems) == 2
    folder = tmp_path / "cache"
    folder.mkdir()
    marker = tmp_path / "marker"
    for stem in stems:  # a planted pickle at the name the earlier format gave each cell
        (folder / f"{stem}.pkl").write_bytes(pickle.dumps(_Planted(marker)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = E.run_grid({"toy": (X, y)}, cache_dir=folder, **grid)
    legacy = [w for w in caught if issubclass(w.category, G.LegacyCacheWarning)]
    assert len(legacy) == 1 and "2 .pkl file(s)" in str(legacy[0].message)
    assert "\n" not in str(legacy[0].message)
    assert not df["from_cache"].any() and not marker.exists()
    for stem in stems:  # computed afresh beside the old file, which is left alone and never read
        assert (folder / f"{stem}.json").exists() and (folder / f"{stem}.pkl").exists()
    assert E.run_grid({"toy": (X, y)}, cache_dir=folder, **grid)["from_cache"].all()
    assert not marker.exists()


# --------------------------------------------------------------------------- damaged or forged cells are refused


def test_a_forged_data_file_with_a_stale_envelope_is_refused(tmp_path):
    df = _frame()
    path, key = _write(tmp_path, df)
    forged = df.assign(excess_risk=df["excess_risk"] * 1000)
    G.data_path(path).write_bytes(G.encode_frame(forged))  # a valid .npz, but not the one the envelope vouches for
    with pytest.warns(G.CacheMismatchWarning, match=f"{key}.npz does not match its digest"):
        assert G.read_cell(path, key, 4) is None


@pytest.mark.parametrize("keep", [0, 40, -1])
def test_truncated_data_is_refused(tmp_path, keep):
    path, key = _write(tmp_path, _frame())
    data = G.data_path(path).read_bytes()
    G.data_path(path).write_bytes(data[:keep])
    with pytest.warns(G.CacheMismatchWarning, match="does not match its digest"):
        assert G.read_cell(path, key, 4) is None


def test_a_cell_without_its_envelope_is_a_miss_without_a_warning(tmp_path):
    path, key = _write(tmp_path, _frame())
    path.unlink()  # e.g. a run stopped between writing the rows and the envelope
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert G.read_cell(path, key, 4) is None


def test_a_digest_matching_file_that_is_no_frame_is_refused(tmp_path):
    path, key = _write(tmp_path, _frame())
    junk = b"PK\x03\x04 not really a zip"
    G.data_path(path).write_bytes(junk)
    env = json.loads(path.read_text())
    path.write_text(json.dumps({**env, "sha256": G._sha256(junk)}))
    with pytest.warns(G.CacheMismatchWarning, match="unreadable data file"):
        assert G.read_cell(path, key, 4) is None


def test_no_temporary_file_is_left_when_encoding_fails(tmp_path):
    path, key = _write(tmp_path, _frame())
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(TypeError):
        G.write_cell(pd.DataFrame({"trial": [0], "x": [{"a": 1}]}), path, key)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    pd.testing.assert_frame_equal(G.read_cell(path, key, 4), _frame(), check_exact=True)  # the cell is intact
