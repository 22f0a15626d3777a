"""Upload attacks that once got through: an archive whose checks took minutes under a lock every upload waits on,
archives whose errors were 500s that did not count toward the daily limit, leftovers of an upload cut off by
SIGKILL, and a refused upload that kept its bot's name. A real server on a free port, real uploads."""

from __future__ import annotations

import io
import re
import signal
import sqlite3
import struct
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.bots.submission import BUILD_TIMEOUT
from tests.helpers import wait_until
from tests.server.conftest import Server, admitted, kit_bot, start, stop, upload, zipped

pytestmark = pytest.mark.slow

MANIFEST = b'name = "b"\nversion = "1"\ncommand = "python3 bot.py"\n'


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        for name, data in members:
            z.writestr(name, data)
    return buffer.getvalue()


def _repeating(count: int) -> bytes:
    """The attack: `count` empty members, the last name a repeat of the one before (found last by a search that
    counts each name's copies: count² steps)."""
    return _zip([("manifest.toml", MANIFEST), *((f"f{i}", b"") for i in range(count - 2)), (f"f{count - 3}", b"")])


@pytest.mark.parametrize("max_members, said", [(None, "members, over the limit of 2000"),
                                               ("30000", "member 'f23997' appears twice")])
def test_a_repeating_archive_is_refused_at_once_beside_another_authors_upload(tmp_path: Path, max_members: str | None,
                                                                              said: str) -> None:
    results = tmp_path / "results"
    process, url = start(results, "--no-play", *(("--max-members", max_members) if max_members else ()))
    server = Server(url, results, process)
    try:
        _, attacker = server.author("mallory")
        _, other = server.author("olga")
        sound = zipped(kit_bot(tmp_path / "olgabot"))
        with ThreadPoolExecutor(2) as pool:
            attack = pool.submit(upload, server, attacker, _repeating(24_000))
            honest = pool.submit(upload, server, other, sound)
            # The client gives each request 20 s; the quadratic check took 128 s of CPU and held every upload.
            assert honest.result().status_code == 202, honest.result().text
            assert attack.result().status_code == 400 and said in attack.result().json()["error"]
    finally:
        assert stop(process) == 130


def _lying_sizes() -> bytes:
    """A zip whose index says a member is smaller than the data stored for it."""
    data = bytearray(_zip([("manifest.toml", MANIFEST), ("bot.py", b"print('hello')\n" * 20)]))
    entry = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02") + 4)  # bot.py's central directory entry
    assert data[entry + 46:entry + 52] == b"bot.py"
    struct.pack_into("<II", data, entry + 20, 5, 5)  # its compressed and uncompressed sizes
    return bytes(data)


def test_every_bad_archive_is_a_4xx_that_counts_toward_the_daily_limit(tmp_path: Path) -> None:
    results = tmp_path / "results"
    process, url = start(results, "--no-play", "--uploads-per-day", "3")
    server = Server(url, results, process)
    try:
        _, token = server.author("nell")
        bad = [(_zip([("manifest.toml", MANIFEST), ("a", b"x"), ("a/b", b"y")]), "lies inside 'a', which is a file"),
               (_zip([("manifest.toml", MANIFEST), (".", b"x")]), "a file member is named '.'"),
               (_lying_sizes(), "")]
        for data, said in bad:
            answer = upload(server, token, data)
            assert 400 <= answer.status_code < 500, (answer.status_code, answer.text)
            assert said in answer.json()["error"] and str(tmp_path) not in answer.text
        answer = upload(server, token, zipped(kit_bot(tmp_path / "nellbot")))
        assert answer.status_code == 429 and "the limit" in answer.json()["error"]
        with sqlite3.connect(results / "arena.sqlite") as db:
            assert db.execute("SELECT COUNT(*) FROM refused_uploads").fetchone()[0] == 3
        assert not list((results / "uploads").glob("upload-*/*"))  # nothing unpacked is left
    finally:
        assert stop(process) == 130


