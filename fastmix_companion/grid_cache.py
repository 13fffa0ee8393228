"""The on-disk cache of the experiment grid's cells (:func:`fastmix_companion.experiments.run_grid`).

One cell (all trials of one dataset, method, epsilon and ratio) is two files named by a SHA-256
of the cell's parameters and of what besides them can change a row (:func:`cache_key`): a
fingerprint of the data (:func:`data_fingerprint`), of the code (:func:`code_fingerprint`) and
of the environment (:func:`environment_fingerprint`).

* ``<key>.npz`` holds the rows, one NumPy array per column: numbers, booleans and dates as
  themselves (bit for bit), text and mixed columns (``None``, strings, numbers) as one JSON value
  per row (floats written with their shortest exact repr), with each column's pandas dtype, so a
  frame comes back equal to the one written, dtypes, NaN, ``None`` and every float digit
  included. :func:`write_cell` decodes what it is about to write and refuses a frame that would
  not come back exactly (an index other than 0..n-1, a column holding, say, lists).
* ``<key>.json``, the envelope: the format, the key, the cell's parameters (the key is their
  :func:`cache_key`), the number of rows and the SHA-256 of the ``.npz`` file.

Nothing is ever unpickled: the envelope is read with :func:`json.loads` and the rows with
:func:`numpy.load` and ``allow_pickle=False``, which refuses an array of Python objects, so a
planted file cannot run code when the cache is read. ``.pkl`` files, the format of earlier
versions, are never opened: a folder holding some gets a one-line
:class:`LegacyCacheWarning` and their cells are recomputed.

:func:`read_cell` refuses, with a :class:`CacheMismatchWarning`, and recomputes a cell whose
envelope is not JSON or names another cell, whose parameters do not hash to its name, whose data
file is missing or does not match the envelope's SHA-256, or whose rows are not the trials
0..n-1 in order. What these checks cover: accidental damage (a corrupted, truncated or
half-copied file, a data file overwritten without its envelope, files renamed or mixed up
between cells) and stale entries (a cell computed by other code, on other data or another
machine has another name, and its parameters say so). What they do not cover is someone who
can write the folder: the SHA-256 is not keyed, and a key kept in the same folder would be
readable by the same people, so a forged data file with a matching envelope is accepted (it can
give wrong numbers, not run code). Keep a cache folder writable only by those whose numbers you
trust; the results store, not this cache, is what the book publishes.

:func:`write_cell` writes each file under a temporary name and moves it into place with
:func:`os.replace` (rows first, then the envelope), so an interrupted run leaves no partial file;
:func:`claim_cell` and :func:`release_cell` keep two runs sharing a folder from computing the
same cell. The public names used by callers are re-exported by
:mod:`fastmix_companion.experiments`.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "CacheMismatchWarning",
    "LegacyCacheWarning",
    "environment_fingerprint",
    "code_fingerprint",
    "data_fingerprint",
    "cache_key",
    "cache_path",
    "data_path",
    "read_cell",
    "write_cell",
    "encode_frame",
    "decode_frame",
    "claim_cell",
    "release_cell",
]


#: Modules and packages (folders, every ``.py`` in them) whose source affects a grid result.
_SOURCES = (
    ("fastmix", "regression"),
    ("fastmix", "_compat.py"),
    ("fastmix", "mechanisms"),
    ("fastmix", "srht.py"),
    ("fastmix", "hadamard"),
    ("fastmix", "accounting"),
    ("fastmix_companion", "experiments.py"),
    ("fastmix_companion", "grid_cache.py"),
    ("fastmix", "_validation.py"),
    ("fastmix", "datasets"),
)
_CACHE_FORMAT = "fastmix-grid-cell/3"


class CacheMismatchWarning(UserWarning):
    """A cache file that does not hold what its name promises; it is recomputed."""


class LegacyCacheWarning(UserWarning):
    """A cache folder holds ``.pkl`` files of an earlier format; they are never loaded."""


def environment_fingerprint() -> dict:
    """What besides the code can change a cached row: library versions, the transform backend,
    the thread pools and the machine (every row holds a runtime)."""
    import platform

    import scipy
    from threadpoolctl import threadpool_info

    from fastmix import hadamard

    pools = sorted((p.get("user_api"), p.get("internal_api"), p.get("num_threads")) for p in threadpool_info())
    try:
        import pandas

        pandas_version = pandas.__version__
    except Exception:  # pragma: no cover
        pandas_version = None
    backend = getattr(hadamard, "get_backend", lambda: None)()
    return {
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "pandas": pandas_version,
        "hadamard_backend": str(backend),
        "threads": pools,
        "env_threads": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
        "machine": [platform.machine(), platform.processor(), platform.node(), os.cpu_count()],
    }


def code_fingerprint() -> str:
    """SHA-256 (first 16 hex digits) of the sources of every module that affects a grid result."""
    h = hashlib.sha256()
    for label, path in _source_files():
        h.update(label.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _package_dirs() -> dict[str, Path]:
    import fastmix

    return {"fastmix": Path(fastmix.__file__).resolve().parent, "fastmix_companion": Path(__file__).resolve().parent}


def _source_files() -> list[tuple[str, Path]]:
    """``(label, path)`` of the files :func:`code_fingerprint` hashes, in a fixed order.

    The label is the path inside its package (``"regression/fast_hessian_mixing.py"``,
    ``"experiments.py"``), so moving the companion's modules out of the library did not change
    the fingerprint of unchanged code. A listed source that is gone is an error.
    """
    dirs = _package_dirs()
    files: list[tuple[str, Path]] = []
    for package, name in _SOURCES:
        base = dirs[package]
        p = base / name
        if p.is_dir():
            files.extend((q.relative_to(base).as_posix(), q) for q in sorted(p.rglob("*.py")))
        elif p.is_file():
            files.append((name, p))
        else:  # a moved module would otherwise stop invalidating the cache without a word
            raise RuntimeError(f"code_fingerprint: {package}/{name} no longer exists; update _SOURCES in {__file__}")
    return files


def data_fingerprint(X, y) -> str:
    """SHA-256 (first 16 hex digits) of the shape and bytes of (X, y) as float64."""
    h = hashlib.sha256()
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    h.update(repr((X.shape, y.shape)).encode())
    h.update(np.ascontiguousarray(X).tobytes())
    h.update(np.ascontiguousarray(y).tobytes())
    return h.hexdigest()[:16]


def cache_key(obj) -> str:
    """SHA-256 (first 24 hex digits) of ``obj`` as sorted JSON: the name (stem) of a cell's cache files."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:24]


