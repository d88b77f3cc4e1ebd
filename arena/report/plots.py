"""The report's figures, drawn by matplotlib and returned as inline SVG text.

No display and no pyplot state: each figure is a `matplotlib.figure.Figure` saved with the SVG
backend (text kept as text, no date, a fixed hash salt, so the same data gives the same SVG).
Colours for the HTML heat maps come from matplotlib colormaps too (`heat_colour`).
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib
import numpy as np
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

__all__ = ["elo_svg", "heat_colour", "move_times_svg", "text_colour"]

_RC: Any = {
    "svg.fonttype": "none",  # text stays text: small, searchable, no glyph paths
    "svg.hashsalt": "cxarena",
    "font.size": 9,
    "font.family": "sans-serif",
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_HEAT = "RdYlGn"


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    start = text.find("<svg")  # drop the XML prolog and DOCTYPE: the SVG goes inline
    return text[start:] if start >= 0 else text


def heat_colour(fraction: float) -> str:
    """The heat map colour (hex) of a score fraction 0..1 (red = lost all, green = won all)."""
    if math.isnan(fraction):
        return "#eeeeee"
    return str(to_hex(_heat_map()(min(1.0, max(0.0, fraction)))))


@functools.cache
def _heat_map() -> Any:
    return matplotlib.colormaps[_HEAT]  # a copy each time it is looked up: keep one


def text_colour(background_hex: str) -> str:
    """Black or white, whichever reads better on `background_hex`."""
    r, g, b = (int(background_hex[i:i + 2], 16) / 255.0 for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "#ffffff"


def elo_svg(players: Sequence[str], elo: Sequence[float], ci95: Sequence[float]) -> str:
    """Each player's Elo (mean 0) with its 95 % interval, best at the top."""
    n = len(players)
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(6.5, 0.9 + 0.32 * max(n, 1)))
        ax = fig.add_subplot()
        y = np.arange(n)[::-1]
        err = [c if math.isfinite(c) else 0.0 for c in ci95]
        ax.errorbar(elo, y, xerr=err, fmt="o", color="#1f5fa8", ecolor="#7aa6d6",
                    elinewidth=3, capsize=4, markersize=6)
        for yi, e, c in zip(y, elo, err, strict=True):
            ax.annotate(f"{e:+.0f} ± {c:.0f}", (e + c, yi), xytext=(6, 0),
                        textcoords="offset points", va="center", fontsize=8, color="#333")
        ax.axvline(0.0, color="#999", linewidth=0.8, linestyle=":")
        ax.set_yticks(y, list(players))
        ax.set_ylim(-0.7, n - 0.3)
        ax.set_xlabel("Elo (mean 0), with 95 % interval")
        lo = min((e - c for e, c in zip(elo, err, strict=True)), default=-100.0)
        hi = max((e + c for e, c in zip(elo, err, strict=True)), default=100.0)
        pad = max(40.0, 0.25 * (hi - lo))
        ax.set_xlim(lo - 0.3 * pad, hi + pad)
        ax.grid(axis="x", color="#e5e5e5", linewidth=0.6)
        return _svg(fig)


def move_times_svg(times_ms: Mapping[str, np.ndarray], limit_ms: float | None,
                   grace_ms: float | None = None) -> str:
    """One histogram per player of its move times (log scale), with the time limit marked."""
    players = list(times_ms)
    n = len(players)
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(6.5, 0.6 + 0.75 * max(n, 1)))
        if n == 0:
            ax = fig.add_subplot()
            ax.text(0.5, 0.5, "no moves", ha="center", va="center")
            ax.set_axis_off()
            return _svg(fig)
        axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
        positive = [t[t > 0] for t in times_ms.values() if t.size]
        lo = min((float(p.min()) for p in positive if p.size), default=0.01)
        hi = max((float(p.max()) for p in positive if p.size), default=1.0)
        lo = max(min(lo, (limit_ms or hi) / 100.0), 1e-3)
        hi = max(hi, limit_ms or hi) * 1.3
        bins = np.geomspace(lo, hi, 60)
        for ax, p in zip(axes, players, strict=True):
            t = np.clip(times_ms[p], lo, hi)
            if t.size:  # one filled step artist, not one patch per bin: fast to draw
                counts, _ = np.histogram(t, bins=bins)
                ax.stairs(counts, bins, fill=True, color="#4c78a8")
            if limit_ms:
                ax.axvline(limit_ms, color="#c0392b", linewidth=1.2)
                if grace_ms:
                    ax.axvspan(limit_ms, limit_ms + grace_ms, color="#c0392b", alpha=0.15,
                               linewidth=0)
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(LogLocator(base=10.0))
            ax.xaxis.set_minor_locator(NullLocator())  # minor ticks cost most of the drawing
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))  # no mathtext
            ax.set_yticks([])
            ax.spines["left"].set_visible(False)
            ax.set_ylabel(p, rotation=0, ha="right", va="center")
            raw = times_ms[p]
            if raw.size:
                mx = float(raw.max())
                note = f"p99 {np.percentile(raw, 99):.3g} ms, max {mx:.3g} ms"
                if limit_ms:
                    note += f" ({100.0 * mx / limit_ms:.0f} % of limit)"
            else:
                note = "no moves"
            ax.text(1.02, 0.5, note.replace(", max", "\nmax", 1), transform=ax.transAxes,
                    ha="left", va="center", fontsize=7, color="#333")
        axes[-1].set_xlabel("time per move (ms, log scale)" + (
            f"; red line: the {limit_ms:g} ms limit" if limit_ms else ""))
        return _svg(fig)
