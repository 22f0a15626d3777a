"""`arena export`: a tournament's finished games as three tables (games, seats, decisions) in Parquet or JSON Lines,
for the people who train bots on them. Each decision's view is rebuilt by re-simulating the game's record and asking
the wire for the message that seat was sent (arena/match/wire.py), never read from the full state; bots' logs and
fault details are left out. Games are read a batch at a time, so memory does not grow with the store; a folder that
holds an earlier export gets only the games stored since (its manifest says how far it went), and every file is
written under a temporary name and renamed whole, so that an interrupted export leaves the last complete one."""

from __future__ import annotations

import json
import os
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Callable, Iterator

from arena.errors import ConfigError
from arena.match.record import GameRecord, load_record
from arena.match.replay import resimulate
from arena.match.seeds import stored_public_seed
from arena.match.wire import SeatClock, decide_request
from arena.storage import PagedGame, Store, Tournament, replay_path

BATCH = 100  # games read from the store at a time
ROWS = 10_000  # decisions held before they are written (a row group): with BATCH, what bounds the export's memory
MANIFEST = "export.json"
TEMP = ".partial"  # the mark of a file being written; a reader never takes one for a table
TABLES = ("games", "seats", "decisions")
# A served season's export is made again once its games have grown by a tenth, or an hour after the last if any
# came in: each export rewrites the tables whole (old rows carried over), so doing it at every wave would cost a
# season's worth of writing a wave.
REFRESH_GROWTH = 0.1
REFRESH_SECONDS = 3600.0
Progress = Callable[[int, int], None]