def cache_path(cache_dir: Path, key: str) -> Path:
    """The envelope of the cell whose key is ``key``, ``<key>.json`` (its rows: :func:`data_path`)."""
    return Path(cache_dir) / f"{key}.json"


def data_path(path: Path) -> Path:
    """The rows file, ``<key>.npz``, beside the envelope ``path`` of :func:`cache_path`."""
    return Path(path).with_suffix(".npz")


# --------------------------------------------------------------------------- rows as arrays

_SCHEMA = "schema"  # the member of the .npz that lists the columns; the others are c0, c1, ...
_ARRAY_KINDS = "biufcmM"  # NumPy dtypes stored as themselves: bool, integers, floats, complex, times


def _json_value(value, column: str, missing_as_null: bool) -> str:
    if missing_as_null and (value is None or value is _pandas().NA or (isinstance(value, float) and value != value)):
        return "null"
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return json.dumps(value)  # floats as their shortest repr, which reads back exactly; NaN and inf too
    raise TypeError(
        f"column {column!r} holds a {type(value).__name__} value ({value!r}); the grid cache stores None, "
        "booleans, numbers and text in a text or mixed column"
    )


def _pandas():
    import pandas

    return pandas


def encode_frame(df) -> bytes:
    """The rows of ``df`` as the bytes of an ``.npz`` file (see the module docstring).

    Raises
    ------
    TypeError, ValueError
        If ``df`` would not come back exactly from :func:`decode_frame`: an index other than
        0..n-1, column names that are not distinct strings, or values outside what a column
        can hold (lists, dicts and other objects in a text or mixed column).
    """
    pd = _pandas()
    index = df.index
    if not (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1):
        raise ValueError("grid cache: a cell's rows must have the index 0..n-1; call reset_index(drop=True) first")
    names = list(df.columns)
    if not all(isinstance(c, str) for c in names) or len(set(names)) != len(names):
        raise ValueError(f"grid cache: column names must be distinct strings; got {names}")
    arrays: dict[str, Any] = {}  # name -> array; Any: numpy.savez types its keywords as its options
    schema = []
    for i, name in enumerate(names):
        column = df.iloc[:, i]
        dtype = column.dtype
        if isinstance(dtype, np.dtype) and dtype.kind in _ARRAY_KINDS:
            arrays[f"c{i}"] = np.ascontiguousarray(column.to_numpy())
            schema.append({"name": name, "dtype": str(dtype), "as": "array"})
        else:
            missing_as_null = not (isinstance(dtype, np.dtype) and dtype.kind == "O")
            texts = [_json_value(v, name, missing_as_null) for v in column.tolist()]
            arrays[f"c{i}"] = np.array(texts, dtype=str) if texts else np.zeros(0, dtype="<U1")
            schema.append({"name": name, "dtype": str(dtype), "as": "json"})
    arrays[_SCHEMA] = np.array(json.dumps({"n_rows": len(df), "columns": schema}))
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    data = buffer.getvalue()
    try:
        pd.testing.assert_frame_equal(decode_frame(data), df, check_exact=True)
    except AssertionError as exc:
        first = next((line for line in str(exc).splitlines() if line.strip()), "")
        raise TypeError(f"grid cache: this frame would not read back exactly ({first})") from None
    return data


