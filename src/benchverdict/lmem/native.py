"""The native engine: exact Gaussian LMM fits from cross-products (lme4's PLS formulation).

Model: ``y = X beta + Z b + e`` with ``b = Lambda(theta) u``, ``u ~ N(0, sigma^2 I)``
and ``e ~ N(0, sigma^2 I)``. ``Lambda`` is block diagonal: for every random term
``k`` a lower-triangular ``T_k`` (the relative covariance factor), repeated for
each level of its grouping factor, so that the term's covariance matrix is
``sigma^2 T_k T_k'``.

Following Bates, Maechler, Bolker and Walker (2015, J. Stat. Softw. 67(1), §3),
for fixed ``theta`` let ``L L' = Lambda' Z'Z Lambda + I`` (Cholesky),
``R_ZX = L^{-1} Lambda' Z'X``, ``R_X' R_X = X'X - R_ZX' R_ZX``,
``c_u = L^{-1} Lambda' Z'y`` and ``c_beta = R_X^{-T} (X'y - R_ZX' c_u)``. Then
``beta_hat = R_X^{-1} c_beta``, the penalised residual sum of squares is
``r^2 = y'y - c_u'c_u - c_beta'c_beta`` and the profiled deviances are::

    ML:    -2 l(theta)   = log|L|^2 + n (1 + log(2 pi r^2 / n))
    REML:  -2 l_R(theta) = log|L|^2 + log|R_X|^2 + (n-p)(1 + log(2 pi r^2 / (n-p)))

Everything depends on the data only through ``X'X, X'Z, Z'Z, X'y, Z'y, y'y, n``
(:class:`~benchverdict.lmem.design.CrossProducts`). The deviance is minimised
over ``theta`` with L-BFGS-B (diagonal elements of each ``T_k`` bounded below
by 0, as in lme4), using central-difference gradients. ``Z'Z`` is held dense,
so the per-evaluation cost is O(q^3) in the number of random effects ``q``
(fine up to a few thousand levels), independent of the number of rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
from scipy import optimize

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


#: Above this many random effects, a single random term is solved level by level.
BLOCK_DIAGONAL_MIN_Q = 50

#: lme4's tolerance for calling a fit singular (``isSingular(tol = 1e-4)``).
SINGULAR_TOL = 1e-4


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

    def lambda_t(self, factors: list[np.ndarray], V: np.ndarray) -> np.ndarray:
        """``Lambda' V`` for a (q x m) matrix ``V``."""
        out = np.empty_like(V)
        for T, p, g, off in zip(factors, self.p, self.n_levels, self.offsets):
            block = V[off:off + p * g].reshape(g, p, -1)
            out[off:off + p * g] = np.einsum("ji,gjc->gic", T, block).reshape(p * g, -1)
        return out


