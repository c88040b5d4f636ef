"""Design matrices for a parsed formula, and their cross-products in one chunked pass.

The fixed-effects matrix ``X`` follows R's ``model.matrix`` conventions
(treatment contrasts, the first level as reference; a factor in a term is
coded by contrasts when the term without it is already in the model, else by
indicators), so coefficient names and values match ``lme4``. The
random-effects matrix ``Z`` follows lme4's layout: term by term, and within a
term level by level with the term's columns adjacent.

Nothing here holds a dense ``n x q`` matrix: :func:`cross_products` walks the
rows in chunks (``Z`` of a chunk is sparse) and accumulates ``X'X, X'Z, Z'Z,
X'y, Z'y, y'y`` and ``n``, which are all the profiled deviance needs. Memory
is O(chunk + (p+q)^2), and partial sums from separate partitions simply add.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp

from benchverdict.lmem._threads import small_problem_threads
from benchverdict.lmem.formula import Formula, FormulaError, RandomTerm, TermList

#: Rows per chunk when accumulating cross-products.
CHUNK_ROWS = 262_144

#: ``Z'Z`` is kept dense up to this many random effects (32 MB) and sparse (CSR) beyond:
#: the leaderboard's ``(1|algorithm:benchmark)`` at 100 x 100 has q = 10,100, whose dense
#: ``Z'Z`` (816 MB, 2.5 s to fill) is 0.2% nonzero. The engine reads only its blocks.
DENSE_ZTZ_MAX_Q = 2048


@dataclass(frozen=True)
class Variable:
    """One column used by a formula: a factor (codes + levels) or a numeric covariate."""

    name: str
    kind: str  # "factor" or "numeric"
    levels: tuple[str, ...] = ()
    codes: np.ndarray | None = None  # int32, factor only
    values: np.ndarray | None = None  # float64, numeric only

    @property
    def is_factor(self) -> bool:
        """Whether the variable is a factor."""
        return self.kind == "factor"


def is_factor_column(series: pd.Series) -> bool:
    """Whether a column is treated as a factor (categorical, string, object or bool)."""
    return not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)


def make_variable(frame: pd.DataFrame, name: str) -> Variable:
    """Read column ``name`` as a factor or numeric :class:`Variable`; raise on missing values."""
    col = frame[name]
    if col.isna().any():
        rows = list(frame.index[col.isna().to_numpy()][:5])
        raise ValueError(
            f"column {name!r} has {int(col.isna().sum())} missing value(s) (e.g. rows {rows}); "
            "a mixed model needs every variable it uses. Fill or drop them before building "
            "the Results."
        )
    if is_factor_column(col):
        cat = col if isinstance(col.dtype, pd.CategoricalDtype) else col.astype("category")
        codes = cat.cat.codes.to_numpy()
        used = np.flatnonzero(np.bincount(codes, minlength=len(cat.cat.categories)))
        labels = [str(c) for c in cat.cat.categories[used]]
        # Sort levels as R does by default for a factor made from strings, but keep the
        # categorical's own order (already sorted by Results) when it has one.
        remap = np.full(len(cat.cat.categories), -1, dtype=np.int32)
        remap[used] = np.arange(len(used), dtype=np.int32)
        return Variable(name, "factor", tuple(labels), codes=remap[codes])
    values = col.to_numpy(dtype=np.float64)
    return Variable(name, "numeric", values=values)


@dataclass(frozen=True)
class Column:
    """One design column: a product of factor indicators and numeric covariates."""

    name: str
    parts: tuple[tuple[str, int | None], ...]  # (variable, level index) or (variable, None)

    def evaluate(self, variables: dict[str, Variable], rows: slice | np.ndarray) -> np.ndarray:
        """The column's values on ``rows``."""
        out: np.ndarray | None = None
        for var_name, level in self.parts:
            var = variables[var_name]
            if level is None:
                piece = var.values[rows]  # type: ignore[index]
            else:
                piece = (var.codes[rows] == level).astype(np.float64)  # type: ignore[index]
            out = piece.astype(np.float64, copy=True) if out is None else out * piece
        if out is None:
            raise ValueError("the intercept column has no parts; callers fill it with ones.")
        return out


