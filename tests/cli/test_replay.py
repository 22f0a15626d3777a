"""`arena replay` as a user runs it: a record reproduces, a tampered one does not, bad files are named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import FAST, RANDOM_BOT, records, run
from tests.match.conftest import faulty


def test_replay_reproduces_shows_turns_and_a_seats_messages(tmp_path: Path) -> None:
    assert run("match", "bali-2001", RANDOM_BOT, str(faulty("stale_id")), RANDOM_BOT, "--seed", "3",
               "--results", str(tmp_path), *FAST).exit_code == 0
    file = str(records(tmp_path)[0])
    r = run("replay", file)
    assert r.exit_code == 0, r.output
    assert "the replay reproduces the recorded result" in r.output
    assert "--- turn 1:" in r.output and ": wrong_id: " in r.output and "disqualified" in r.output
    seat = run("replay", file, "--seat", "1")
    assert seat.exit_code == 0, seat.output
    messages = [json.loads(line) for line in seat.stdout.splitlines() if line.startswith("{")]
    assert messages[0]["type"] == "new_game" and messages[0]["seat"] == 1
    assert messages[-1]["type"] == "game_over"
    assert [m["id"] for m in messages] == list(range(messages[0]["id"], messages[0]["id"] + len(messages)))


def test_replay_of_a_tampered_record_exits_1(tmp_path: Path) -> None:
    assert run("match", "bali-2001", RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--seed", "3", "--results",
               str(tmp_path), *FAST).exit_code == 0
    file = records(tmp_path)[0]
    data = json.loads(file.read_text())
    data["result"]["scores"][0] += 5
    file.write_text(json.dumps(data))
    r = run("replay", str(file))
    assert r.exit_code == 1
    assert "does not reproduce" in r.output and "the result differs" in r.output


@pytest.mark.parametrize("args, code, message", [
    (["missing.json"], 2, "does not exist"),
    (["{bad}", "--seat", "7"], 2, "seats 0 to 2"),
    (["{not_json}"], 1, "is not JSON"),
])
def test_replay_errors(args: list[str], code: int, message: str, tmp_path: Path) -> None:
    not_json = tmp_path / "x.json"
    not_json.write_text("{")
    assert run("match", "bali-2001", RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--seed", "3", "--results",
               str(tmp_path), *FAST).exit_code == 0
    args = [a.replace("{bad}", str(records(tmp_path)[0])).replace("{not_json}", str(not_json)) for a in args]
    r = run("replay", *args)
    assert r.exit_code == code and message in r.output and "Traceback" not in r.output


def test_a_record_of_format_version_1_still_replays(tmp_path: Path) -> None:
    assert run("match", "bali-2001", RANDOM_BOT, str(faulty("illegal")), RANDOM_BOT, "--seed", "4",
               "--results", str(tmp_path), *FAST).exit_code == 0
    data = json.loads(records(tmp_path)[0].read_text())
    assert data["format_version"] == 2 and data["faults"][0]["asked"] == 1
    # As the previous release wrote it: no entrant names, no bot-side decision count, no timing of faults.
    data["format_version"] = 1
    for seat in data["seats"]:
        del seat["entrant"]
    for fault in data["faults"]:
        del fault["asked"], fault["elapsed"], fault["limit"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    r = run("replay", str(old))
    assert r.exit_code == 0, r.output
    assert "the replay reproduces the recorded result" in r.output and ": illegal: " in r.output
