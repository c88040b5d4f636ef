"""The native engine: exact Gaussian LMM fits from cross-products (lme4's PLS formulation).

Model: ``y = X beta + Z b + e`` with ``b = Lambda(theta) u``, ``u ~ N(0, sigma^2 I)``
and ``e ~ N(0, sigma^2 I)``. ``Lambda`` is block diagonal: for every random term
``k`` a lower-triangular ``T_k`` (the relative covariance factor), repeated for
each level of its grouping factor, so that the term's covariance matrix is
``sigma^2 T_k T_k'``.

Following Bates, Maechler, Bolker and Walker (2015, J. Stat. Softw. 67(1), §3),
for fixed ``theta`` let ``L L' = A = Lambda' Z'Z Lambda + I`` (Cholesky),
``R_ZX = L^{-1} Lambda' Z'X``, ``R_X' R_X = X'X - R_ZX' R_ZX``,
``c_u = L^{-1} Lambda' Z'y`` and ``c_beta = R_X^{-T} (X'y - R_ZX' c_u)``. Then
``beta_hat = R_X^{-1} c_beta``, the penalised residual sum of squares is
``r^2 = y'y - c_u'c_u - c_beta'c_beta`` and the profiled deviances are::

    ML:    -2 l(theta)   = log|L|^2 + n (1 + log(2 pi r^2 / n))
    REML:  -2 l_R(theta) = log|L|^2 + log|R_X|^2 + (n-p)(1 + log(2 pi r^2 / (n-p)))

Everything depends on the data only through ``X'X, X'Z, Z'Z, X'y, Z'y, y'y, n``
(:class:`~benchverdict.lmem.design.CrossProducts`).

**Blocks.** ``Z'Z`` couples two random effects only when some row has both, and
``A`` has the same pattern (``Lambda`` only mixes the columns of one level). So
``A`` is block diagonal over the connected components of that pattern and
everything above factors block by block: one random term gives one block per
level, ``(0 + benchmark || algorithm)`` one block per random effect, crossed
terms one large block. Blocks of equal size are solved together in batched
calls, so a fit costs O(sum of block sizes cubed) per evaluation, not O(q^3).

**Crossed terms.** Crossed factors such as ``(1|benchmark) + (1|seed)`` make
one block of all their levels. A scalar term's own part of that block is
diagonal (a row has one level of its factor), so a large single block is
reordered to put the term with most levels first and factored through the
Schur complement of that diagonal part (:meth:`ProfiledDeviance._factor_schur`):
O(m r^2 + r^3) for m benchmarks and r other effects instead of O((m + r)^3).
This is what lme4's sparse Cholesky with a fill-reducing ordering achieves.
Blocks of one size whose terms sit at the same positions are factored this
way together: ``(1|benchmark) + (1|algorithm:benchmark)`` makes one block per
benchmark, its algorithm cells the diagonal part and its intercept the rest.

**Storage.** ``Z'Z`` is accumulated as a dense ``q x q`` array up to
``q = 2048`` random effects and as a sparse matrix beyond
(:data:`~benchverdict.lmem.design.DENSE_ZTZ_MAX_Q`); finding the blocks reads
its nonzeros once, and after that only the blocks' own dense ``s x s`` slices
are used, so memory is ``8 sum(s^2)`` bytes plus the nonzeros. The number of
rows never enters: ``n`` rows cost one pass, not memory.

**Gradient.** With ``Lambda = sum_t theta_t E_t`` (``E_t`` the 0/1 pattern of
parameter ``t``), ``u`` and ``beta`` the PLS solution, ``w = Z'(y - X beta - Z
Lambda u)``, ``B = A^{-1} Lambda' Z'Z``, ``H = A^{-1} Lambda' Z'X`` and ``S =
R_X' R_X``::

    d log|A| / d theta_t =  2 sum_{(i,j) in E_t} B_ji
    d r^2    / d theta_t = -2 sum_{(i,j) in E_t} w_i u_j        (envelope theorem)
    d log|S| / d theta_t = -2 sum_{(i,j) in E_t} (H S^{-1})_j . (Z'X - Z'Z Lambda H)_i

(rows ``_j`` and ``_i``), so one L-BFGS-B step costs one PLS solve instead of
``2 * len(theta)`` of them.

**Boundary.** The deviance is even in a scalar term's ``theta``, so its gradient
is exactly zero where a variance component is zero: a gradient method can
neither leave that face nor reach it quickly, and with several terms the
deviance can have more than one local minimum. :meth:`ProfiledDeviance.minimize`
therefore starts from lme4's start and from any given start (a nested model's
solution, embedded), then checks the boundary: for every variance factor at
zero the deviance is scanned off the boundary and re-optimised from any lower
point, and every other factor is set to zero (the face) and re-optimised
there. It keeps the best point it has evaluated, and reports convergence only
if the projected gradient there is small.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy import optimize
from scipy.sparse import csgraph

from benchverdict.lmem._threads import small_problem_threads  # noqa: F401 (re-export)
from benchverdict.lmem.design import CrossProducts, ReBlock

_dtrtrs = la.get_lapack_funcs("trtrs", dtype=np.float64)
_dpotrf = la.get_lapack_funcs("potrf", dtype=np.float64)


def solve_tri(A: np.ndarray, b: np.ndarray, *, lower: bool, trans: bool = False) -> np.ndarray:
    """Solve ``A x = b`` (or ``A' x = b``) for triangular ``A`` (LAPACK ``dtrtrs``).

    Called directly: scipy's ``solve_triangular`` wrapper costs ~0.3 ms per
    call, more than the solve itself for the small systems here.
    """
    x, info = _dtrtrs(A, b, lower=int(lower), trans=int(trans))
    if info != 0:
        raise la.LinAlgError(f"singular triangular system (info={info}).")
    return x


def cholesky(A: np.ndarray, *, lower: bool) -> np.ndarray:
    """Cholesky factor of a symmetric positive-definite matrix (LAPACK ``dpotrf``)."""
    c, info = _dpotrf(A, lower=int(lower), clean=1)
    if info != 0:
        raise la.LinAlgError(f"matrix not positive definite (info={info}).")
    return c


def _cholesky_stack(M: np.ndarray) -> np.ndarray:
    """Lower Cholesky factors of a stack of SPD matrices (``nb x r x r``).

    One matrix goes through LAPACK directly (as :func:`cholesky`), a stack
    through numpy's batched routine; both raise ``LinAlgError`` when a matrix
    is not positive definite.
    """
    if M.shape[0] == 1:
        return cholesky(M[0], lower=True)[None]
    return np.linalg.cholesky(M)


def _solve_tri_stack(L: np.ndarray, X: np.ndarray, *, trans: bool = False) -> np.ndarray:
    """``L^{-1} X`` (or ``L'^{-1} X``) for a stack of lower-triangular ``L`` (``nb x r x r``)."""
    if L.shape[0] == 1:
        return solve_tri(L[0], X[0], lower=True, trans=trans)[None]
    if L.shape[1] == 1:  # 1 x 1 factors (one benchmark intercept per block): a division
        return X / L
    return np.linalg.solve(L.transpose(0, 2, 1) if trans else L, X)


def _ztz_times(g: _BlockGroup, X: np.ndarray) -> np.ndarray:
    """``Z'Z X`` on the blocks of ``g`` (``X`` is ``nb x s x k``).

    On Schur blocks the diagonal part's own ``Z'Z`` is diagonal, so only its
    diagonal and the border are multiplied: O(nb s r k) instead of O(nb s^2 k).
    """
    m = g.n_diagonal
    if not m:
        return g.ZtZ @ X
    ZtZ = g.ZtZ
    zz_D = np.diagonal(ZtZ, axis1=1, axis2=2)[:, :m]
    top = zz_D[:, :, None] * X[:, :m] + ZtZ[:, :m, m:] @ X[:, m:]
    bottom = ZtZ[:, m:, :m] @ X[:, :m] + ZtZ[:, m:, m:] @ X[:, m:]
    return np.concatenate([top, bottom], axis=1)


#: Split ``A`` into its connected blocks (off: one dense block; the tests compare both).
SPLIT_BLOCKS = True

#: A single connected block of at least this many random effects is factored through
#: the Schur complement of its largest diagonal part (see "Crossed terms" in the
#: module docstring);
#: smaller ones densely. The tests set it to 0 to compare both on every model.
SCHUR_MIN_SIZE = 48

#: Schur blocks keep their diagonal part's ``Z'X`` sparse when at most this share of it
#: is nonzero (the tests set it to -1 and 1 to compare both paths on every model).
SPARSE_ZTX_MAX_DENSITY = 0.25

#: lme4's tolerance for calling a fit singular (``isSingular(tol = 1e-4)``).
SINGULAR_TOL = 1e-4

#: A diagonal element of ``T_k`` at or below this is at the boundary (relative factor,
#: i.e. a standard deviation of 1e-7 residual standard deviations).
ZERO_THETA = 1e-7

#: Where a boundary check looks, off the boundary, for a lower deviance than at zero.
PUSH_SCAN = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)

#: Re-optimise on every face (one factor fixed at zero) when there are at most this many
#: variance factors; above, each face is checked by evaluating the deviance there.
FACE_REOPTIMISE_MAX = 24

#: Converged when no projected gradient component (times ``max(1, |theta|)``) exceeds this:
#: the response is standardised, so deviance units are comparable across data sets.
CONVERGED_GRADIENT = 2e-3

#: Rounds of boundary checks (each round repeats them around the best point so far).
BOUNDARY_ROUNDS = 3


@dataclass(frozen=True)
class ThetaLayout:
    """Where each random term's ``T_k`` lives in the parameter vector ``theta``."""

    p: tuple[int, ...]  # columns per term
    n_levels: tuple[int, ...]
    offsets: tuple[int, ...]  # offset of each term's random effects in u / b
    theta_slices: tuple[slice, ...]
    lower: np.ndarray  # lower bounds (0 for diagonals, -inf otherwise)

    @classmethod
    def from_blocks(cls, blocks: list[ReBlock]) -> ThetaLayout:
        """The layout of a list of random-effects blocks."""
        p, levels, offsets, slices, lower = [], [], [], [], []
        off = pos = 0
        for b in blocks:
            p.append(b.p)
            levels.append(b.n_levels)
            offsets.append(off)
            off += b.q
            slices.append(slice(pos, pos + b.n_theta))
            pos += b.n_theta
            # lme4's order: the lower triangle column by column.
            for j in range(b.p):
                for i in range(j, b.p):
                    lower.append(0.0 if i == j else -np.inf)
        return cls(tuple(p), tuple(levels), tuple(offsets), tuple(slices), np.array(lower))

    @property
    def n_theta(self) -> int:
        """Number of covariance parameters."""
        return len(self.lower)

    @property
    def q(self) -> int:
        """Number of random effects."""
        return int(sum(p * g for p, g in zip(self.p, self.n_levels)))

    def start(self) -> np.ndarray:
        """lme4's start: identity factors (1 on diagonals, 0 off)."""
        return np.where(self.lower == 0.0, 1.0, 0.0)

    def factors(self, theta: np.ndarray) -> list[np.ndarray]:
        """The lower-triangular ``T_k`` for each term."""
        out = []
        for p, sl in zip(self.p, self.theta_slices):
            T = np.zeros((p, p))
            rows = [i for j in range(p) for i in range(j, p)]
            cols = [j for j in range(p) for i in range(j, p)]
            T[rows, cols] = theta[sl]
            out.append(T)
        return out

    def pattern(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every nonzero of ``Lambda``: its row, column and index into ``theta``."""
        rows, cols, idx = [], [], []
        for p, g, off, sl in zip(self.p, self.n_levels, self.offsets, self.theta_slices):
            t = sl.start
            for j in range(p):
                for i in range(j, p):
                    base = off + np.arange(g) * p
                    rows.append(base + i)
                    cols.append(base + j)
                    idx.append(np.full(g, t))
                    t += 1
        if not rows:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        return (np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64),
                np.concatenate(idx).astype(np.int64))


@dataclass(frozen=True)
class _BlockGroup:
    """Blocks of ``A`` of one size ``s``, stacked for batched solves.

    ``idx[b]`` are the random effects of block ``b``; the ``lam_*`` arrays place
    each nonzero of ``Lambda`` in its block (``lam_block``, local row and
    column) and name its ``theta`` index. ``diagonal``: ``Lambda`` is diagonal
    within these blocks (scalar terms only), so products with it are scalings.
    """

    idx: np.ndarray  # (nb, s)
    ZtZ: np.ndarray  # (nb, s, s)
    ZtX: np.ndarray  # (nb, s, p)
    Zty: np.ndarray  # (nb, s)
    lam_block: np.ndarray
    lam_row: np.ndarray
    lam_col: np.ndarray
    lam_theta: np.ndarray
    diagonal: bool
    n_diagonal: int = 0  # > 0: the first n_diagonal effects form a diagonal part (Schur)
    #: Schur blocks whose diagonal part's Z'X is mostly zeros (a cell's row of Z'X has its
    #: intercept and its own algorithm): that part as CSR (nb * n_diagonal x p), else None.
    ZtX_D: sp.csr_matrix | None = None

    @property
    def nb(self) -> int:
        """Number of blocks."""
        return self.idx.shape[0]

    @property
    def s(self) -> int:
        """Size of each block."""
        return self.idx.shape[1]


def _block_groups(cp: CrossProducts, layout: ThetaLayout, split: bool) -> list[_BlockGroup]:
    """The connected blocks of ``A = Lambda' Z'Z Lambda + I``, grouped by size."""
    q = cp.ZtZ.shape[0]
    rows, cols, tidx = layout.pattern()
    if sp.issparse(cp.ZtZ):
        coo = cp.ZtZ.tocoo()
        keep = coo.data != 0
        zr, zc, zv = coo.row[keep], coo.col[keep], coo.data[keep]
    else:
        zr, zc = np.nonzero(cp.ZtZ)
        zv = cp.ZtZ[zr, zc]
    if split:
        graph = sp.coo_matrix((np.ones(len(zr) + len(rows)),
                               (np.concatenate([zr, rows]), np.concatenate([zc, cols]))),
                              shape=(q, q))
        _, label = csgraph.connected_components(graph, directed=False)
    else:
        label = np.zeros(q, dtype=np.int64)
    order = np.argsort(label, kind="stable")  # each block's effects in increasing order
    size = np.bincount(label)
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    local = np.empty(q, dtype=np.int64)
    local[order] = np.arange(q) - np.repeat(start, size)
    ends = np.asarray(layout.offsets) + np.asarray(layout.p) * np.asarray(layout.n_levels)
    groups = []
    for s in np.unique(size):
        all_comps = np.flatnonzero(size == s)
        for comps in _same_terms(all_comps, order, start, s, ends):
            groups.append(_block_group(cp, layout, comps, order, start, s, label, local,
                                       (rows, cols, tidx), (zr, zc, zv)))
    return groups


def _same_terms(comps: np.ndarray, order: np.ndarray, start: np.ndarray, s: int,
                ends: np.ndarray) -> list[np.ndarray]:
    """``comps`` (blocks of size ``s``) split by which term each position belongs to.

    Only blocks large enough for the Schur path are split: stacked Schur blocks
    must share one layout (the same positions form the diagonal part), as the
    ``algorithm:benchmark`` interaction's blocks do (one benchmark intercept
    and its cells each). Smaller blocks stay together for one batched dense solve.
    """
    if s < SCHUR_MIN_SIZE or len(comps) == 1:
        return [comps]
    terms = np.searchsorted(ends, order[start[comps][:, None] + np.arange(s)], side="right")
    _, which = np.unique(terms, axis=0, return_inverse=True)
    which = np.asarray(which).reshape(-1)
    return [comps[which == w] for w in range(int(which.max()) + 1)]


def _block_group(cp: CrossProducts, layout: ThetaLayout, comps: np.ndarray,
                 order: np.ndarray, start: np.ndarray, s: int, label: np.ndarray,
                 local: np.ndarray, pattern: tuple[np.ndarray, np.ndarray, np.ndarray],
                 nonzeros: tuple[np.ndarray, np.ndarray, np.ndarray]) -> _BlockGroup:
    """The :class:`_BlockGroup` of the connected blocks ``comps``, all of size ``s``.

    ``nonzeros``: the rows, columns and values of ``Z'Z``'s nonzeros, placed
    into the blocks' dense ``s x s`` slices (``Z'Z`` itself may be sparse).
    """
    rows, cols, tidx = pattern
    idx = order[start[comps][:, None] + np.arange(s)]  # (nb, s)
    number = np.full(len(start), -1)
    number[comps] = np.arange(len(comps))
    mine = number[label[rows]] >= 0
    r, c, t = rows[mine], cols[mine], tidx[mine]
    lam_row, lam_col, n_diagonal = local[r], local[c], 0
    zr, zc, zv = nonzeros
    block = number[label[zr]]
    inside = block >= 0  # a nonzero joins two effects of one block (the blocks are components)
    ZtZ = np.zeros((len(comps), s, s))
    ZtZ[block[inside], local[zr[inside]], local[zc[inside]]] = zv[inside]
    if s >= SCHUR_MIN_SIZE:
        first = _diagonal_part(ZtZ, layout, idx)
        if first is not None:
            # The diagonal part first: positions move, the blocks stay the same.
            n_diagonal = int(first.sum())
            perm = np.concatenate([np.flatnonzero(first), np.flatnonzero(~first)])
            where = np.empty(s, dtype=np.int64)
            where[perm] = np.arange(s)
            idx, lam_row, lam_col = idx[:, perm], where[lam_row], where[lam_col]
            ZtZ = ZtZ[:, perm[:, None], perm[None, :]]
    ZtX = np.ascontiguousarray(cp.XtZ.T[idx])
    ZtX_D = None
    if n_diagonal:
        flat = ZtX[:, :n_diagonal].reshape(-1, ZtX.shape[2])
        if np.count_nonzero(flat) <= SPARSE_ZTX_MAX_DENSITY * flat.size:
            ZtX_D = sp.csr_matrix(flat)
    return _BlockGroup(
        idx=idx, ZtZ=ZtZ, ZtX=ZtX, Zty=cp.Zty[idx],
        lam_block=number[label[r]], lam_row=lam_row, lam_col=lam_col, lam_theta=t,
        diagonal=bool(np.all(r == c)), n_diagonal=n_diagonal, ZtX_D=ZtX_D,
    )


def _diagonal_part(ZtZ: np.ndarray, layout: ThetaLayout, effects: np.ndarray
                   ) -> np.ndarray | None:
    """Which positions of the blocks ``effects`` (nb x s) form their largest diagonal part.

    ``ZtZ`` holds the blocks' slices of ``Z'Z`` (nb x s x s), in ``effects``' order.

    A scalar term's own block of ``Z'Z`` is diagonal (a row has one level of
    its factor) and its ``Lambda`` is diagonal, so its part of ``A`` is
    diagonal; the term with most effects in the block is chosen. Every block
    has its effects of each term at the same positions (:func:`_same_terms`).
    None when that part would leave nothing to gain (fewer effects than the
    rest) or nothing dense (the whole block, as when blocks are not split).
    """
    effects = np.atleast_2d(effects)
    ends = np.asarray(layout.offsets) + np.asarray(layout.p) * np.asarray(layout.n_levels)
    term = np.searchsorted(ends, effects[0], side="right")
    if np.any(np.searchsorted(ends, effects, side="right") != term):
        return None  # blocks laid out differently: no common diagonal part
    best, best_count = -1, 0
    for k, p in enumerate(layout.p):
        count = int(np.sum(term == k))
        if p == 1 and count > best_count:
            best, best_count = k, count
    s = effects.shape[1]
    if not 2 <= best_count < s or best_count < s - best_count:
        return None  # nothing diagonal, all of it (unsplit blocks), or too little
    first = term == best
    own = ZtZ[:, first][:, :, first]
    if np.count_nonzero(own) != np.count_nonzero(np.diagonal(own, axis1=1, axis2=2)):
        return None  # a row with two levels of one factor: not diagonal after all
    return first


@dataclass
class PLSSolution:
    """The penalised least-squares solution at one ``theta``."""

    theta: np.ndarray
    beta: np.ndarray
    pwrss: float
    ldL2: float
    ldRX2: float
    RX: np.ndarray  # upper triangular, R_X' R_X = X'X - R_ZX'R_ZX
    factors: list[np.ndarray]


class _Best:
    """The best point an optimisation has evaluated (lowest finite deviance)."""

    def __init__(self) -> None:
        self.f = np.inf
        self.x: np.ndarray | None = None
        self.nfev = 0

    def offer(self, f: float, x: np.ndarray) -> None:
        self.nfev += 1
        if np.isfinite(f) and f < self.f:
            self.f, self.x = float(f), np.array(x, dtype=float)


class ProfiledDeviance:
    """The profiled ML or REML deviance of a Gaussian LMM as a function of ``theta``.

    Parameters
    ----------
    cp : CrossProducts
    blocks : list of ReBlock
    reml : bool
    """

    def __init__(self, cp: CrossProducts, blocks: list[ReBlock], reml: bool):
        self.cp = cp
        self.layout = ThetaLayout.from_blocks(blocks)
        self.reml = reml
        self.p = cp.XtX.shape[0]
        self.q = cp.ZtZ.shape[0]
        self.n = cp.n
        self.n_eff = self.n - self.p if reml else self.n
        if self.n_eff <= 0:
            raise ValueError(f"{self.n} rows cannot estimate {self.p} fixed effects.")
        self.groups = _block_groups(cp, self.layout, SPLIT_BLOCKS) if self.q else []

    @property
    def work_size(self) -> int:
        """The order of the largest dense matrix an evaluation factors (a block, or X'X).

        This, not ``q``, decides whether BLAS threads pay off: many small
        blocks are many small problems.
        """
        # A Schur block's dense work is its non-diagonal part; the rest is thin.
        return max([self.p, *(g.s - g.n_diagonal for g in self.groups)])

    # ------------------------------------------------------------------ PLS
    def _lambda(self, g: _BlockGroup, theta: np.ndarray) -> np.ndarray:
        """``Lambda`` on the blocks of ``g``: (nb, s) diagonals or (nb, s, s) matrices."""
        if g.diagonal:
            lam = np.zeros((g.nb, g.s))
            lam[g.lam_block, g.lam_row] = theta[g.lam_theta]
            return lam
        lam = np.zeros((g.nb, g.s, g.s))
        lam[g.lam_block, g.lam_row, g.lam_col] = theta[g.lam_theta]
        return lam

    def _factor_group(self, g: _BlockGroup, theta: np.ndarray) -> dict:
        """Cholesky of each block of ``A`` and the block parts of ``R_ZX`` and ``c_u``."""
        if g.n_diagonal:
            return self._factor_schur(g, theta)
        lam = self._lambda(g, theta)
        if g.diagonal:
            LtZtZ = lam[:, :, None] * g.ZtZ
            M = LtZtZ * lam[:, None, :]
            LtZX = lam[:, :, None] * g.ZtX
            LtZy = (lam * g.Zty)[:, :, None]
        else:
            lamT = lam.transpose(0, 2, 1)
            LtZtZ = lamT @ g.ZtZ
            M = LtZtZ @ lam
            LtZX = lamT @ g.ZtX
            LtZy = lamT @ g.Zty[:, :, None]
        diag = np.arange(g.s)
        M[:, diag, diag] += 1.0
        if g.s == 1:
            if not np.all(M[:, 0, 0] > 0):
                raise la.LinAlgError("matrix not positive definite.")
            L = np.sqrt(M)
            RZX, cu = LtZX / L, LtZy / L
        elif g.nb == 1:
            L = cholesky(M[0], lower=True)[None]
            RZX = solve_tri(L[0], LtZX[0], lower=True)[None]
            cu = solve_tri(L[0], LtZy[0], lower=True)[None]
        else:
            L = np.linalg.cholesky(M)
            RZX, cu = np.linalg.solve(L, LtZX), np.linalg.solve(L, LtZy)
        ldL2 = 2.0 * float(np.log(np.diagonal(L, axis1=1, axis2=2)).sum())
        return {"lam": lam, "LtZtZ": LtZtZ, "L": L, "RZX": RZX, "cu": cu, "ldL2": ldL2}

    # Crossed terms: one block A = [[A_DD, A_DR], [A_RD, A_RR]] whose first m
    # effects (one scalar term) have a diagonal A_DD. Its Cholesky factor is
    # L = [[L_D, 0], [L_RD, L_R]] with L_D = sqrt(A_DD) (a vector), L_RD =
    # A_RD / L_D and L_R L_R' = A_RR - L_RD L_RD' (the Schur complement), so an
    # evaluation costs O(m r^2 + r^3) for r = s - m, not O(s^3): linear in the
    # number of benchmarks for (1|benchmark) + (1|seed). lme4 gets the same from
    # its sparse Cholesky with a fill-reducing ordering.
    def _schur_lambda(self, g: _BlockGroup, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``Lambda`` on Schur blocks: the diagonal parts' (nb, m) vectors, the rests' matrices."""
        m, r = g.n_diagonal, g.s - g.n_diagonal
        lam_D, lam_R = np.zeros((g.nb, m)), np.zeros((g.nb, r, r))
        first = g.lam_row < m
        lam_D[g.lam_block[first], g.lam_row[first]] = theta[g.lam_theta[first]]
        rest = ~first
        lam_R[g.lam_block[rest], g.lam_row[rest] - m, g.lam_col[rest] - m] = \
            theta[g.lam_theta[rest]]
        return lam_D, lam_R

    def _factor_schur(self, g: _BlockGroup, theta: np.ndarray) -> dict:
        """:meth:`_factor_group` for blocks with a diagonal part (``g.n_diagonal``).

        Every array carries the blocks first (``nb``); equal blocks are
        factored together, as the ``algorithm:benchmark`` interaction's one
        block per benchmark (its cells diagonal, the benchmark's intercept the rest).
        """
        m = g.n_diagonal
        lam_D, lam_R = self._schur_lambda(g, theta)
        ZtZ, ZtX, Zty = g.ZtZ, g.ZtX, g.Zty
        lam_RT = lam_R.transpose(0, 2, 1)
        K_D = lam_D * np.diagonal(ZtZ, axis1=1, axis2=2)[:, :m]  # diag of (Lambda' Z'Z)_DD
        K_RD = lam_RT @ ZtZ[:, m:, :m]  # (Lambda' Z'Z)_RD
        K_RR = lam_RT @ ZtZ[:, m:, m:]
        L_D = np.sqrt(K_D * lam_D + 1.0)
        L_RD = K_RD * (lam_D / L_D)[:, None, :]
        S = K_RR @ lam_R - L_RD @ L_RD.transpose(0, 2, 1)
        rest = np.arange(S.shape[1])
        S[:, rest, rest] += 1.0
        L_R = _cholesky_stack(S)
        LtZy = np.concatenate([lam_D * Zty[:, :m], (lam_RT @ Zty[:, m:, None])[:, :, 0]],
                              axis=1)[:, :, None]
        part = {"lam_D": lam_D, "lam_R": lam_R, "L_D": L_D, "L_RD": L_RD, "L_R": L_R,
                "K_D": K_D, "K_RD": K_RD, "K_RR": K_RR}
        part["cu"] = self._schur_forward(part, m, LtZy)
        if g.ZtX_D is not None:
            self._sparse_schur_products(g, part, lam_RT)
        else:
            LtZX = np.concatenate([lam_D[:, :, None] * ZtX[:, :m], lam_RT @ ZtX[:, m:]],
                                  axis=1)
            part["RZX"] = self._schur_forward(part, m, LtZX)
        part["ldL2"] = 2.0 * float(np.log(L_D).sum()
                                   + np.log(np.diagonal(L_R, axis1=1, axis2=2)).sum())
        return part

    @staticmethod
    def _sparse_schur_products(g: _BlockGroup, part: dict, lam_RT: np.ndarray) -> None:
        """``R_ZX`` of Schur blocks whose diagonal part's ``Z'X`` is sparse, kept in pieces.

        ``R_ZX = L^{-1} Lambda' Z'X`` is ``diag(s_D) (Z'X)_D`` on the diagonal
        part (``s_D = lambda_D / L_D``) and ``L_R^{-1} ((Lambda' Z'X)_R - L_RD
        diag(s_D) (Z'X)_D)`` on the rest; ``R_ZX' R_ZX`` and ``R_ZX' c_u`` are
        formed from these pieces without the dense ``nb x s x p`` array, which
        for the interaction term is nearly all zeros (one algorithm per cell).
        """
        nb, m, p = g.nb, g.n_diagonal, g.ZtX.shape[2]
        r = g.s - m
        XD = g.ZtX_D
        s_D = part["lam_D"] / part["L_D"]
        # L_RD diag(s_D) (Z'X)_D for every block at once: a block-diagonal sparse product.
        cols = (np.repeat(np.arange(nb) * m, r)[:, None] + np.arange(m)).reshape(-1)
        W = sp.csr_matrix(((part["L_RD"] * s_D[:, None, :]).reshape(-1), cols,
                           np.arange(nb * r + 1) * m), shape=(nb * r, nb * m))
        mixed = (W @ XD).toarray().reshape(nb, r, p)
        RZX_R = _solve_tri_stack(part["L_R"], lam_RT @ g.ZtX[:, m:] - mixed)
        cu = part["cu"]
        flat_R = RZX_R.reshape(-1, p)
        weights = (s_D * s_D).reshape(-1)
        rows = np.repeat(np.arange(XD.shape[0]), np.diff(XD.indptr))
        scaled = sp.csr_matrix((XD.data * weights[rows], XD.indices, XD.indptr), shape=XD.shape)
        part["RZXtRZX"] = (XD.T @ scaled).toarray() + flat_R.T @ flat_R
        part["RZXtcu"] = (XD.T @ (s_D * cu[:, :m, 0]).reshape(-1)
                          + flat_R.T @ cu[:, m:, 0].reshape(-1))
        part["s_D"], part["RZX_R"] = s_D, RZX_R

    @staticmethod
    def _rzx(g: _BlockGroup, part: dict) -> np.ndarray:
        """The blocks' dense ``R_ZX`` (``nb x s x p``), made from its pieces when kept apart."""
        if "RZX" not in part:
            m = g.n_diagonal
            part["RZX"] = np.concatenate([part["s_D"][:, :, None] * g.ZtX[:, :m],
                                          part["RZX_R"]], axis=1)
        return part["RZX"]

    @staticmethod
    def _rzx_times(g: _BlockGroup, part: dict, beta: np.ndarray) -> np.ndarray:
        """``R_ZX beta`` on the blocks of ``g`` (``nb x s x 1``)."""
        if "RZX" in part:
            return part["RZX"] @ beta[:, None]
        top = part["s_D"] * (g.ZtX_D @ beta).reshape(g.nb, g.n_diagonal)
        return np.concatenate([top, part["RZX_R"] @ beta], axis=1)[:, :, None]

    @staticmethod
    def _schur_forward(part: dict, m: int, X: np.ndarray) -> np.ndarray:
        """``L^{-1} X`` for Schur blocks' factors (``X`` is ``nb x s x k``)."""
        top = X[:, :m] / part["L_D"][:, :, None]
        bottom = _solve_tri_stack(part["L_R"], X[:, m:] - part["L_RD"] @ top)
        return np.concatenate([top, bottom], axis=1)

    @staticmethod
    def _schur_backward(part: dict, m: int, X: np.ndarray) -> np.ndarray:
        """``L'^{-1} X`` for Schur blocks' factors (``X`` is ``nb x s x k``)."""
        bottom = _solve_tri_stack(part["L_R"], X[:, m:], trans=True)
        top = (X[:, :m] - part["L_RD"].transpose(0, 2, 1) @ bottom) / part["L_D"][:, :, None]
        return np.concatenate([top, bottom], axis=1)

    def _schur_pieces(self, g: _BlockGroup, part: dict, r: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For the gradient on Schur blocks: ``u``, ``H``, ``Lambda u`` and ``B`` where needed.

        ``B = A^{-1} Lambda' Z'Z`` is needed only at the transposed pattern of
        ``Lambda``, which never mixes the two parts: on the diagonal part
        ``B_jj = K_jj / L_j^2 + (L^{-1} e_j)_R . (L^{-1} K e_j)_R``, on the rest
        ``B_RR = L_R'^{-1} L_R^{-1} (K_RR - L_RD (K_DR / L_D))``.
        """
        m = g.n_diagonal
        lam_D, lam_R, L_D, L_RD, L_R = (part[k] for k in ("lam_D", "lam_R", "L_D", "L_RD", "L_R"))
        K_D, K_RD = part["K_D"], part["K_RD"]
        u = self._schur_backward(part, m, r)
        H = self._schur_backward(part, m, self._rzx(g, part)) if self.reml else None  # REML
        b = np.concatenate([lam_D * u[:, :m, 0], (lam_R @ u[:, m:])[:, :, 0]],
                           axis=1)[:, :, None]
        L_RD_over = L_RD / L_D[:, None, :]
        Linv_RD = -_solve_tri_stack(L_R, L_RD_over)
        P_RD = _solve_tri_stack(L_R, K_RD - L_RD * (K_D / L_D)[:, None, :])
        B_D = K_D / L_D**2 + np.einsum("bij,bij->bj", Linv_RD, P_RD)
        K_DR = lam_D[:, :, None] * g.ZtZ[:, :m, m:]
        P_RR = _solve_tri_stack(L_R, part["K_RR"] - L_RD_over @ K_DR)
        B_R = _solve_tri_stack(L_R, P_RR, trans=True)
        blk, row, col = g.lam_block, g.lam_row, g.lam_col
        first = row < m
        B_at = np.empty(len(row))
        B_at[first] = B_D[blk[first], row[first]]
        B_at[~first] = B_R[blk[~first], col[~first] - m, row[~first] - m]
        return u, H, b, B_at

    def _solve(self, theta: np.ndarray) -> tuple[PLSSolution, list[dict]]:
        cp, p = self.cp, self.p
        factors = self.layout.factors(theta)
        RZXtRZX = np.zeros((p, p))
        RZXtcu = np.zeros(p)
        cucu = ldL2 = 0.0
        parts = []
        for g in self.groups:
            part = self._factor_group(g, theta)
            cu = part["cu"].reshape(-1)
            if "RZXtRZX" in part:  # sparse Schur blocks: the products come in pieces
                RZXtRZX += part["RZXtRZX"]
                RZXtcu += part["RZXtcu"]
            else:
                RZX = part["RZX"].reshape(-1, p)
                RZXtRZX += RZX.T @ RZX
                RZXtcu += RZX.T @ cu
            cucu += float(cu @ cu)
            ldL2 += part["ldL2"]
            parts.append(part)
        RX = cholesky(cp.XtX - RZXtRZX, lower=False)
        cbeta = solve_tri(RX, cp.Xty - RZXtcu, lower=False, trans=True)
        beta = solve_tri(RX, cbeta, lower=False)
        pwrss = cp.yty - cucu - float(cbeta @ cbeta)
        sol = PLSSolution(theta, beta, max(pwrss, 1e-300), ldL2,
                          2.0 * float(np.log(np.diag(RX)).sum()), RX, factors)
        return sol, parts

    def solve(self, theta: np.ndarray) -> PLSSolution:
        """Solve the PLS problem at ``theta``."""
        return self._solve(np.asarray(theta, dtype=float))[0]

    def deviance_of(self, sol: PLSSolution) -> float:
        """The profiled deviance (-2 log-likelihood) at a PLS solution."""
        n_eff = self.n_eff
        dev = sol.ldL2 + n_eff * (1 + np.log(2 * np.pi * sol.pwrss / n_eff))
        if self.reml:
            dev += sol.ldRX2
        return float(dev)

    def __call__(self, theta: np.ndarray) -> float:
        """The profiled deviance at ``theta`` (``inf`` where a factorisation fails)."""
        try:
            return self.deviance_of(self.solve(np.asarray(theta, dtype=float)))
        except la.LinAlgError:
            return np.inf

    def value_and_gradient(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """The profiled deviance and its exact gradient (see the module docstring)."""
        theta = np.asarray(theta, dtype=float)
        sol, parts = self._solve(theta)
        beta, p = sol.beta, self.p
        g_ldL = np.zeros(self.layout.n_theta)
        g_r2 = np.zeros(self.layout.n_theta)
        g_ldRX = np.zeros(self.layout.n_theta)
        Sinv = None
        if self.reml:
            RXinv = solve_tri(sol.RX, np.eye(p), lower=False)
            Sinv = RXinv @ RXinv.T
        n_theta = self.layout.n_theta
        for g, part in zip(self.groups, parts):
            r = part["cu"] - self._rzx_times(g, part, beta)  # (nb, s, 1)
            blk, row, col, t = g.lam_block, g.lam_row, g.lam_col, g.lam_theta
            if g.n_diagonal:
                u, H, b, B_at = self._schur_pieces(g, part, r)
            else:
                lam, L, RZX = part["lam"], part["L"], part["RZX"]
                if g.s == 1:
                    u = r / L
                    H = RZX / L
                    B = part["LtZtZ"] / (L * L)
                elif g.nb == 1:
                    u = solve_tri(L[0], r[0], lower=True, trans=True)[None]
                    H = solve_tri(L[0], RZX[0], lower=True, trans=True)[None]
                    B = solve_tri(L[0], solve_tri(L[0], part["LtZtZ"][0], lower=True),
                                  lower=True, trans=True)[None]
                else:
                    LT = L.transpose(0, 2, 1)
                    u = np.linalg.solve(LT, r)
                    H = np.linalg.solve(LT, RZX)
                    B = np.linalg.solve(LT, np.linalg.solve(L, part["LtZtZ"]))
                b = lam[:, :, None] * u if g.diagonal else lam @ u
                B_at = B[blk, col, row]
            w = g.Zty[:, :, None] - g.ZtX @ beta[:, None] - _ztz_times(g, b)  # (nb, s, 1)
            g_ldL += 2.0 * np.bincount(t, weights=B_at, minlength=n_theta)
            g_r2 -= 2.0 * np.bincount(t, weights=w[blk, row, 0] * u[blk, col, 0],
                                      minlength=n_theta)
            if self.reml:
                if g.n_diagonal:
                    m = g.n_diagonal
                    lamH = np.concatenate([part["lam_D"][:, :, None] * H[:, :m],
                                           part["lam_R"] @ H[:, m:]], axis=1)
                else:
                    lamH = lam[:, :, None] * H if g.diagonal else lam @ H
                C = g.ZtX - _ztz_times(g, lamH)
                K = (H.reshape(-1, p) @ Sinv).reshape(H.shape)  # one gemm, not nb small ones
                g_ldRX -= 2.0 * np.bincount(t, weights=np.einsum("kp,kp->k", K[blk, col],
                                                                 C[blk, row]),
                                            minlength=n_theta)
        grad = g_ldL + self.n_eff * g_r2 / sol.pwrss
        if self.reml:
            grad = grad + g_ldRX
        return self.deviance_of(sol), grad

    def deviance_varpar(self, theta: np.ndarray, sigma: float) -> float:
        """Deviance at ``(theta, sigma)`` (not profiled over sigma), as lmerTest uses."""
        sol = self.solve(theta)
        dev = sol.ldL2 + sol.pwrss / sigma**2 + self.n_eff * np.log(2 * np.pi * sigma**2)
        if self.reml:
            dev += sol.ldRX2
        return float(dev)

    def vcov_beta(self, theta: np.ndarray, sigma: float) -> np.ndarray:
        """``sigma^2 (R_X' R_X)^{-1}``: the covariance of beta-hat at ``(theta, sigma)``."""
        RX = self.solve(theta).RX
        RXinv = solve_tri(RX, np.eye(self.p), lower=False)
        return sigma**2 * RXinv @ RXinv.T

    def sigma_of(self, sol: PLSSolution) -> float:
        """Residual standard deviation (lme4: divisor n for ML, n - p for REML)."""
        return float(np.sqrt(sol.pwrss / self.n_eff))

    # ------------------------------------------------------------------ optimisation
    def projected_gradient(self, theta: np.ndarray) -> float:
        """The largest gradient component that could still lower the deviance.

        Components at their lower bound with a positive gradient are left
        out (the bound stops them); each is scaled by ``max(1, |theta|)``.
        """
        _, grad = self.value_and_gradient(theta)
        at_bound = (theta <= self.layout.lower + 1e-12) & (grad > 0)
        projected = np.where(at_bound, 0.0, grad)
        return float(np.max(np.abs(projected) * np.maximum(1.0, np.abs(theta)), initial=0.0))

    def normalise(self, theta: np.ndarray) -> np.ndarray:
        """``theta`` with every ``T_k`` column whose diagonal is negative negated.

        ``T_k T_k'`` and hence the deviance do not change; lme4 reports
        nonnegative diagonals.
        """
        x = np.array(theta, dtype=float)
        for p, sl in zip(self.layout.p, self.layout.theta_slices):
            t = sl.start
            for j in range(p):
                if x[t] < 0:
                    x[t:t + p - j] *= -1.0  # T[j:, j], stored consecutively
                t += p - j
        return x

    def minimize(self, starts: Sequence[np.ndarray] = ()
                 ) -> tuple[np.ndarray, optimize.OptimizeResult]:
        """Minimise the deviance over ``theta`` (see "Boundary" in the module docstring).

        Parameters
        ----------
        starts : sequence of numpy.ndarray
            Starting points besides lme4's (e.g. a nested model's solution,
            with the extra factors at zero).

        Returns
        -------
        theta : numpy.ndarray
            The best point evaluated (tiny diagonal factors set to zero when
            that is no worse).
        result : scipy.optimize.OptimizeResult
            ``success`` when the projected gradient at ``theta`` is below
            :data:`CONVERGED_GRADIENT`; ``message`` says how the point was found.
        """
        lay = self.layout
        if lay.n_theta == 0:
            return np.zeros(0), optimize.OptimizeResult(success=True, message="no theta", nit=0)
        best = _Best()

        def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
            try:
                f, grad = self.value_and_gradient(x)
            except la.LinAlgError:
                f, grad = np.inf, np.zeros_like(x)
            best.offer(f, x)
            return f, grad

        # No bounds: the deviance is unchanged when a column of T_k changes sign, so
        # diagonals may go negative (normalised below). With a bound at zero, L-BFGS-B
        # lands on the bound, where the gradient vanishes, and stops there.
        free = [(None, None)] * lay.n_theta
        messages: list[str] = []

        def run(x0: np.ndarray, bounds: list | None = None) -> None:
            res = optimize.minimize(
                fun, x0, jac=True, method="L-BFGS-B", bounds=bounds or free,
                options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 2000, "maxcor": 20},
            )
            messages.append(str(res.message))

        run(lay.start())
        for x0 in starts:
            x0 = np.asarray(x0, dtype=float)
            if x0.shape == (lay.n_theta,) and np.all(np.isfinite(x0)):
                run(x0)
        if best.x is None:
            raise la.LinAlgError("the deviance could not be evaluated at any starting point.")
        checks = self._check_boundary(best, run, fun, free)
        x = self.normalise(best.x)
        # Snap tiny diagonal factors to the bound (lme4 reports them as zero variances)
        # when that costs nothing beyond rounding.
        snapped = x.copy()
        small = (lay.lower == 0.0) & (snapped <= ZERO_THETA)
        snapped[small] = 0.0
        if small.any() and self(snapped) <= best.f + 1e-12 * max(1.0, abs(best.f)):
            x = snapped
        f = self(x)
        pg = self.projected_gradient(x)
        tol = CONVERGED_GRADIENT
        success = bool(pg <= tol)
        message = (f"best of {len(messages)} L-BFGS-B run(s) ({checks} boundary check(s)); "
                   f"projected gradient {pg:.2e} (tolerance {tol:.2e}); first run: "
                   f"{messages[0]}")
        return x, optimize.OptimizeResult(success=success, message=message, nit=len(messages),
                                          nfev=best.nfev, fun=f)

    def _scan_off_boundary(self, x: np.ndarray, group: list[int], fun) -> np.ndarray | None:
        """The best point with ``x[group]`` moved off zero along :data:`PUSH_SCAN`, if better.

        Starting the optimiser from a point strictly better than the face
        keeps it off the face: the gradient there is zero, and a first step
        of exactly the current value (L-BFGS-B's unit step from 1 lands on
        0) would otherwise end the search on it.
        """
        f_face = fun(x)[0]
        best_f, best_x = f_face, None
        for value in PUSH_SCAN:
            x0 = x.copy()
            x0[group] = value
            f = fun(x0)[0]
            if f < best_f:
                best_f, best_x = f, x0
        return best_x

    def _check_boundary(self, best: _Best, run, fun, free: list) -> int:
        """Push factors at zero off the boundary and try each face; return the checks made.

        With at most :data:`FACE_REOPTIMISE_MAX` variance factors each is
        checked on its own: for a factor at zero the deviance is scanned off
        the boundary (:data:`PUSH_SCAN`) and, where it is lower, re-optimised
        from there; any other is fixed at zero and the rest re-optimised. With
        more, the factors at zero are scanned off the boundary together and
        each face is checked by evaluating the deviance there (so the cost
        stays a few optimisations).
        """
        lay = self.layout
        diag = np.flatnonzero(lay.lower == 0.0)
        one_by_one = len(diag) <= FACE_REOPTIMISE_MAX
        checks = 0
        for _ in range(BOUNDARY_ROUNDS):
            f_round = best.f
            x_ref = self.normalise(best.x)
            zero = diag[x_ref[diag] <= ZERO_THETA]
            inside = diag[x_ref[diag] > ZERO_THETA]
            pushes = [[i] for i in zero] if one_by_one else ([list(zero)] if len(zero) else [])
            for group in pushes:  # off the boundary: the deviance may fall inside
                checks += 1
                x0 = self._scan_off_boundary(x_ref, group, fun)
                if x0 is not None:
                    run(x0)
            for i in inside:  # the face with this variance factor at zero
                x0 = x_ref.copy()
                x0[i] = 0.0
                if one_by_one:
                    bounds = list(free)
                    bounds[i] = (0.0, 0.0)
                    run(x0, bounds)
                else:
                    fun(x0)
                checks += 1
            if not best.f < f_round - 1e-10 * max(1.0, abs(f_round)):
                break
            run(best.x)  # polish the improved point with every factor free
        return checks


def quadratic_forms(C: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``c_i' V c_i`` for every row ``c_i`` of ``C``.

    One matrix product and a row-wise dot: ``einsum("ij,jk,ik->i")`` loops
    without BLAS (0.88 s against 0.11 s for 19,900 contrasts of 200 means).

    Examples
    --------
    >>> quadratic_forms(np.array([[1.0, -1.0], [1.0, 0.0]]), np.array([[2.0, 0.5], [0.5, 1.0]]))
    array([2., 2.])
    """
    C = np.atleast_2d(C)
    return np.einsum("ij,ij->i", C @ V, C)


def satterthwaite_df(dev: ProfiledDeviance, theta: np.ndarray, sigma: float,
                     contrasts: np.ndarray) -> np.ndarray:
    """Satterthwaite degrees of freedom for ``c' beta`` (lmerTest's method).

    The covariance parameters ``v = (theta, sigma)`` get the asymptotic
    covariance ``A = 2 H^{-1}``, with ``H`` the Hessian of the deviance in
    ``v``; for each contrast ``c`` with variance ``f(v) = c' V(v) c`` the
    degrees of freedom are ``2 f^2 / (g' A g)``, ``g`` the gradient of ``f``.
    Derivatives are central finite differences with one Richardson step,
    ``(4 D(h/2) - D(h)) / 3`` (error O(h^4), as lmerTest's ``numDeriv``), at
    ``h = 1e-2`` of each parameter (at least ``1e-4``). Plain differences at
    ``1e-3`` lost about ``eps |deviance| / h^2`` to rounding: near a small
    ``theta`` (0.057) the df of a data set and its shifted copy differed by
    9e-5 relative (p-values by 2.6e-4); with the extrapolation at the larger
    step they agree to about 7e-6 (``tests/test_lmem_invariance.py``), and the
    df agree with lmerTest's (``tests/test_lmem_lme4.py``).
    """
    v0 = np.concatenate([theta, [sigma]])
    k = len(v0)
    h0 = 1e-2 * np.maximum(np.abs(v0), 1e-2)

    def dev_v(v: np.ndarray) -> float:
        return dev.deviance_varpar(v[:-1], v[-1])

    f0 = dev_v(v0)

    def hessian(h: np.ndarray) -> np.ndarray:
        H = np.empty((k, k))
        for i in range(k):
            for j in range(i, k):
                if i == j:
                    e = np.zeros(k)
                    e[i] = h[i]
                    H[i, i] = (dev_v(v0 + e) - 2 * f0 + dev_v(v0 - e)) / h[i] ** 2
                else:
                    ei = np.zeros(k)
                    ej = np.zeros(k)
                    ei[i] = h[i]
                    ej[j] = h[j]
                    H[i, j] = H[j, i] = (
                        dev_v(v0 + ei + ej) - dev_v(v0 + ei - ej) - dev_v(v0 - ei + ej)
                        + dev_v(v0 - ei - ej)
                    ) / (4 * h[i] * h[j])
        return H

    C = np.atleast_2d(contrasts)

    def gradients(h: np.ndarray) -> np.ndarray:
        grads = np.empty((C.shape[0], k))
        for i in range(k):
            e = np.zeros(k)
            e[i] = h[i]
            Vp = dev.vcov_beta((v0 + e)[:-1], (v0 + e)[-1])
            Vm = dev.vcov_beta((v0 - e)[:-1], (v0 - e)[-1])
            grads[:, i] = (quadratic_forms(C, Vp) - quadratic_forms(C, Vm)) / (2 * h[i])
        return grads

    A = 2 * np.linalg.pinv((4 * hessian(h0 / 2) - hessian(h0)) / 3)
    grads = (4 * gradients(h0 / 2) - gradients(h0)) / 3
    V0 = dev.vcov_beta(theta, sigma)
    var = quadratic_forms(C, V0)
    denom = quadratic_forms(grads, A)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = 2 * var**2 / denom
    return np.where(np.isfinite(df) & (df > 0), df, np.inf)
