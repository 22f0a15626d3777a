"""Settings a served season could never play with, and addresses that lead nowhere, refused where they are given:
one line, exit 2, before anything is served or stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import arena

BAD_SERVE = {
    "seats the game has not": (["--seats", "9"], "played by 2 to 4 seats, not 9"),
    "an option the game has not": (["--option", "foo=bar"], "unknown option 'foo'"),
    "a proxy that is no address": (["--proxy", "notanaddress"], "--proxy 'notanaddress' is not an IP address"),
    "one proxy of two that is no address": (["--proxy", "127.0.0.1,proxy.lan"], "--proxy 'proxy.lan'"),
}


def refused_in_one_line(run: object, said: str) -> None:
    assert run.returncode == 2, run.stdout + run.stderr  # type: ignore[attr-defined]
    lines = run.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and said in lines[0], run.stderr  # type: ignore[attr-defined]
    assert "serving on" not in run.stdout and "Traceback" not in run.stderr  # type: ignore[attr-defined]


@pytest.mark.parametrize("args, said", BAD_SERVE.values(), ids=BAD_SERVE.keys())
def test_a_setting_the_season_cannot_take_is_refused_before_serving(tmp_path: Path, args: list[str],
                                                                   said: str) -> None:
    run = arena("serve", "bali-2017", "--port", "0", "--results", "results", *args, cwd=tmp_path, timeout=60)
    refused_in_one_line(run, said)
    assert not (tmp_path / "results").exists()


def test_seats_the_game_has_not_in_a_competition_file_are_refused_before_serving(tmp_path: Path) -> None:
    (tmp_path / "competition.toml").write_text('game = "bali-2017"\nseats = 9\n')
    run = arena("serve", "--config", "competition.toml", "bali-2017", "--port", "0", cwd=tmp_path, timeout=60)
    refused_in_one_line(run, "not 9")
    assert not (tmp_path / "results").exists()


BAD_URLS = {"no address": "notaurl", "another scheme": "ftp://x", "no host": "https://", "a bad port": "http://x:99999"}


CASES = [(["invite"], url) for url in BAD_URLS.values()] + [
    (["add", "alice"], "notaurl"), (["link", "alice"], "ftp://x"), (["restore", "alice"], "notaurl")]


@pytest.mark.parametrize("command, url", CASES, ids=[f"{c[0]} {u}" for c, u in CASES])
def test_a_url_that_leads_nowhere_is_refused_and_changes_nothing(tmp_path: Path, command: list[str],
                                                                  url: str) -> None:
    run = arena("authors", *command, "--url", url, "--results", "results", cwd=tmp_path, timeout=60)
    refused_in_one_line(run, f"--url {url!r}")
    assert not (tmp_path / "results").exists()


def test_a_good_url_makes_the_link(tmp_path: Path) -> None:
    run = arena("authors", "invite", "--url", "https://arena.example.org:8443/cup/", "--results", "results",
                cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "https://arena.example.org:8443/cup/join/" in run.stdout
