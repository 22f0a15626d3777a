"""What `arena serve` answers, as a library: who is asking (a token or a signed session), uploads, statuses, the
leaderboard, a bot's public page and games, and a game's log or replay page for its author and the organiser only.
The web layer (arena/server/app.py) only turns requests into these calls and their results into responses."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from arena.competition import access, names
from arena.competition.season import SeasonSettings, first_game_record, pause_reason, shown_to_author
from arena.competition.uploads import UploadLimits, UploadRefused, check_rate, discard, kept, receive
from arena.errors import ArenaError, ConfigError
from arena.kits import Language, archive
from arena.match.record import GameRecord, load_record
from arena.server.events import STREAM_SECONDS
from arena.server.limits import BODY_SECONDS
from arena.site.build import ASSETS
from arena.site.data import RECENT_GAMES, LiveHistory, Point, slug
from arena.site.markdown import rules_html
from arena.storage import Store, StoredGameRow, Tournament, replay_path
from arena.storage.authors import Author, Session, SessionSource, Status, Submission, check_author_name
from arena.storage.keys import bot_of
from arena.tournament.competition_file import About
from arena.tournament.leaderboard import ranked_rows, row_json, tournament_board
from arena.tournament.rivals import head_to_head

log = logging.getLogger("arena.serve")

SESSION_SECONDS = 14 * 24 * 3600
MAX_GAMES_LISTED = 200  # a bot's most recent games in a list
MAX_FAULTY_GAMES = 50  # of those, the games whose faults are listed
BOARD_DIGITS = 4  # decimals of a served board's figures
BOARD_CHART_BOTS = 8  # the leading bots the front page's chart draws
CLOSE_WAIT = 30.0  # seconds a stop waits for the leaderboard's thread to end
CHART_EVERY = 10.0  # seconds at least between two drawings of the front page's chart
BOARD_LOOK = 1.0  # seconds between two looks for a change of the ranking
MAX_SECRET = 200  # characters of a session id, sign-in code or token looked up (longer ones are none of them)
GAME_PAGES = 64  # game pages kept made (a stored game never changes)
CHARTS = 64  # bots' rating charts kept drawn, each under the data it was drawn from
BOT_PAGES = "/bots/"  # where a bot's public page is served: BOT_PAGES + slug(its name)
TEMP_PREFIX = "arena-upload-"  # an upload's raw archive waits in a temp folder named so, then the store's digest
STOPPING = "the server is stopping, and your upload was not queued: send it again once the server is back"
MAX_NUMBER = 2**62  # no game number beyond this is looked up (SQLite's integers end at 2**63)
Board = tuple[tuple[int, int, int], list[dict[str, Any]]]  # a ranking, and the store's state it was made from


@dataclass(frozen=True)
class PublicBot:
    """A bot's public page as the store holds it now: its rows of the board (none once retired), its versions in
    the ladder, its latest games and its rating chart. Nothing a bot wrote but its name and version."""

    name: str
    rows: list[dict[str, Any]]
    versions: list[dict[str, Any]]  # {"name": its key on the board, "version", "retired"}, oldest first
    games: list[dict[str, Any]]  # as games_of gives them, newest first
    chart: str | None  # an SVG drawing, None before its first game
    paused: str | None = None  # why its current version sits out, if it does
    rivals: list[dict[str, Any]] = field(default_factory=list)  # head to head with each rival (rivals.head_to_head)


class Hosting:
    """A served competition: its settings, upload limits, and a store connection per serving thread."""

    def __init__(self, settings: SeasonSettings, limits: UploadLimits = UploadLimits(),
                 body_seconds: float = BODY_SECONDS, stream_seconds: float = STREAM_SECONDS,
                 about: About = About()) -> None:
        self.settings = settings
        self.about = about
        self.limits = limits
        self.body_seconds = body_seconds
        self.stream_seconds = stream_seconds
        self._local = threading.local()
        self._naming = threading.Lock()  # one upload's name checked and taken at a time
        self._stopping = threading.Event()  # the server is stopping: no upload is queued
        self._uploading: dict[int, threading.Lock] = {}  # per author: one upload of theirs at a time
        self._tokens: dict[bytes, tuple[int, bytes]] = {}  # sha256 of a token checked once -> (author id, hash)
        self._board: Board | None = None  # the last ranking, and when
        self._board_lock = threading.Lock()
        self._board_json: tuple[list[dict[str, Any]], bytes] | None = None
        self._board_chart: str | None = None
        self._refresher: threading.Thread | None = None  # the leaderboard's thread, once the board was first asked for
        self._closing = threading.Event()
        self._pages: OrderedDict[tuple[int, str, str | None], str] = OrderedDict()  # private game pages made
        self._pages_lock = threading.Lock()
        self._first_links: dict[int, str | None] = {}  # a refused submission's link to its fault, once worked out
        self._history = LiveHistory()
        self._charts: OrderedDict[str, str] = OrderedDict()  # a chart's data's digest -> its drawing
        self._charts_lock = threading.Lock()
        self.playing: Callable[[], tuple[str, ...]] = tuple  # the bots of the wave under way (set by the server)
        self.reserved = names.reserved_names(settings.play.game)

    def store(self) -> Store:
        """This thread's connection to the store (each thread keeps its own: SQLite connections are not shared)."""
        store = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = Store(self.settings.db)
        return store

    # --- who is asking ------------------------------------------------------------------------------------------
    def by_token(self, token: str) -> Author | None:
        """The author whose API token this is; the slow hash is checked once per token and process, and whether
        the author was revoked at every request."""
        digest = hashlib.sha256(token.encode()).digest()
        known = self._tokens.get(digest)
        if known is not None:
            return self.store().author_holding(*known)  # None once revoked, or the token replaced
        found = self.store().author_by_token(token)
        if found is None:
            return None
        self._tokens[digest] = (found[0].id, found[1])
        return found[0]

    def by_known_token(self, token: str) -> Author | None:
        """The author of a token already checked by by_token in this process, if it is still theirs (no slow hash);
        None for any other."""
        known = self._tokens.get(hashlib.sha256(token.encode()).digest())
        return None if known is None else self.store().author_holding(*known)

    def session_for(self, author: Author, source: SessionSource) -> str:
        """A new session of the author's made from `source`, kept by the store (as a hash) for SESSION_SECONDS or
        until it is ended: by a sign-out, the replacement of that secret, or the author's revocation."""
        return self.store().open_session(author, SESSION_SECONDS, source)

    def by_session(self, value: str) -> Author | None:
        """The author of a session that has not expired or been ended, if they are not revoked."""
        return self.store().session_author(value) if 0 < len(value) <= MAX_SECRET else None

    def sessions(self, author: Author, current: str = "") -> list[Session]:
        """The author's own sessions (never their ids), `current` (the asking request's session) marked."""
        return self.store().sessions_of(author, current if len(current) <= MAX_SECRET else "")

    def end_sessions(self, author: Author) -> int:
        """Sign the author out everywhere: every session of theirs ends (their API token stays)."""
        ended = self.store().end_sessions(author)
        log.info("%s signed out everywhere (%d sessions)", author.name, ended)
        return ended

    def end_session(self, value: str) -> None:
        """Sign out: the session opens nothing from now on."""
        if 0 < len(value) <= MAX_SECRET:
            self.store().end_session(value)

    @staticmethod
    def csrf_for(session: str) -> str:
        """The CSRF token of a session: the forms of its pages carry it, and a change without it is refused. Made
        from the session id, a secret only its browser holds, so that no key need be kept."""
        return hmac.new(session.encode(), b"csrf", hashlib.sha256).hexdigest() if session else ""

    def sign_in(self, secret: str) -> tuple[Author, SessionSource] | None:
        """The author whose one-time sign-in code this is (then used up), or whose API token it is, with which of
        the two it was; failed tries are limited per address by the caller."""
        if not 0 < len(secret) <= MAX_SECRET:
            return None
        author = self.store().sign_in(secret)
        if author is not None:
            return author, SessionSource.LINK
        author = self.by_token(secret)
        return None if author is None else (author, SessionSource.TOKEN)

    @staticmethod
    def check_new_author(name: str) -> None:
        """UploadRefused (400, 409) for a name no one may sign up under: not a name, or one that looks like a
        reserved one (the organiser's, a sample bot's); checked before any invite code."""
        try:
            check_author_name(name)
        except ConfigError as exc:
            raise UploadRefused(str(exc), 400) from None
        try:
            names.check_author_look(name, ())
        except ConfigError as exc:
            raise UploadRefused(str(exc), 409) from None

    def sign_up(self, code: str, name: str) -> tuple[Author, str] | None:
        """A new author NAME signed up by an invite code: (the author, their API token); None if the code is not
        one with a use left; UploadRefused (400, 409) for a name that is not a name, or that looks like a reserved
        one or an author's (no use spent)."""
        self.check_new_author(name)
        if not 0 < len(code) <= MAX_SECRET:
            return None
        try:
            return names.redeem_invite(self.store(), code, name)
        except ConfigError as exc:
            raise UploadRefused(str(exc), 409) from None

    # --- uploads ------------------------------------------------------------------------------------------------
    def submit(self, author: Author, archive: Path, filename: str,
               queued: Callable[[Submission], None] = lambda _: None) -> Submission:
        """Check and unpack an uploaded archive and queue it for admission (then queued(it) is called, before any
        stop_uploads can return): UploadRefused (one line, with its HTTP status) for anything the competition does
        not take, 503 once the server is stopping."""
        store = self.store()
        # One upload of an author's at a time (so that their daily limit holds), and the names checked and taken
        # one upload at a time; the archive itself is checked and unpacked holding neither, so that no upload
        # waits on another author's.
        with self._author_lock(author):
            self.check_rate(author)
            try:
                manifest, unpacked, folder = receive(archive, filename, self.settings.uploads, self.limits,
                                                     self._going)
                try:
                    with self._naming:
                        if self._stopping.is_set():
                            raise UploadRefused(STOPPING, 503)
                        names.check_upload(store, author, manifest.name, manifest.version, self.reserved,
                                           self.limits.active_bots)
                        submission = store.add_submission(author, manifest.name, manifest.version, str(folder))
                        queued(submission)
                    kept(unpacked)
                    return submission
                except BaseException:
                    discard(unpacked)
                    raise
            except UploadRefused as exc:
                if exc.status != 503:  # the server's stop is not the author's refusal
                    self.refused(author, str(exc))
                raise

    def _going(self) -> None:
        """UploadRefused (503) once the server is stopping: an upload being unpacked then stops at its next file."""
        if self._stopping.is_set():
            raise UploadRefused(STOPPING, 503)

    def stop_uploads(self) -> None:
        """Queue no upload from now on (the server is stopping): one being queued now is queued before this returns,
        any later one is refused 503."""
        with self._naming:
            self._stopping.set()

    def temp_prefix(self) -> str:
        """The name every temporary folder of this store's uploads begins with, in the system's temp folder: it
        names the store (a digest of its path), so that a start sweeps only its own server's leftovers."""
        return f"{TEMP_PREFIX}{hashlib.sha256(str(self.settings.db.resolve()).encode()).hexdigest()[:16]}-"

    def sweep_temp(self) -> None:
        """Remove what uploads of this store cut off by a SIGKILL left in the temp folder (the raw archives):
        only folders named by temp_prefix, so another store's server, or anything else, is left alone."""
        prefix = self.temp_prefix()
        for leftover in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
            if leftover.is_dir() and not leftover.is_symlink() and leftover.lstat().st_uid == os.getuid():
                shutil.rmtree(leftover, ignore_errors=True)
                log.info("removed %s, left in the temp folder by an upload cut off", leftover.name)

    def _author_lock(self, author: Author) -> threading.Lock:
        with self._naming:
            return self._uploading.setdefault(author.id, threading.Lock())

    def check_rate(self, author: Author) -> None:
        """UploadRefused (429) if the author may upload no more today (uploads.check_rate)."""
        check_rate(self.store(), author, self.limits)

    def refused(self, author: Author, reason: str) -> None:
        """Count an upload refused before it was queued toward the author's daily limit."""
        self.store().refuse_upload(author, reason)

    def submission(self, author: Author, sid: int) -> Submission | None:
        """A submission its author (or the organiser) may see, else None (as if there were none)."""
        found = self.store().submission(sid) if 0 < sid <= MAX_NUMBER else None
        return found if found is not None and access.may_see_submission(author, found) else None

    def first_game_link(self, submission: Submission) -> str | None:
        """Where the author of a submission refused for a fault in its first game reads it: that decision in the
        game's private replay; None where no such game is kept."""
        if submission.status != Status.REFUSED:
            return None
        with self._pages_lock:  # a refusal is final: its game's link is worked out once, not at every poll
            if submission.id in self._first_links:
                return self._first_links[submission.id]
        found = self._first_game(submission)
        fault = None if found is None else next((f for f in found.faults if f.participant == 0), None)
        at = "" if fault is None or fault.decision is None else f"#step={fault.decision}&seat={fault.seat}"
        link = None if found is None else f"/me/submissions/{submission.id}/game{at}"
        with self._pages_lock:
            self._first_links[submission.id] = link
        return link

    def first_game_replay(self, author: Author, sid: int) -> str | None:
        """The replay page of a refused submission's first game, with its bot's own stderr beside its decisions,
        for its author and the organiser; None (a 404) for anyone else, or where no such game is kept."""
        submission = self.submission(author, sid)
        record = None if submission is None else self._first_game(submission)
        if submission is None or record is None:
            return None
        seats = {seat.seat for seat in record.seats if seat.participant == 0}
        from arena.viewer import render_page, replay_data  # the viewer is only needed for a game page

        # A crash's traceback names the files of the upload's folder: shown as its author knows them, from '.'.
        data = _without_paths(replay_data(record, None, check=False, bot_output=True), Path(submission.folder))
        return render_page(access.private_view(data, seats), back=(f"/me/submissions/{sid}", f"upload {sid}"),
                           heading=f"the first game of {submission.bot} {submission.version} (upload {sid})")

    def _first_game(self, submission: Submission) -> GameRecord | None:
        if submission.status != Status.REFUSED:
            return None
        path = first_game_record(submission)
        try:
            return load_record(path) if path.is_file() else None
        except ArenaError:  # damaged: as if it were not kept
            return None

    def bots_listed(self, author: Author) -> list[str]:
        """The bots an author's own page lists (access.bots_listed)."""
        store = self.store()
        return access.bots_listed(author, store.owned_bots(author), (s.bot for s in store.submissions()))

    def submissions(self, author: Author) -> list[Submission]:
        """An author's submissions, newest first (the organiser's: everyone's)."""
        return self.store().submissions(access.whose_submissions(author))[::-1]

    # --- the ladder ---------------------------------------------------------------------------------------------
    def rules(self) -> str:
        """The game's bot-author reference, its numbered rules, as HTML."""
        return rules_html(self.settings.play.game)

    def kit(self, language: str, name: str) -> bytes | None:
        """The starter kit of language as a zip with its bot named `name`, None if there is no kit of that language;
        ConfigError for a name that is not a valid bot name."""
        kind = next((k for k in Language if k.value == language), None)
        if kind is None:
            return None
        return archive(kind, name)

    def tournament(self) -> Tournament | None:
        """The served ladder's tournament, once its first wave has started."""
        return next((t for t in self.store().tournaments() if t.name == self.settings.name), None)

    def leaderboard(self) -> list[dict[str, Any]]:
        """The current ranking as plain rows (name, bot, rank, score, mu, sigma, games, faults), best first; retired
        versions left out. Worked out again in a thread of its own whenever the store has changed, so that a
        request only reads the last one (worked out here only for the first request)."""
        board = self._board
        if board is None:
            with self._board_lock:
                board = self._board
                if board is None:
                    board = self._board = self._look_at_board(None)
                    if not self._closing.is_set():
                        self._refresher = threading.Thread(target=self._keep_board, name="leaderboard",
                                                           daemon=True)
                        self._refresher.start()
        return board[1]

    def board_json(self) -> bytes:
        """The leaderboard as JSON, made once per change of the ranking."""
        rows = self.leaderboard()
        cached = self._board_json
        if cached is None or cached[0] is not rows:
            cached = self._board_json = (rows, json.dumps(rows).encode())
        return cached[1]

    def board_chart(self) -> str | None:
        """The front page's chart: the leading bots' mu after each of their games, drawn by the leaderboard's
        thread whenever the ranking changes (None before its first drawing, or before any game)."""
        return self._board_chart

    def close(self) -> None:
        """End the leaderboard's thread, waiting for a chart it is drawing: a thread cut off inside matplotlib's
        C++ as the interpreter ends aborts the process."""
        self._closing.set()
        refresher = self._refresher
        if refresher is not None:
            refresher.join(CLOSE_WAIT)

    def _keep_board(self) -> None:
        drawn: Board | None = None
        drawn_at = -CHART_EVERY
        while not self._closing.is_set():
            try:
                # Drawn again as the ranking changes, but not after every game of a busy season: a drawing costs
                # this process a tenth of a second or more.
                if self._board is not drawn and time.monotonic() - drawn_at >= CHART_EVERY:
                    drawn, drawn_at = self._board, time.monotonic()
                    self._board_chart = self._draw_board_chart(drawn[1] if drawn else [])
                if self._closing.wait(BOARD_LOOK):
                    return
                self._board = self._look_at_board(self._board)
            except ArenaError:  # the store busy a moment too long: the next look tries again
                continue
            except Exception as error:  # noqa: BLE001 - a refresher that died would leave the board as it was for good
                log.warning("the leaderboard was not worked out again (the next look tries again): %s", error)

    def _look_at_board(self, board: Board | None) -> Board:
        """The ranking: the one given if nothing was stored since, else worked out again."""
        store = self.store()
        t = self.tournament()
        if t is None:
            return ((0, 0, 0), [])
        mark = (t.id, store.latest_game(t.id), len(store.stored_ratings(t.id)))
        if board is not None and board[0] == mark:
            return board
        return mark, self._ranking(store, t)

    def _draw_board_chart(self, rows: list[dict[str, Any]]) -> str | None:
        t = self.tournament()
        if t is None or not rows:
            return None
        return self._chart(self._history.points(self.store(), t, [r["name"] for r in rows[:BOARD_CHART_BOTS]]))

    def _ranking(self, store: Store, t: Tournament) -> list[dict[str, Any]]:
        board = tournament_board(store, t, max_fault_rate=1.0)  # a server withholds nobody: it pauses faulty bots
        # A bot shows once it has played, ranked among those shown. A served board names each row by its entrant key
        # ("name") and its bot ("bot"), since a bot's versions each have a row; "score" is what it sorts by.
        shown = ranked_rows(r for r in board.rows if r.games)
        return [{**row_json(r, BOARD_DIGITS), "name": r.bot, "bot": bot_of(r.bot),
                 "score": round(r.conservative, BOARD_DIGITS), "page": bot_page(bot_of(r.bot))} for r in shown]

    def public_bot(self, page: str) -> PublicBot | None:
        """The public page of the bot that `page` names (as bot_page makes it), read from the store now; None (a
        404) for a name that names no bot of the ladder, without a look at the store for one no bot may have."""
        # Every bot of a served ladder is named by NAME_PATTERN (uploads, house folders and sample bots alike), and
        # such a name is its own slug: a page names one bot, and a bot has one page.
        if not names.is_bot_name(page) or slug(page) != page:
            return None
        t = self.tournament()
        if t is None:
            return None
        store = self.store()
        versions = [{"name": key, "version": version, "retired": retired}
                    for key, _, version, retired in store.roster(t.id) if bot_of(key) == page]
        if not versions:
            return None  # not in the ladder yet (or never): as if there were no such bot
        points = self._history.points(store, t, [v["name"] for v in versions])
        return PublicBot(page, [r for r in self.leaderboard() if r["bot"] == page], versions,
                         self.games_of(page, RECENT_GAMES), self._chart(points), self.paused(page),
                         head_to_head(store, t, [v["name"] for v in versions], bot_of))

    def rivals(self, page: str) -> list[dict[str, Any]] | None:
        """The bot that `page` names head to head with each rival bot, its versions and theirs taken together; None
        (a 404) as for its public page."""
        t = self.tournament()
        if not names.is_bot_name(page) or slug(page) != page or t is None:
            return None
        store = self.store()
        keys = [key for key, *_ in store.roster(t.id) if bot_of(key) == page]
        return head_to_head(store, t, keys, bot_of) if keys else None

    def _chart(self, points: dict[str, tuple[Point, ...]]) -> str | None:
        """The rating chart of these entrants' points (a line each), drawn once for the same points: a game of the
        bot's, or the ratings redone, changes its points and so draws it again."""
        drawn = {name: line for name, line in points.items() if line}
        if not drawn:
            return None
        key = hashlib.sha256(repr(sorted(drawn.items())).encode()).hexdigest()
        with self._charts_lock:
            chart = self._charts.get(key)
        if chart is None:
            from arena.site import plots  # matplotlib takes a second to import: only once a chart is asked for

            chart = plots.history_chart(drawn, list(drawn))
            with self._charts_lock:
                self._charts[key] = chart
                while len(self._charts) > CHARTS:
                    self._charts.popitem(last=False)
        return chart

    def games_of(self, bot: str, limit: int = MAX_GAMES_LISTED) -> list[dict[str, Any]]:
        """A bot's latest stored games (every version's, at most `limit`), newest first, as plain rows."""
        t = self.tournament()
        if t is None:
            return []
        rows = self.store().games_of(t.id, bot, limit)
        return [{"number": g.seq + 1, "url": f"/games/{g.seq + 1}", "status": g.status, "reason": g.reason,
                 "seats": [{"seat": s.seat, "bot": s.bot, "rank": s.rank, "score": s.score, "faults": s.faults}
                           for s in g.seats]} for g in rows]

    def faults_of(self, bot: str, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The bot's faults in these games (of games_of), newest first: game number, seat, decision and kind."""
        t, found = self.tournament(), []
        for game in games[:MAX_FAULTY_GAMES] if t is not None else ():
            seats = {s["seat"] for s in game["seats"] if bot_of(s["bot"]) == bot and s["faults"]}
            if seats:
                stored = self.store().game_numbered(t, game["number"])
                found += [{"game": game["number"], "seat": f.seat, "decision": f.decision, "kind": f.kind}
                          for f in stored.faults if f.seat in seats]
        return found

    def paused(self, bot: str) -> str | None:
        """Why the bot's current version sits out of the ladder (season.pause_reason), or None if it plays."""
        current = [s for s in self.store().current_versions() if s.bot == bot]
        return pause_reason(self.settings, current[0], self.store()) if current else None

    def retire(self, author: Author | None, bot: str) -> bool:
        """Take the bot out of the ladder for its owner or the organiser (its games and pages stay; a new version
        brings it back); False (a 404) for anyone else or a bot with no admitted version."""
        if not self.may_see(author, bot) or not self.store().retire_bot(bot):
            return False
        log.info("%s retired %s", author.name if author else "?", bot)
        return True

    def may_see(self, author: Author | None, bot: str) -> bool:
        """True if author may see the bot's private pages and logs (access.may_see_bot)."""
        return author is not None and access.may_see_bot(author, self.store().bot_owner(bot))

    def own_game(self, author: Author | None, number: int, bot: str) -> tuple[StoredGameRow, set[int]] | None:
        """Game `number` of the served ladder, if the bot played it and author may see it, with the bot's seats in
        it; None (a 404) for anyone else, or if the bot did not play it."""
        if not self.may_see(author, bot):
            return None
        game = self.game(number)
        seats = set() if game is None else {s.seat for s in game.seats if bot_of(s.bot) == bot}
        return (game, seats) if game is not None and seats else None

    def game(self, number: int) -> StoredGameRow | None:
        """Game `number` of the served ladder (its number everywhere: lists, pages, the published site), once it
        is stored with its replay; None for any other number."""
        t = self.tournament()
        if t is None or not 1 <= number <= MAX_NUMBER:
            return None
        try:
            game = self.store().game_numbered(t, number)
        except ArenaError:
            return None
        return game if game.replay else None

    def game_log(self, author: Author | None, number: int, bot: str) -> dict[str, Any] | None:
        """The bot's own per-decision log of a game (what it wrote to stderr, its times, its faults with their
        stderr tails), for its author and the organiser; None for anyone else."""
        found = self.own_game(author, number, bot)
        if found is None:
            return None
        game, seats = found
        record = load_record(self._replay_path(game))
        decisions = [{"decision": n, "seat": d.seat, "time": d.time, "cpu": d.cpu,
                      "fault": d.fault.value if d.fault else None, "log": d.log, "log_dropped": d.log_dropped}
                     for n, d in enumerate(record.decisions) if d.seat in seats]
        faults = [{"seat": f.seat, "decision": f.decision, "kind": f.kind.value, "detail": f.detail,
                   "stderr": f.stderr} for f in record.faults if f.seat in seats]
        return {"game": number, "bot": bot, "seats": sorted(seats), "decisions": decisions, "faults": faults}

    def private_replay(self, author: Author | None, number: int, bot: str) -> str | None:
        """The game's replay page with the bot's own stderr and times beside its decisions (the other seats' logs
        left out), for its author and the organiser; None for anyone else."""
        found = self.own_game(author, number, bot)
        return None if found is None else self._kept_page(found[0], found[1], bot)

    def public_replay(self, number: int) -> str | None:
        """The game's replay page as everyone may see it (no seat's logs), as soon as it is stored; None if there is
        no such game."""
        game = self.game(number)
        return None if game is None else self._kept_page(game, set(), None)

    def _kept_page(self, game: StoredGameRow, seats: set[int], bot: str | None) -> str:
        """A game's page, made once and kept (the GAME_PAGES last asked for): a stored game never changes."""
        assets = self.settings.site / ASSETS  # the published site's scripts, once it has game pages
        key = (game.seq, bot, "/site/assets/" if (assets / "viewer.js").is_file() else None)
        with self._pages_lock:
            page = self._pages.get(key)
        if page is None:
            page = self._game_page(game, seats, bot, key[2])
            with self._pages_lock:
                self._pages[key] = page
                while len(self._pages) > GAME_PAGES:
                    self._pages.popitem(last=False)
        return page

    def _game_page(self, game: StoredGameRow, seats: set[int], bot: str | None, linked: str | None) -> str:
        from arena.viewer import render_page, replay_data  # the viewer is only needed for a game page

        data = replay_data(load_record(self._replay_path(game)), None, check=False, bot_output=bot is not None)
        heading = f"game {game.seq + 1} of {game.tournament}"
        if bot is None:
            return render_page(data, back=("/", self.settings.name), linked=linked, heading=heading)
        return render_page(access.private_view(data, seats), back=(f"/me/bots/{bot}", f"{bot}: your bot"),
                           linked=linked, heading=heading)

    def _replay_path(self, game: StoredGameRow) -> Path:
        return replay_path(game.replay or "", self.settings.results_dir) or self.settings.results_dir


def _without_paths(data: Any, folder: Path) -> Any:
    """Page data with every string as an author is shown it (shown_to_author): no path of the server's machine."""
    if isinstance(data, str):
        return shown_to_author(data, folder)
    if isinstance(data, dict):
        return {key: _without_paths(value, folder) for key, value in data.items()}
    if isinstance(data, list):
        return [_without_paths(value, folder) for value in data]
    return data


def bot_page(bot: str) -> str:
    """The address of a bot's public page, one per bot name (every version's)."""
    return BOT_PAGES + slug(bot)


__all__ = ["BOT_PAGES", "Hosting", "PublicBot", "UploadRefused", "bot_page"]