def term_columns(terms: TermList, variables: dict[str, Variable]) -> list[Column]:
    """R's ``model.matrix`` columns for ``terms`` (see the module docstring)."""
    columns: list[Column] = []
    if terms.intercept:
        columns.append(Column("(Intercept)", ()))
    present: set[frozenset[str]] = {frozenset()} if terms.intercept else set()
    for term in terms.terms:
        # Each factor: contrasts if the term without it is already spanned.
        per_var: list[list[tuple[str, int | None, str]]] = []
        for name in term:
            var = variables[name]
            if not var.is_factor:
                per_var.append([(name, None, name)])
                continue
            margin = frozenset(term) - {name}
            contrasts = margin in present
            levels = range(1, len(var.levels)) if contrasts else range(len(var.levels))
            per_var.append([(name, k, f"{name}{var.levels[k]}") for k in levels])
        # R varies the first variable fastest.
        combos: list[list[tuple[str, int | None, str]]] = [[]]
        for options in per_var:
            combos = [[*c, o] for o in options for c in combos]
        for combo in combos:
            columns.append(
                Column(":".join(label for _, _, label in combo),
                       tuple((v, k) for v, k, _ in combo))
            )
        present.add(frozenset(term))
        if not terms.intercept and all(variables[v].is_factor for v in term) and len(term) == 1:
            present.add(frozenset())  # a fully coded factor spans the intercept
    return columns


@dataclass(frozen=True)
class ReBlock:
    """One random-effects term after expansion: ``p`` columns varying over ``n_levels`` groups."""

    group: str
    columns: tuple[Column, ...]
    levels: tuple[str, ...]
    codes: np.ndarray  # int32 group code per row
    source: RandomTerm

    @property
    def p(self) -> int:
        """Number of columns."""
        return len(self.columns)

    @property
    def n_levels(self) -> int:
        """Number of levels of the grouping factor."""
        return len(self.levels)

    @property
    def q(self) -> int:
        """Number of random effects (columns of Z)."""
        return self.p * self.n_levels

    @property
    def n_theta(self) -> int:
        """Number of covariance parameters."""
        return self.p * (self.p + 1) // 2


def group_codes(variables: dict[str, Variable], group: tuple[str, ...]) -> tuple[np.ndarray,
                                                                                  tuple[str, ...]]:
    """Codes and level labels of a grouping factor (an interaction keeps observed combinations)."""
    for g in group:
        if not variables[g].is_factor:
            # lme4 turns a numeric grouping variable into a factor; so do we.
            var = variables[g]
            uniq, inv = np.unique(var.values, return_inverse=True)
            variables[g] = Variable(g, "factor", tuple(f"{u:g}" for u in uniq),
                                    codes=inv.astype(np.int32))
    if len(group) == 1:
        var = variables[group[0]]
        return var.codes, var.levels  # type: ignore[return-value]
    combined = np.zeros(len(variables[group[0]].codes), dtype=np.int64)  # type: ignore[arg-type]
    for g in group:
        var = variables[g]
        combined = combined * len(var.levels) + var.codes
    uniq, inv = np.unique(combined, return_inverse=True)
    labels = []
    for value in uniq:
        parts = []
        for g in reversed(group):
            var = variables[g]
            parts.append(var.levels[int(value % len(var.levels))])
            value //= len(var.levels)
        labels.append(":".join(reversed(parts)))
    return inv.astype(np.int32), tuple(labels)


@dataclass
class Design:
    """The fixed and random structure of a formula evaluated on a table.

    Attributes
    ----------
    formula : Formula
    variables : dict of Variable
    fixed : list of Column
        Columns of ``X`` (their names are the coefficient names).
    blocks : list of ReBlock
        Random-effects terms, in lme4's order (by decreasing number of levels).
    y : numpy.ndarray
    n : int
    """

    formula: Formula
    variables: dict[str, Variable]
    fixed: list[Column]
    blocks: list[ReBlock]
    y: np.ndarray
    n: int
    offsets: list[int] = field(default_factory=list)

    @property
    def p(self) -> int:
        """Number of columns."""
        return len(self.fixed)

    @property
    def q(self) -> int:
        """Number of random effects (columns of Z)."""
        return sum(b.q for b in self.blocks)

    @property
    def fixed_names(self) -> list[str]:
        """Coefficient names."""
        return [c.name for c in self.fixed]

    def fixed_matrix(self, rows: slice | np.ndarray) -> np.ndarray:
        """Rows ``rows`` of ``X`` (dense)."""
        n = len(self.y[rows])
        X = np.empty((n, self.p))
        for j, col in enumerate(self.fixed):
            X[:, j] = col.evaluate(self.variables, rows) if col.parts else 1.0
        return X

    def random_matrix(self, rows: slice | np.ndarray) -> sp.csr_matrix:
        """Rows ``rows`` of ``Z`` (sparse)."""
        n = len(self.y[rows])
        data, cols = [], []
        for block, offset in zip(self.blocks, self.offsets):
            g = block.codes[rows].astype(np.int64)
            for j, col in enumerate(block.columns):
                values = col.evaluate(self.variables, rows) if col.parts else np.ones(n)
                data.append(values)
                cols.append(offset + g * block.p + j)
        if not data:
            return sp.csr_matrix((n, 0))
        k = len(data)
        row_idx = np.repeat(np.arange(n), k)
        Z = sp.csr_matrix(
            (np.column_stack(data).ravel(), (row_idx, np.column_stack(cols).ravel())),
            shape=(n, self.q),
        )
        return Z


