"""Sessions as the store keeps them: each tied to the secret it was made from, bounded per author, listed without
their ids, and the sessions of a store of schema 9 (whose origin is not known) ended by the upgrade."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from arena.storage import SCHEMA_VERSION, Store
from arena.storage.authors import MAX_SESSIONS, SessionSource


def test_each_session_ends_with_the_secret_it_was_made_from(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.sqlite") as store:
        author, _, _ = store.add_author("alice")
        made = {source: store.open_session(author, 3600, source) for source in SessionSource}
        store.new_token("alice")
        assert [s for s in made if store.session_author(made[s])] == [SessionSource.LINK]
        store.new_link("alice")
        assert not any(store.session_author(session) for session in made.values())
        again = store.open_session(author, 3600, SessionSource.LINK)
        store.revoke_author("alice")
        assert store.session_author(again) is None


def test_an_authors_sessions_are_bounded_and_listed_without_their_ids(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.sqlite") as store:
        author, _, _ = store.add_author("bob")
        other, _, _ = store.add_author("cid")
        theirs = store.open_session(other, 3600)
        made = [store.open_session(author, 3600, SessionSource.TOKEN) for _ in range(MAX_SESSIONS + 3)]
        listed = store.sessions_of(author, made[-1])
        assert len(listed) == MAX_SESSIONS and [s.current for s in listed] == [True] + [False] * (MAX_SESSIONS - 1)
        assert store.session_author(made[0]) is None and store.session_author(made[-1]) == author
        assert store.session_author(theirs) == other  # another author's are not counted
        assert store.end_sessions(author) == MAX_SESSIONS and store.sessions_of(author) == []
        assert store.session_author(theirs) == other


def test_a_store_of_schema_9_ends_its_sessions_and_keeps_its_authors(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        author, token, _ = store.add_author("dee")
    with closing(sqlite3.connect(db)) as con:  # the sessions table as schema 9 had it, with a session in it
        con.execute("DROP TABLE sessions")
        con.execute("CREATE TABLE sessions (hash BLOB PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES "
                    "authors(id), created REAL NOT NULL, expires REAL NOT NULL)")
        con.execute("INSERT INTO sessions VALUES (x'00', ?, 0, 9e99)", (author.id,))
        con.execute("UPDATE meta SET value = '9' WHERE key = 'schema'")
        con.commit()
    with Store(db) as store:
        assert store.sessions_of(author) == [] and store.author_by_token(token)[0] == author
        assert store.session_author(store.open_session(author, 3600)) == author
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
