"""`arena publish`: a static competition site, rewritten only where something changed."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import jinja2

from arena import __version__
from arena.errors import ArenaError, ConfigError
from arena.interrupt import die_with
from arena.match.seeds import PUBLIC_NOTE
from arena.site.data import RECENT_GAMES, TournamentData, slug, tournament_data, tournament_title
from arena.storage import Store, Tournament

STATE_FILE = ".arena-publish.json"  # what each game page and game list was made from: each is made only once
CHART_CACHE = ".arena-charts"  # charts already drawn, by a digest of their data
RATINGS_CACHE = ".arena-ratings"  # each tournament's rating history, so that only new games are rated
FAULT_WARNING = 0.5  # a bot with faults in at least this share of its games is flagged in the ranking
MAX_FAULTS_LISTED = 200  # faults on one bot's page
GAMES_PER_LIST = 500  # games on one page of a tournament's list of every game
PARALLEL_FROM = 256  # game pages to make before worker processes are worth starting (each imports the viewer)
PAGES_PER_TASK = 64  # game pages a worker is sent at a time
ASSETS = "assets"  # the folder of the scripts and styles every game page links to


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
    env.globals["public_note"] = PUBLIC_NOTE
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
        if write_if_changed(self.root / relative, text):
            self.report.written += 1
        else:
            self.report.unchanged += 1


def write_if_changed(path: Path, text: str) -> bool:
    """Write text to path unless the file holds it already; True if it was written."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, path)  # a reader never sees half a page
    return True


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


@dataclass(frozen=True)
class _ListPage:
    """One page of a tournament's list of every game: its file and the game numbers it lists."""

    file: str
    first: int
    last: int


def _game_lists(env: jinja2.Environment, data: TournamentData, writer: _Writer,
                state: dict[str, str]) -> list[_ListPage]:
    """Every game listed, GAMES_PER_LIST to a page in schedule order: adding games changes only the last page,
    and a page whose games and links are those it was made from is not made again."""
    chunks = [data.games[i:i + GAMES_PER_LIST] for i in range(0, len(data.games), GAMES_PER_LIST)]
    pages = [_ListPage(f"games-{n}.html", chunk[0].seq + 1, chunk[-1].seq + 1) for n, chunk in enumerate(chunks, 1)]
    for page, chunk in zip(pages, chunks):
        relative = f"{data.slug}/{page.file}"
        stamp = hashlib.sha256(f"{__version__}:{data.title}:{pages!r}:{chunk!r}".encode()).hexdigest()
        if state.get(relative) == stamp and (writer.root / relative).is_file():
            writer.report.unchanged += 1
            continue
        writer.write(relative, env.get_template("game_list.html.j2").render(
            **_common(f"{data.title}: games {page.first}–{page.last}"), t=data, games=chunk, lists=pages,
            current=page.file))
        state[relative] = stamp
    return pages


def _tournament_pages(env: jinja2.Environment, data: TournamentData, writer: _Writer, charts: _Charts,
                      state: dict[str, str], bot_output: bool) -> None:
    recent = sorted(data.games, key=lambda g: -g.seq)[:RECENT_GAMES]
    lists = _game_lists(env, data, writer, state)
    writer.write(f"{data.slug}/index.html", env.get_template("tournament.html.j2").render(
        **_common(data.title), t=data, site=True, charts=_charts(data, charts) if data.history else None,
        recent=recent, prefix="", lists=lists, current=None))
    rows = {r.bot: r for r in (*data.board.rows, *data.board.withheld)}
    from arena.site import plots

    for name, bot in data.bots.items():
        games = sorted((g for g in data.games if any(s["bot"] == name for s in g.seats)), key=lambda g: -g.seq)
        faults = data.faults.get(name, [])
        history = {name: data.history.get(name, [])}
        chart = charts.get("history", history, lambda: plots.history_chart(history, [name])) if history[name] else None
        shown = [f if bot_output else replace(f, detail="", stderr_tail="") for f in faults[:MAX_FAULTS_LISTED]]
        writer.write(f"{data.slug}/bots/{bot.slug}.html", env.get_template("bot.html.j2").render(
            **_common(name, f"{name} in {data.title}"), t=data, bot=bot, row=rows.get(name), chart=chart,
            faults=shown, faults_total=len(faults), games=games[:RECENT_GAMES], bot_output=bot_output))


@dataclass(frozen=True)
class GamePage:
    """One game page to make: the replay file it is drawn from, the page's path, its link back, and whether it
    holds what the bots wrote (their logs, fault details and stderr tails)."""

    source: str
    target: str
    back: tuple[str, str]
    bot_output: bool = False
    heading: str | None = None  # which game it is, as the site numbers it (default: as its record does)


def make_game_page(page: GamePage) -> tuple[bool, str | None]:
    """Draw one game page and write it if its bytes changed: (written, the problem if it could not be made).

    The page holds the game's record, and the browser re-plays it (and says so if it does not reproduce): nothing
    is re-simulated here, so that a store of many long games publishes quickly."""
    from arena.match.record import load_record
    from arena.viewer import render_replay  # the viewer is only needed for game pages

    try:
        text = render_replay(load_record(Path(page.source)), back=page.back, linked=f"../../{ASSETS}/", check=False,
                             bot_output=page.bot_output, heading=page.heading)
    except ArenaError as exc:
        return False, str(exc)
    return write_if_changed(Path(page.target), text), None


