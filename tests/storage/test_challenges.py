"""The store's challenges: a store of the schema before gains their table, and a challenge moves on to done."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from arena.storage import SCHEMA_VERSION, Store


def test_a_store_of_the_schema_before_gains_the_challenges_table(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite"
    with Store(path) as store:
        store.add_author("alice")
    con = sqlite3.connect(path)
    con.execute("DROP TABLE challenges")
    con.execute("UPDATE meta SET value = '11' WHERE key = 'schema'")
    con.commit()
    con.close()
    with Store(path) as store:
        author = next(a for a in store.authors() if a.name == "alice")
        asked = store.add_challenge(author, "alicebot", None, ["bobbot"], None, 6, False)
        assert store.unfinished_challenges() == [asked] and store.challenges_since(author, 0) == 1
        store.set_challenge(asked.id, "done", {"results": {"bobbot": {"ahead": 1, "behind": 2, "level": 3}}})
        done = store.challenge(asked.id)
        assert done is not None and done.status == "done" and done.finished is not None
        assert done.outcome["results"]["bobbot"]["level"] == 3 and store.unfinished_challenges() == []
        assert [c.id for c in store.challenges_of(["bobbot"])] == [asked.id] and store.challenges_of(["x"]) == []
    con = sqlite3.connect(path)
    assert con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION) == "13"
    con.close()
