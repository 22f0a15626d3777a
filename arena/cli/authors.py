"""`arena authors`: the competitors (and organisers) of a competition hosted by `arena serve`."""

from __future__ import annotations

import time
from pathlib import Path

import click
from click.core import ParameterSource
from tabulate import tabulate

from arena.cli.params import DEFAULT_PORT, db_option, results_option, store_path
from arena.competition.addresses import check_url
from arena.competition.names import add_author
from arena.errors import ConfigError
from arena.storage import Store
from arena.tournament import competition_file

DEFAULT_URL = f"http://127.0.0.1:{DEFAULT_PORT}"  # where arena serve listens by default, until a server says otherwise
URL_HELP = ("The address the competition is reached at, for the link (default: where `arena serve` last served "
            "this store, else the competition file's [serve] host and port, else " + DEFAULT_URL + ").")
WILDCARDS = ("", "0.0.0.0", "::")  # listening addresses that are no address to link to: this machine's is


def _url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--url checked as it is given, before the store is opened."""
    return None if value is None else check_url(value)


@click.group()
@click.option("--config", type=click.Path(dir_okay=False, path_type=Path),
              help="The competition file arena serve is started with: its results folder holds the store, and its "
              "[serve] host and port are the links' address until a server has served the store.")
@click.pass_context
def authors(ctx: click.Context, config: Path | None) -> None:
    """Add, list and revoke the authors who may upload bots to `arena serve`, and the invite codes with which
    competitors sign themselves up. Run it as the server's user, in its folder (or name its competition file)."""
    ctx.obj = competition_file.load(config) if config is not None else {}


@authors.command()
@click.argument("name")
@click.option("--organiser", is_flag=True, help="An organiser, who sees every author's bots, games and logs.")
@click.option("--url", callback=_url, help=URL_HELP)
@results_option
@db_option
def add(name: str, organiser: bool, url: str | None, results_dir: Path, db: Path | None) -> None:
    """Add an author NAME: prints their one-time sign-in link, then their API token alone on the last line. Neither
    is stored (only a slow hash of each), so send them now."""
    with Store(_store(results_dir, db, create=True)) as store:
        author, token, code = add_author(store, name, organiser)
        base = _base(store, url)
    click.echo(f"sign-in link for {author.name} (one use, within a week): {base}/signin/{code}")
    click.echo(token)


@authors.command()
@click.argument("name")
@click.option("--url", callback=_url, help=URL_HELP)
@results_option
@db_option
def link(name: str, url: str | None, results_dir: Path, db: Path | None) -> None:
    """A new one-time sign-in link for author NAME (the one before stops working, and so do the sessions signed in
    with earlier links), on the last line: for an author locked out, signed out or whose session expired."""
    with Store(_store(results_dir, db)) as store:
        author, code = store.new_link(name)
        base = _base(store, url)
    click.echo(f"a new sign-in link for {author.name} (one use, within a week):")
    click.echo(f"{base}/signin/{code}")


@authors.command()
@click.argument("name")
@results_option
@db_option
def token(name: str, results_dir: Path, db: Path | None) -> None:
    """A new API token for author NAME, alone on the last line; the one before stops working, and so do the sessions
    signed in with it (or made at sign-up)."""
    with Store(_store(results_dir, db)) as store:
        author, secret = store.new_token(name)
    click.echo(f"a new API token for {author.name} (the old one no longer works):")
    click.echo(secret)


@authors.command()
@click.argument("name")
@click.option("--url", callback=_url, help=URL_HELP)
@results_option
@db_option
def restore(name: str, url: str | None, results_dir: Path, db: Path | None) -> None:
    """Take back the revocation of author NAME: prints a new sign-in link, then a new API token alone on the last
    line (their bots and games were kept)."""
    with Store(_store(results_dir, db)) as store:
        author, code = store.new_link(name, restore=True)
        _, secret = store.new_token(name)
        base = _base(store, url)
    click.echo(f"restored {author.name}; sign-in link (one use, within a week): {base}/signin/{code}")
    click.echo(secret)


@authors.command(name="list")
@results_option
@db_option
def list_(results_dir: Path, db: Path | None) -> None:
    """List the authors: name, role, when added, and whether revoked."""
    with Store(_store(results_dir, db)) as store:
        rows = [(a.name, "organiser" if a.organiser else "author", _when(a.created), _when(a.revoked) or "")
                for a in store.authors()]
    if not rows:
        click.echo("no author yet: arena authors add NAME")
        return
    click.echo(tabulate(rows, headers=("name", "role", "added", "revoked")))


