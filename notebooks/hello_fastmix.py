# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Hello, fastmix: the Walsh-Hadamard transform
#
# This small notebook checks that the toolchain works end to end: the package imports, the
# fast Walsh-Hadamard transform runs, the notebook executes inside the book, and the
# provenance cell records what was run.
# It is also the template for the other notebooks: a tagged parameters cell first, maths
# in the package, plotting here, provenance last.
#
# The orthonormal Hadamard matrix $H_n$ used by the SRHT ({cite}`tropp2011improved`;
# FastMix paper, Definition 3) is symmetric and orthogonal, so applying it preserves the
# Euclidean norm of every vector and applying it twice gives the vector back.

# %% tags=["parameters"]
n: int = 1024  # vector length (a power of two)
seed: int = 0  # seed of the numpy Generator

# %% [markdown]
# The imports, and the clock that the provenance cell reads at the end.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np

from fastmix.hadamard import fwht, get_backend
from fastmix_companion.pages import caption, use_book_style
from fastmix_companion.provenance import provenance_report

started_at = time.time()

# %% tags=["hide-input"]
# Book display helpers: the figure caption's text, and figure text sized for the book's column.


# Figures fill the book's content column: larger text (fastmix_companion.pages.BOOK_STYLE).
use_book_style()

# %% [markdown]
# We draw one standard normal vector of length $n$ and transform it with the active backend.

# %%
rng = np.random.default_rng(seed)
x = rng.standard_normal(n)
y = fwht(x)

print(f"backend: {get_backend()}")
print(f"||x|| = {np.linalg.norm(x):.12f}")
print(f"||H x|| = {np.linalg.norm(y):.12f}")
print(f"max |H(H x) - x| = {np.max(np.abs(fwht(y) - x)):.2e}")

# %% [markdown]
# Both checks hold to rounding error: the norm is preserved and the transform is its own inverse.

# %%
assert np.isclose(np.linalg.norm(y), np.linalg.norm(x), rtol=1e-12)
assert np.allclose(fwht(y), x, atol=1e-10)

# %% [markdown]
# The coefficients of a Gaussian vector in the Hadamard basis are again standard normal,
# because an orthogonal map sends an isotropic Gaussian to an isotropic Gaussian.
# The plot shows the squared coefficients (the "Walsh spectrum") in natural order.

# %% mystnb={"figure": {"caption": "**Figure H.1.** {glue:md}`hello-spectrum-caption:myst`", "name": "hello-spectrum"}} tags=["hide-input"]
caption(
    "hello-spectrum",
    f"Squared Walsh-Hadamard coefficients $(H_n x)_i^2$ of one standard normal vector of length "
    f"$n = {n}$ (seed {seed}), in natural order, on a log scale; the dashed line is their expected value, 1.",
)
fig, ax = plt.subplots(figsize=(10, 3.5))
ax.plot(np.arange(n), y**2, lw=0.8)
ax.axhline(1.0, color="k", ls="--", lw=1)
ax.set_xlabel("Walsh index (natural order)")
ax.set_ylabel("squared coefficient")
ax.set_yscale("log")
plt.show()

# %% [markdown]
# ## Provenance

# %%
provenance_report({"n": n, "seed": seed}, seed=seed, started_at=started_at)
