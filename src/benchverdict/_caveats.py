"""Caveats said once: repeated warnings grouped into one line with the count and where.

An analysis that runs cell by cell (a tuning curve per algorithm and
benchmark, a GLRT per metafeature) can meet the same caveat many times: ties
in the scores of 100 cells are one caveat, not 100. Code that finds a caveat
calls :func:`caveat` with its *kind* (a short name: ``"ties in the scores"``)
and the sentence for this place; the caller that loops over the places says
where it is with :func:`place`, and wraps the whole call in
:func:`collecting`. When the outermost :func:`collecting` block ends, each
kind of caveat is said once: one warning with the count, the places
(algorithms, benchmarks, ...) and the first place's own sentence. Outside
any :func:`collecting` block, :func:`caveat` warns at once, as
:func:`warnings.warn` would.

:func:`group_messages` does the same for plain text lines (warnings of
other libraries that a report captured): messages equal once numbers and
their subject are masked are stated once, with the count and the subjects.

Nothing is dropped: the grouped warning counts every place, names the first
few of each role and says how many more there are.
"""

from __future__ import annotations

import contextvars
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["Caveat", "CaveatGroup", "caveat", "collecting", "group_caveats",
           "group_messages", "place"]

#: At most this many names of each role in a grouped caveat (then "and N more").
MAX_NAMES = 6

#: The places (role -> name) of the code running now, innermost last.
_PLACE: contextvars.ContextVar[tuple[tuple[str, str], ...]] = contextvars.ContextVar(
    "benchverdict_caveat_place", default=())
#: The caveats collected by the outermost active :func:`collecting` block (None: none).
_LOG: contextvars.ContextVar[list[Caveat] | None] = contextvars.ContextVar(
    "benchverdict_caveat_log", default=None)

#: Plural of a role name in a grouped caveat.
_PLURAL = {"algorithm": "algorithms", "benchmark": "benchmarks", "seed": "seeds",
           "budget": "budgets", "metafeature": "metafeatures", "formula": "formulas",
           "pair": "pairs", "family": "families"}


@dataclass(frozen=True)
class Caveat:
    """One caveat at one place.

    Attributes
    ----------
    kind : str
        What kind of caveat (``"ties in the scores"``); caveats of one kind
        and category are said together.
    message : str
        The sentence for this place (numbers of this place included).
    where : tuple of (role, name)
        Where it was met, outermost first (``(("algorithm", "LR"),
        ("benchmark", "iris"))``); empty when nobody said.
    category : type of Warning
    """

    kind: str
    message: str
    where: tuple[tuple[str, str], ...] = ()
    category: type[Warning] = UserWarning

    @property
    def place_text(self) -> str:
        """Where, in words: ``"LR on iris"`` for a cell, else ``"role name, ..."``."""
        return _place_text(self.where)

    @property
    def text(self) -> str:
        """The caveat as a single warning would say it: place, then the message."""
        place_text = self.place_text
        return f"{place_text}: {self.message}" if place_text else self.message


@dataclass(frozen=True)
class CaveatGroup:
    """Every caveat of one kind and category, said once.

    Attributes
    ----------
    kind : str
    category : type of Warning
    caveats : tuple of Caveat
        In the order they were met; the first is quoted.
    """

    kind: str
    category: type[Warning]
    caveats: tuple[Caveat, ...] = field(default=())

    @property
    def count(self) -> int:
        """How many places met this caveat (a place met twice counts once).

        Caveats said without a place count one each.
        """
        placed = {c.where for c in self.caveats if c.where}
        return len(placed) + sum(1 for c in self.caveats if not c.where)

    @property
    def places(self) -> dict[str, list[str]]:
        """Role -> the distinct names met, in order (``{"benchmark": ["iris", ...]}``)."""
        out: dict[str, list[str]] = {}
        for c in self.caveats:
            for role, name in c.where:
                names = out.setdefault(role, [])
                if name not in names:
                    names.append(name)
        return out

    @property
    def text(self) -> str:
        """One line: the kind, the count and where, then the first place's own sentence.

        Examples
        --------
        >>> g = group_caveats([Caveat("ties", "3 of 9 tied.", (("algorithm", "A"),
        ...                                                      ("benchmark", "x"))),
        ...                    Caveat("ties", "2 of 9 tied.", (("algorithm", "B"),
        ...                                                      ("benchmark", "x")))])[0]
        >>> g.text
        'ties: 2 cells (algorithms A, B; benchmark x). The first, A on x: 3 of 9 tied.'
        """
        if self.count == 1:
            return self.caveats[0].text
        roles = {role for c in self.caveats for role, _ in c.where}
        unit = ("cells" if roles == {"algorithm", "benchmark"} else "places" if roles
                else "times")
        where = "; ".join(_names(role, names) for role, names in self.places.items())
        first = self.caveats[0]
        quoted = (f"The first, {first.place_text}: {first.message}" if first.place_text
                  else f"The first: {first.message}")
        return f"{self.kind}: {self.count} {unit}" + (f" ({where})" if where else "") + \
            f". {quoted}"


def _names(role: str, names: list[str]) -> str:
    label = role if len(names) == 1 else _PLURAL.get(role, f"{role}s")
    shown = ", ".join(names[:MAX_NAMES])
    more = f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
    return f"{label} {shown}{more}"


def _place_text(where: Sequence[tuple[str, str]]) -> str:
    roles = dict(where)
    if set(roles) == {"algorithm", "benchmark"}:
        return f"{roles['algorithm']} on {roles['benchmark']}"
    return ", ".join(f"{role} {name}" for role, name in where)


