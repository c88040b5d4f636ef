"""Colour differences as a reader sees them, with and without colour-vision deficiency.

Two pieces, enough to check that a figure's colours can be told apart:

- :func:`ciede2000`: the CIEDE2000 colour difference (Sharma, Wu and Dalal
  2005) between CIELAB colours. About 1 is a just-noticeable difference; two
  lines of a plot need far more to be told apart at a glance.
- :func:`simulate_cvd`: how an sRGB colour looks under full protanopia,
  deuteranopia or tritanopia, by the model of Machado, Oliveira and Fernandes
  (2009, severity 1): a 3x3 matrix applied in linear RGB. A palette that
  survives the full dichromacies also survives the milder, more common
  anomalous trichromacies.

sRGB is converted to CIELAB through CIE XYZ with the D65 white point
(IEC 61966-2-1).
"""

from __future__ import annotations

import numpy as np

#: Machado et al. (2009), severity 1.0, applied to linear RGB.
CVD_MATRICES: dict[str, np.ndarray] = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
#: The visions a palette is checked under: normal and the two red-green dichromacies
#: (about 99% of colour-vision deficiency; tritanopia is rare).
VISIONS = ("normal", "deuteranopia", "protanopia")

_RGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                        [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])
_D65 = np.array([0.95047, 1.0, 1.08883])


def _linear(rgb: np.ndarray) -> np.ndarray:
    rgb = np.asarray(rgb, dtype=float)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _gamma(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(linear, 0.0, 1.0)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def simulate_cvd(rgb, vision: str) -> np.ndarray:
    """The sRGB colour(s) ``rgb`` (values in [0, 1], last axis RGB) as seen under ``vision``.

    ``vision`` is ``"normal"`` (returned unchanged) or a key of :data:`CVD_MATRICES`.

    Examples
    --------
    >>> simulate_cvd([0.5, 0.5, 0.5], "deuteranopia").round(3).tolist()  # greys stay grey
    [0.5, 0.5, 0.5]
    """
    rgb = np.asarray(rgb, dtype=float)
    if vision == "normal":
        return rgb
    if vision not in CVD_MATRICES:
        raise ValueError(f"vision must be 'normal' or one of {sorted(CVD_MATRICES)}, "
                         f"not {vision!r}")
    return _gamma(_linear(rgb) @ CVD_MATRICES[vision].T)


def srgb_to_lab(rgb) -> np.ndarray:
    """CIELAB (D65) of sRGB colour(s) in [0, 1].

    Examples
    --------
    >>> srgb_to_lab([1.0, 0.0, 0.0]).round(2).tolist()
    [53.24, 80.09, 67.2]
    """
    xyz = _linear(rgb) @ _RGB_TO_XYZ.T / _D65
    delta = 6 / 29
    f = np.where(xyz > delta ** 3, np.cbrt(xyz), xyz / (3 * delta ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]),
                     200 * (f[..., 1] - f[..., 2])], axis=-1)


def ciede2000(lab1, lab2) -> np.ndarray:
    """The CIEDE2000 difference between CIELAB colours (broadcasting over leading axes).

    Follows Sharma, Wu and Dalal (2005), with k_L = k_C = k_H = 1.

    Examples
    --------
    >>> float(ciede2000([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485]).round(4))
    2.0425
    """
    lab1 = np.asarray(lab1, dtype=float)
    lab2 = np.asarray(lab2, dtype=float)
    L1, a1, b1 = np.moveaxis(lab1, -1, 0)
    L2, a2, b2 = np.moveaxis(lab2, -1, 0)
    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_bar ** 7 / (c_bar ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    h1p = np.where(c1p == 0, 0.0, h1p)
    h2p = np.where(c2p == 0, 0.0, h2p)
    dl = L2 - L1
    dc = c2p - c1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(c1p * c2p == 0, 0.0, dh)
    dH = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    l_bar = (L1 + L2) / 2
    cp_bar = (c1p + c2p) / 2
    h_sum = h1p + h2p
    h_bar = np.where(np.abs(h1p - h2p) > 180,
                     np.where(h_sum < 360, (h_sum + 360) / 2, (h_sum - 360) / 2), h_sum / 2)
    h_bar = np.where(c1p * c2p == 0, h_sum, h_bar)
    t = (1 - 0.17 * np.cos(np.radians(h_bar - 30)) + 0.24 * np.cos(np.radians(2 * h_bar))
         + 0.32 * np.cos(np.radians(3 * h_bar + 6)) - 0.20 * np.cos(np.radians(4 * h_bar - 63)))
    d_theta = 30 * np.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * np.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25.0 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / np.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -np.sin(np.radians(2 * d_theta)) * r_c
    return np.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (dH / s_h) ** 2
                   + r_t * (dc / s_c) * (dH / s_h))


def min_pairwise_difference(colours, visions=VISIONS) -> float:
    """The smallest CIEDE2000 difference between any two of ``colours`` under any vision.

    ``colours`` are sRGB triples in [0, 1]. With fewer than two colours: ``inf``.

    Examples
    --------
    >>> round(min_pairwise_difference([(0, 0, 0), (1, 1, 1)]), 1)
    100.0
    """
    rgb = np.asarray(colours, dtype=float).reshape(-1, 3)
    if len(rgb) < 2:
        return float("inf")
    i, j = np.triu_indices(len(rgb), k=1)
    worst = np.inf
    for vision in visions:
        lab = srgb_to_lab(simulate_cvd(rgb, vision))
        worst = min(worst, float(ciede2000(lab[i], lab[j]).min()))
    return worst


#: The report's relation kinds and their (background, text) colours (Okabe-Ito, colour-blind
#: safe): the report's matrix, the pairwise-matrix figure and the table read alike.
RELATION_COLOURS = {
    "better": ("#0072B2", "#ffffff"),
    "worse": ("#D55E00", "#ffffff"),
    "implied better": ("#9ccbe8", "#1d1d1f"),
    "implied worse": ("#f2b58f", "#1d1d1f"),
    "equivalent": ("#009E73", "#ffffff"),
    "contradicted": ("#CC79A7", "#1d1d1f"),
    "power gap": ("#F0E442", "#1d1d1f"),
    "unsettled": ("#e6e6e6", "#1d1d1f"),
}
