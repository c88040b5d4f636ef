"""Numbers as a paper prints them: :mod:`benchverdict.report.numbers`, under the paper kit's name.

The rules live in the report package (the report's results table uses them);
this module gives them their paper-kit address.

Examples
--------
>>> fixed(0.91234, decimals_for([0.013]))
'0.912'
"""

from __future__ import annotations

from benchverdict.report.numbers import (
    LARGE_EXPONENT,
    MAX_DECIMALS,
    RELATIVE_NOISE,
    SMALL_EXPONENT,
    decimals_for,
    fixed,
    scale_exponent,
)

__all__ = ["LARGE_EXPONENT", "MAX_DECIMALS", "RELATIVE_NOISE", "SMALL_EXPONENT", "decimals_for",
           "fixed", "scale_exponent"]