def decode_frame(data: bytes):
    """The frame whose :func:`encode_frame` is ``data``; nothing in it is unpickled.

    Raises
    ------
    ValueError
        If ``data`` is not such a file (:func:`numpy.load` refuses pickled objects).
    """
    pd = _pandas()
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        members = set(npz.files)
        if _SCHEMA not in members:
            raise ValueError("no column list")
        schema = json.loads(str(npz[_SCHEMA]))
        columns = schema["columns"]
        if members != {_SCHEMA, *(f"c{i}" for i in range(len(columns)))}:
            raise ValueError("its arrays are not its columns")
        index = pd.RangeIndex(int(schema["n_rows"]))
        series = {}
        for i, col in enumerate(columns):
            array = npz[f"c{i}"]
            if array.ndim != 1 or len(array) != len(index):
                raise ValueError(f"column {col['name']!r} has {array.shape} values for {len(index)} rows")
            if col["as"] == "array":
                if str(array.dtype) != col["dtype"]:
                    raise ValueError(f"column {col['name']!r} is {array.dtype}, not {col['dtype']}")
                series[col["name"]] = pd.Series(array, index=index, name=col["name"])
            elif col["as"] == "json" and array.dtype.kind == "U":
                values = [json.loads(text) for text in array.tolist()]
                dtype = object if col["dtype"] == "object" else pd.api.types.pandas_dtype(col["dtype"])
                series[col["name"]] = pd.Series(values, index=index, dtype=dtype, name=col["name"])
            else:
                raise ValueError(f"column {col['name']!r} is stored in an unknown way")
    if len(series) != len(columns):
        raise ValueError("a column name repeats")
    return pd.DataFrame(series, index=index)


# --------------------------------------------------------------------------- reading and writing cells

_legacy_warned: set[Path] = set()