def test_leftovers_of_an_upload_cut_off_by_sigkill_are_swept_at_start(tmp_path: Path) -> None:
    results = tmp_path / "results"
    process, url = start(results, "--no-play")
    server = Server(url, results, process)
    _, token = server.author("olaf")
    kept = upload(server, token, zipped(kit_bot(tmp_path / "olafbot")))
    assert kept.status_code == 202
    process.send_signal(signal.SIGKILL)
    process.wait()
    # What a server killed while it unpacked leaves behind: a folder marked as that process's, which is gone.
    leftover = results / "uploads" / "upload-cutoff1"
    (leftover / "half").mkdir(parents=True)
    (leftover / "half" / "big.bin").write_bytes(bytes(1 << 20))
    subprocess.run([sys.executable, "-c", "import sys, pathlib; from arena.bots import leftovers; "
                    "leftovers.mark_beside(pathlib.Path(sys.argv[1]))", str(leftover)], check=True)
    unknown = results / "uploads" / "upload-not-the-servers"  # not marked: no proof it is a leftover
    unknown.mkdir()
    before = sorted(p.name for p in (results / "uploads").iterdir() if not p.name.startswith(leftover.name))
    process, url = start(results, "--no-play")
    try:
        assert not leftover.exists() and not leftover.with_name(leftover.name + ".arena-owner").exists()
        assert sorted(p.name for p in (results / "uploads").iterdir()) == before  # the queued upload's folder kept
        assert Server(url, results, process).status(token, kept.json()["id"])["status"] == "queued"
    finally:
        assert stop(process) == 130


def test_a_refused_upload_takes_no_name_and_a_version_already_in_is_refused(server: Server, tmp_path: Path) -> None:
    _, token = server.author("pia")
    for n in range(3):  # three names refused at admission: none of them stays the author's
        folder = kit_bot(tmp_path / f"dud{n}")
        (folder / "bot.py").write_text("import sys\nsys.exit(3)\n")
        sid = upload(server, token, zipped(folder)).json()["id"]
        assert not admitted(server, token, sid)
    fourth = kit_bot(tmp_path / "fourth")
    answer = upload(server, token, zipped(fourth))
    assert answer.status_code == 202, answer.text
    assert admitted(server, token, answer.json()["id"])
    again = upload(server, token, zipped(fourth))
    assert again.status_code == 409 and "version '0.1' of fourth is in already" in again.json()["error"]
    mended = kit_bot(tmp_path / "dud0-again")
    (mended / "manifest.toml").write_text(re.sub(r'name = "[^"]*"', 'name = "dud0"',
                                                 (mended / "manifest.toml").read_text()))
    _, rival = server.author("quin")
    assert upload(server, rival, zipped(mended)).status_code == 202  # the refused name is free for anyone
    with sqlite3.connect(server.results / "arena.sqlite") as db:
        owners = dict(db.execute("SELECT o.bot, a.name FROM owners o JOIN authors a ON a.id = o.author_id"))
    assert owners == {"fourth": "pia", "dud0": "quin"}


def building_forever(server: Server, token: str, tmp_path: Path) -> int:
    """The id of an upload whose build never ends, once it is building."""
    endless = kit_bot(tmp_path / "endless")
    manifest = endless / "manifest.toml"
    manifest.write_text(re.sub(r"^build = .*$", 'build = ["sleep", "100000"]', manifest.read_text(), flags=re.M))
    stuck = upload(server, token, zipped(endless)).json()["id"]
    assert wait_until(lambda: server.status(token, stuck)["status"] == "building")
    return stuck


def test_an_endless_build_holds_up_no_other_authors_admission(server: Server, tmp_path: Path) -> None:
    _, slow = server.author("sloane")
    _, other = server.author("otto")
    stuck = building_forever(server, slow, tmp_path)
    honest = upload(server, other, zipped(kit_bot(tmp_path / "ottobot"))).json()["id"]
    assert admitted(server, other, honest), server.status(other, honest)
    assert server.status(slow, stuck)["status"] == "building"  # still at it, alone


def test_a_restart_gives_a_build_no_fresh_time_limit(tmp_path: Path) -> None:
    results = tmp_path / "results"
    process, url = start(results)
    server = Server(url, results, process)
    try:
        _, slow = server.author("sloane")
        stuck = building_forever(server, slow, tmp_path)
        # The time it runs is counted as it runs, so that a stop (which kills the admission) loses little of it.
        assert wait_until(lambda: _build_seconds(results, stuck) > 0)
    finally:
        assert stop(process) == 130
    with sqlite3.connect(results / "arena.sqlite") as con:
        # As if earlier runs of the server had let it build for all but the last 2 s of its limit.
        con.execute("UPDATE build_times SET seconds = ? WHERE submission_id = ?", (BUILD_TIMEOUT - 2, stuck))
    process, url = start(results)
    server = Server(url, results, process)
    try:
        assert wait_until(lambda: server.status(slow, stuck)["status"] == "refused")
        assert "went over its 900 s (counted across stops of the arena)" in server.status(slow, stuck)["reason"]
    finally:
        assert stop(process) == 130


def _build_seconds(results: Path, submission: int) -> float:
    with sqlite3.connect(results / "arena.sqlite") as con:
        row = con.execute("SELECT seconds FROM build_times WHERE submission_id = ?", (submission,)).fetchone()
        return row[0] if row else 0.0
