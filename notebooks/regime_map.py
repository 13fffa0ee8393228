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
# # Where each solver is fastest

# %% tags=["parameters"]
log2_ns: str = "10,11,12"  # comma-separated log2(n) of the n sweep (full map: 14,...,22)
n_sweep_d: int = 16  # number of features along the n sweep (full map: 32)
ds: str = "4,8,16"  # comma-separated numbers of features of the d sweep (full map: 8,16,...,512)
d_sweep_log2_n: int = 11  # log2(n) along the d sweep (full map: 17)
repeats: int = 3  # timed runs per solver and shape, after one untimed run that measures memory
T: int = 4  # iterations of IHM, FastIHM and FastIHS (Appendix H)
epsilon: float = 1.259  # privacy budget of the private solvers (runtime hardly depends on it)
dense_ihm_max_seconds: float = 120.0  # dense IHM is not run where its predicted solve takes longer
long_solve_seconds: float = 20.0  # where one solve takes longer, two timed runs instead of `repeats`
blas_threads: int = 1  # BLAS/OpenMP threads during timing, the Hadamard transform's included (0: library default)
seed: int = 0  # root seed of every run (numpy SeedSequence)
