"""The server's pages rendered from its templates, with the headers every page is sent with."""

from __future__ import annotations

import time
from typing import Any

import jinja2
from starlette.responses import HTMLResponse

from arena import __version__
from arena.storage.authors import Author

# same-origin: a page's address (a sign-in link's code among them) is never sent on to another site, while a form
# sent to this site still names its origin (no-referrer would make it "null").
HEADERS = {"Cache-Control": "no-store", "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "same-origin"}
_env = jinja2.Environment(loader=jinja2.PackageLoader("arena.server", "templates"), autoescape=True)


def page(template: str, title: str, author: Author | None, csrf: str = "", status: int = 200,
         **values: Any) -> HTMLResponse:
    """A template rendered for `author` (None: signed out), its forms carrying `csrf`."""
    text = _env.get_template(template).render(title=title, author=author, csrf=csrf, when=_when, now=time.time(),
                                              version=__version__, **values)
    return HTMLResponse(text, status, headers=HEADERS)


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(stamp))
