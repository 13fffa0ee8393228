"""Where raw data files live and how they get there: the cache directory, downloads and checksums.

The real datasets of the FastMix paper (Appendices I and J) are cached under one data
directory (:func:`get_data_home`: the ``data_home=`` argument, the ``FASTMIX_DATA``
environment variable, ``data/cache/`` of a source checkout, or ``$XDG_CACHE_HOME/fastmix``).
:data:`REMOTE_FILES` lists the raw files fetched directly (or placed by hand, for the hosts
that need a login) with their expected SHA-256; OpenML tables (:data:`OPENML_IDS`) go
through scikit-learn's ``fetch_openml``. Direct downloads go through :func:`pooch.retrieve`
with pooch's HTTP downloader (a timeout, no progress bar): the file is written to a
temporary name in the target folder, checked against the recorded SHA-256 and only then
moved into place. A file already in the cache, downloaded earlier or placed by hand, is
never fetched again: it is hashed (:func:`sha256_file`) and checked against the record
without any network access. A recorded checksum that does not match raises
:class:`ChecksumMismatchError`, and every other failure one :class:`DatasetUnavailableError`
naming the URL, the cache path and how to place the file by hand. ``data/README.md`` lists
the expected files.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ._checks import check_data_home

__all__ = [
    "DATA_ENV_VAR",
    "DatasetUnavailableError",
    "ChecksumMismatchError",
    "RemoteFile",
    "REMOTE_FILES",
    "EXPECTED_SHAPES",
    "OPENML_IDS",
    "get_data_home",
    "sha256_file",
]

logger = logging.getLogger(__name__)

DATA_ENV_VAR = "FASTMIX_DATA"
"""Environment variable that overrides the default data directory."""

_DOWNLOAD_TIMEOUT = 60.0  # seconds per network operation
_USER_AGENT = "fastmix-datasets"


# --------------------------------------------------------------------------- errors


class DatasetUnavailableError(RuntimeError):
    """A dataset cannot be loaded: the file is missing, the download failed or the file is wrong.

    The message always says what failed, the URL to fetch from, the cache path where the
    file is expected and how to place it there by hand.
    """


class ChecksumMismatchError(DatasetUnavailableError):
    """A cached or downloaded file does not have the recorded SHA-256 checksum."""


# --------------------------------------------------------------------------- the data directory


def get_data_home(data_home=None) -> Path:
    """Directory where raw data files are cached.

    Order of precedence: the ``data_home`` argument; the ``FASTMIX_DATA`` environment
    variable; ``data/cache/`` inside the repository when fastmix runs from a source
    checkout (a ``pyproject.toml`` next to the ``fastmix`` package; that folder is
    git-ignored, so large raw files are never committed); otherwise
    ``$XDG_CACHE_HOME/fastmix`` (default ``~/.cache/fastmix``). The directory is not created here.
    ``data/README.md`` lists the files expected inside it.
    """
    if check_data_home(data_home) is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(DATA_ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "fastmix").is_dir():
        return repo / "data" / "cache"
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache) / "fastmix"


@dataclass(frozen=True)
class RemoteFile:
    """A raw file of a real dataset.

    Attributes
    ----------
    key : str
        Short identifier.
    relpath : str
        Path of the file inside the data directory.
    url : str
        Where the file comes from (direct download URL, or the page to fetch it from by hand).
    sha256 : str or None
        Expected SHA-256. ``None`` means not yet recorded: record it on the first
        successful download (the loader logs the computed value).
    downloadable : bool
        False when the host needs a login (Kaggle): the user must place the file.
    manual : str
        Extra instructions for placing the file by hand.
    """

    key: str
    relpath: str
    url: str
    sha256: str | None = None
    downloadable: bool = True
    manual: str = ""


REMOTE_FILES: dict[str, RemoteFile] = {
    "year_msd": RemoteFile(
        "year_msd",
        "year_msd/YearPredictionMSD.txt.zip",
        "https://archive.ics.uci.edu/ml/machine-learning-databases/00203/YearPredictionMSD.txt.zip",
        sha256=None,  # record on first successful download
        manual="The same file is linked from https://archive.ics.uci.edu/dataset/203/yearpredictionmsd "
        "(the zip offered there may be named yearpredictionmsd.zip; it must contain YearPredictionMSD.txt).",
    ),
    "beijing": RemoteFile(
        "beijing",
        "beijing/new.csv",
        "https://www.kaggle.com/datasets/ruiqurm/lianjia",
        sha256=None,  # record on first successful download
        downloadable=False,
        manual="Kaggle needs an account: download the dataset page's 'new.csv' (or run "
        "`kaggle datasets download -d ruiqurm/lianjia --unzip`) and copy new.csv there.",
    ),
    "rossmann_train": RemoteFile(
        "rossmann_train",
        "rossmann/train.csv",
        "https://www.kaggle.com/competitions/rossmann-store-sales/data",
        sha256=None,  # record on first successful download
        downloadable=False,
        manual="Kaggle needs an account and acceptance of the competition rules: download train.csv "
        "(or run `kaggle competitions download -c rossmann-store-sales` and unzip) and copy it there.",
    ),
    "rossmann_store": RemoteFile(
        "rossmann_store",
        "rossmann/store.csv",
        "https://www.kaggle.com/competitions/rossmann-store-sales/data",
        sha256=None,  # record on first successful download
        downloadable=False,
        manual="Kaggle needs an account and acceptance of the competition rules: download store.csv "
        "(or run `kaggle competitions download -c rossmann-store-sales` and unzip) and copy it there.",
    ),
}
"""Raw files of the real datasets that are not fetched through OpenML."""

EXPECTED_SHAPES: dict[str, tuple[int | None, int | None]] = {
    # (rows, columns) of the raw tables; None = not checked.
    "year_msd": (515345, 91),
    "black_friday": (166821, 10),
    "airline": (10_000_000, None),
    "rossmann_train": (1017209, None),
    "rossmann_store": (1115, None),
    "beijing": (None, None),
}

OPENML_IDS = {"black_friday": 41540, "airline": 42728}


def _differs_from_record(remote: RemoteFile, digest: str) -> bool:
    """True when a SHA-256 is recorded for ``remote`` and ``digest`` is not it."""
    return remote.sha256 is not None and digest.lower() != remote.sha256.lower()


def sha256_file(path) -> str:
    """SHA-256 hex digest of a file (lower-case hex), read in chunks by :func:`pooch.file_hash`."""
    import pooch  # imported on first use: importing fastmix.datasets stays light

    return pooch.file_hash(str(path), alg="sha256")


def _manual_help(remote: RemoteFile, path: Path) -> str:
    text = (
        f"  URL:        {remote.url}\n"
        f"  cache path: {path}\n"
        f"To place the file by hand, download it from the URL above and save it at exactly that path"
        f" (the data directory can be changed with data_home=... or the {DATA_ENV_VAR} environment variable)."
    )
    if remote.manual:
        text += "\n" + remote.manual
    return text


def _verify_checksum(remote: RemoteFile, path: Path, digest: str) -> None:
    if _differs_from_record(remote, digest):
        raise ChecksumMismatchError(
            f"Checksum mismatch for {remote.key}: {path} has SHA-256 {digest} but {remote.sha256} was "
            "recorded. The file is corrupt, truncated or a different version. Delete it and load again "
            "(it will be downloaded afresh), or place a correct copy by hand.\n" + _manual_help(remote, path)
        ) from None
    if remote.sha256 is None:
        logger.warning(
            "No SHA-256 recorded for %s; the file at %s has SHA-256 %s. Record it as the expected "
            "checksum in fastmix/datasets/cache.py (REMOTE_FILES) and data/README.md.",
            remote.key,
            path,
            digest,
        )


def _http_downloader(timeout: float):
    """pooch's downloader for the direct downloads: HTTP(S) with ``timeout`` seconds per network operation.

    A downloader is a callable ``(url, output_file, pooch)`` that writes the file at ``url`` to
    ``output_file`` (:class:`pooch.HTTPDownloader`, which uses ``requests``); no progress bar.
    """
    import pooch

    return pooch.HTTPDownloader(timeout=timeout, progressbar=False, headers={"User-Agent": _USER_AGENT})


_make_downloader = _http_downloader
"""Factory ``timeout -> downloader`` that :func:`_download` calls: the only way this module reaches the network.

