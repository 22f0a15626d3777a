"""A competition file hosts the competition too: its [serve] table sets arena serve's limits, arena tournament
leaves that table alone, and what a server cannot play is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import arena
from tests.server.conftest import Server, kit_bot, start, stop, upload, zipped

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("setting, said", [('format = "round-robin"', "arena serve plays a ladder"),
                                           ("rounds = 2", "'rounds' is not a setting of arena serve"),
                                           ("[serve]\nuploads_per_day = 0", "bad value for 'serve.uploads_per_day'"),
                                           ('[serve]\nwebhook_hosts = ["http://127.0.0.1/"]',
                                            "(webhook_hosts) 'http://127.0.0.1/' is not a host name, an IP address")])
def test_what_a_server_cannot_play_is_one_line(tmp_path: Path, setting: str, said: str) -> None:
    (tmp_path / "c.toml").write_text(f'game = "bali-2001"\n{setting}\n')
    r = arena("serve", "--config", "c.toml", cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and said in r.stderr and "Traceback" not in r.stderr and r.stdout == ""


def test_the_serve_table_sets_the_limits_and_arena_tournament_leaves_it_alone(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('game = "bali-2001"\n[serve]\nuploads_per_day = 1\nactive_bots = 1\n')
    process, url = start(tmp_path / "results", "--config", str(config), "--no-play")
    try:
        server = Server(url, tmp_path / "results", process)
        _, token = server.author("alice")
        data = zipped(kit_bot(tmp_path / "alicebot"))
        assert upload(server, token, data).status_code == 202
        assert upload(server, token, data).status_code == 429
    finally:
        stop(process)
    r = arena("tournament", "--config", "c.toml", cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and "give at least one bot command" in r.stderr
