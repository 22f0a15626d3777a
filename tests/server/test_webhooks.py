"""Webhooks through a real `arena serve`: a receiver in the test (a real socket server) is posted an author's bots'
refusal, admission and first place, each signed with the secret shown once; a receiver that answers 500 is tried
again with the attempts listed; private addresses are refused; the secret is never in the server's log."""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.storage import Store
from tests.helpers import ROOT, Receiver, wait_until
from tests.server.conftest import ENV, Server, kit_bot, stop, upload, zipped

pytestmark = pytest.mark.slow
EVENTS = ["admitted", "refused", "paused", "challenge_done", "rank_changed"]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def serve_logged(tmp_path: Path, *args: str) -> tuple[Server, Path]:
    """`arena serve` over a fresh store, its log (stderr) kept in a file."""
    results = tmp_path / "results"
    with Store(results / "arena.sqlite"):
        pass
    log = tmp_path / "serve.log"
    with open(log, "w") as err:
        process = subprocess.Popen([sys.executable, "-m", "arena", "serve", "bali-2001", "--port", "0", "--jobs", "1",
                                    "--results", str(results), *args], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                                   stderr=err, text=True)
    line = process.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("serving on http://127.0.0.1:"), line
    return Server(line.split()[-1], results, process), log


def broken_bot(folder: Path) -> Path:
    """A kit bot with a syntax error: its build fails, so it is refused."""
    kit_bot(folder, stderr=False)
    (folder / "bot.py").write_text("def broken(:\n")
    return folder


def signed(headers: dict[str, str], body: bytes, secret: str) -> bool:
    want = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers["x-arena-signature"], want)


def test_a_refusal_an_admission_and_a_rank_reach_a_receiver_signed_and_a_failing_one_is_retried(
        tmp_path: Path, receiver: Receiver, started: list[subprocess.Popen[Any]]) -> None:
    config = tmp_path / "cup.toml"
    config.write_text('[serve]\nwebhook_hosts = ["127.0.0.1"]\n')
    server, log = serve_logged(tmp_path, "--config", str(config))
    started.append(server.process)
    _, alice = server.author("alice")
    _, bob = server.author("bob")
    with server.client(alice) as c:
        made = c.post("/api/webhooks", json={"url": receiver.url("/ok"), "events": EVENTS})
        assert made.status_code == 201, made.text
        hook, secret = made.json()["id"], made.json()["secret"]
        failing = c.post("/api/webhooks", json={"url": receiver.url("/fail"), "events": ["refused"]})
        assert failing.status_code == 201, failing.text
        # A private address the organiser did not allow is refused at once, and so is bad input.
        for body, said in [({"url": "http://10.0.0.1/hook", "events": ["admitted"]}, "a private address"),
                           ({"url": "http://169.254.169.254/", "events": ["admitted"]}, "metadata"),
                           ({"url": receiver.url("/ok"), "events": ["won"]}, "unknown event 'won'"),
                           ({"url": "file:///etc/passwd", "events": ["admitted"]}, "not an http:// or https://"),
                           ({"url": "https://example.org/" + "x" * 2000, "events": ["admitted"]}, "at most 2000")]:
            answer = c.post("/api/webhooks", json=body)
            assert answer.status_code == 400 and said in answer.json()["error"], answer.text
        for _ in range(3):
            assert c.post("/api/webhooks", json={"url": receiver.url("/more"), "events": ["paused"]}).status_code == 201
        too_many = c.post("/api/webhooks", json={"url": receiver.url("/more"), "events": ["paused"]})
        assert too_many.status_code == 400 and "5 webhooks" in too_many.json()["error"]
    with server.client(bob) as c:  # someone else's hook: as if there were none
        assert c.delete(f"/api/webhooks/{hook}").status_code == 404
        assert c.get("/api/webhooks").json() == []
    with server.client() as c:
        assert c.get("/api/webhooks").status_code == 401

    bad = upload(server, alice, zipped(broken_bot(tmp_path / "alicebad")))
    good = upload(server, alice, zipped(kit_bot(tmp_path / "alicebot")))
    assert bad.status_code == 202 and good.status_code == 202
    assert wait_until(lambda: receiver.events("/ok") and {"refused", "admitted"} <= {
        e["event"] for e in receiver.events("/ok")}, 180), receiver.got
    for path, headers, body in list(receiver.got):
        if path == "/ok":
            assert signed(headers, body, secret), headers
            assert headers["x-arena-event"] == json.loads(body)["event"] and headers["x-arena-delivery"].isdigit()
    events = {e["event"]: e for e in receiver.events("/ok")}
    assert events["refused"]["bot"] == "alicebad" and events["refused"]["upload"] == bad.json()["id"]
    assert "build failed" in events["refused"]["reason"] and str(tmp_path) not in events["refused"]["reason"]
    assert events["admitted"]["bot"] == "alicebot" and events["admitted"]["upload"] == good.json()["id"]
    # Its first place on the board, after its first wave: a rank with no previous one.
    assert wait_until(lambda: any(e["event"] == "rank_changed" for e in receiver.events("/ok")), 180)
    ranked = next(e for e in receiver.events("/ok") if e["event"] == "rank_changed")
    assert ranked["bot"] == "alicebot" and ranked["previous"] is None and ranked["rank"] >= 1

    # The receiver that answers 500 is tried again, each attempt listed for the author, with the next one's time.
    def fail_attempts() -> list[dict[str, Any]]:
        with server.client(alice) as c:
            listed = {h["id"]: h for h in c.get("/api/webhooks").json()}
        return listed[failing.json()["id"]]["attempts"]

    assert wait_until(lambda: len(fail_attempts()) >= 2, 60), fail_attempts()
    attempts = fail_attempts()
    assert [a["attempt"] for a in attempts] == list(range(len(attempts), 0, -1))  # newest first
    assert all(a["status"] == 500 and a["delivery"] == attempts[0]["delivery"] for a in attempts)
    assert attempts[0]["state"] == "pending" and attempts[0]["next"] > attempts[0]["at"]
    assert "answered 500" in attempts[0]["error"] and len(receiver.events("/fail")) >= 2
    with server.client(alice) as c:
        listed = c.get("/api/webhooks").json()
        ok = next(h for h in listed if h["id"] == hook)
        assert ok["attempts"] and all(a["status"] == 200 and a["state"] == "delivered" for a in ok["attempts"])
        assert secret not in json.dumps(listed)
        assert c.delete(f"/api/webhooks/{hook}").json() == {"id": hook, "status": "ended"}
        assert c.delete(f"/api/webhooks/{hook}").status_code == 404
        assert hook not in [h["id"] for h in c.get("/api/webhooks").json()]
    assert stop(server.process) == 130  # as a Ctrl-C ends it
    text = log.read_text()
    assert "Traceback" not in text and "POST /api/webhooks" in text and secret not in text and secret[6:] not in text


