"""Colour arithmetic for the accessibility tests: WCAG 2 contrast, simulated colour
vision deficiencies and the CIEDE2000 colour difference. Test-only (the app never
imports it); numpy only.

* WCAG 2.1 contrast ratio (1.4.3, 1.4.11): (L1 + 0.05) / (L2 + 0.05) of the relative
  luminances L = 0.2126 R + 0.7152 G + 0.0722 B of the linearised sRGB channels.
* Protanopia and deuteranopia: Machado, Oliveira and Fernandes (2009), "A
  physiologically-based model for simulation of color vision deficiency", IEEE TVCG
  15(6), the matrices for severity 1.0 (complete dichromacy), applied to linear RGB.
* CIEDE2000 (ΔE00): Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference
  formula: implementation notes", with CIELAB from sRGB under D65.
"""

from __future__ import annotations

import math
import re

import numpy as np

# Machado et al. (2009), Table 1, severity 1.0; rows give linear R', G', B'.
MACHADO = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
}
VISIONS = ("normal", "protanopia", "deuteranopia")

_NAMED = {"black": "#000000", "white": "#ffffff", "gray": "#808080", "grey": "#808080"}
_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_FUNC = re.compile(r"rgba?\(([^)]*)\)")


def parse(colour: str) -> tuple[np.ndarray, float]:
    """A CSS colour as Plotly takes it (#rgb, #rrggbb, rgb(), rgba(), a few names)
    -> (sRGB in 0..1, alpha)."""
    text = _NAMED.get(colour.strip().lower(), colour.strip())
    if m := _HEX.fullmatch(text):
        h = m.group(1)
        h = "".join(c * 2 for c in h) if len(h) == 3 else h
        return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)]) / 255.0, 1.0
    if m := _FUNC.fullmatch(text):
        parts = [float(p) for p in m.group(1).split(",")]
        return np.array(parts[:3]) / 255.0, parts[3] if len(parts) == 4 else 1.0
    raise ValueError(f"unknown colour {colour!r}")


def over(colour: str, background: str = "#ffffff", opacity: float = 1.0) -> np.ndarray:
    """The sRGB a colour shows on ``background`` with its alpha times ``opacity``
    (the browser blends in sRGB)."""
    rgb, alpha = parse(colour)
    a = alpha * opacity
    return a * rgb + (1 - a) * parse(background)[0]


def linear(srgb: np.ndarray) -> np.ndarray:
    srgb = np.asarray(srgb, dtype=float)
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def gamma(lin: np.ndarray) -> np.ndarray:
    lin = np.clip(lin, 0.0, 1.0)
    return np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)


def luminance(srgb: np.ndarray) -> float:
    return float(np.dot([0.2126, 0.7152, 0.0722], linear(srgb)))


def contrast(a: np.ndarray, b: np.ndarray) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (1 … 21)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def simulate(srgb: np.ndarray, vision: str) -> np.ndarray:
    """The sRGB colour as seen with ``vision`` (Machado et al. 2009, severity 1)."""
    if vision == "normal":
        return np.asarray(srgb, dtype=float)
    return gamma(MACHADO[vision] @ linear(srgb))


_RGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                        [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])
_WHITE = np.array([0.95047, 1.0, 1.08883])  # D65


def lab(srgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour."""
    xyz = _RGB_TO_XYZ @ linear(srgb) / _WHITE
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e2000(lab1, lab2) -> float:
    """CIEDE2000 colour difference of two CIELAB colours (kL = kC = kH = 1)."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dLp, dCp = L2 - L1, c2p - c1p
    if c1p * c2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    else:
        dhp = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    dHp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    Lp, Cp = (L1 + L2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hp = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp = (h1p + h2p) / 2
    else:
        hp = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hp - 30)) + 0.24 * math.cos(math.radians(2 * hp))
         + 0.32 * math.cos(math.radians(3 * hp + 6)) - 0.20 * math.cos(math.radians(4 * hp - 63)))
    d_theta = 30 * math.exp(-(((hp - 275) / 25) ** 2))
    rc = 2 * math.sqrt(Cp**7 / (Cp**7 + 25**7))
    sl = 1 + 0.015 * (Lp - 50) ** 2 / math.sqrt(20 + (Lp - 50) ** 2)
    sc = 1 + 0.045 * Cp
    sh = 1 + 0.015 * Cp * t
    rt = -math.sin(math.radians(2 * d_theta)) * rc
    return math.sqrt((dLp / sl) ** 2 + (dCp / sc) ** 2 + (dHp / sh) ** 2
                     + rt * (dCp / sc) * (dHp / sh))


def difference(a: np.ndarray, b: np.ndarray, vision: str = "normal") -> float:
    """ΔE00 between two sRGB colours as seen with ``vision``."""
    return delta_e2000(lab(simulate(a, vision)), lab(simulate(b, vision)))
