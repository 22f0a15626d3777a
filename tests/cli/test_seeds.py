"""Seeds no entrant can predict, attacked through real tournaments: a bot that derives the deal from its seat seed
succeeds where the run is public-seeded (`--seed 0`), and fails at the default (a secret kept in the store) and
where the seed is one it cannot read (a competition file's). Resume and old stores keep their seeds."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

from arena.match.seeds import SecretSeed, derive_seed, table_seed
from arena.storage import SCHEMA_VERSION
from tests.bot_programs.seed_thief import state_digest
from tests.helpers import RANDOM, ROOT, arena, bots, sandbox_levels

PREDICTION = re.compile(r"seed_thief: game (\d+) seat (\d+) predicts (?:deal seed (\d+), state (\w+)|nothing)")


def thief(where: Path) -> Path:
    """The thief as an entrant would send it: a submission folder with the published engine inside."""
    folder = where / "thief"
    shutil.copytree(ROOT / "arena" / "games", folder / "arena" / "games",
                    ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    shutil.copy(ROOT / "arena" / "__init__.py", folder / "arena")
    shutil.copy(ROOT / "tests" / "bot_programs" / "seed_thief.py", folder)
    (folder / "manifest.toml").write_text(f'name = "thief"\nversion = "1"\ncommand = '
                                          f'{json.dumps([sys.executable, "seed_thief.py"])}\n', encoding="utf-8")
    return folder


def tournament(cwd: Path, *args: str) -> None:
    """A round-robin of the thief and two random bots."""
    run = arena("tournament", "bali-2017", str(thief(cwd)), f"r1={RANDOM}", f"r2={RANDOM}", "--jobs", "1", *args,
                cwd=cwd)
    assert run.returncode == 0, run.stderr


def predictions(results: Path) -> list[tuple[dict, str | None, str | None]]:
    """Each game the thief played: its record, and the deal seed and state it predicted (None: nothing)."""
    found = []
    for folder in sorted((results / "matches").iterdir()):
        said = "".join(p.read_text() for p in sorted((folder / "logs").glob("*.stderr.log")))
        for game, _seat, deal, digest in PREDICTION.findall(said):
            record = json.loads((folder / f"game-{int(game) + 1:04d}.json").read_text())
            found.append((record, deal or None, digest or None))
    return found


def right(prediction: tuple[dict, str | None, str | None]) -> bool:
    """Whether the thief held the game's whole deal: the record's seed, and the state the engine deals from it."""
    record, deal, digest = prediction
    return deal == str(record["seed"]) and digest == state_digest(record["game"], record["num_players"],
                                                                  record["seed"], record["options"] or {})


def seeds_listed(cwd: Path, results: str = "results") -> list[str]:
    """The seeds column of `arena tournaments`, one per tournament."""
    listing = arena("tournaments", "--results", results, cwd=cwd)
    assert listing.returncode == 0, listing.stderr
    header = listing.stdout.splitlines()[0]
    start, end = header.index("seeds"), header.index("complete")
    return [line[start:end].strip() for line in listing.stdout.splitlines()[2:]]


@pytest.mark.parametrize("level", sandbox_levels())
@pytest.mark.slow
def test_with_a_public_seed_the_thief_predicts_every_deal_and_the_run_says_it_is_public(level: str,
                                                                                       tmp_path: Path) -> None:
    tournament(tmp_path, "--seed", "0", "--sandbox", level)
    games = predictions(tmp_path / "results")
    assert len(games) == 3 and all(right(g) for g in games), games
    assert seeds_listed(tmp_path) == ["public (seed 0)"]
    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert board["seeding"] == "public" and board["public_seed"] == 0
    csv = arena("leaderboard", "--format", "csv", cwd=tmp_path).stdout.splitlines()
    assert csv[0].endswith(",seeding") and all(row.endswith(",public (seed 0)") for row in csv[1:])
    assert "public-seeded (seed 0)" in arena("leaderboard", cwd=tmp_path).stdout


@pytest.mark.parametrize("level", sandbox_levels())
@pytest.mark.slow
def test_at_the_default_the_thief_predicts_nothing_and_no_file_holds_the_secret(level: str, tmp_path: Path) -> None:
    tournament(tmp_path, "--sandbox", level)
    games = predictions(tmp_path / "results")
    assert len(games) == 3 and not any(right(g) for g in games), games
    assert seeds_listed(tmp_path) == ["secret"]
    board = json.loads(arena("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert board["seeding"] == "secret" and board["public_seed"] is None
    with closing(sqlite3.connect(tmp_path / "results" / "arena.sqlite")) as con:
        (secret,) = con.execute("SELECT secret FROM secrets").fetchone()
    outside = [p for p in (tmp_path / "results").rglob("*") if p.is_file() and "arena.sqlite" not in p.name]
    assert outside and not [p for p in outside if secret in p.read_text(errors="replace")]
    # A seat's replay page holds what the seat was sent, never the deal seed (the referee's page may: the game is
    # over, and the page re-plays it).
    record = games[0][0]
    page = tmp_path / "seat.html"
    assert arena("show", "1", "--html", str(page), "--seat", "1", cwd=tmp_path).returncode == 0
    assert str(record["seed"]) not in page.read_text()


@pytest.mark.slow
def test_a_seed_in_a_competition_file_the_bot_cannot_read_is_not_predicted_but_is_public(tmp_path: Path) -> None:
    folder = tmp_path / "organiser"
    folder.mkdir()
    (folder / "competition.toml").write_text(
        f'game = "bali-2017"\nname = "cup"\nseed = 982451653\njobs = 1\nresults = "results"\n'
        f'bots = [{json.dumps(str(thief(tmp_path)))}, {json.dumps(f"r1={RANDOM}")}, {json.dumps(f"r2={RANDOM}")}]\n',
        encoding="utf-8")
    run = arena("tournament", "--config", str(folder / "competition.toml"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    games = predictions(folder / "results")
    assert len(games) == 3 and not any(right(g) for g in games), games
    assert all(deal is None for _, deal, _ in games)  # no guessed root gave its seat seed
    assert seeds_listed(tmp_path, str(folder / "results")) == ["public (seed 982451653)"]
    site = tmp_path / "site"
    assert arena("publish", "-o", str(site), "--results", str(folder / "results"), cwd=tmp_path).returncode == 0
    for page in (site / "index.html", site / "cup" / "index.html"):
        assert "public-seeded" in page.read_text()
    assert "982451653" in (site / "cup" / "index.html").read_text()


@pytest.mark.slow
def test_a_resumed_tournament_reuses_its_stored_secret(tmp_path: Path) -> None:
    """A ladder given more games goes on with the secret it drew: every game's deal derives from it."""
    ladder = ["tournament", "bali-2017", *bots(3), "--format", "ladder", "--seats", "3", "--wave", "1", "--jobs", "1"]
    for games in ("3", "6"):
        assert arena(*ladder, "--games", games, cwd=tmp_path).returncode == 0
    with closing(sqlite3.connect(tmp_path / "results" / "arena.sqlite")) as con:
        assert con.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0] == 1
        secrets = [row[0] for row in con.execute("SELECT secret FROM secrets")]
        played = con.execute("SELECT seq, table_no, seed FROM games ORDER BY seq").fetchall()
    assert len(secrets) == 1 and len(played) == 6
    root = SecretSeed(secrets[0])
    assert [seed for _, _, seed in played] == \
        [derive_seed(table_seed(root, table), "deal", 0) for _, table, _ in played]  # a game a table
    assert seeds_listed(tmp_path) == ["secret"]


