"""What of a submission's paths the organiser's reports and its author are shown: a folder by the name the
competition knows it by, and text (a refusal, a build log, a traceback, a replay's data) with no path of this
machine in it. Every refusal, log and page an author reads goes through shown_to_author, the one place it is done."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

# A limit's option as the arena's own commands name it: the author of a submission cannot give it.
_RAISE_IT = re.compile(r"\(raise it with --[a-z][a-z-]*\)")
COMPETITION_LIMIT = "(set by the competition: make the bot answer sooner)"
_EDGE = r"(?<![\w./-])"  # a path starts here: not inside a longer one


def shown(folder: Path | str) -> str:
    """A submission folder as the organiser's reports and the published site name it: relative to the
    competition (`entries/my-bot`), never the organiser's absolute path."""
    path = Path(folder)
    return f"{path.parent.name}/{path.name}" if path.parent.name else path.name


def shown_to_author(data: Any, *folders: Path | str) -> Any:
    """data (a string, or a page's dicts and lists of them) as a submission's author is shown it: each folder (the
    submission's, a copy of it on a worker, or the folder of its logs) is '.', a file in one is named from it
    (`bot.py`, `lib/x.py`), a file beside one by its name alone, and no path of this machine above them is left,
    however a folder was named (relative to the working directory, absolute or resolved); a limit is the
    competition's, not an option to raise."""
    if isinstance(data, dict):
        return {key: shown_to_author(value, *folders) for key, value in data.items()}
    if isinstance(data, list):
        return [shown_to_author(value, *folders) for value in data]
    if not isinstance(data, str):
        return data
    forms: set[str] = set()
    for folder in folders:
        path = Path(folder)
        forms |= {str(path), str(path.absolute()), str(path.resolve())} - {"."}
    # The longest first, and never inside a longer path: a folder named relative to the working directory is also
    # the tail of its absolute name, which would leave the working directory in front of what is left.
    text = data
    for form in sorted(forms, key=len, reverse=True):
        text = re.sub(_EDGE + re.escape(form) + r"/(?=[\w.-])", "", text)
        text = re.sub(_EDGE + re.escape(form) + r"(?![\w.-])", ".", text)
    parents = {str(Path(form).parent) for form in forms} - {".", "/"}
    for parent in sorted(parents, key=len, reverse=True):
        text = re.sub(_EDGE + re.escape(parent) + "/", "", text)
    return _RAISE_IT.sub(COMPETITION_LIMIT, text)