def _ignore_interrupts(coordinator: int) -> None:
    """A page worker: dies with the publishing process, and leaves Ctrl-C to it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with(coordinator)


class _GamePages:
    """The game pages to make, started at once, in `jobs` worker processes when there are enough of them, so that
    they are made while this process rates the games and writes the tournaments' pages; collect() takes what
    making each did, in order."""

    def __init__(self, pending: list[tuple[GamePage, str]], jobs: int) -> None:
        self.pending = pending
        self.pool: ProcessPoolExecutor | None = None
        pages = [page for page, _ in pending]
        self.results: Iterator[tuple[bool, str | None]]
        if jobs > 1 and len(pages) >= PARALLEL_FROM:
            self.pool = ProcessPoolExecutor(jobs, mp_context=get_context("spawn"), initializer=_ignore_interrupts,
                                            initargs=(os.getpid(),))
            self.results = self.pool.map(make_game_page, pages, chunksize=PAGES_PER_TASK)  # every page sent now
        else:
            self.results = (make_game_page(page) for page in pages)

    def collect(self, writer: _Writer, state: dict[str, str], on_page: Callable[[int, int], None]) -> None:
        """Count each page and keep its stamp in state as its result comes; on_page is told how many are done."""
        total = len(self.pending)
        on_page(0, total)
        for done, ((page, stamp), (written, problem)) in enumerate(zip(self.pending, self.results), start=1):
            if problem is not None:
                writer.report.problems.append(f"game {Path(page.target).stem}: {problem}")
            else:
                writer.report.written += written
                writer.report.unchanged += not written
                state[str(Path(page.target).relative_to(writer.root))] = stamp
            on_page(done, total)

    def close(self) -> None:
        """Stop the workers; interrupted, the pages under way finish and no more start."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _assets(writer: _Writer) -> None:
    from arena.viewer import assets

    for name, text in assets().items():
        writer.write(f"{ASSETS}/{name}", text)


def _pending_pages(store: Store, tournaments: list[Tournament], results_dir: Path, writer: _Writer,
                   state: dict[str, str], bot_output: bool) -> list[tuple[GamePage, str]]:
    """The game pages that are missing or were made from other inputs, each with the stamp of its inputs."""
    from arena.viewer.data import PAGE_VERSION

    pending: list[tuple[GamePage, str]] = []
    for t in tournaments:
        title, folder = tournament_title(t), slug(t.name)
        for number, replay in store.game_replays(t.id):
            source = Path(replay) if Path(replay).is_absolute() else results_dir / replay
            relative = f"{folder}/games/{number}.html"
            try:
                stat = source.stat()
            except OSError:
                writer.report.problems.append(f"game {number}: its replay {str(source)!r} is missing")
                continue
            stamp = (f"{source}:{stat.st_size}:{stat.st_mtime_ns}:{__version__}:{PAGE_VERSION}:{title}:{bot_output}:"
                     f"game {number}")
            if state.get(relative) == stamp and (writer.root / relative).is_file():
                writer.report.unchanged += 1
                continue
            pending.append((GamePage(str(source), str(writer.root / relative), ("../index.html", title), bot_output,
                                     f"game {number} of {title}"), stamp))
    return pending


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
            max_fault_rate: float | None = None, game_pages: bool = False, jobs: int | None = None,
            progress: Callable[[str], None] = lambda _: None,
            on_page: Callable[[int, int], None] = lambda done, total: None,
            bot_output: bool = False) -> PublishReport:
    """Write (or bring up to date) the static site of the store's tournaments under out; with game_pages, a
    replay page per game too, drawn by `jobs` worker processes (default: one per CPU) while the tournaments' pages
    are written. on_page is told the game pages made of those to make. Without bot_output, the site holds no
    text a bot wrote but its (escaped) handshake name and version: no decision logs, fault details or stderr
    tails, which a bot could fill with whatever it read."""
    report = PublishReport()
    writer = _Writer(out, report)
    env = _environment()
    state = _load_state(out)
    selected = _select(store, names)
    pages: _GamePages | None = None
    try:
        if game_pages:
            _assets(writer)
            pages = _GamePages(_pending_pages(store, selected, results_dir, writer, state, bot_output),
                               jobs or len(os.sched_getaffinity(0)))
        tournaments = [tournament_data(store, t, max_fault_rate, out / RATINGS_CACHE) for t in selected]
        heading = title or "Bali tournaments"
        writer.write("index.html", env.get_template("index.html.j2").render(**_common(heading),
                                                                            tournaments=tournaments))
        for data in tournaments:
            progress(f"{data.title}: {len(data.bots)} bots, {len(data.games)} games")
            _tournament_pages(env, data, writer, _Charts(out / CHART_CACHE), state, bot_output)
        if pages is not None:
            pages.collect(writer, state, on_page)
    finally:
        if pages is not None:
            pages.close()
        # Kept even when interrupted, so that the pages already made are not made again.
        writer.write(STATE_FILE, json.dumps(state, sort_keys=True, indent=0))
    return report