def build_design(frame: pd.DataFrame, formula: Formula) -> Design:
    """Evaluate ``formula`` on ``frame`` (validated column names, R coding rules)."""
    formula.validate(frame.columns)
    y_col = frame[formula.response]
    if is_factor_column(y_col):
        raise FormulaError(f"the response {formula.response!r} must be numeric.")
    y = y_col.to_numpy(dtype=np.float64, copy=True)  # the fit standardises it in place
    if not np.isfinite(y).all():
        raise ValueError(f"the response {formula.response!r} has non-finite values.")
    variables = {v: make_variable(frame, v) for v in formula.variables if v != formula.response}
    if formula.response in formula.variables[1:]:
        raise FormulaError(f"the response {formula.response!r} also appears as a predictor.")
    fixed = term_columns(formula.fixed, variables)
    if not fixed:
        raise FormulaError("the model has no fixed effects; use 'score ~ 1 + ...' at least.")
    blocks: list[ReBlock] = []
    for term in formula.random:
        codes, levels = group_codes(variables, term.group)
        columns = term_columns(term.expr, variables)
        if term.diagonal:
            for col in columns:
                blocks.append(ReBlock(term.group_name, (col,), levels, codes, term))
        else:
            blocks.append(ReBlock(term.group_name, tuple(columns), levels, codes, term))
    # lme4 orders terms by decreasing number of levels (a stable sort).
    blocks.sort(key=lambda b: -b.n_levels)
    offsets = list(np.cumsum([0] + [b.q for b in blocks])[:-1].astype(int))
    return Design(formula, variables, fixed, blocks, y, len(y), offsets)


@dataclass(frozen=True)
class CrossProducts:
    """The sufficient statistics of a Gaussian LMM: cross-products of X, Z and y.

    Two instances from disjoint row sets add (``a + b``), which is how the
    accumulation can be split across partitions. ``ZtZ`` is a dense array up
    to :data:`DENSE_ZTZ_MAX_Q` random effects and a ``scipy.sparse`` CSR
    matrix beyond.
    """

    XtX: np.ndarray
    XtZ: np.ndarray
    ZtZ: np.ndarray
    Xty: np.ndarray
    Zty: np.ndarray
    yty: float
    n: int

    def __add__(self, other: CrossProducts) -> CrossProducts:
        return CrossProducts(
            self.XtX + other.XtX, self.XtZ + other.XtZ, _add_ztz(self.ZtZ, other.ZtZ),
            self.Xty + other.Xty, self.Zty + other.Zty, self.yty + other.yty,
            self.n + other.n,
        )


def _add_ztz(a: np.ndarray | sp.csr_matrix, b: np.ndarray | sp.csr_matrix
             ) -> np.ndarray | sp.csr_matrix:
    """``a + b`` for two ``Z'Z`` (both dense or both sparse; a mix is made dense)."""
    if sp.issparse(a) and sp.issparse(b):
        return (a + b).tocsr()
    return np.asarray((a.toarray() if sp.issparse(a) else a)
                      + (b.toarray() if sp.issparse(b) else b))


def _ztz_form(ZtZ: sp.spmatrix) -> np.ndarray | sp.csr_matrix:
    """A sparse ``Z'Z`` in the form :class:`CrossProducts` keeps (see :data:`DENSE_ZTZ_MAX_Q`)."""
    if ZtZ.shape[0] <= DENSE_ZTZ_MAX_Q:
        return ZtZ.toarray()
    out = sp.csr_matrix(ZtZ)
    out.sum_duplicates()
    return out