def _warn_about_legacy_files(folder: Path) -> None:
    """One :class:`LegacyCacheWarning` per folder and process if ``folder`` holds ``.pkl`` files."""
    folder = Path(folder).absolute()
    if folder in _legacy_warned:
        return
    _legacy_warned.add(folder)
    n = sum(1 for _ in folder.glob("*.pkl"))
    if n:
        warnings.warn(
            f"cache folder {folder} holds {n} .pkl file(s) of an earlier grid-cache format: they are never loaded "
            "(unpickling can run code), their cells are recomputed, and they can be deleted.",
            LegacyCacheWarning,
            stacklevel=4,
        )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check_cell(path: Path, key: str, n_rows: int):
    """``(frame, None)`` if ``path`` holds cell ``key`` with ``n_rows`` rows, else ``(None, problem)``."""
    try:
        env = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"unreadable envelope ({type(exc).__name__})"
    if not isinstance(env, dict) or env.get("format") != _CACHE_FORMAT:
        return None, "not a fastmix grid-cell file"
    if env.get("key") != key:
        return None, "it holds another cell"
    params = env.get("parameters")
    if params is not None and cache_key(params) != key:
        return None, "its parameters do not hash to its name"
    if env.get("n_rows") != n_rows:
        return None, f"expected {n_rows} rows, found {env.get('n_rows')!r}"
    try:
        data = data_path(path).read_bytes()  # read once: the digest and the rows are of the same bytes
    except OSError:
        return None, f"its data file {data_path(path).name} is missing"
    if _sha256(data) != env.get("sha256"):
        return None, f"its data file {data_path(path).name} does not match its digest (changed or truncated)"
    try:
        df = decode_frame(data)
    except Exception as exc:  # a file that matches its digest but is no frame: written by something else
        return None, f"unreadable data file ({type(exc).__name__}: {exc})"
    if len(df) != n_rows:
        return None, f"expected {n_rows} rows, found {len(df)}"
    if "trial" not in df.columns or df["trial"].tolist() != list(range(n_rows)):
        return None, "its trials are not 0..n-1 in order"
    return df, None


def read_cell(path: Path, key: str, n_rows: int):
    """The rows cached for ``key`` in the envelope ``path``, or None (missing, or refused: warned).

    See the module docstring for what is checked. ``.pkl`` files in the folder are never read
    (:class:`LegacyCacheWarning`, once per folder).
    """
    path = Path(path)
    _warn_about_legacy_files(path.parent)
    if not path.exists():
        return None
    df, problem = _check_cell(path, key, n_rows)
    if problem is not None:
        warnings.warn(f"cache file {path.name} ignored and recomputed: {problem}.", CacheMismatchWarning, stacklevel=3)
        return None
    return df


def _write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_cell(df, path: Path, key: str, params: dict | None = None) -> None:
    """Write the rows of cell ``key`` to ``<key>.npz`` and its envelope to ``path`` (``<key>.json``).

    Parameters
    ----------
    df : DataFrame
        The cell's rows, index 0..n-1 (checked: :func:`encode_frame`).
    path : path
        The envelope, :func:`cache_path` of the key.
    key : str
        The cell's :func:`cache_key`.
    params : dict, optional
        The parameters ``key`` is the hash of; stored in the envelope (so a reader can tell
        what the cell is and check its name), after checking that they hash to ``key``.

    Each file is written under a temporary name and moved into place with :func:`os.replace`,
    the rows before the envelope, so an interrupted run leaves no partial file.
    """
    path = Path(path)
    if params is not None:
        params = json.loads(json.dumps(params, default=str))  # as a reader will see them
        if cache_key(params) != key:
            raise ValueError(f"grid cache: the parameters given hash to {cache_key(params)}, not to the key {key}")
    data = encode_frame(df)
    envelope = {"format": _CACHE_FORMAT, "key": key, "parameters": params, "n_rows": len(df), "sha256": _sha256(data)}
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomically(data_path(path), data)
    _write_atomically(path, (json.dumps(envelope, indent=1, sort_keys=True) + "\n").encode("utf-8"))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - alive, owned by someone else
        return True
    return True


def claim_cell(path: Path) -> bool:
    """Claim the cell whose cache file is ``path``; False if another live process holds it."""
    import socket

    claim = path.with_suffix(".claim")
    claim.parent.mkdir(parents=True, exist_ok=True)
    me = f"{socket.gethostname()} {os.getpid()}"
    for _ in range(2):
        try:
            fd = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                host, pid = claim.read_text().split()
            except (OSError, ValueError):
                host, pid = "", "0"
            if host == socket.gethostname() and not _pid_alive(int(pid)):
                claim.unlink(missing_ok=True)  # its process died: take the cell over
                continue
            return False
        with os.fdopen(fd, "w") as fh:
            fh.write(me)
        return True
    return False


def release_cell(path: Path) -> None:
    """Give up the claim of :func:`claim_cell` on the cell whose cache file is ``path``."""
    path.with_suffix(".claim").unlink(missing_ok=True)
