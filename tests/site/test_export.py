"""`arena export`: a tournament's games, seats and decisions as tables, each view the one its seat was sent, through
the command line (in-process and as a real subprocess) over real stores of real game records."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgpack
import pyarrow.parquet as pq
import pytest

from arena.bench.publish import bench_store
from arena.match.record import load_record, save_record
from arena.match.replay import resimulate
from arena.storage import Store
from tests.cli.conftest import run
from tests.helpers import arena, wait_until

ROOT = Path(__file__).resolve().parents[2]
RECORDER = ROOT / "tests" / "bot_programs" / "recording_bot.py"
TABLES = ("games", "seats", "decisions")


def _store(tmp_path: Path, game: str, games: int) -> tuple[Path, str]:
    results = tmp_path / "results"
    bench_store(game, games, results)
    with Store.existing(results / "arena.sqlite") as store:
        return results, store.tournament().name


def _export(results: Path, name: str, out: Path, fmt: str = "parquet") -> Any:
    r = run("export", "-t", name, "--out", str(out), "--format", fmt, "--results", str(results))
    assert r.exit_code == 0, r.output
    return r


def _rows(out: Path, table: str, fmt: str = "parquet") -> list[dict[str, Any]]:
    if fmt == "parquet":
        return pq.read_table(out / f"{table}.parquet").to_pylist()
    return [json.loads(line) for line in (out / f"{table}.jsonl").read_text().splitlines()]


def _records(results: Path) -> list[Any]:
    with sqlite3.connect(results / "arena.sqlite") as con:
        paths = [p for (p,) in con.execute("SELECT replay FROM games WHERE status = 'done' ORDER BY seq")]
    return [load_record(results / p) for p in paths]


def test_the_tables_hold_every_game_seat_and_decision_of_the_store(tmp_path: Path) -> None:
    results, name = _store(tmp_path, "bali-2017", 24)
    _export(results, name, tmp_path / "out")
    with sqlite3.connect(results / "arena.sqlite") as con:
        games = con.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0]
        seats = con.execute("SELECT COUNT(*) FROM seats").fetchone()[0]
    decisions = sum(len(r.decisions) for r in _records(results))
    assert (games, seats) == (24, 24 * 4) and decisions > 24 * 20
    rows = {t: _rows(tmp_path / "out", t) for t in TABLES}
    assert [len(rows[t]) for t in TABLES] == [games, seats, decisions]
    assert sorted(g["game"] for g in rows["games"]) == list(range(1, 25))
    assert sum(g["length"] for g in rows["games"]) == decisions
    assert {"game", "players", "reason", "seed", "seats", "length"} <= set(rows["games"][0])
    assert {"game", "seat", "bot", "version", "rank", "score", "faults"} <= set(rows["seats"][0])
    assert {"game", "step", "seat", "bot", "view", "options", "chosen", "time"} <= set(rows["decisions"][0])


def test_nothing_a_bot_wrote_is_exported(tmp_path: Path) -> None:
    results, name = _store(tmp_path, "bali-2001", 3)
    with sqlite3.connect(results / "arena.sqlite") as con:
        (replay,) = con.execute("SELECT replay FROM games WHERE seq = 0").fetchone()
    record = load_record(results / replay)
    logged = tuple(replace(d, log="my-secret-plan") if i == 0 else d for i, d in enumerate(record.decisions))
    save_record(replace(record, decisions=logged), results / replay)  # as if its bot had written to stderr
    assert "my-secret-plan" in (results / replay).read_text()
    _export(results, name, tmp_path / "out", "jsonl")
    for table in TABLES:
        assert "my-secret-plan" not in (tmp_path / "out" / f"{table}.jsonl").read_text()


def test_json_lines_and_parquet_hold_the_same_rows(tmp_path: Path) -> None:
    results, name = _store(tmp_path, "bali-2017", 12)
    _export(results, name, tmp_path / "pq")
    _export(results, name, tmp_path / "jl", "jsonl")
    for table in TABLES:
        assert _rows(tmp_path / "pq", table) == _rows(tmp_path / "jl", table, "jsonl"), table


@pytest.mark.parametrize("game", ["bali-2001", "bali-2017"])
def test_no_view_holds_what_its_seat_could_not_see(tmp_path: Path, game: str) -> None:
    results, name = _store(tmp_path, game, 1 if game == "bali-2001" else 8)  # a random game of 2001 is long
    _export(results, name, tmp_path / "out", "jsonl")
    exported = _rows(tmp_path / "out", "decisions", "jsonl")
    checked = 0
    for number, record in enumerate(_records(results), start=1):
        rows = {d["step"]: d for d in exported if d["game"] == number}
        assert len(rows) == len(record.decisions)

        def check(state: Any, step: int, d: Any) -> None:
            nonlocal checked
            row = rows[step]
            assert (row["seat"], row["chosen"]) == (d.seat, d.index)
            if not row["asked"]:
                assert row["view"] is None
                return
            view, seat = json.loads(row["view"]), d.seat
            # The engine's own split: what every seat shares, and this seat's part, and nothing else.
            assert view == json.loads(json.dumps({**state.public_view(), **state.private_view(seat)}))
            assert json.loads(row["options"]) == json.loads(json.dumps(state.options()))
            own, public = state.private_view(seat), state.public_view()
            for other in range(record.num_players):
                if other == seat:
                    continue
                hidden = state.private_view(other)
                for key, value in hidden.items():  # another seat's own part shows only where it is this seat's too
                    if key in view and value not in (own.get(key), public.get(key)):
                        assert view[key] != json.loads(json.dumps(value)), f"seat {seat} sees seat {other}'s {key}"
                if game == "bali-2001":  # its cards have ids: none of another hand's, none face down, is shown
                    ids = _card_ids(hidden["hand"]) | _card_ids(state.referee_view())
                    ids -= _card_ids(public) | _card_ids(own)
                    assert not ids & _card_ids(view), f"game {number} step {step}: seat {seat} sees {ids}"
            checked += 1

        resimulate(record, check)
    assert checked > 200


def _card_ids(data: Any) -> set[int]:
    """The ids of every card (a map with an id and a kind) anywhere in data."""
    if isinstance(data, dict):
        own = {data["id"]} if "id" in data and "kind" in data else set()
        return own.union(*(_card_ids(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(_card_ids(v) for v in data))
    return set()


def test_a_second_export_adds_only_the_games_stored_since(tmp_path: Path) -> None:
    results, name = _store(tmp_path, "bali-2017", 10)
    for fmt in ("parquet", "jsonl"):
        out = tmp_path / fmt
        _export(results, name, out, fmt)
        first = {t: _rows(out, t, fmt) for t in TABLES}
        again = _export(results, name, out, fmt)
        assert "0 games, 0 seats, 0 decisions added" in again.output
        assert {t: _rows(out, t, fmt) for t in TABLES} == first
    bench_store("bali-2017", 16, results)  # six more games of the same ladder
    for fmt in ("parquet", "jsonl"):
        out = tmp_path / fmt
        before = {t: _rows(out, t, fmt) for t in TABLES}
        more = _export(results, name, out, fmt)
        assert "6 games, 24 seats" in more.output
        after = {t: _rows(out, t, fmt) for t in TABLES}
        for t in TABLES:
            assert after[t][:len(before[t])] == before[t]  # what was there is kept as it was
        assert sorted(g["game"] for g in after["games"]) == list(range(1, 17))
        assert len(after["decisions"]) == sum(len(r.decisions) for r in _records(results))
        assert not list(out.glob(".*"))


@pytest.mark.slow
def test_an_interrupted_export_leaves_no_partial_file_under_a_tables_name(tmp_path: Path) -> None:
    results, name = _store(tmp_path, "bali-2017", 300)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "arena", "export", "-t", name, "--out", str(out), "--results", str(results)]
    proc = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: (out / ".decisions.parquet.partial").exists()), "the export did not start"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        proc.kill()
    assert not [t for t in TABLES if (out / f"{t}.parquet").exists()]
    assert not (out / "export.json").exists()
    r = arena("export", "-t", name, "--out", str(out), "--results", str(results), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(_rows(out, "games")) == 300 and not list(out.glob(".*"))
    complete = {t: (out / f"{t}.parquet").read_bytes() for t in TABLES}
    # Interrupted again (Ctrl-C) while adding games: the complete tables stay as they were.
    bench_store("bali-2017", 400, results)
    proc = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: (out / ".decisions.parquet.partial").exists()), "the export did not start"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) != 0
    finally:
        proc.kill()
    assert {t: (out / f"{t}.parquet").read_bytes() for t in TABLES} == complete
    assert not list(out.glob(".*"))  # Ctrl-C lets it clear its partial files


@pytest.mark.parametrize("args, message", [
    (["-t", "nosuch"], "no tournament 'nosuch'"),
    (["--out", "{file}"], "is not a folder"),
    (["--out", "{file}/inside"], "cannot make the folder"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    results, name = _store(tmp_path, "bali-2001", 2)
    (tmp_path / "file").write_text("mine\n")
    given = {"-t": name, "--out": str(tmp_path / "out")}
    for flag, value in zip(args[::2], args[1::2]):
        given[flag] = value.format(file=tmp_path / "file")
    r = run("export", *[x for kv in given.items() for x in kv], "--results", str(results))
    assert r.exit_code == 2, r.output
    assert message in r.output and len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert (tmp_path / "file").read_text() == "mine\n"
    assert not (tmp_path / "out").exists()


def test_an_export_of_another_tournament_into_the_same_folder_is_refused(tmp_path: Path) -> None:
    results, name = _store(tmp_path, "bali-2001", 2)
    _export(results, name, tmp_path / "out")
    with sqlite3.connect(results / "arena.sqlite") as con:
        con.execute("UPDATE tournaments SET name = 'renamed'")
    r = run("export", "-t", "renamed", "--out", str(tmp_path / "out"), "--results", str(results))
    assert r.exit_code == 2 and "holds an export of" in r.output


@pytest.mark.slow
def test_every_exported_view_is_the_one_its_bot_was_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    received = tmp_path / "received"
    received.mkdir()
    monkeypatch.setenv("RECORD_DIR", str(received))  # the recording bot writes every message it is sent there
    bot = f"{sys.executable} {RECORDER}"
    for game in ("bali-2001", "bali-2017"):
        r = arena("tournament", game, *[f"rec{i}={bot}" for i in range(3)], "--seats", "3", "--sandbox", "none",
                  "--name", game, "--timeout", "5", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    sent: dict[int, list[dict[str, Any]]] = {}  # a seat's game by the seed it was given: its decide messages
    for path in received.glob("*.bin"):
        unpacker, seed = msgpack.Unpacker(raw=False), None
        unpacker.feed(path.read_bytes())
        for message in unpacker:
            if message["type"] == "new_game":
                seed = message["seed"]
                sent[seed] = []
            elif message["type"] == "decide":
                sent[seed].append(message)
    compared = 0
    for game in ("bali-2001", "bali-2017"):
        out = tmp_path / game
        r = arena("export", "-t", game, "--out", str(out), cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        seeds = {(s["game"], s["seat"]): s for s in _rows(out, "seats")}
        assert len(seeds) == 3 * len(_rows(out, "games"))
        decisions = [d for d in _rows(out, "decisions") if d["asked"]]
        by_seat: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for d in sorted(decisions, key=lambda d: (d["game"], d["step"])):
            by_seat.setdefault((d["game"], d["seat"]), []).append(d)
        for (number, seat), rows in by_seat.items():
            messages = sent[_seed(tmp_path / "results", game, number, seat)]
            assert len(rows) == len(messages)
            for row, message in zip(rows, messages):
                assert json.loads(row["view"]) == message["view"]
                assert json.loads(row["options"]) == message["options"]
                assert json.loads(row["decision"]) == message["decision"]
                compared += 1
    assert compared > 200


def _seed(results: Path, game: str, number: int, seat: int) -> int:
    """The seed the bot in a seat of game `number` of tournament `game` was given with its new_game."""
    with sqlite3.connect(results / "arena.sqlite") as con:
        (replay,) = con.execute("SELECT g.replay FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                                "WHERE t.name = ? AND g.seq = ?", (game, number - 1)).fetchone()
    return load_record(results / replay).seats[seat].seed
