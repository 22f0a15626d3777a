"""A competition file (TOML): a tournament's settings kept in one place, resumed by naming the file again.

The file's keys are the `arena tournament` options, some grouped in tables; the command line overrides any of
them. Paths in the file are relative to the file's own folder.
"""

from __future__ import annotations

import datetime
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.tournament.formats.base import name_of

# Each key the file may hold, with the option it sets; (table, key) for keys inside a table.
TOP_LEVEL = {
    "name": "name", "title": "title", "game": "game", "format": "fmt", "seats": "seats", "rounds": "rounds",
    "games": "max_games", "time_limit": "time_limit", "duplicate": "duplicate", "seed": "seed", "wave": "wave",
    "jobs": "jobs", "submissions": "submissions", "results": "results_dir", "bots": "bots",
    "variants": "variants", "fresh_processes": "fresh_processes", "max_fault_rate": "max_fault_rate",
    "strict": "strict",
}
TABLES = {
    "time": {"timeout": "timeout", "init_timeout": "init_timeout", "new_game_timeout": "new_game_timeout",
             "time_bank": "time_bank",
             "increment": "increment", "game_clock": "game_clock"},
    "sandbox": {"level": "sandbox", "memory_limit": "memory_limit", "cpu_limit": "cpu_limit",
                "max_processes": "max_processes", "max_file_size": "max_file_size",
                "max_open_files": "max_open_files", "disk_limit": "disk_limit",
                "build_network": "build_network", "bot_uids": "bot_uids"},
    # arena serve's limits on uploads (arena tournament takes none of them)
    "serve": {"uploads_per_day": "uploads_per_day", "active_bots": "active_bots", "max_upload": "max_upload",
              "max_unpacked": "max_unpacked", "max_members": "max_members", "body_timeout": "body_timeout",
              "pause_after": "pause_after", "host": "host", "port": "port",
              "challenges_per_day": "challenges_per_day", "challenge_games": "challenge_games",
              "description": "description", "start": "start", "end": "end", "finals_top": "finals_top",
              "finals_confidence": "finals_confidence", "finals_games": "finals_games", "cluster": "cluster",
              "cluster_certs": "cluster_certs", "insecure_cluster": "insecure_cluster",
              "webhook_hosts": "webhook_hosts"},
    "rating": {"mu": "mu", "sigma": "sigma", "beta": "beta", "tau": "tau", "draw_probability": "draw_probability"},
}
SERVE_ONLY = frozenset(TABLES["serve"].values())  # what only arena serve reads from a shared competition file
PATH_KEYS = frozenset({"submissions", "results_dir", "cluster_certs"})
OPTIONS_TABLE = "options"  # the game's options, key = value, as --option KEY=VALUE
OPTIONS_PARAM = "option_pairs"


def key_of(option: str) -> str:
    """The file's key (``table.key`` inside a table) that sets an option, for messages."""
    for table, keys in TABLES.items():
        for key, name in keys.items():
            if name == option:
                return f"{table}.{key}"
    if option == OPTIONS_PARAM:
        return OPTIONS_TABLE
    return next((key for key, name in TOP_LEVEL.items() if name == option), option)


def load(path: Path) -> dict[str, Any]:
    """The settings a competition file gives, by option name; ConfigError naming the file and the bad key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the competition file {str(path)!r}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"the competition file {str(path)!r} is not valid TOML: {exc}") from None
    settings: dict[str, Any] = {}
    for key, value in data.items():
        if key in TABLES:
            settings.update(_table(path, key, value, TABLES[key]))
        elif key == OPTIONS_TABLE:
            settings[OPTIONS_PARAM] = _game_options(path, value)
        elif key in TOP_LEVEL:
            settings[TOP_LEVEL[key]] = value
        else:
            known = ", ".join(sorted([*TOP_LEVEL, *TABLES, OPTIONS_TABLE]))
            raise ConfigError(f"{path}: unknown setting {key!r}; the settings are: {known}")
    for key in PATH_KEYS & settings.keys():
        settings[key] = str(_relative(path, settings[key], key_of(key)))
    # One file, one tournament: without a name, the file's title (else the file's own name) names it, so that the
    # same file finds the same tournament whatever its entrants became.
    if "name" not in settings:
        settings["name"] = name_of(str(settings.get("title") or "")) or name_of(path.stem) or "competition"
    if isinstance(settings.get("bots"), str):
        settings["bots"] = [settings["bots"]]
    if isinstance(settings.get("variants"), str):
        settings["variants"] = [settings["variants"]]
    if isinstance(settings.get("webhook_hosts"), str):
        settings["webhook_hosts"] = [settings["webhook_hosts"]]
    return settings


def _table(path: Path, name: str, value: Any, keys: dict[str, str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {name!r} must be a table ([{name}]), not {type(value).__name__}")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise ConfigError(f"{path}: unknown setting {unknown[0]!r} in [{name}]; the settings there are: "
                          f"{', '.join(keys)}")
    return {keys[k]: v for k, v in value.items()}


def _game_options(path: Path, value: Any) -> list[str]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {OPTIONS_TABLE!r} must be a table ([{OPTIONS_TABLE}]) of game options")
    pairs = []
    for key, option in value.items():
        if isinstance(option, (dict, list)):
            raise ConfigError(f"{path}: game option {key!r} must be a single value, not a {type(option).__name__}")
        text = str(option).lower() if isinstance(option, bool) else str(option)
        pairs.append(f"{key}={text}")
    return pairs


def _relative(path: Path, value: Any, key: str) -> Path:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{path}: {key!r} must be a path (a string), not {value!r}")
    target = Path(value).expanduser()
    return target if target.is_absolute() else path.parent / target


DESCRIPTION_CHARS = 20_000  # the most of a season's description (Markdown) the front page shows
TITLE_CHARS = 200  # the most of a competition's title, the front page's heading


@dataclass(frozen=True)
class About:
    """What a hosted competition's front page tells a newcomer: its title (the heading), a description (Markdown)
    and the season's dates."""

    description: str = ""
    start: datetime.date | None = None
    end: datetime.date | None = None
    title: str = ""

    def state(self, today: datetime.date) -> str:
        """Where the season stands on `today`, in words."""
        if self.start is not None and today < self.start:
            return f"opens on {self.start.isoformat()}"
        if self.end is not None and today > self.end:
            return f"ended on {self.end.isoformat()}"
        return f"open until {self.end.isoformat()}" if self.end is not None else "open"


def about(description: str | None, start: str | None, end: str | None, title: str | None = None) -> About:
    """The front page's facts from the organiser's settings; ConfigError for a date that is not YYYY-MM-DD, an end
    before the start, a description too long to show, or a title too long or with control characters."""
    text = description or ""
    if len(text) > DESCRIPTION_CHARS:
        raise ConfigError(f"the description has {len(text):,} characters; the most is {DESCRIPTION_CHARS:,}")
    heading = (title or "").strip()
    if len(heading) > TITLE_CHARS or any(ord(c) < 32 or ord(c) == 127 for c in heading):
        raise ConfigError(f"the title must be one line of at most {TITLE_CHARS} characters: {heading[:40]!r}")
    first, last = _day(start, "start"), _day(end, "end")
    if first is not None and last is not None and last < first:
        raise ConfigError(f"the season ends ({last}) before it starts ({first})")
    return About(text, first, last, heading)


def _day(value: str | None, key: str) -> datetime.date | None:
    if not value:
        return None
    try:
        return datetime.date.fromisoformat(value.strip()[:10])
    except ValueError:
        raise ConfigError(f"{key}: {value[:40]!r} is not a date (YYYY-MM-DD)") from None
