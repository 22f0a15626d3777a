"""Webhooks as a library over a real store: a hook's checks, its secret and signature, the outbox (queued once,
bounded, ended), the board's ranks told when they move, and deliveries to a real local receiver under the SSRF
policy (every address checked, the connection pinned to the one checked, redirects not followed)."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.competition import delivery, webhooks
from arena.competition.addresses import AllowedHosts, check_hook_url, refused_because
from arena.errors import ConfigError
from arena.storage import Store
from arena.storage.authors import Status
from tests.helpers import Receiver, wait_until

LOCAL = AllowedHosts(("127.0.0.1",))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "arena.sqlite") as s:
        yield s


def test_a_hook_is_checked_with_a_clear_message_for_each_fault() -> None:
    good = webhooks.check_hook({"url": "https://example.org/h?x=1", "events": ["rank_changed", "admitted"]},
                               AllowedHosts())
    assert good.url == "https://example.org/h?x=1" and good.events == ("admitted", "rank_changed")
    for data, said in [([], "JSON object"), ({"url": "https://example.org", "events": [], }, "non-empty list"),
                       ({"url": "https://example.org", "events": ["won"]}, "unknown event 'won'"),
                       ({"url": "https://example.org", "events": ["admitted"], "secret": "x"}, "unknown field"),
                       ({"url": "gopher://example.org", "events": ["admitted"]}, "http:// or https://"),
                       ({"url": "https://a:b@example.org", "events": ["admitted"]}, "user name or password"),
                       ({"url": "https://example.org/#x", "events": ["admitted"]}, "fragment"),
                       ({"url": "https://exa_mple.org/", "events": ["admitted"]}, "not a host name"),
                       ({"url": "http://192.168.0.1/", "events": ["admitted"]}, "a private address"),
                       ({"url": "http://[fe80::1]/", "events": ["admitted"]}, "a link-local address"),
                       ({"url": "http://169.254.169.254/latest", "events": ["admitted"]}, "metadata"),
                       ({"url": "http://0.0.0.0:80/", "events": ["admitted"]}, "address"),
                       ({"url": "https://example.org/" + "x" * 2000, "events": ["admitted"]}, "at most 2000")]:
        with pytest.raises(ConfigError, match=said):
            webhooks.check_hook(data, AllowedHosts())
    assert check_hook_url("http://127.0.0.1:8/x", LOCAL) == "http://127.0.0.1:8/x"
    assert check_hook_url("http://10.1.2.3/", AllowedHosts(("10.0.0.0/8",))) == "http://10.1.2.3/"


def test_the_allowed_hosts_are_names_addresses_or_networks() -> None:
    allowed = AllowedHosts(("hooks.internal", "10.0.0.0/8", "::1"))
    assert refused_because("10.9.9.9", allowed, "x") is None and refused_because("::1", allowed, "x") is None
    assert refused_because("192.168.1.1", allowed, "hooks.internal") is None
    assert refused_because("192.168.1.1", allowed, "other.internal") == "a private address"
    assert refused_because("::ffff:127.0.0.1") == "a loopback address"
    assert refused_because("100.64.0.1") == "not a public address" and refused_because("8.8.8.8") is None
    with pytest.raises(ConfigError, match="not a host name, an IP address or a network"):
        AllowedHosts(("http://127.0.0.1",))


def test_the_secret_is_derived_from_a_key_beside_the_store_never_stored(tmp_path: Path, store: Store) -> None:
    key = webhooks.signing_key(store.path)
    assert webhooks.key_path(store.path).stat().st_mode & 0o777 == 0o600
    assert webhooks.signing_key(store.path) == key  # made once
    author, _, _ = store.add_author("alice")
    salt = webhooks.new_salt()
    hook = store.add_webhook(author.id, "https://example.org/h", ("admitted",), salt, webhooks.MAX_HOOKS)
    secret = webhooks.hook_secret(key, salt)
    assert hook is not None and secret.startswith("whsec_") and webhooks.hook_secret(key, salt) == secret
    assert secret.encode() not in store.path.read_bytes() + Path(f"{store.path}-wal").read_bytes()
    body = b'{"bot":"x","event":"admitted"}'
    assert webhooks.signature(secret, body) == "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    webhooks.key_path(store.path).write_bytes(b"short")
    with pytest.raises(ConfigError, match="damaged"):
        webhooks.signing_key(store.path)


def test_events_are_queued_for_the_bots_authors_hooks_once_and_bounded(store: Store) -> None:
    alice, _, _ = store.add_author("alice")
    bob, _, _ = store.add_author("bob")
    mine = store.add_webhook(alice.id, "https://example.org/a", ("admitted", "paused"), b"s" * 16, 5)
    store.add_webhook(alice.id, "https://example.org/b", ("refused",), b"t" * 16, 5)
    store.add_webhook(bob.id, "https://example.org/c", webhooks.EVENTS, b"u" * 16, 5)
    submission = store.add_submission(alice, "alicebot", "1.0", "/nowhere")
    webhooks.announce_decision(store, submission, Status.ADMITTED)
    webhooks.announce_decision(store, submission, Status.ADMITTED)  # told once per upload
    webhooks.announce_pause(store, submission, "its files are missing")
    due = store.due_deliveries(time.time(), 10)
    assert [(d.hook_id, d.event) for d in due] == [(mine, "admitted"), (mine, "paused")]
    body = json.loads(due[0].body)
    assert body["event"] == "admitted" and body["bot"] == "alicebot" and body["upload"] == submission.id
    assert webhooks.notify(store, "admitted", "samplebot") == 0  # nobody owns it
    with pytest.raises(ValueError):
        webhooks.notify(store, "won", "alicebot")
    for n in range(webhooks.MAX_PENDING + 5):
        webhooks.notify(store, "paused", "alicebot", {"n": n})
    assert store.waiting(mine) == webhooks.MAX_PENDING  # the oldest dropped
    assert json.loads(store.due_deliveries(time.time(), 1)[0].body)["n"] == 5
    assert store.add_webhook(alice.id, "https://example.org/d", ("admitted",), b"v" * 16, 2) is None  # the most
    assert not store.end_webhook(bob.id, mine) and store.end_webhook(alice.id, mine)
    assert store.waiting(mine) == 0 and [h.url for h in store.webhooks(alice.id)] == ["https://example.org/b"]


def test_a_bots_place_on_the_board_is_told_when_it_moves(store: Store) -> None:
    assert webhooks.board_ranks({"a": 3.0, "b@2#5": 5.0, "b": 9.0, "c": 4.0}, {"b"}) == {"b": 1, "c": 2, "a": 3}
    alice, _, _ = store.add_author("alice")
    store.add_webhook(alice.id, "https://example.org/a", ("rank_changed",), b"s" * 16, 5)
    store.add_submission(alice, "alicebot", "1.0", "/nowhere")
    retired = {"alicebot@0.9#1"}  # a version off the board, as the ladder keeps it: never ranked
    assert webhooks.announce_ranks(store, {"alicebot@0.9#1": 9.0, "alicebot": 1.0, "random": 2.0}, retired) == 1
    assert webhooks.announce_ranks(store, {"alicebot": 1.5, "random": 2.0}, retired) == 0  # same place: nothing
    assert webhooks.announce_ranks(store, {"alicebot": 3.0, "random": 2.0}, retired) == 1
    told = [json.loads(d.body) for d in store.due_deliveries(time.time(), 10)]
    assert [(t["rank"], t["previous"]) for t in told] == [(2, None), (1, 2)]


def test_a_delivery_is_signed_retried_with_backoff_and_listed(tmp_path: Path, store: Store,
                                                              receiver: Receiver) -> None:
    alice, _, _ = store.add_author("alice")
    salt = webhooks.new_salt()
    ok = store.add_webhook(alice.id, f"http://127.0.0.1:{receiver.port}/200", ("admitted",), salt, 5)
    bad = store.add_webhook(alice.id, f"http://127.0.0.1:{receiver.port}/500", ("admitted",), b"x" * 16, 5)
    moved = store.add_webhook(alice.id, f"http://127.0.0.1:{receiver.port}/302", ("admitted",), b"y" * 16, 5)
    webhooks.notify(store, "admitted", "alicebot", {"upload": 1}, author="alice")
    worker = delivery.Deliveries(store.path, LOCAL, poll=0.05)
    worker.start()
    try:
        assert wait_until(lambda: len(store.attempts(bad, 5)) == 2 and store.attempts(ok, 5)
                          and store.attempts(moved, 5), 30)
    finally:
        worker.stop()
    assert not any(thread.is_alive() for thread in worker.threads)  # stopped with the server
    secret = webhooks.hook_secret(webhooks.signing_key(store.path), salt)
    path, headers, body = next(g for g in receiver.got if g[0] == "/200")
    assert headers["x-arena-signature"] == webhooks.signature(secret, body) and json.loads(body)["upload"] == 1
    [taken] = store.attempts(ok, 5)
    assert taken.status == 200 and taken.state == "delivered" and taken.error == ""
    second, first = store.attempts(bad, 5)
    assert (first.number, second.number, second.status, second.state) == (1, 2, 500, "pending")
    assert second.at - first.at >= delivery.RETRY_AFTER[0] - 0.5 and second.next > second.at + 20  # backing off
    [redirected] = store.attempts(moved, 5)
    assert redirected.status == 302 and "not followed" in redirected.error
    assert [g[0] for g in receiver.got].count("/302") == 1  # the redirect's target never asked


def test_a_name_is_refused_for_any_private_address_and_the_connection_is_pinned(
        receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://hooks.example:{receiver.port}/200"
    answers = iter([[("127.0.0.1", receiver.port)], [("10.0.0.1", receiver.port)]])
    real = socket.getaddrinfo

    def rebinding(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "hooks.example":
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", where) for where in next(answers)]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    # The name answers the allowed address to the check and a private one after: the request goes to the first.
    sent = delivery.post(url, b"{}", {}, LOCAL)
    assert sent.status == 200 and sent.error == "" and receiver.got[0][1]["host"] == f"hooks.example:{receiver.port}"
    answers = iter([[("127.0.0.1", receiver.port), ("10.0.0.1", receiver.port)]])  # one bad address of two
    refused = delivery.post(url, b"{}", {}, LOCAL)
    assert refused.final and "resolves to 10.0.0.1, a private address" in refused.error and len(receiver.got) == 1
    unallowed = delivery.post(f"http://localhost:{receiver.port}/200", b"{}", {}, AllowedHosts())
    assert unallowed.final and "a loopback address" in unallowed.error and len(receiver.got) == 1
