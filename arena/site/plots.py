"""The site's charts, drawn by matplotlib as inline SVG: they work offline and need no script."""

from __future__ import annotations

import io
from typing import Mapping, Sequence

import matplotlib
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from arena.site.data import Point
from arena.tournament.leaderboard import Row

matplotlib.rcParams.update({
    "svg.hashsalt": "bali-arena",  # the same data gives the same bytes, so republishing rewrites nothing
    "svg.fonttype": "none",  # text stays text: smaller files that scale and can be searched
    "font.size": 9,
})
MAX_POINTS = 1000  # points drawn per line of a history chart: a chart is about 600 px wide
_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
            "#17becf")


def _svg(figure: Figure) -> str:
    out = io.StringIO()
    figure.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = out.getvalue()
    # Drop the XML prologue and make the drawing scale with the page.
    start = text.index("<svg")
    return text[start:].replace('<svg ', '<svg class="chart" preserveAspectRatio="xMinYMin meet" ', 1)


def ratings_chart(rows: Sequence[Row]) -> str:
    """Each bot's mu with its conservative interval mu - 3 sigma .. mu + 3 sigma, best at the top."""
    figure = Figure(figsize=(6.4, 0.35 * max(len(rows), 2) + 0.8))
    axes = figure.subplots()
    names = [r.bot for r in rows][::-1]
    mus = [r.mu for r in rows][::-1]
    spans = [3 * r.sigma for r in rows][::-1]
    axes.errorbar(mus, range(len(rows)), xerr=spans, fmt="o", color=_PALETTE[0], ecolor="#9bbbd6", capsize=3)
    axes.set_yticks(range(len(rows)), names)
    axes.set_xlabel("rating: mu, with mu ± 3 sigma")
    axes.grid(axis="x", alpha=0.3)
    return _svg(figure)


def history_chart(history: Mapping[str, Sequence[Point]], names: Sequence[str]) -> str:
    """Every bot's mu after each game it played, over the tournament's games."""
    figure = Figure(figsize=(6.4, 3.4))
    axes = figure.subplots()
    for i, name in enumerate(names):
        points = _thin(history.get(name, ()))
        if points:
            axes.plot([p.game for p in points], [p.mu for p in points], label=name, linewidth=1.2,
                      color=_PALETTE[i % len(_PALETTE)])
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("games played in the tournament")
    axes.set_ylabel("mu")
    axes.grid(alpha=0.3)
    if names:
        axes.legend(fontsize=7, loc="best", ncols=2 if len(names) > 6 else 1)
    return _svg(figure)


def _thin(points: Sequence[Point], limit: int = MAX_POINTS) -> Sequence[Point]:
    """At most about `limit` points drawn the same at a chart's size: each run of points keeps its lowest and
    highest, so that no peak is lost, and the last point stays."""
    if len(points) <= limit:
        return points
    run = -(-2 * len(points) // limit)
    kept: list[Point] = []
    for start in range(0, len(points), run):
        chunk = points[start:start + run]
        low, high = min(chunk, key=lambda p: p.mu), max(chunk, key=lambda p: p.mu)
        kept += sorted({low, high}, key=lambda p: p.game)
    return kept if kept[-1] == points[-1] else [*kept, points[-1]]


def head_to_head_chart(matrix: Mapping[str, Mapping[str, tuple[int, int]]], names: Sequence[str]) -> str:
    """A heat map: the share of their games together in which the row's bot finished ahead of the column's."""
    size = max(len(names), 2)
    figure = Figure(figsize=(1.2 + 0.55 * size, 0.9 + 0.5 * size))
    axes = figure.subplots()
    cells = [[_share(matrix, a, b) for b in names] for a in names]
    image = axes.imshow([[float("nan") if c is None else c for c in row] for row in cells], cmap="RdYlGn",
                        vmin=0, vmax=1)
    for i, row in enumerate(cells):
        for j, share in enumerate(row):
            if share is not None:
                axes.text(j, i, f"{100 * share:.0f}", ha="center", va="center", fontsize=7)
    axes.set_xticks(range(len(names)), names, rotation=45, ha="right")
    axes.set_yticks(range(len(names)), names)
    axes.set_xlabel("finished behind the row's bot (% of games together)")
    figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)
    return _svg(figure)


def _share(matrix: Mapping[str, Mapping[str, tuple[int, int]]], a: str, b: str) -> float | None:
    ahead, together = matrix.get(a, {}).get(b, (0, 0))
    return ahead / together if together else None