@authors.command()
@click.argument("name")
@results_option
@db_option
def revoke(name: str, results_dir: Path, db: Path | None) -> None:
    """Revoke author NAME: their token, sign-in link and sessions stop working; their bots and games are kept."""
    with Store(_store(results_dir, db)) as store:
        store.revoke_author(name)
    click.echo(f"revoked {name}")


@authors.command()
@click.option("--uses", type=click.IntRange(min=1), default=1, show_default=True,
              help="How many competitors may sign up with the code.")
@click.option("--days", type=click.FloatRange(min=0, min_open=True), default=7.0, show_default=True,
              help="How long the code may be used.")
@click.option("--url", callback=_url, help=URL_HELP)
@results_option
@db_option
def invite(uses: int, days: float, url: str | None, results_dir: Path, db: Path | None) -> None:
    """Make an invite code for self sign-up: prints its sign-up link, the code alone on the last line. Only a slow
    hash of it is kept, so send it now."""
    with Store(_store(results_dir, db, create=True)) as store:
        iid, code = store.add_invite(uses, days * 24 * 3600)
        base = _base(store, url)
    click.echo(f"invite {iid}, {uses} sign-up(s) within {days:g} day(s): {base}/join/{code}")
    click.echo(code)


@authors.command()
@results_option
@db_option
def invites(results_dir: Path, db: Path | None) -> None:
    """List the invite codes: id, sign-ups used of those allowed, until when, and whether still usable."""
    now = time.time()
    with Store(_store(results_dir, db)) as store:
        rows = [(i.id, f"{i.used}/{i.uses}", _when(i.expires), "usable" if i.usable(now) else
                 "revoked" if i.revoked else "used up" if i.used >= i.uses else "expired") for i in store.invites()]
    if not rows:
        click.echo("no invite yet: arena authors invite")
        return
    click.echo(tabulate(rows, headers=("invite", "used", "until", "state")))


@authors.command()
@click.argument("invite_id", metavar="ID", type=int)
@results_option
@db_option
def uninvite(invite_id: int, results_dir: Path, db: Path | None) -> None:
    """Revoke invite ID: nobody signs up with it from now on (those who did stay)."""
    with Store(_store(results_dir, db)) as store:
        store.revoke_invite(invite_id)
    click.echo(f"revoked invite {invite_id}")


def _when(stamp: float | None) -> str:
    return "" if stamp is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(stamp))


def _store(results_dir: Path, db: Path | None, create: bool = False) -> Path:
    """The store the options name (in the competition file's results folder where --results is not given);
    ConfigError where there is none yet, unless `create` (adding an author or an invite makes it)."""
    ctx = click.get_current_context()
    settings = ctx.find_object(dict) or {}
    if ctx.get_parameter_source("results_dir") == ParameterSource.DEFAULT and "results_dir" in settings:
        results_dir = Path(settings["results_dir"])
    path = store_path(results_dir, db)
    if not create and not path.is_file():
        raise ConfigError(f"no results store at {str(path)!r}: run arena authors in the folder arena serve runs in, "
                          "as its user (or name its competition file with --config, or the store with --results or "
                          "--db)")
    return path


def _base(store: Store, url: str | None) -> str:
    """The competition's address for a link: given, else where a server last served the store, else the competition
    file's host and port, else the default."""
    found = url or store.served_at() or _file_address()
    if found is None:
        click.echo(f"no server has served this store yet: the link is at {DEFAULT_URL}; give the competition's "
                   "address with --url, or its file with arena authors --config FILE", err=True)
    return (found or DEFAULT_URL).rstrip("/")


def _file_address() -> str | None:
    """http://HOST:PORT from the competition file's [serve] table (None: it names neither)."""
    settings = click.get_current_context().find_object(dict) or {}
    if "host" not in settings and "port" not in settings:
        return None
    host = str(settings.get("host", "127.0.0.1"))
    host = "127.0.0.1" if host in WILDCARDS else f"[{host}]" if ":" in host else host
    return f"http://{host}:{settings.get('port', DEFAULT_PORT)}"