@dataclass
class PLSSolution:
    """The penalised least-squares solution at one ``theta``."""

    theta: np.ndarray
    beta: np.ndarray
    pwrss: float
    ldL2: float
    ldRX2: float
    RX: np.ndarray  # upper triangular, R_X' R_X = X'X - R_ZX'R_ZX
    L: np.ndarray | None  # the sparse Cholesky factor (None when solved level by level)
    RZX: np.ndarray | None
    cu: np.ndarray | None
    factors: list[np.ndarray]


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
        self.all_scalar = all(p == 1 for p in self.layout.p)
        self.n_eff = self.n - self.p if reml else self.n
        if self.n_eff <= 0:
            raise ValueError(f"{self.n} rows cannot estimate {self.p} fixed effects.")

    def solve(self, theta: np.ndarray) -> PLSSolution:
        """Solve the PLS problem at ``theta``."""
        cp = self.cp
        factors = self.layout.factors(theta)
        if self.q == 0:
            RX = cholesky(cp.XtX, lower=False)
            cbeta = solve_tri(RX, cp.Xty, lower=False, trans=True)
            beta = solve_tri(RX, cbeta, lower=False)
            pwrss = cp.yty - cbeta @ cbeta
            return PLSSolution(theta, beta, max(pwrss, 0.0), 0.0,
                               2 * np.log(np.diag(RX)).sum(), RX, None, None, None, factors)
        if len(self.layout.p) == 1 and self.q > BLOCK_DIAGONAL_MIN_Q:
            return self._solve_one_term(theta, factors)
        if self.all_scalar:
            lam = np.concatenate([np.full(g, T[0, 0]) for T, g in
                                  zip(factors, self.layout.n_levels)])
            M = cp.ZtZ * np.outer(lam, lam)
            LtZX = lam[:, None] * cp.XtZ.T
            LtZy = lam * cp.Zty
        else:
            half = self.layout.lambda_t(factors, cp.ZtZ)  # Lambda' Z'Z
            M = self.layout.lambda_t(factors, np.ascontiguousarray(half.T))
            LtZX = self.layout.lambda_t(factors, np.ascontiguousarray(cp.XtZ.T))
            LtZy = self.layout.lambda_t(factors, cp.Zty[:, None])[:, 0]
        M[np.diag_indices_from(M)] += 1.0
        L = cholesky(M, lower=True)
        RZX = solve_tri(L, LtZX, lower=True)
        cu = solve_tri(L, LtZy, lower=True)
        RXtRX = cp.XtX - RZX.T @ RZX
        RX = cholesky(RXtRX, lower=False)
        cbeta = solve_tri(RX, cp.Xty - RZX.T @ cu, lower=False, trans=True)
        beta = solve_tri(RX, cbeta, lower=False)
        pwrss = cp.yty - cu @ cu - cbeta @ cbeta
        return PLSSolution(theta, beta, max(pwrss, 1e-300), 2 * np.log(np.diag(L)).sum(),
                           2 * np.log(np.diag(RX)).sum(), RX, L, RZX, cu, factors)

    def _solve_one_term(self, theta: np.ndarray, factors: list[np.ndarray]) -> PLSSolution:
        """PLS with one random term: ``Lambda' Z'Z Lambda + I`` is block diagonal.

        Rows belong to one level each, so ``Z'Z`` has one ``p x p`` block per
        level and ``L`` factors level by level: O(g p^3) instead of O(q^3).
        """
        cp = self.cp
        p, g = self.layout.p[0], self.layout.n_levels[0]
        T = factors[0]
        idx = np.arange(g)[:, None] * p + np.arange(p)
        blocks = cp.ZtZ[idx[:, :, None], idx[:, None, :]]  # (g, p, p)
        M = np.einsum("ji,gjk,kl->gil", T, blocks, T) + np.eye(p)
        L = np.linalg.cholesky(M)  # batched, lower
        LtZX = np.einsum("ji,gjc->gic", T, cp.XtZ.T.reshape(g, p, -1))
        LtZy = np.einsum("ji,gj->gi", T, cp.Zty.reshape(g, p))
        RZX = np.linalg.solve(L, LtZX).reshape(self.q, -1)
        cu = np.linalg.solve(L, LtZy[..., None])[..., 0].reshape(self.q)
        RXtRX = cp.XtX - RZX.T @ RZX
        RX = cholesky(RXtRX, lower=False)
        cbeta = solve_tri(RX, cp.Xty - RZX.T @ cu, lower=False, trans=True)
        beta = solve_tri(RX, cbeta, lower=False)
        pwrss = cp.yty - cu @ cu - cbeta @ cbeta
        ldL2 = 2 * np.log(np.diagonal(L, axis1=1, axis2=2)).sum()
        return PLSSolution(theta, beta, max(pwrss, 1e-300), float(ldL2),
                           2 * np.log(np.diag(RX)).sum(), RX, None, RZX, cu, factors)

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

    def minimize(self, theta0: np.ndarray | None = None
                 ) -> tuple[np.ndarray, optimize.OptimizeResult]:
        """Minimise the deviance over ``theta`` (bounded L-BFGS-B, then a bounded polish)."""
        lay = self.layout
        if lay.n_theta == 0:
            return np.zeros(0), optimize.OptimizeResult(success=True, message="no theta", nit=0)
        x0 = lay.start() if theta0 is None else np.asarray(theta0, dtype=float)
        bounds = [(lo if np.isfinite(lo) else None, None) for lo in lay.lower]

        def fun_and_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
            f0 = self(x)
            grad = np.empty_like(x)
            for i in range(len(x)):
                h = 1e-6 * max(1.0, abs(x[i]))
                up = x.copy()
                up[i] += h
                if x[i] - h < lay.lower[i]:  # one-sided at the boundary
                    grad[i] = (self(up) - f0) / h
                else:
                    down = x.copy()
                    down[i] -= h
                    grad[i] = (self(up) - self(down)) / (2 * h)
            return f0, grad

        res = optimize.minimize(
            fun_and_grad, x0, jac=True, method="L-BFGS-B", bounds=bounds,
            options={"ftol": 1e-15, "gtol": 1e-9, "maxiter": 2000, "maxcor": 20},
        )
        x = res.x
        # Snap tiny diagonal elements to the bound, as lme4's boundary check does, keeping
        # whichever of the two has the lower deviance.
        snapped = x.copy()
        small = (lay.lower == 0.0) & (snapped < 1e-7)
        snapped[small] = 0.0
        if self(snapped) <= self(x):
            x = snapped
        if not res.success:
            # L-BFGS-B often stops with ABNORMAL_TERMINATION_IN_LNSRCH when the
            # finite-difference gradient is at its precision limit at the optimum. Judge
            # convergence as lme4 does, by the (projected) gradient at the solution.
            f0, grad = fun_and_grad(x)
            at_bound = (x <= lay.lower + 1e-12) & (grad > 0)
            projected = np.where(at_bound, 0.0, grad)
            scale = max(1.0, abs(f0))
            if np.max(np.abs(projected) * np.maximum(1.0, np.abs(x))) <= 1e-4 * scale:
                res.message = (
                    f"{res.message}; accepted: the projected gradient at the solution is "
                    f"{np.max(np.abs(projected)):.2e} (tolerance 1e-4 x |deviance|)"
                )
                res.success = True
        return x, res


