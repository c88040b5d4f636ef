"""A small parser for lme4-style model formulas, validated against a table's columns.

Grammar (a subset of R's, enough for benchmark analyses)::

    formula  := response "~" rhs
    rhs      := ["-"] item (("+" | "-") item)*
    item     := "(" expr ("|" | "||") group ")" | product | "0" | "1"
    product  := name ((":" | "*") name)*
    expr     := the same as rhs (e.g. ``1``, ``0 + algorithm``, ``1 + budget``)
    group    := name ((":" | "/") name)*

``a*b`` expands to ``a + b + a:b``; ``(e|a/b)`` expands to ``(e|a) + (e|a:b)``
(nesting); ``(e||g)`` gives the terms of ``e`` independent variances (a
diagonal covariance matrix, one term per column, which also splits factors).
Names are identifiers or backtick-quoted (```my col```) and must be columns of
the data: nothing from the formula string is ever passed on unvalidated.
Fixed-effect terms are ordered by degree (main effects, then two-way
interactions, ...) as in R, so coefficient names match ``lme4``'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_TOKEN = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_.][A-Za-z0-9_.]*)|`(?P<quoted>[^`]+)`|(?P<num>\d+)"
    r"|(?P<op>\|\||[~+\-:*/|()]))"
)


class FormulaError(ValueError):
    """A formula that cannot be parsed or names an unknown column."""


@dataclass(frozen=True)
class TermList:
    """An intercept flag and an ordered list of terms (each a tuple of variable names)."""

    intercept: bool
    terms: tuple[tuple[str, ...], ...]

    def __str__(self) -> str:
        parts = ["1" if self.intercept else "0"] + [":".join(map(_quote, t)) for t in self.terms]
        return " + ".join(parts)

    @property
    def variables(self) -> tuple[str, ...]:
        """Every variable the terms use, in order of first appearance."""
        seen: dict[str, None] = {}
        for term in self.terms:
            for v in term:
                seen.setdefault(v, None)
        return tuple(seen)


@dataclass(frozen=True)
class RandomTerm:
    """``(expr | group)``: random effects ``expr`` varying over the levels of ``group``.

    ``group`` is a tuple of variables (more than one: their interaction, as in
    ``(1|benchmark:prior)``). ``diagonal`` (from ``||``): each column of
    ``expr`` gets its own independent variance.
    """

    expr: TermList
    group: tuple[str, ...]
    diagonal: bool = False

    def __str__(self) -> str:
        bar = "||" if self.diagonal else "|"
        return f"({self.expr} {bar} {':'.join(map(_quote, self.group))})"

    @property
    def group_name(self) -> str:
        """The grouping factor's name as lme4 prints it (``a:b`` for interactions)."""
        return ":".join(self.group)


@dataclass(frozen=True)
class Formula:
    """A parsed mixed-model formula.

    Attributes
    ----------
    response : str
    fixed : TermList
    random : tuple of RandomTerm
    text : str
        The formula as given.

    Examples
    --------
    >>> f = parse_formula("score ~ algorithm * budget + (1|benchmark/prior)")
    >>> f.fixed.terms
    (('algorithm',), ('budget',), ('algorithm', 'budget'))
    >>> [str(r) for r in f.random]
    ['(1 | benchmark)', '(1 | benchmark:prior)']
    """

    response: str
    fixed: TermList
    random: tuple[RandomTerm, ...]
    text: str

    @property
    def variables(self) -> tuple[str, ...]:
        """Every column the formula uses."""
        seen: dict[str, None] = {self.response: None}
        for v in self.fixed.variables:
            seen.setdefault(v, None)
        for r in self.random:
            for v in r.expr.variables + r.group:
                seen.setdefault(v, None)
        return tuple(seen)

    def __str__(self) -> str:
        rhs = [str(self.fixed)] + [str(r) for r in self.random]
        return f"{_quote(self.response)} ~ " + " + ".join(rhs)

    def validate(self, columns: Iterable[str]) -> Formula:
        """Raise :class:`FormulaError` if a variable is not one of ``columns``."""
        known = list(columns)
        unknown = [v for v in self.variables if v not in known]
        if unknown:
            raise FormulaError(
                f"formula {self.text!r} names unknown column(s) {unknown}; the data have "
                f"{known}. Use the role names (score, algorithm, benchmark, seed, budget) and "
                "metafeature columns; quote odd names with backticks."
            )
        return self