The tests replace it with one whose downloader copies a local file, or fails like a network would.
"""


@contextlib.contextmanager
def _pooch_quiet():
    """Silence pooch's own INFO messages (they print to stderr); this module logs the download itself."""
    import pooch

    pooch_logger = pooch.get_logger()
    level = pooch_logger.level
    pooch_logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        pooch_logger.setLevel(level)


def _download(remote: RemoteFile, path: Path, timeout: float) -> str:
    """Download ``remote.url`` to ``path`` with :func:`pooch.retrieve`; return the SHA-256 of the file.

    pooch writes to a temporary file in ``path.parent``, checks it against the recorded SHA-256
    (none when ``remote.sha256`` is None) and moves it to ``path`` only when it matches; a failed
    or mismatched download leaves nothing behind.
    """
    import pooch
    import requests  # pooch's HTTP client; its errors are OSErrors

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetUnavailableError(
            f"Cannot create the cache directory {path.parent} for {remote.key}: {exc}.\n" + _manual_help(remote, path)
        ) from None
    logger.warning("Downloading %s from %s to %s", remote.key, remote.url, path)
    digests: list[str] = []  # SHA-256 of what the downloader wrote, for the messages and the return value

    def fetch(url, output_file, pooch_obj):
        downloader(url, output_file, pooch_obj)
        digests.append(sha256_file(output_file))

    known_hash = None if remote.sha256 is None else "sha256:" + remote.sha256.lower()
    try:
        downloader = _make_downloader(timeout)
        with _pooch_quiet():
            pooch.retrieve(
                remote.url,
                known_hash=known_hash,
                fname=path.name,
                path=path.parent,
                downloader=fetch,
                progressbar=False,
            )
    except (requests.exceptions.RequestException, OSError, ValueError) as exc:  # HTTP errors, timeouts, DNS, disk
        if digests and _differs_from_record(remote, digests[-1]):  # pooch raises ValueError on a hash mismatch
            raise ChecksumMismatchError(
                f"The download of {remote.key} from {remote.url} has SHA-256 {digests[-1]}, not the recorded "
                f"{remote.sha256}; it was discarded. The server may serve a different version or the "
                "transfer was corrupted. Try again, or place a verified copy by hand.\n" + _manual_help(remote, path)
            ) from None
        raise DatasetUnavailableError(
            f"Download of {remote.key} failed ({type(exc).__name__}: {exc}). This machine may have no "
            "internet access.\n" + _manual_help(remote, path)
        ) from None
    digest = digests[-1] if digests else sha256_file(path)  # no call: pooch found the file already in place
    if remote.sha256 is None:
        _verify_checksum(remote, path, digest)  # logs the computed checksum
    return digest


