"""A hosted competition's accounts: authors, their tokens and sign-in links (as salted hashes), sessions, invites."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from arena.errors import ConfigError
from arena.storage.authors import (
    HOUSE_AUTHOR,
    MAX_SESSIONS,
    SEEN_EVERY,
    SIGN_IN_SECONDS,
    Author,
    Invite,
    NameCheck,
    Session,
    SessionSource,
    author_id_of,
    check_author_name,
    matches,
    new_secret,
    new_session,
    salted_hash,
    session_hash,
)

if TYPE_CHECKING:  # not imported at run time: the bots' processes and the protocol cost the leaderboard's start
    pass
from arena.storage.connection import SERVER_LOCK, Connection, _guarded, hold_server_lock


class Accounts(Connection):
    """A hosted competition's authors: their secrets (as hashes), sessions and invite codes."""

    # --- a hosted competition: authors and submissions --------------------------------------------------------------
    @_guarded
    def hold_server(self) -> None:
        """Hold this store's server lock until the store is closed: StoreBusy if another `arena serve` holds it."""
        if SERVER_LOCK not in self._locks:
            self._locks[SERVER_LOCK] = hold_server_lock(self.path)

    @_guarded
    def open_session(self, author: Author, seconds: float, source: SessionSource = SessionSource.LINK,
                     most: int = MAX_SESSIONS) -> str:
        """A new session of the author's, made from `source` and good for `seconds` or until it is ended (by a
        sign-out, the author's revocation, or the replacement of the secret it was made from): its id, which the
        store keeps only as a hash. Expired sessions are dropped on the way, and the author's least recently used
        ones beyond `most`."""
        session, now = new_session(), time.time()
        with self._transaction():
            self.db.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            self.db.execute("INSERT INTO sessions (hash, author_id, created, expires, source, seen) VALUES "
                            "(?,?,?,?,?,?)", (session_hash(session), author.id, now, now + seconds, source.value, now))
            self.db.execute("DELETE FROM sessions WHERE author_id = ? AND rowid NOT IN (SELECT rowid FROM sessions "
                            "WHERE author_id = ? ORDER BY seen DESC, rowid DESC LIMIT ?)", (author.id, author.id, most))
        return session

    @_guarded
    def sessions_of(self, author: Author, current: str = "") -> list[Session]:
        """The author's sessions that have not expired, most recently used first (never their ids); `current` (a
        session id) marks the one it is."""
        mine = session_hash(current) if current else b""
        rows = self.db.execute("SELECT rowid, created, source, seen, expires, hash FROM sessions WHERE author_id = ? "
                               "AND expires > ? ORDER BY seen DESC, rowid DESC", (author.id, time.time()))
        return [Session(n, created, SessionSource(source), seen, expires, digest == mine)
                for n, created, source, seen, expires, digest in rows]

    @_guarded
    def end_sessions(self, author: Author) -> int:
        """End every session of the author's (sign out everywhere): how many there were."""
        return self.db.execute("DELETE FROM sessions WHERE author_id = ?", (author.id,)).rowcount

    @_guarded
    def note_served_at(self, address: str) -> None:
        """Keep the address a server of this store answers at, for the links `arena authors` prints."""
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('served_at', ?)", (address,))

    @_guarded
    def served_at(self) -> str | None:
        """The address a server of this store last answered at, if one has."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'served_at'").fetchone()
        return None if row is None else row[0]

    @_guarded
    def session_author(self, session: str) -> Author | None:
        """The (not revoked) author of a session that has neither expired nor been ended, else None; the session is
        noted as used (at most once a minute, so that reading a page writes nothing most times)."""
        digest, now = session_hash(session), time.time()
        row = self.db.execute("SELECT author_id, seen FROM sessions WHERE hash = ? AND expires > ?",
                              (digest, now)).fetchone()
        if row is None:
            return None
        if row[1] is None or row[1] < now - SEEN_EVERY:
            self.db.execute("UPDATE sessions SET seen = ? WHERE hash = ?", (now, digest))
        return self.author(row[0])

    @_guarded
    def end_session(self, session: str) -> None:
        """End a session (a sign-out): its id opens nothing from now on."""
        self.db.execute("DELETE FROM sessions WHERE hash = ?", (session_hash(session),))

    @_guarded
    def add_author(self, name: str, organiser: bool = False, check: NameCheck | None = None) -> tuple[Author, str, str]:
        """A new author: (the author, their API token, their sign-in code), the secrets shown only this once;
        ConfigError if the name is taken or not a name, or if check(every author's name), called in the same
        transaction, raises it (arena/competition/names.py refuses names that look alike)."""
        check_author_name(name)
        with self._transaction():
            return self._insert_author(name, organiser, check=check)

    def _insert_author(self, name: str, organiser: bool, secrets: bool = True,
                       check: NameCheck | None = None) -> tuple[Author, str, str]:
        """Inside a transaction: a new author, with a token and sign-in code unless not `secrets` (then "", "")."""
        if check is not None:
            check([row[0] for row in self.db.execute("SELECT name FROM authors ORDER BY id")])
        if self.db.execute("SELECT 1 FROM authors WHERE name = ?", (name,)).fetchone():
            raise ConfigError(f"there is already an author {name!r}: choose another name, or revoke that one")
        now = time.time()
        aid = self.db.execute("INSERT INTO authors (name, organiser, created) VALUES (?,?,?)",
                              (name, int(organiser), now)).lastrowid
        token, code = (new_secret(aid), new_secret(aid)) if secrets else ("", "")
        if secrets:
            self.db.execute("UPDATE authors SET token_salt = ?, token_hash = ?, link_salt = ?, link_hash = ?, "
                            "link_expires = ? WHERE id = ?",
                            (*salted_hash(token), *salted_hash(code), now + SIGN_IN_SECONDS, aid))
        return Author(aid, name, organiser, now), token, code

    @_guarded
    def house_author(self) -> Author:
        """The author the organiser's own submission folders are entered as: the first organiser, else a new
        organiser HOUSE_AUTHOR who cannot sign in (no token or link)."""
        with self._transaction():
            row = self.db.execute("SELECT id FROM authors WHERE organiser = 1 AND revoked IS NULL ORDER BY id "
                                  "LIMIT 1").fetchone()
            if row is not None:
                return self.author(row[0])  # type: ignore[return-value]
            return self._insert_author(HOUSE_AUTHOR, True, secrets=False)[0]

    # --- invite codes: self sign-up -----------------------------------------------------------------------------
    @_guarded
    def add_invite(self, uses: int, seconds: float) -> tuple[int, str]:
        """A new invite code good for `uses` sign-ups within `seconds`: (its id, the code, shown only this once)."""
        now = time.time()
        with self._transaction():
            iid = self.db.execute("INSERT INTO invites (uses, expires, created) VALUES (?,?,?)",
                                  (uses, now + seconds, now)).lastrowid
            code = new_secret(iid)
            self.db.execute("UPDATE invites SET salt = ?, hash = ? WHERE id = ?", (*salted_hash(code), iid))
        return iid, code

    @_guarded
    def invites(self) -> list[Invite]:
        """Every invite code, oldest first (never the code itself)."""
        rows = self.db.execute("SELECT id, uses, used, expires, created, revoked FROM invites ORDER BY id")
        return [Invite(*row) for row in rows]

    @_guarded
    def revoke_invite(self, iid: int) -> None:
        """An invite code signs nobody up from now on; ConfigError if there is no such code in use."""
        cur = self.db.execute("UPDATE invites SET revoked = ?, hash = NULL WHERE id = ? AND revoked IS NULL",
                              (time.time(), iid))
        if cur.rowcount == 0:
            raise ConfigError(f"no invite {iid} to revoke; arena authors invites lists them")

    @_guarded
    def redeem_invite(self, code: str, name: str, check: NameCheck | None = None) -> tuple[Author, str] | None:
        """A new author NAME signed up by an invite code with a use left, not expired or revoked: (the author, their
        API token); None if the code is not such a code; ConfigError if the name is taken or not a name, or if
        check(every author's name) raises it (as for add_author)."""
        check_author_name(name)
        iid = author_id_of(code)
        row = None if iid is None else self.db.execute(
            "SELECT salt, hash FROM invites WHERE id = ? AND used < uses AND expires > ? AND revoked IS NULL",
            (iid, time.time())).fetchone()
        if row is None or not matches(code, row[0], row[1]):
            return None
        with self._transaction():
            taken = self.db.execute("UPDATE invites SET used = used + 1 WHERE id = ? AND used < uses AND revoked IS "
                                    "NULL", (iid,)).rowcount  # two sign-ups at once: only the uses left
            if not taken:
                return None
            author, token, _ = self._insert_author(name, False, check=check)
        return author, token

    @_guarded
    def authors(self) -> list[Author]:
        """Every author, oldest first (revoked ones included)."""
        rows = self.db.execute("SELECT id, name, organiser, created, revoked FROM authors ORDER BY id")
        return [Author(i, n, bool(o), c, r) for i, n, o, c, r in rows]

    @_guarded
    def author(self, aid: int) -> Author | None:
        """The author with that id, if they exist and are not revoked."""
        row = self.db.execute("SELECT id, name, organiser, created, revoked FROM authors WHERE id = ? AND revoked "
                              "IS NULL", (aid,)).fetchone()
        return None if row is None else Author(row[0], row[1], bool(row[2]), row[3], row[4])

    @_guarded
    def revoke_author(self, name: str) -> Author:
        """Revoke an author: their token, sign-in link and sessions stop working; ConfigError if there is none."""
        with self._transaction():
            cur = self.db.execute("UPDATE authors SET revoked = ?, token_hash = NULL, link_hash = NULL WHERE name = ? "
                                  "AND revoked IS NULL", (time.time(), name))
            if cur.rowcount == 0:
                raise ConfigError(f"no author {name!r} to revoke; arena authors list shows them")
            self.db.execute("DELETE FROM sessions WHERE author_id = (SELECT id FROM authors WHERE name = ?)", (name,))
        return next(a for a in self.authors() if a.name == name)

    @_guarded
    def new_link(self, name: str, restore: bool = False) -> tuple[Author, str]:
        """A fresh one-use sign-in code for an author (the one before it stops working); `restore` also takes back
        a revocation. ConfigError if there is no such author, or they are revoked and not restored."""
        return self._new_secret(name, "link", restore)

    @_guarded
    def new_token(self, name: str) -> tuple[Author, str]:
        """A fresh API token for an author (the one before it stops working); ConfigError if there is no such
        author or they are revoked."""
        return self._new_secret(name, "token", False)

    def _new_secret(self, name: str, kind: str, restore: bool) -> tuple[Author, str]:
        with self._transaction():
            row = self.db.execute("SELECT id, revoked FROM authors WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise ConfigError(f"no author {name!r}; arena authors list shows them")
            if row[1] is not None and not restore:
                raise ConfigError(f"author {name!r} was revoked: arena authors restore {name} brings them back")
            secret = new_secret(row[0])
            # The sessions made from the secret replaced end with it: a stolen one is no way back in.
            ended = (SessionSource.LINK,) if kind == "link" else (SessionSource.TOKEN, SessionSource.SIGN_UP)
            self.db.execute(f"DELETE FROM sessions WHERE author_id = ? AND source IN ({','.join('?' * len(ended))})",
                            (row[0], *(e.value for e in ended)))
            if kind == "link":
                self.db.execute("UPDATE authors SET link_salt = ?, link_hash = ?, link_expires = ?, revoked = NULL "
                                "WHERE id = ?", (*salted_hash(secret), time.time() + SIGN_IN_SECONDS, row[0]))
            else:
                self.db.execute("UPDATE authors SET token_salt = ?, token_hash = ? WHERE id = ?",
                                (*salted_hash(secret), row[0]))
        return self.author(row[0]), secret  # type: ignore[return-value]

    @_guarded
    def author_by_token(self, token: str) -> tuple[Author, bytes] | None:
        """The (not revoked) author whose API token this is, with the token's stored hash (to check again cheaply
        with author_holding), else None."""
        aid = author_id_of(token)
        row = None if aid is None else self.db.execute(
            "SELECT token_salt, token_hash FROM authors WHERE id = ? AND revoked IS NULL", (aid,)).fetchone()
        if row is None or aid is None or not matches(token, *row):
            return None
        author = self.author(aid)
        return None if author is None else (author, row[1])

    @_guarded
    def author_holding(self, aid: int, token_hash: bytes) -> Author | None:
        """The author, if not revoked and their token is still the one hashed as token_hash (not replaced)."""
        row = self.db.execute("SELECT id, name, organiser, created, revoked FROM authors WHERE id = ? AND revoked "
                              "IS NULL AND token_hash = ?", (aid, token_hash)).fetchone()
        return None if row is None else Author(row[0], row[1], bool(row[2]), row[3], row[4])

    @_guarded
    def sign_in(self, code: str) -> Author | None:
        """The author whose unused, unexpired sign-in code this is (it is then used up), else None."""
        aid = author_id_of(code)
        row = None if aid is None else self.db.execute(
            "SELECT link_salt, link_hash, link_expires FROM authors WHERE id = ? AND revoked IS NULL",
            (aid,)).fetchone()
        if row is None or (row[2] or 0) < time.time() or not matches(code, row[0], row[1]):
            return None
        # Used up only if it still is this code: of the same code sent at once, one signs in.
        used = self.db.execute("UPDATE authors SET link_hash = NULL WHERE id = ? AND link_hash = ?", (aid, row[1]))
        return self.author(aid) if used.rowcount == 1 else None  # type: ignore[arg-type]

    @_guarded
    def bot_owners(self) -> dict[str, str]:
        """Every owned bot name, with its owner's name."""
        return dict(self.db.execute("SELECT o.bot, a.name FROM owners o JOIN authors a ON a.id = o.author_id"))