def _quote(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_.][A-Za-z0-9_.]*", name) else f"`{name}`"


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise FormulaError(f"cannot parse formula {text!r} at position {pos}: {text[pos:]!r}")
        pos = m.end()
        if m.group("name") is not None:
            tokens.append(("name", m.group("name")))
        elif m.group("quoted") is not None:
            tokens.append(("name", m.group("quoted")))
        elif m.group("num") is not None:
            tokens.append(("num", m.group("num")))
        else:
            tokens.append(("op", m.group("op")))
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, kind: str | None = None, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None or (kind and tok[0] != kind) or (value and tok[1] != value):
            want = value or kind or "a token"
            got = "the end" if tok is None else repr(tok[1])
            raise FormulaError(f"in formula {self.text!r}: expected {want}, got {got}.")
        self.i += 1
        return tok

    def error(self, msg: str) -> FormulaError:
        return FormulaError(f"in formula {self.text!r}: {msg}")

    def formula(self) -> Formula:
        response = self.take("name")[1]
        self.take("op", "~")
        fixed, random = self.rhs(allow_random=True, stop=None)
        if self.peek() is not None:
            raise self.error(f"unexpected {self.peek()[1]!r}.")  # type: ignore[index]
        return Formula(response, fixed, tuple(random), self.text)

    def rhs(self, *, allow_random: bool, stop: set[str] | None) -> tuple[TermList, list]:
        intercept = True
        terms: list[tuple[str, ...]] = []
        random: list[RandomTerm] = []
        sign = "+"
        if self.peek() == ("op", "-"):
            self.take()
            sign = "-"
        while True:
            tok = self.peek()
            if tok is None:
                raise self.error("unexpected end of formula.")
            if tok == ("op", "("):
                if not allow_random or sign == "-":
                    raise self.error("parenthesised terms are only allowed as (expr | group).")
                random.extend(self.random_term())
            elif tok[0] == "num":
                self.take()
                if tok[1] not in ("0", "1"):
                    raise self.error(f"a number term must be 0 or 1, got {tok[1]}.")
                intercept = (tok[1] == "1") == (sign == "+")
            else:
                new = self.product()
                for t in new:
                    key = frozenset(t)
                    existing = [u for u in terms if frozenset(u) == key]
                    if sign == "+" and not existing:
                        terms.append(t)
                    elif sign == "-":
                        terms = [u for u in terms if frozenset(u) != key]
            nxt = self.peek()
            if nxt is None or (stop is not None and nxt[0] == "op" and nxt[1] in stop):
                break
            if nxt not in (("op", "+"), ("op", "-")):
                raise self.error(f"expected + or -, got {nxt[1]!r}.")
            sign = self.take()[1]
        # R orders terms by degree, keeping the order of appearance within a degree.
        ordered = sorted(range(len(terms)), key=lambda k: (len(terms[k]), k))
        return TermList(intercept, tuple(terms[k] for k in ordered)), random

    def product(self) -> list[tuple[str, ...]]:
        # a*b*c -> all sub-interactions in R's order; a:b -> one term.
        factors: list[list[tuple[str, ...]]] = [[(self.take("name")[1],)]]
        while self.peek() in (("op", ":"), ("op", "*")):
            op = self.take()[1]
            name = self.take("name")[1]
            if op == ":":
                factors[-1] = [(*t, name) for t in factors[-1]]
            else:
                factors.append([(name,)])
        # Expand the '*' groups: every non-empty subset, lower degree first.
        out: list[tuple[str, ...]] = [()]
        for group in factors:
            out = out + [a + b for a in out for b in group]
        result = []
        for t in out:
            if not t:
                continue
            dedup = tuple(dict.fromkeys(t))
            if dedup not in result:
                result.append(dedup)
        return sorted(result, key=len)

    def random_term(self) -> list[RandomTerm]:
        self.take("op", "(")
        expr, inner_random = self.rhs(allow_random=False, stop={"|", "||"})
        if inner_random:
            raise self.error("nested random terms are not allowed.")
        bar = self.take("op")[1]
        if bar not in ("|", "||"):
            raise self.error(f"expected | or || in a random term, got {bar!r}.")
        groups: list[tuple[str, ...]] = [(self.take("name")[1],)]
        while self.peek() in (("op", ":"), ("op", "/")):
            op = self.take()[1]
            name = self.take("name")[1]
            if op == ":":
                groups[-1] = groups[-1] + (name,)
            else:
                groups.append(groups[-1] + (name,))
        self.take("op", ")")
        if not expr.intercept and not expr.terms:
            raise self.error("a random term needs at least one effect, e.g. (1 | group).")
        out = []
        for g in groups:
            # '||': the design gives every column of expr its own variance.
            out.append(RandomTerm(expr, g, diagonal=bar == "||"))
        return out


def parse_formula(text: str, columns: Iterable[str] | None = None) -> Formula:
    """Parse an lme4-style formula; with ``columns``, check every name exists.

    Parameters
    ----------
    text : str
        e.g. ``"score ~ algorithm + (1|benchmark)"``.
    columns : iterable of str, optional
        The data's columns; unknown names raise :class:`FormulaError`.

    Returns
    -------
    Formula

    Examples
    --------
    >>> parse_formula("score ~ 0 + algorithm + (0 + algorithm | seed)").fixed
    TermList(intercept=False, terms=(('algorithm',),))
    >>> parse_formula("score ~ algortihm", ["score", "algorithm"])
    Traceback (most recent call last):
    ...
    benchverdict.lmem.formula.FormulaError: formula 'score ~ algortihm' names unknown column(s) \
['algortihm']; the data have ['score', 'algorithm']. Use the role names (score, algorithm, \
benchmark, seed, budget) and metafeature columns; quote odd names with backticks.
    """
    if not isinstance(text, str):
        raise TypeError(f"formula must be a string, got {type(text).__name__}.")
    formula = _Parser(text).formula()
    if columns is not None:
        formula.validate(columns)
    return formula


def drop_fixed(formula: Formula, variable: str) -> Formula:
    """The formula without the fixed terms that involve ``variable`` (e.g. a GLRT's null).

    Examples
    --------
    >>> str(drop_fixed(parse_formula("score ~ algorithm * budget + (1|benchmark)"), "algorithm"))
    'score ~ 1 + budget + (1 | benchmark)'
    """
    kept = tuple(t for t in formula.fixed.terms if variable not in t)
    if len(kept) == len(formula.fixed.terms):
        raise FormulaError(f"{variable!r} is not among the fixed effects of {formula.text!r}.")
    fixed = TermList(formula.fixed.intercept or not kept, kept)
    text = str(Formula(formula.response, fixed, formula.random, ""))
    return parse_formula(text)