def _ensure_file(key: str, data_home=None, download: bool = True, timeout: float = _DOWNLOAD_TIMEOUT):
    """Path and SHA-256 of a raw file, downloading it when allowed and needed."""
    remote = REMOTE_FILES[key]
    path = get_data_home(data_home) / remote.relpath
    if path.is_file():
        digest = sha256_file(path)
        _verify_checksum(remote, path, digest)
        return path, digest
    if not remote.downloadable:
        raise DatasetUnavailableError(
            f"The raw file for {remote.key} is missing and cannot be downloaded automatically "
            "(the host requires a login).\n" + _manual_help(remote, path)
        )
    if not download:
        raise DatasetUnavailableError(
            f"The raw file for {remote.key} is not in the cache and download=False.\n" + _manual_help(remote, path)
        )
    return path, _download(remote, path, timeout)


def _check_shape(key: str, shape, path) -> None:
    rows, cols = EXPECTED_SHAPES.get(key, (None, None))
    if (rows is not None and shape[0] != rows) or (cols is not None and shape[1] != cols):
        want = f"({rows if rows is not None else 'any'}, {cols if cols is not None else 'any'})"
        raise DatasetUnavailableError(
            f"The raw table of {key} read from {path} has shape {tuple(shape)}, expected {want}. The file is "
            "truncated or a different version; delete it and load again, or place the original file by hand."
        )