def test_a_hook_to_a_private_address_is_refused_when_made_or_when_sent(
        tmp_path: Path, receiver: Receiver, started: list[subprocess.Popen[Any]]) -> None:
    server, _ = serve_logged(tmp_path)
    started.append(server.process)
    _, alice = server.author("alice")
    with server.client(alice) as c:
        for url in (receiver.url("/ok"), receiver.url("/ok", "[::1]"), receiver.url("/ok", "[::ffff:127.0.0.1]")):
            answer = c.post("/api/webhooks", json={"url": url, "events": ["refused"]})
            assert answer.status_code == 400 and "a loopback address" in answer.json()["error"], answer.text
        # A name is checked where it is sent, against every address it resolves to then.
        named = c.post("/api/webhooks", json={"url": receiver.url("/named", "localhost"), "events": ["refused"]})
        assert named.status_code == 201, named.text
    assert upload(server, alice, zipped(broken_bot(tmp_path / "alicebad"))).status_code == 202

    def attempts() -> list[dict[str, Any]]:
        with server.client(alice) as c:
            return c.get("/api/webhooks").json()[0]["attempts"]

    assert wait_until(lambda: attempts(), 180)
    [attempt] = attempts()
    assert attempt["state"] == "failed" and attempt["status"] is None, attempt  # not tried again: it never would be
    assert "localhost resolves to" in attempt["error"] and "a loopback address" in attempt["error"]
    assert receiver.got == []


def test_a_pause_by_a_fault_streak_reaches_a_receiver_signed(tmp_path: Path, receiver: Receiver,
                                                             started: list[subprocess.Popen[Any]]) -> None:
    config = tmp_path / "cup.toml"
    config.write_text('[serve]\nwebhook_hosts = ["127.0.0.1"]\n')
    server, _ = serve_logged(tmp_path, "--config", str(config), "--pause-after", "2", "--wave", "1", "--seats", "4")
    started.append(server.process)
    _, alice = server.author("alice")
    with server.client(alice) as c:
        made = c.post("/api/webhooks", json={"url": receiver.url("/ok"), "events": ["paused"]})
        assert made.status_code == 201, made.text
        secret = made.json()["secret"]
    faulty = kit_bot(tmp_path / "faulty", stderr=False)
    bot = faulty / "bot.py"
    # Clean in its admission game (the game's fewest seats, 3), illegal at every decision of the 4-seat ladder.
    bot.write_text(bot.read_text().replace(
        'reply(request, "action", index=index)',
        'reply(request, "action", index=len(options) + 7 if request["view"]["num_players"] == 4 else index)'))
    sent = upload(server, alice, zipped(faulty))
    assert sent.status_code == 202, sent.text
    sid = sent.json()["id"]
    assert wait_until(lambda: server.status(alice, sid)["status"] in ("admitted", "refused"), 300)
    assert server.status(alice, sid)["status"] == "admitted", server.status(alice, sid)
    assert wait_until(lambda: receiver.events("/ok"), 300), server.status(alice, sid)
    [(_, headers, body)] = [got for got in list(receiver.got) if got[0] == "/ok"]  # told once
    assert signed(headers, body, secret), headers
    paused = json.loads(body)
    assert paused["event"] == "paused" and paused["bot"] == "faulty" and paused["upload"] == sid, paused
    assert "each of its last 2 games had a fault" in paused["reason"], paused
    assert "each of its last 2 games had a fault" in (server.status(alice, sid)["paused"] or "")