class ExportFormat(StrEnum):
    """The file formats of an export, by their name on the command line (also the files' extension)."""

    PARQUET = "parquet"
    JSONL = "jsonl"


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote: the games, seats and decisions it added, and the rows each table holds now."""

    added: dict[str, int]
    rows: dict[str, int]
    paths: dict[str, Path]


def table_path(out: Path, table: str, fmt: ExportFormat) -> Path:
    """Where a table of an export lies."""
    return out / f"{table}.{fmt.value}"


def export(store: Store, results_dir: Path, name: str, out: Path, fmt: ExportFormat = ExportFormat.PARQUET,
           progress: Progress = lambda done, total: None) -> ExportReport:
    """Write tournament `name`'s finished games into the folder `out` (made if missing), adding to an earlier export
    there only the games stored since; ConfigError for an unknown tournament or a folder that cannot hold it."""
    t = store.tournament(name)
    _check_folder(out)
    manifest = _read_manifest(out, t.name)
    done = manifest.get(fmt.value, {"cursor": 0, "games": 0, "sizes": {}})
    last = store.last_cursor(t.id)
    paths = {table: table_path(out, table, fmt) for table in TABLES}
    if not all(p.is_file() for p in paths.values()):  # a table gone: the tables are made again from the first game
        done = {"cursor": 0, "games": 0, "sizes": {}}
    total = store.count_between(t.id, done["cursor"], last)
    if total == 0 and all(p.is_file() for p in paths.values()):
        progress(0, 0)
        return ExportReport(dict.fromkeys(TABLES, 0), dict(done["sizes"].get("rows", {})), paths)
    writers: dict[str, _TableWriter] = {}
    try:
        for table in TABLES:
            writers[table] = _writer(fmt, table, paths[table])
            writers[table].keep(done["sizes"])
        added = dict.fromkeys(TABLES, 0)
        cursor, finished = done["cursor"], 0
        buffered: dict[str, list[dict[str, Any]]] = {table: [] for table in TABLES}
        progress(0, total)
        for page in _pages(store, t, cursor, last):
            for game in page:
                for table, rows in rows_of([game], t, results_dir).items():
                    buffered[table] += rows
                if len(buffered["decisions"]) >= ROWS or game is page[-1]:
                    for table in TABLES:  # a row group of each table (a long game of bali-2001 has 1,000 decisions)
                        writers[table].write(buffered[table])
                        added[table] += len(buffered[table])
                        buffered[table] = []
            cursor, finished = page[-1].cursor, finished + len(page)
            progress(finished, total)
        sizes = {table: writers[table].close() for table in TABLES}
    except BaseException:
        for w in writers.values():
            w.abandon()
        raise
    for table in ("decisions", "seats", "games"):  # the games last: a game listed has its decisions in place
        writers[table].commit()
    rows = {table: sizes[table][0] for table in TABLES}
    manifest[fmt.value] = {"cursor": cursor, "games": rows["games"],
                           "sizes": {"rows": rows, "bytes": {table: sizes[table][1] for table in TABLES}}}
    _write_manifest(out, t.name, manifest)
    return ExportReport(added, rows, paths)


def _pages(store: Store, t: Tournament, cursor: int, last: int) -> Iterator[list[PagedGame]]:
    """The finished games after `cursor` up to `last` (those stored while the export runs wait for the next one)."""
    while True:
        page = [g for g in store.games_after(t.id, cursor, BATCH) if g.cursor <= last]
        if not page:
            return
        yield page
        cursor = page[-1].cursor


def rows_of(games: list[PagedGame], t: Tournament, results_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """The rows of each table for these games: their replay records re-simulated, each asked decision's view as
    the wire built it for the seat that was sent it."""
    public = stored_public_seed(t.config) is not None
    tables: dict[str, list[dict[str, Any]]] = {table: [] for table in TABLES}
    for game in games:
        path = replay_path(game.replay, results_dir)
        if path is None:
            raise ConfigError(f"game {game.number} of {t.name!r} has no replay file: it cannot be exported")
        record = load_record(path)
        decisions = decision_rows(record, game)
        bots = [s.bot for s in game.seats]
        tables["games"].append({"game": game.number, "players": record.num_players,
                                "seed": record.seed if public else None, "seats": json.dumps(bots),
                                "reason": game.reason, "cut_short": game.cut_short, "length": len(decisions)})
        tables["seats"] += [{"game": game.number, "seat": s.seat, "bot": s.bot, "version": s.version, "rank": s.rank,
                             "score": s.score, "disqualified": s.disqualified, "faults": s.faults}
                            for s in game.seats]
        tables["decisions"] += decisions
    return tables


def decision_rows(record: GameRecord, game: PagedGame) -> list[dict[str, Any]]:
    """A row per recorded decision, numbered as the viewer numbers them (every seat's, from 0). A seat that was
    asked has the view, decision and options of the decide message the match sent it; a seat that was not (its
    default played for it once disqualified or out of its game clock) has none: it was sent nothing."""
    rows: list[dict[str, Any]] = []
    bots = [s.bot for s in game.seats]
    clock = SeatClock(record.time).clock()  # the clock a message carries does not touch its view or options

    def visit(state: Any, number: int, d: Any) -> None:
        asked = d.time is not None
        sent = decide_request(state, d.seat, state.num_events(), record.game_index, clock) if asked else None
        rows.append({"game": game.number, "step": number, "seat": d.seat, "bot": bots[d.seat],
                     "kind": state.decision()["kind"], "asked": asked,
                     "view": _text(sent.view) if sent else None, "decision": _text(sent.decision) if sent else None,
                     "options": _text(sent.options) if sent else None, "chosen": d.index,
                     "time": d.spent, "fault": d.fault.value if d.fault is not None else None})

    reproduction = resimulate(record, visit)
    if not reproduction.reproduces:
        raise ConfigError(f"game {game.number}'s record does not reproduce: {reproduction.problems[0]}")
    return rows


def _text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --- the folder and its manifest ---------------------------------------------------------------------------------
def _check_folder(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {str(out)!r} is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot make the folder {str(out)!r}: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write into {str(out)!r}")
    for stale in out.glob(f".*{TEMP}"):  # an interrupted export's files: never under a table's name
        stale.unlink(missing_ok=True)


def _read_manifest(out: Path, name: str) -> dict[str, Any]:
    path = out / MANIFEST
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} cannot be read ({exc}): remove it, or export into another folder") from None
    if not isinstance(data, dict) or data.get("tournament") != name:
        raise ConfigError(f"{str(out)!r} holds an export of {data.get('tournament')!r}, not of {name!r}: "
                          "export into another folder")
    return dict(data.get("formats", {}))


def _write_manifest(out: Path, name: str, formats: dict[str, Any]) -> None:
    temp = out / f".{MANIFEST}{TEMP}"
    temp.write_text(json.dumps({"tournament": name, "formats": formats}, indent=1) + "\n", encoding="utf-8")
    os.replace(temp, out / MANIFEST)


# --- the writers: each keeps what the last export committed and adds the new rows under a temporary name ------------
def _writer(fmt: ExportFormat, table: str, path: Path) -> "_TableWriter":
    return (_ParquetWriter if fmt == ExportFormat.PARQUET else _JsonLinesWriter)(table, path)


class _TableWriter(ABC):
    """A table's file being written: the committed rows of the last export carried over, then the new ones."""

    def __init__(self, table: str, path: Path) -> None:
        self.table, self.path = table, path
        self.temp = path.with_name(f".{path.name}{TEMP}")
        self.rows = 0

    def keep(self, sizes: dict[str, Any]) -> None:
        """Carry over the rows the last export committed (by its manifest's sizes: a crash may have left more)."""
        if self.path.is_file():
            self._keep(sizes.get("rows", {}).get(self.table, 0), sizes.get("bytes", {}).get(self.table, 0))

    @abstractmethod
    def _keep(self, rows: int, size: int) -> None:
        """Copy the first `rows` rows (`size` bytes) of the table's file."""

    @abstractmethod
    def write(self, rows: list[dict[str, Any]]) -> None:
        """Add rows."""

    @abstractmethod
    def close(self) -> tuple[int, int]:
        """Finish the temporary file; its rows and bytes."""

    def commit(self) -> None:
        """Put the finished file under the table's name."""
        os.replace(self.temp, self.path)

    def abandon(self) -> None:
        """Drop the temporary file (the table's own file stays as the last export left it)."""
        self.temp.unlink(missing_ok=True)


class _JsonLinesWriter(_TableWriter):
    def __init__(self, table: str, path: Path) -> None:
        super().__init__(table, path)
        self.file = self.temp.open("wb")

    def _keep(self, rows: int, size: int) -> None:
        with self.path.open("rb") as old:
            _copy_bytes(old, self.file, size)
        self.rows = rows

    def write(self, rows: list[dict[str, Any]]) -> None:
        self.file.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode())
        self.rows += len(rows)

    def close(self) -> tuple[int, int]:
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()
        return self.rows, self.temp.stat().st_size

    def abandon(self) -> None:
        self.file.close()
        super().abandon()