def _require_pandas(what: str):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise DatasetUnavailableError(
            f"{what} needs pandas, which is not installed. Install it with: pip install 'fastmix[ml]'."
        ) from None
    return pd


# --------------------------------------------------------------------------- OpenML


def _openml_cache(data_home) -> Path:
    return get_data_home(data_home) / "openml"


def _openml_is_cached(data_id: int, data_home=None) -> bool:
    root = _openml_cache(data_home) / "openml.org"
    return (root / "api" / "v1" / "json" / "data" / f"{data_id}.gz").is_file()


def _fetch_openml_frame(key: str, data_home=None, download: bool = True):
    """Fetch an OpenML dataset through scikit-learn's ``fetch_openml`` into ``<data>/openml``.

    scikit-learn checks the MD5 checksum that OpenML publishes for the data file; the
    SHA-256 of the cached (gzipped ARFF) file is computed here and returned.
    """
    data_id = OPENML_IDS[key]
    cache = _openml_cache(data_home)
    page = f"https://www.openml.org/d/{data_id}"
    help_text = (
        f"  URL:        {page} (API: https://api.openml.org/api/v1/json/data/{data_id})\n"
        f"  cache path: {cache}\n"
        "OpenML files are cached by scikit-learn's fetch_openml under that directory (subfolder "
        "openml.org/...). To provide them by hand, run `sklearn.datasets.fetch_openml(data_id="
        f"{data_id}, data_home='{cache}')` on a machine with internet access and copy the resulting "
        f"{cache.name}/ folder to the same place here."
    )
    if not download and not _openml_is_cached(data_id, data_home):
        raise DatasetUnavailableError(
            f"OpenML dataset {data_id} ({key}) is not cached and download=False.\n" + help_text
        )
    try:
        import sklearn.datasets as skd
    except ImportError:  # pragma: no cover
        raise DatasetUnavailableError(
            f"Loading {key} needs scikit-learn, a dependency of fastmix (pip install scikit-learn).\n" + help_text
        ) from None
    try:
        cache.mkdir(parents=True, exist_ok=True)
        bunch = skd.fetch_openml(data_id=data_id, data_home=str(cache), as_frame=True, n_retries=2, delay=1.0)
    except Exception as exc:  # network errors, md5 mismatch, parse errors: one clear message
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise DatasetUnavailableError(
            f"Fetching OpenML dataset {data_id} ({key}) failed ({type(exc).__name__}: {first}). This machine "
            "may have no internet access.\n" + help_text
        ) from None
    details = getattr(bunch, "details", {}) or {}
    digest = None
    file_id = details.get("file_id")
    if file_id is not None:
        # scikit-learn mirrors the URL path: .../data/v1/download/<file_id>[/<name>.arff].gz
        download_dir = cache / "openml.org" / "data" / "v1" / "download"
        candidates = (
            sorted(
                p
                for p in download_dir.rglob("*")
                if p.is_file() and p.relative_to(download_dir).parts[0].split(".")[0] == str(file_id)
            )
            if download_dir.is_dir()
            else []
        )
        if candidates:
            digest = sha256_file(candidates[0])
            logger.info("OpenML %s data file %s has SHA-256 %s", data_id, candidates[0], digest)
    frame = bunch.frame
    return frame, digest, details
