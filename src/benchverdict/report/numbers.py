"""Numbers as a paper prints them: a shared power of ten and digits from the spread.

A results table shows each benchmark's numbers to the precision the data
support: two significant digits of the narrowest spread (SD, IQR or
interval half-width) on that benchmark, the centre to the same decimal
place. Values that are tiny or huge are printed in units of a shared power of
ten (``x 10^-3`` beside the benchmark's name) instead of with leading or
trailing zeros.

The rules, stated once:

* :func:`scale_exponent`: ``e = floor(log10(max |x|))`` when that is at
  most :data:`SMALL_EXPONENT` or at least :data:`LARGE_EXPONENT`, else 0;
  the printed numbers are ``x / 10**e``;
* :func:`decimals_for`: two significant digits of the narrowest positive
  spread (after scaling); without a spread, three significant digits of the
  largest value; at most :data:`MAX_DECIMALS`;
* :func:`fixed`: ``x`` with that many decimals, ``-0`` printed as ``0``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["LARGE_EXPONENT", "MAX_DECIMALS", "RELATIVE_NOISE", "SMALL_EXPONENT", "decimals_for",
           "fixed", "scale_exponent"]

#: A benchmark whose largest magnitude is below 10**(SMALL_EXPONENT + 1) is printed scaled.
SMALL_EXPONENT = -3
#: A benchmark whose largest magnitude is at least 10**LARGE_EXPONENT is printed scaled.
LARGE_EXPONENT = 4
#: No number is printed with more decimals than this.
MAX_DECIMALS = 6
#: A spread below this share of the largest value is rounding noise, not a spread.
RELATIVE_NOISE = 1e-9


def _finite(values: Iterable[float]) -> list[float]:
    out = []
    for v in values:
        try:
            x = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(x):
            out.append(x)
    return out


def scale_exponent(values: Iterable[float]) -> int:
    """The power of ten the numbers are printed in units of (0: printed as they are).

    ``floor(log10(max |x|))`` over the finite values when the largest
    magnitude is below ``10**(SMALL_EXPONENT + 1)`` (0.001 and smaller) or
    at least ``10**LARGE_EXPONENT`` (10,000 and larger); otherwise 0.

    Examples
    --------
    >>> scale_exponent([0.0012, 0.0045]), scale_exponent([12345.0, 3.0])
    (-3, 4)
    >>> scale_exponent([0.05, 0.9]), scale_exponent([0.0, float("nan")]), scale_exponent([])
    (0, 0, 0)
    """
    magnitudes = [abs(x) for x in _finite(values) if x != 0]
    if not magnitudes:
        return 0
    p = math.floor(math.log10(max(magnitudes)))
    return p if p <= SMALL_EXPONENT or p >= LARGE_EXPONENT else 0


def decimals_for(spreads: Iterable[float], values: Iterable[float] = (), *,
                 max_decimals: int = MAX_DECIMALS) -> int:
    """Decimals that show two significant digits of the narrowest positive spread.

    ``spreads`` are SDs, IQRs or interval half-widths (already divided by
    the scale, see :func:`scale_exponent`); one below :data:`RELATIVE_NOISE`
    times the largest of ``values`` is rounding noise. Without a positive finite
    spread, three significant digits of the largest magnitude among
    ``values``; without either, 2. Never negative, at most
    ``max_decimals`` (:data:`MAX_DECIMALS`).

    Examples
    --------
    >>> decimals_for([0.013, 0.25])   # 0.013 -> "0.013"
    3
    >>> decimals_for([1.7, 4.0]), decimals_for([37.0])   # "1.7"; "37"
    (1, 0)
    >>> decimals_for([0.0, float("nan")], [0.912])   # no spread: 3 significant digits
    3
    >>> decimals_for([1e-12])
    6
    >>> decimals_for([1.1e-16], [0.95, 0.95])   # the SD of equal values: no spread
    3
    """
    magnitudes = [abs(x) for x in _finite(values) if x != 0]
    # A spread at the level of floating-point noise (the SD of equal values) is no spread.
    floor = RELATIVE_NOISE * max(magnitudes, default=0.0)
    widths = [w for w in _finite(spreads) if w > floor and w > 0]
    if widths:
        d = 1 - math.floor(math.log10(min(widths)))
    else:
        if not magnitudes:
            return 2
        d = 2 - math.floor(math.log10(max(magnitudes)))
    return int(min(max(d, 0), max_decimals))


def fixed(x: float, decimals: int) -> str:
    """``x`` with ``decimals`` decimals; a value that rounds to zero prints without a sign.

    Examples
    --------
    >>> fixed(0.91234, 3), fixed(-0.0001, 2), fixed(float("nan"), 2), fixed(12.5, 0)
    ('0.912', '0.00', 'nan', '12')
    """
    x = float(x)
    if not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    text = f"{x:.{int(decimals)}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return text
