"""One truth about a bot on every page and API answer an author or a visitor reads, in words for a competitor: a
replaced version is retired everywhere, a bot whose files are gone is paused with the reason, a retired bot frees
its place, and nothing a competitor reads names a server option or command."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Iterator

import pytest

from tests.helpers import wait_until
from tests.server.conftest import Server, admitted, kit_bot, start, stop, upload, zipped

pytestmark = pytest.mark.slow


def versioned(folder: Path, name: str, version: str) -> bytes:
    """A python kit bot named `name` at `version`, as a .zip."""
    if not folder.exists():
        kit_bot(folder, stderr=False)
    manifest = folder / "manifest.toml"
    text = re.sub(r'name = "[^"]*"', f'name = "{name}"', manifest.read_text(), count=1)
    manifest.write_text(re.sub(r'version = "[^"]*"', f'version = "{version}"', text, count=1))
    return zipped(folder)


def submit(server: Server, token: str, data: bytes) -> int:
    reply = upload(server, token, data)
    assert reply.status_code == 202, reply.text
    return reply.json()["id"]


@pytest.fixture
def one_bot_each(tmp_path: Path) -> Iterator[Server]:
    """A server whose authors may each have one bot in the competition."""
    results = tmp_path / "results"
    process, url = start(results, "--active-bots", "1")
    yield Server(url, results, process)
    stop(process)


def test_a_replaced_version_is_retired_on_every_page_and_answer(server: Server, tmp_path: Path) -> None:
    code, token = server.author("alice")
    first = submit(server, token, versioned(tmp_path / "bot", "alicebot", "0.1"))
    assert admitted(server, token, first)
    with server.client() as c:  # in the ladder, so that its public page lists it
        assert wait_until(lambda: f"<td>0.1#{first}</td><td>in the ladder</td>" in c.get("/bots/alicebot").text, 300)
    second = submit(server, token, versioned(tmp_path / "bot", "alicebot", "0.2"))
    assert admitted(server, token, second)
    told = server.status(token, first)
    assert told["status"] == "retired" and told["reason"] == f"replaced by version 0.2 (upload {second})", told
    assert server.status(token, second)["status"] == "admitted"
    with server.client(token) as c:
        own = c.get("/me/bots/alicebot").text
        assert re.search(rf'/me/submissions/{first}">{first}</a></td><td>0.1</td>\s*<td class="retired">', own), own
        assert wait_until(lambda: re.search(rf"<td>[^<]*</td><td>0\.1#{first}</td><td>retired</td>",
                                            c.get("/bots/alicebot").text), 300)
        page = c.get(f"/me/submissions/{first}").text
        assert 'class="retired">retired<' in page and "replaced by version 0.2" in page


def test_a_retired_bot_frees_its_place(one_bot_each: Server, tmp_path: Path) -> None:
    server = one_bot_each
    _, token = server.author("alice")
    assert admitted(server, token, submit(server, token, versioned(tmp_path / "a", "alicebot", "0.1")))
    full = upload(server, token, versioned(tmp_path / "b", "alicebot2", "0.1"))
    assert full.status_code == 429 and "retire one" in full.json()["error"], full.text
    with server.client(token) as c:
        assert c.delete("/api/bots/alicebot").status_code == 200
    assert admitted(server, token, submit(server, token, versioned(tmp_path / "b", "alicebot2", "0.2")))
    # The name stays its author's: a new version brings the retired bot back, and takes a place again.
    back = upload(server, token, versioned(tmp_path / "a", "alicebot", "0.2"))
    assert back.status_code == 429, back.text


def test_a_bot_whose_files_are_gone_is_paused_with_the_reason_everywhere(server: Server, tmp_path: Path) -> None:
    _, token = server.author("alice")
    sid = submit(server, token, versioned(tmp_path / "bot", "alicebot", "0.1"))
    assert admitted(server, token, sid)
    with server.client() as c:
        assert wait_until(lambda: c.get("/bots/alicebot").status_code == 200, 120)  # in the ladder
    folder = next(p for p in (server.results / "uploads").iterdir() if p.is_dir())
    shutil.rmtree(folder)
    missing = "its files are missing on the server"
    with server.client(token) as c:
        assert wait_until(lambda: missing in c.get("/me/bots/alicebot").text, 60)
        assert missing in (server.status(token, sid)["paused"] or "")
        assert server.status(token, sid)["status"] == "admitted"
        public = c.get("/bots/alicebot").text
        assert f"Paused: {missing}" in public and "retired" not in public, public


def test_words_for_a_competitor_name_no_server_option_or_command(server: Server, tmp_path: Path) -> None:
    _, token = server.author("alice")
    slow = kit_bot(tmp_path / "slow", stderr=False)
    bot = slow / "bot.py"
    bot.write_text(bot.read_text().replace('    hand = view.get("hand", [])',
                                           '    __import__("time").sleep(3)\n    hand = view.get("hand", [])', 1))
    sid = submit(server, token, versioned(slow, "slowbot", "0.1"))
    assert not admitted(server, token, sid)
    reason = server.status(token, sid)["reason"]
    assert "timeout" in reason and "set by the competition" in reason, reason
    assert "--" not in reason and "arena " not in reason, reason
    with server.client() as c:
        signed_out = c.get("/me").text
    assert "ask the organiser" in signed_out and "arena authors" not in signed_out, signed_out