def satterthwaite_df(dev: ProfiledDeviance, theta: np.ndarray, sigma: float,
                     contrasts: np.ndarray) -> np.ndarray:
    """Satterthwaite degrees of freedom for ``c' beta`` (lmerTest's method).

    The covariance parameters ``v = (theta, sigma)`` get the asymptotic
    covariance ``A = 2 H^{-1}``, with ``H`` the Hessian of the deviance in
    ``v``; for each contrast ``c`` with variance ``f(v) = c' V(v) c`` the
    degrees of freedom are ``2 f^2 / (g' A g)``, ``g`` the gradient of ``f``.
    Derivatives are central finite differences.
    """
    v0 = np.concatenate([theta, [sigma]])
    k = len(v0)
    h = 1e-4 * np.maximum(np.abs(v0), 1e-2)

    def dev_v(v: np.ndarray) -> float:
        return dev.deviance_varpar(v[:-1], v[-1])

    H = np.empty((k, k))
    f0 = dev_v(v0)
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
    A = 2 * np.linalg.pinv(H)
    C = np.atleast_2d(contrasts)
    grads = np.empty((C.shape[0], k))
    for i in range(k):
        e = np.zeros(k)
        e[i] = h[i]
        Vp = dev.vcov_beta((v0 + e)[:-1], (v0 + e)[-1])
        Vm = dev.vcov_beta((v0 - e)[:-1], (v0 - e)[-1])
        grads[:, i] = (np.einsum("ij,jk,ik->i", C, Vp, C) - np.einsum("ij,jk,ik->i", C, Vm, C)) / (
            2 * h[i]
        )
    V0 = dev.vcov_beta(theta, sigma)
    var = np.einsum("ij,jk,ik->i", C, V0, C)
    denom = np.einsum("ij,jk,ik->i", grads, A, grads)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = 2 * var**2 / denom
    return np.where(np.isfinite(df) & (df > 0), df, np.inf)