def group_caveats(caveats: Sequence[Caveat]) -> list[CaveatGroup]:
    """Caveats grouped by kind and category, in the order each kind was first met.

    Examples
    --------
    >>> cs = [Caveat("ties", "a"), Caveat("boundary", "b"), Caveat("ties", "c")]
    >>> [(g.kind, g.count) for g in group_caveats(cs)]
    [('ties', 2), ('boundary', 1)]
    """
    groups: dict[tuple[str, type[Warning]], list[Caveat]] = {}
    for c in caveats:
        groups.setdefault((c.kind, c.category), []).append(c)
    return [CaveatGroup(kind, category, tuple(items))
            for (kind, category), items in groups.items()]


def caveat(kind: str, message: str, *, category: type[Warning] = UserWarning,
           stacklevel: int = 2) -> None:
    """Say a caveat: collected inside :func:`collecting`, else warned at once.

    Inside :func:`collecting`, the warning filters in force at the call
    still apply: a caveat its caller silences (``warnings.simplefilter(
    "ignore", category)``) is not collected, and an ``"error"`` filter
    raises at once.

    Parameters
    ----------
    kind : str
        A short name of the kind of caveat (``"ties in the scores"``); the
        grouped warning starts with it.
    message : str
        The sentence for this place, with its own numbers.
    category : type of Warning
    stacklevel : int
        As in :func:`warnings.warn` (used only when warning at once).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with collecting():
    ...         for alg in ("A", "B", "C"):
    ...             with place(algorithm=alg, benchmark="x"):
    ...                 caveat("ties in the scores", "some scores are ties.")
    >>> len(caught)
    1
    >>> str(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    'ties in the scores: 3 cells (algorithms A, B, C; benchmark x). The first, A on x:
    some scores are ties.'
    """
    item = Caveat(str(kind), str(message), _PLACE.get(), category)
    log = _LOG.get()
    if log is None:
        warnings.warn(item.text, category, stacklevel=stacklevel + 1)
        return
    # The warning filters in force here still decide: a caller that silences this
    # category (``simplefilter("ignore", ...)``) silences the caveat, and "error" raises
    # here, as warnings.warn would. Only a caveat that would be shown is collected.
    with warnings.catch_warnings(record=True) as probe:
        warnings.warn(item.text, category, stacklevel=stacklevel + 1)
    if probe:
        log.append(item)


@contextmanager
def place(**where: object) -> Iterator[None]:
    """Say where the code inside runs (``place(algorithm="LR", benchmark="iris")``).

    Nested blocks add to the outer place. The roles are kept in the order given.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     with collecting() as log, place(benchmark="x"), place(algorithm="A"):
    ...         caveat("k", "m")
    >>> log[0].where
    (('benchmark', 'x'), ('algorithm', 'A'))
    """
    token = _PLACE.set(_PLACE.get() + tuple((str(k), str(v)) for k, v in where.items()))
    try:
        yield
    finally:
        _PLACE.reset(token)


@contextmanager
def collecting(*, stacklevel: int = 3) -> Iterator[list[Caveat]]:
    """Collect the caveats said inside; at the end, warn once per kind.

    Nested blocks are transparent: the outermost block collects everything
    and warns (one :class:`warnings.warn` per kind and category, see
    :attr:`CaveatGroup.text`) when it ends, also when the code inside raised.
    Yields the list of collected :class:`Caveat` (the outermost block's).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with collecting() as log:
    ...         caveat("a", "one")
    ...         with collecting():
    ...             caveat("a", "two")
    ...         n_inner = len(caught)
    >>> n_inner, len(log), len(caught)
    (0, 2, 1)
    """
    outer = _LOG.get()
    if outer is not None:
        yield outer
        return
    log: list[Caveat] = []
    token = _LOG.set(log)
    try:
        yield log
    finally:
        _LOG.reset(token)
        for group in group_caveats(log):
            warnings.warn(group.text, group.category, stacklevel=stacklevel)


#: A number (an integer, a decimal, scientific notation, a percentage).
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?%?")
#: A leading "Category: " of a formatted warning.
_CATEGORY = re.compile(r"^(\w+(?:Warning|Error)): ")


def group_messages(messages: Sequence[str]) -> list[str]:
    """Text messages that differ only in numbers and subject, stated once with the count.

    A message is ``[Category: ][subject: ]body``; two are of one kind when
    their categories and bodies are equal once every number is masked. The
    first of a group is kept, with ``(N times: subject, subject, ...)``
    after it; exact repeats count too. The order of first appearance is kept.

    Examples
    --------
    >>> group_messages(["UserWarning: A on x: 3 of 4 ties.",
    ...                 "UserWarning: B on y: 2 of 4 ties.", "other", "other"])
    ['UserWarning: A on x: 3 of 4 ties. (2 times: A on x, B on y)', 'other (2 times)']
    """
    groups: dict[str, list[tuple[str, str]]] = {}
    for message in messages:
        text = str(message)
        m = _CATEGORY.match(text)
        head = m.group(1) if m else ""
        rest = text[m.end():] if m else text
        subject, sep, body = rest.partition(": ")
        if not sep or len(subject) > 80:
            subject, body = "", rest
        groups.setdefault(head + "\x00" + _NUMBER.sub("#", body), []).append((text, subject))
    out = []
    for items in groups.values():
        first = items[0][0]
        if len(items) > 1:
            subjects = list(dict.fromkeys(s for _, s in items if s))
            named = ", ".join(subjects[:MAX_NAMES]) + (
                f" and {len(subjects) - MAX_NAMES} more" if len(subjects) > MAX_NAMES else "")
            first += f" ({len(items)} times" + (f": {named})" if named else ")")
        out.append(first)
    return out