@pytest.mark.slow
def test_an_old_store_is_public_seeded_and_the_same_command_resumes_it_with_its_seed(tmp_path: Path) -> None:
    """A store of schema 3 (before secret seeds), whose ladder an older arena started without a seed: seed 0."""
    ladder = ["tournament", "bali-2017", *bots(3), "--format", "ladder", "--seats", "3", "--wave", "1", "--jobs", "1"]
    assert arena(*ladder, "--games", "3", "--seed", "0", cwd=tmp_path).returncode == 0
    db = tmp_path / "results" / "arena.sqlite"
    with closing(sqlite3.connect(db)) as con:  # as schema 3 had it
        for table in ("secrets", "submissions", "owners", "authors", "refused_uploads", "invites"):  # since 3
            con.execute(f"DROP TABLE {table}")
        con.execute("DELETE FROM meta WHERE key = 'secrets_from'")
        con.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
        con.commit()
    assert seeds_listed(tmp_path) == ["public (seed 0)"]  # read as it is, migrated in memory
    resumed = arena(*ladder, "--games", "6", cwd=tmp_path)  # the same command, as the older arena took it
    assert resumed.returncode == 0, resumed.stderr
    assert "public-seeded (seed 0)" in resumed.stdout
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert con.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0] == 1
        assert con.execute("SELECT COUNT(*) FROM secrets").fetchone()[0] == 0
        played = con.execute("SELECT seq, table_no, seed FROM games ORDER BY seq").fetchall()
    assert [seed for _, _, seed in played] == [derive_seed(table_seed(0, table), "deal", 0)  # a game a table
                                              for seq, table, _ in played] and len(played) == 6
    # A new tournament with the same settings, started now without a seed, draws a secret.
    fresh = arena(*ladder, "--games", "3", "--name", "new", cwd=tmp_path)
    assert fresh.returncode == 0, fresh.stderr
    assert seeds_listed(tmp_path) == ["public (seed 0)", "secret"]


@pytest.mark.slow
def test_match_and_validate_keep_their_secret_in_the_store_only(tmp_path: Path) -> None:
    players = [f"{sys.executable} -m sample_bots.random_bot"] * 3
    assert arena("match", "bali-2017", *players, "--games", "2", "-q", cwd=tmp_path).returncode == 0
    assert arena("match", "bali-2017", *players, "--seed", "5", "-q", cwd=tmp_path).returncode == 0
    checked = arena("validate", players[0], "--game", "bali-2017", "--games", "1", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert seeds_listed(tmp_path) == ["secret", "public (seed 5)", "secret"]
    with closing(sqlite3.connect(tmp_path / "results" / "arena.sqlite")) as con:
        secrets = [row[0] for row in con.execute("SELECT secret FROM secrets")]
    assert len(secrets) == 2
    summaries = sorted((tmp_path / "results" / "matches").glob("*/match.json"))
    assert [json.loads(p.read_text())["seed"] for p in summaries if "-s5" not in p.parent.name] == [None] * 2
    files = [p.read_text(errors="replace") for p in (tmp_path / "results").rglob("*") if p.is_file()
             and "arena.sqlite" not in p.name]
    assert not [s for s in secrets if any(s in text for text in files)]