def cross_products(design: Design, chunk_rows: int = CHUNK_ROWS) -> CrossProducts:
    """Accumulate X'X, X'Z, Z'Z, X'y, Z'y, y'y and n in one chunked pass over the rows.

    ``Z`` exists only one chunk at a time, as a sparse matrix of its nonzero
    entries (a row has one per random-effect column that is nonzero on it:
    ``(0 + benchmark || algorithm)`` has one, not one per benchmark), so the
    products cost O(rows x nonzeros per row squared).
    """
    cells = _factor_cells(design)
    if cells is not None:
        return _cell_cross_products(design, *cells)
    p, q, n = design.p, design.q, design.n
    XtX = np.zeros((p, p))
    XtZ = np.zeros((p, q))
    ZtZ = sp.csr_matrix((q, q))
    Xty = np.zeros(p)
    Zty = np.zeros(q)
    yty = 0.0
    with small_problem_threads(0):  # one BLAS thread: the products are thin
        for start in range(0, n, chunk_rows):
            chunk_yty, chunk_ZtZ = _accumulate(design, slice(start, min(n, start + chunk_rows)),
                                               XtX, XtZ, Xty, Zty)
            yty += chunk_yty
            if chunk_ZtZ is not None:
                ZtZ = ZtZ + chunk_ZtZ
    return CrossProducts(XtX, XtZ, _ztz_form(ZtZ), Xty, Zty, yty, n)


#: The cell path is taken when the rows outnumber the cells at least this many times.
MIN_ROWS_PER_CELL = 4


def _factor_cells(design: Design) -> tuple[np.ndarray, np.ndarray] | None:
    """``(cell of each row, one row of each cell)`` when X and Z depend on factors only.

    A cell is one combination of the levels of every variable the formula uses.
    When all of them are factors, a row of ``X`` and of ``Z`` is a function of
    its cell, so every cross-product is a sum over cells weighted by their
    counts: the rows are read once (codes, counts, sums of ``y``) instead of
    building ``Z`` for each of them. ``None`` when a variable is numeric or the
    cells are too many for this to pay.
    """
    variables = list(design.variables.values())
    n = design.n
    if not variables or not all(v.is_factor for v in variables):
        return None
    code = np.zeros(n, dtype=np.int64)
    size = 1
    for var in variables:
        k = max(len(var.levels), 1)
        if size > 2**62 // k:
            return None
        code = code * k + var.codes
        size *= k
    if size <= 2**24:
        count = np.bincount(code, minlength=size)
        present = np.flatnonzero(count)
        index = np.full(size, -1, dtype=np.int64)
        index[present] = np.arange(present.size)
        cell = index[code]
        n_cells = present.size
    else:
        _, cell = np.unique(code, return_inverse=True)
        n_cells = int(cell.max()) + 1 if n else 0
    if n_cells * MIN_ROWS_PER_CELL > n:
        return None
    # Any row of a cell stands for all of them (their X and Z rows are equal), so whichever
    # of the repeated writes lands is right.
    first = np.empty(n_cells, dtype=np.int64)
    first[cell] = np.arange(n)
    return cell, first


def _cell_cross_products(design: Design, cell: np.ndarray, first: np.ndarray) -> CrossProducts:
    """:func:`cross_products` from per-cell counts and sums of ``y`` (:func:`_factor_cells`).

    ``first`` holds one row of each cell.
    """
    n_cells = first.size
    w = np.bincount(cell, minlength=n_cells).astype(np.float64)
    sum_y = np.bincount(cell, design.y, minlength=n_cells)
    X = design.fixed_matrix(first)
    Xw = X * w[:, None]
    with small_problem_threads(0):
        XtX = X.T @ Xw
        Xty = X.T @ sum_y
        yty = float(design.y @ design.y)
        if not design.q:
            q = 0
            return CrossProducts(XtX, np.zeros((design.p, q)), np.zeros((q, q)), Xty,
                                 np.zeros(q), yty, design.n)
        Z = design.random_matrix(first)
        Z.eliminate_zeros()
        Zt = Z.T.tocsr()
        ZtZ = _ztz_form(Zt @ Z.multiply(w[:, None]).tocsr())
        XtZ = np.asarray(Zt @ Xw).T
        Zty = Zt @ sum_y
    return CrossProducts(XtX, XtZ, ZtZ, Xty, np.asarray(Zty), yty, design.n)


def _accumulate(design: Design, rows: slice, XtX: np.ndarray, XtZ: np.ndarray,
                Xty: np.ndarray, Zty: np.ndarray) -> tuple[float, sp.csr_matrix | None]:
    """Add one chunk's dense cross-products in place; return its y'y and (sparse) Z'Z."""
    X = design.fixed_matrix(rows)
    y = design.y[rows]
    XtX += X.T @ X
    Xty += X.T @ y
    yty = float(y @ y)
    if not design.q:
        return yty, None
    Z = design.random_matrix(rows)
    Z.eliminate_zeros()
    Zt = Z.T.tocsr()
    XtZ += (Zt @ X).T
    Zty += Zt @ y
    return yty, (Zt @ Z).tocsr()
