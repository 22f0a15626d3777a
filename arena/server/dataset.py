"""A served season as data, for the people who train bots on it: every finished game a page at a time after a
cursor (`/api/games?after=N&limit=M`), and the season's export tables (arena/site/export.py) served as files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any, Iterator

from arena.competition.season import SeasonSettings
from arena.errors import ConfigError
from arena.site.export import MANIFEST, TABLES, ExportFormat, table_path
from arena.storage import PagedGame, Store, Tournament

PAGE = 100  # games a page of /api/games when no limit is asked
MAX_PAGE = 1000  # and at most, whatever is asked
MAX_CURSOR = 2**62  # no cursor beyond this is looked up (SQLite's integers end at 2**63)
CHUNK = 1 << 16  # bytes of an export file sent at a time
KINDS = {ExportFormat.PARQUET: "application/vnd.apache.parquet", ExportFormat.JSONL: "application/jsonl"}


def export_folder(settings: SeasonSettings) -> Path:
    """Where a served season's export tables are kept: beside its records, apart from the published pages."""
    return settings.results_dir / "export"


def page_limits(after: str | None, limit: str | None) -> tuple[int, int]:
    """The cursor and page size a request asks for; ConfigError naming the problem for anything else."""
    try:
        cursor = int(after) if after not in (None, "") else 0
        size = int(limit) if limit not in (None, "") else PAGE
    except ValueError:
        raise ConfigError("after and limit must be whole numbers: /api/games?after=N&limit=M") from None
    if not 0 <= cursor <= MAX_CURSOR:
        raise ConfigError(f"after must be from 0 to {MAX_CURSOR}, got {cursor}")
    if not 1 <= size <= MAX_PAGE:
        raise ConfigError(f"limit must be from 1 to {MAX_PAGE}, got {size}")
    return cursor, size


def games_page(store: Store, t: Tournament | None, after: int, limit: int) -> dict[str, Any]:
    """The finished games stored after the cursor `after`, at most `limit`, in the order they were stored, and the
    cursor of the next page (null once this one reaches the last game stored: a later look from the last game's
    cursor finds the games stored since). Paging by it lists each game once and skips none, whatever order the
    games finish in."""
    games = [] if t is None else store.games_after(t.id, after, limit + 1)
    shown = games[:limit]
    return {"games": [_game(g) for g in shown], "next": shown[-1].cursor if len(games) > limit else None}


def _game(g: PagedGame) -> dict[str, Any]:
    return {"number": g.number, "cursor": g.cursor, "url": f"/games/{g.number}", "reason": g.reason,
            "cut_short": g.cut_short,
            "seats": [{"seat": s.seat, "bot": s.bot, "version": s.version, "rank": s.rank, "score": s.score,
                       "faults": s.faults} for s in g.seats]}


EXPORT_FILES = {table_path(Path(), t, f).name: KINDS[f] for t in TABLES for f in ExportFormat}
EXPORT_FILES[MANIFEST] = "application/json"


def open_export(settings: SeasonSettings, name: str) -> tuple[IO[bytes], int, str] | None:
    """One of the season's export files, opened (a later export replaces it by a rename: what is open stays whole),
    its size and media type; None for any other name, or before the first export."""
    if name not in EXPORT_FILES:
        return None
    try:
        f = (export_folder(settings) / name).open("rb")
    except OSError:
        return None
    return f, os.fstat(f.fileno()).st_size, EXPORT_FILES[name]


def chunks(f: IO[bytes]) -> Iterator[bytes]:
    """An open file's bytes a chunk at a time, closing it at the end (or when the client goes)."""
    with f:
        while chunk := f.read(CHUNK):
            yield chunk
