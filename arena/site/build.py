"""`arena publish`: a static competition site, rewritten only where something changed."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import jinja2

from arena import __version__
from arena.errors import ArenaError, ConfigError
from arena.site.data import RECENT_GAMES, TournamentData, slug, tournament_data
from arena.store import Store, Tournament

STATE_FILE = ".arena-publish.json"  # what each game page was made from, so that it is made only once
CHART_CACHE = ".arena-charts"  # charts already drawn, by a digest of their data
FAULT_WARNING = 0.5  # a bot with faults in at least this share of its games is flagged in the ranking
MAX_FAULTS_LISTED = 200  # faults on one bot's page


@dataclass
class PublishReport:
    """What a publish run did: pages written, pages that were already up to date, game pages that failed."""

    written: int = 0
    unchanged: int = 0
    problems: list[str] = field(default_factory=list)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("arena.site", "templates"),
                             autoescape=jinja2.select_autoescape(["j2", "html"], default_for_string=True),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(num=_num, pct=_pct, date=_date, slug=slug)
    return env


def _num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _date(stamp: float | None) -> str:
    if stamp is None:
        return "–"
    return datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


class _Writer:
    """Writes a file only when its bytes change, and counts what it did."""

    def __init__(self, root: Path, report: PublishReport) -> None:
        self.root = root
        self.report = report

    def write(self, relative: str, text: str) -> None:
        path = self.root / relative
        data = text.encode("utf-8")
        try:
            if path.read_bytes() == data:
                self.report.unchanged += 1
                return
        except FileNotFoundError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_bytes(data)
        os.replace(partial, path)  # a reader never sees half a page
        self.report.written += 1


def _common(heading: str, page_title: str | None = None) -> dict[str, Any]:
    # No publication time on the pages: a page whose games did not change keeps its bytes.
    return {"heading": heading, "page_title": page_title or heading, "version": __version__,
            "fault_warning": FAULT_WARNING}


class _Charts:
    """Draws a chart only when its data changed since the last publish: drawing is the slow part."""

    def __init__(self, root: Path | None) -> None:
        self.root = root

    def get(self, kind: str, inputs: object, draw: Callable[[], str]) -> str:
        if self.root is None:
            return draw()
        key = hashlib.sha256(f"{__version__}:{kind}:{inputs!r}".encode()).hexdigest()[:32]
        path = self.root / f"{key}.svg"
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            pass
        svg = draw()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        return svg


def _charts(data: TournamentData, charts: _Charts) -> dict[str, str]:
    from arena.site import plots  # matplotlib takes a second to import: only when charts are drawn

    rows = data.board.rows + data.board.withheld
    names = [r.bot for r in rows]
    history = {n: data.history.get(n, []) for n in names}
    return {"ratings": charts.get("ratings", rows, lambda: plots.ratings_chart(rows)),
            "history": charts.get("history", history, lambda: plots.history_chart(history, names)),
            "head_to_head": charts.get("h2h", (names, data.head_to_head),
                                       lambda: plots.head_to_head_chart(data.head_to_head, names))}


def leaderboard_page(data: TournamentData, charts: bool = True) -> str:
    """A tournament's leaderboard page on its own (no links to other pages): `arena leaderboard --format html`."""
    return _environment().get_template("tournament.html.j2").render(
        **_common(data.title, f"{data.title}: leaderboard"), t=data, site=False,
        charts=_charts(data, _Charts(None)) if charts and data.board.rows + data.board.withheld else None,
        recent=[], prefix="")


def _tournament_pages(env: jinja2.Environment, data: TournamentData, writer: _Writer, charts: _Charts) -> None:
    recent = sorted(data.games, key=lambda g: -g.seq)[:RECENT_GAMES]
    writer.write(f"{data.slug}/index.html", env.get_template("tournament.html.j2").render(
        **_common(data.title), t=data, site=True, charts=_charts(data, charts) if data.history else None,
        recent=recent, prefix=""))
    rows = {r.bot: r for r in (*data.board.rows, *data.board.withheld)}
    from arena.site import plots

    for name, bot in data.bots.items():
        games = sorted((g for g in data.games if any(s["bot"] == name for s in g.seats)), key=lambda g: -g.seq)
        faults = data.faults.get(name, [])
        history = {name: data.history.get(name, [])}
        chart = charts.get("history", history, lambda: plots.history_chart(history, [name])) if history[name] else None
        writer.write(f"{data.slug}/bots/{bot.slug}.html", env.get_template("bot.html.j2").render(
            **_common(name, f"{name} in {data.title}"), t=data, bot=bot, row=rows.get(name), chart=chart,
            faults=faults[:MAX_FAULTS_LISTED], faults_total=len(faults), games=games[:RECENT_GAMES]))


def _game_pages(data: TournamentData, results_dir: Path, writer: _Writer, state: dict[str, str],
                render: Callable[[Path, tuple[str, str]], str]) -> None:
    for game in data.games:
        if not game.replay:
            continue
        source = Path(game.replay) if Path(game.replay).is_absolute() else results_dir / game.replay
        relative = f"{data.slug}/games/{game.id}.html"
        try:
            stat = source.stat()
        except OSError:
            writer.report.problems.append(f"game {game.id}: its replay {str(source)!r} is missing")
            continue
        stamp = f"{source}:{stat.st_size}:{stat.st_mtime_ns}:{__version__}:{data.title}"
        if state.get(relative) == stamp and (writer.root / relative).is_file():
            writer.report.unchanged += 1
            continue
        try:
            writer.write(relative, render(source, ("../index.html", data.title)))
        except ArenaError as exc:
            writer.report.problems.append(f"game {game.id}: {exc}")
            continue
        state[relative] = stamp


def _load_state(out: Path) -> dict[str, str]:
    try:
        state = json.loads((out / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _select(store: Store, names: Sequence[str]) -> list[Tournament]:
    everything = store.tournaments()
    if not names:
        return everything
    known = {t.name: t for t in everything}
    missing = [n for n in names if n not in known]
    if missing:
        listed = ", ".join(sorted(known)) or "none"
        raise ConfigError(f"no tournament {', '.join(map(repr, missing))} in {str(store.path)!r}; "
                          f"the tournaments there: {listed}")
    return [known[n] for n in names]


def publish(store: Store, results_dir: Path, out: Path, names: Sequence[str] = (), title: str | None = None,
            max_fault_rate: float | None = None,
            render_game: Callable[[Path, tuple[str, str]], str] | None = None,
            progress: Callable[[str], None] = lambda _: None) -> PublishReport:
    """Write (or bring up to date) the static site of the store's tournaments under out."""
    report = PublishReport()
    writer = _Writer(out, report)
    env = _environment()
    state = _load_state(out)
    tournaments = [tournament_data(store, t, max_fault_rate) for t in _select(store, names)]
    heading = title or "Bali tournaments"
    writer.write("index.html", env.get_template("index.html.j2").render(**_common(heading), tournaments=tournaments))
    for data in tournaments:
        progress(f"{data.title}: {len(data.bots)} bots, {len(data.games)} games")
        _tournament_pages(env, data, writer, _Charts(out / CHART_CACHE))
        if render_game is not None:
            _game_pages(data, results_dir, writer, state, render_game)
    writer.write(STATE_FILE, json.dumps(state, sort_keys=True, indent=0))
    return report