def _copy_bytes(source: Any, target: Any, count: int) -> None:
    while count > 0:
        chunk = source.read(min(count, 1 << 20))
        if not chunk:
            raise ConfigError(f"{source.name} is shorter than its export's manifest says: export into a new folder")
        target.write(chunk)
        count -= len(chunk)


class _ParquetWriter(_TableWriter):
    def __init__(self, table: str, path: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        super().__init__(table, path)
        self.schema = SCHEMAS[table](pa)
        self.pa, self.pq = pa, pq
        self.file = pq.ParquetWriter(self.temp, self.schema, compression="zstd")

    def _keep(self, rows: int, size: int) -> None:
        old, left = self.pq.ParquetFile(self.path), rows  # a row group at a time: memory stays bounded
        for group in range(old.num_row_groups):
            if left <= 0:
                break
            part = old.read_row_group(group).slice(0, left)
            self.file.write_table(part.cast(self.schema))
            left -= part.num_rows
        if left > 0:
            raise ConfigError(f"{self.path} is shorter than its export's manifest says: export into a new folder")
        self.rows = rows

    def write(self, rows: list[dict[str, Any]]) -> None:
        if rows:
            self.file.write_table(self.pa.Table.from_pylist(rows, schema=self.schema))
            self.rows += len(rows)

    def close(self) -> tuple[int, int]:
        self.file.close()
        with self.temp.open("rb") as f:
            os.fsync(f.fileno())
        return self.rows, self.temp.stat().st_size

    def abandon(self) -> None:
        try:
            self.file.close()
        finally:
            super().abandon()


SCHEMAS: dict[str, Callable[[Any], Any]] = {
    "games": lambda pa: pa.schema([("game", pa.int64()), ("players", pa.int8()), ("seed", pa.int64()),
                                   ("seats", pa.string()), ("reason", pa.string()), ("cut_short", pa.bool_()),
                                   ("length", pa.int32())]),
    "seats": lambda pa: pa.schema([("game", pa.int64()), ("seat", pa.int8()), ("bot", pa.string()),
                                   ("version", pa.string()), ("rank", pa.int8()), ("score", pa.int32()),
                                   ("disqualified", pa.bool_()), ("faults", pa.int32())]),
    "decisions": lambda pa: pa.schema([("game", pa.int64()), ("step", pa.int32()), ("seat", pa.int8()),
                                       ("bot", pa.string()), ("kind", pa.string()), ("asked", pa.bool_()),
                                       ("view", pa.string()), ("decision", pa.string()), ("options", pa.string()),
                                       ("chosen", pa.int32()), ("time", pa.float64()), ("fault", pa.string())]),
}



def refresh(store: Store, results_dir: Path, name: str, out: Path, growth: float = REFRESH_GROWTH,
            seconds: float = REFRESH_SECONDS) -> bool:
    """Bring a served season's export in `out` up to date in both formats when it is due: before its first export,
    once the games stored since have grown its games by `growth`, or `seconds` after the last one if any game
    came in meanwhile (each refresh carries the old rows over, so it is not redone at every wave); True if it was."""
    if not any(t.name == name for t in store.tournaments()):
        return False
    t = store.tournament(name)
    manifest = out / MANIFEST
    formats = _read_manifest(out, t.name) if manifest.is_file() else {}
    last = store.last_cursor(t.id)
    for fmt in ExportFormat:
        done = formats.get(fmt.value)
        if done is not None and done["cursor"] >= last:
            continue
        grown = done is None or store.count_between(t.id, done["cursor"], last) >= growth * max(1, done["games"])
        if grown or time.time() - manifest.stat().st_mtime >= seconds:
            break
    else:
        return False
    for fmt in ExportFormat:
        export(store, results_dir, name, out, fmt)
    return True
