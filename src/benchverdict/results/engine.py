"""The engine protocol: the analysis steps an engine may run its own way.

A :class:`~benchverdict.results.core.Results` keeps its rows in memory; a
:class:`~benchverdict._dask.results.DaskResults` keeps them in Dask
partitions. Most analysis steps read only the small views every engine
provides (incumbents, blocks, the long table when it fits), but a few must
run where the rows are. ``Results.engine`` names the engine, and each such
step is one method of :class:`Engine`:

* :meth:`Engine.lmem_fit`: fit a linear mixed model (the Dask engine sums
  the cross-products per partition);
* :meth:`Engine.draws_or_sketches`: every (algorithm, benchmark) cell's
  draws for tuning curves (the Dask engine gives an ECDF sketch of a cell
  too large for the client).

A method returns ``None`` when the engine has no step of its own: the
analysis then runs its in-memory code on the ``Results``, as
:class:`InMemoryEngine` always asks. The analysis packages call these
methods and never import an engine, so the Dask engine stays optional and
above them. A new step is a new method here, implemented (or answered with
``None``) by every engine; a type checker finds the engines that lack it.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import pandas as pd


@runtime_checkable
class Engine(Protocol):
    """The steps an engine may run itself; ``None`` means "run the in-memory code"."""

    #: A short name, shown in messages (``"memory"``, ``"dask"``).
    name: str

    def lmem_fit(self, formula: str, *, reml: bool = False,
                 backend: Literal["native", "lme4"] = "native", start: Any = None,
                 exclusions: pd.DataFrame | None = None) -> Any | None:
        """The engine's fit of ``formula`` (a ``benchverdict.lmem.MixedModel``), or ``None``.

        The arguments are :func:`benchverdict.lmem.fit`'s. The model is typed
        ``Any`` here because ``lmem`` sits above ``results``: naming its type
        would make an import circle.
        """
        ...

    def draws_or_sketches(self) -> dict[tuple[str, str], Any] | None:
        """Each (algorithm, benchmark) cell's draws (array or ECDF sketch), or ``None``."""
        ...


class InMemoryEngine:
    """The engine of an in-memory ``Results``: every step runs as the analysis wrote it.

    Examples
    --------
    >>> engine = InMemoryEngine()
    >>> isinstance(engine, Engine), engine.lmem_fit("score ~ algorithm"), engine.name
    (True, None, 'memory')
    >>> engine.draws_or_sketches() is None
    True
    """

    name = "memory"

    def lmem_fit(self, formula: str, *, reml: bool = False,
                 backend: Literal["native", "lme4"] = "native", start: Any = None,
                 exclusions: pd.DataFrame | None = None) -> Any | None:
        """``None``: :func:`benchverdict.lmem.fit` builds the design from the rows."""
        return None

    def draws_or_sketches(self) -> dict[tuple[str, str], np.ndarray] | None:
        """``None``: the tuning curves read ``Results.iter_draws()``."""
        return None


#: The one in-memory engine (it holds no state).
IN_MEMORY = InMemoryEngine()


__all__ = ["IN_MEMORY", "Engine", "InMemoryEngine"]
