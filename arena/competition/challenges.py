"""Challenges: an author's games of their bot against chosen rivals, or of one version of it against another until
the sequential test of `arena compare` decides, played on the season's machines between ladder waves into a
tournament of their own (unranked: the ladder's ratings never see them), within the competition's quotas."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from math import comb
from typing import Any

from arena.bots.entrants import Entrant
from arena.competition import access, webhooks
from arena.competition.admissions import entrant_of
from arena.competition.season import Season, SeasonSettings
from arena.competition.versions import PLAYABLE
from arena.errors import ArenaError
from arena.match.record import load_record
from arena.ratings.sprt import DEFAULT_ALPHA, DEFAULT_BETA, Verdict
from arena.storage import Store, Tournament, replay_path
from arena.storage.authors import Author, Submission
from arena.storage.challenge_table import DONE, PLAYING, Challenge
from arena.storage.keys import upload_version
from arena.tournament import compare
from arena.tournament.cluster import ClusterLost
from arena.tournament.formats.base import TournamentSpec
from arena.tournament.formats.compare import DEFAULT_WAVE as COMPARE_WAVE
from arena.tournament.formats.compare import futile
from arena.tournament.formats.gauntlet import Gauntlet
from arena.tournament.opponents import sample_opponents
from arena.tournament.rivals import head_to_head
from arena.tournament.run import Runner

log = logging.getLogger("arena.serve")
SLOT_SECONDS = 20.0  # no new table of a challenge starts after this long between two ladder waves
DAY = 24 * 3600.0
BASE_MARK = "-base"  # the key of the version a version test measures against, after its bot's name


class ChallengeRefused(ArenaError):
    """A challenge the competition does not take: one line for its author, `status` the HTTP code."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def sample_names(settings: SeasonSettings) -> dict[str, Entrant]:
    """The season's sample bots a challenge may name as rivals, by name."""
    return {e.name: e for e in sample_opponents(settings.play.game, 3, set(), settings.samples)}


def ask(store: Store, settings: SeasonSettings, author: Author, body: Any) -> Challenge:
    """A challenge queued as `body` asks (POST /api/challenges); ChallengeRefused naming the problem: 400 for a
    malformed request, 404 for a bot that is not the author's or a rival no one may challenge, 409 for a version
    never admitted, 429 past a quota."""
    if not isinstance(body, dict):
        raise ChallengeRefused('send JSON {"bot": NAME, "rivals": [NAME, ...], "games": N}')
    bot, rivals, games, until = body.get("bot"), body.get("rivals"), body.get("games"), body.get("until")
    version, rival_version = body.get("version"), body.get("rival_version")
    if not isinstance(bot, str) or not isinstance(rivals, list) or not rivals or \
            not all(isinstance(r, str) for r in rivals) or len(set(rivals)) != len(rivals):
        raise ChallengeRefused('"bot" is your bot\'s name and "rivals" a list of other bots\' names, each once')
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise ChallengeRefused('"games" is a whole number of games, at least 1')
    if until not in (None, "decided"):
        raise ChallengeRefused('"until" is "decided" (a test of two versions) or left out')
    if not access.may_see_bot(author, store.bot_owner(bot)):
        raise ChallengeRefused(f"you have no bot {bot!r}", 404)
    if games > settings.challenge_games:
        raise ChallengeRefused(f"a challenge plays at most {settings.challenge_games} games (the competition's "
                               "limit)", 429)
    if store.challenges_since(author, time.time() - DAY) >= settings.challenges_per_day:
        raise ChallengeRefused(f"you asked for {settings.challenges_per_day} challenges in the last 24 hours, the "
                               "competition's "
                               "limit: ask again later", 429)
    if until == "decided":
        if rivals != [bot] or not isinstance(version, str) or not isinstance(rival_version, str):
            raise ChallengeRefused('a test until decided names your bot as its one rival, and "version" and '
                                   '"rival_version": two of its admitted versions')
        if games < 2:
            raise ChallengeRefused('a test plays games in pairs: "games" is at least 2')
        new, base = _version(store, bot, version), _version(store, bot, rival_version)
        if new.id == base.id:
            raise ChallengeRefused("a test compares two different versions")
        return store.add_challenge(author, bot, upload_version(new.version, new.id), [bot],
                                   upload_version(base.version, base.id), games, True)
    if version is not None or rival_version is not None:
        raise ChallengeRefused('"version" and "rival_version" go with "until": "decided"')
    current = {s.bot for s in store.current_versions()}
    if bot not in current:
        raise ChallengeRefused(f"{bot} has no admitted version to play", 409)
    samples = sample_names(settings)
    for rival in rivals:
        if rival == bot:
            raise ChallengeRefused("a bot's rivals are other bots (test two of its versions with \"until\")")
        if rival not in current and rival not in samples:
            raise ChallengeRefused(f"there is no bot {rival!r} in the ladder to challenge", 404)
    return store.add_challenge(author, bot, None, rivals, None, games, False)


def _version(store: Store, bot: str, version: str) -> Submission:
    """The bot's upload that `version` names (VERSION#UPLOAD, or a manifest's version: its latest), admitted once."""
    uploads = [s for s in store.submissions() if s.bot == bot]
    named = [s for s in uploads if upload_version(s.version, s.id) == version] or \
        [s for s in uploads if s.version == version]
    if not named:
        raise ChallengeRefused(f"{bot} has no version {version!r}", 404)
    playable = [s for s in named if s.status in PLAYABLE]
    if not playable:
        raise ChallengeRefused(f"version {version} of {bot} was never admitted: only an admitted version plays", 409)
    return playable[-1]


def tournament_name(settings: SeasonSettings, cid: int) -> str:
    """The name of a challenge's own tournament in the store, beside the ladder's."""
    return f"{settings.name}-challenge-{cid}"


def spec_of(store: Store, settings: SeasonSettings, challenge: Challenge) -> TournamentSpec:
    """What a challenge plays: a gauntlet of its bot against its rivals (and sample bots to fill a table), every
    seat rotation of every deal, in whole rounds of at most its games; or, until decided, `arena compare`'s paired
    duplicate games of one version against the other under its sequential test, its games the cap."""
    seats = settings.table_seats
    play = replace(settings.play, sandbox=settings.play.sandbox.resolved())
    if challenge.until_decided:
        new = entrant_of(_version(store, challenge.bot, challenge.version or ""))
        base = entrant_of(_version(store, challenge.bot, challenge.rival_version or ""))
        samples = sample_opponents(play.game, seats - 1, {challenge.bot, challenge.bot + BASE_MARK}, settings.samples)
        sprt = compare.sequential_test(None, None, None, DEFAULT_ALPHA, DEFAULT_BETA)
        return replace(compare.spec(play, compare.entrants(new, base, samples), seats, sprt=sprt,
                                    max_games=challenge.games), wave=COMPARE_WAVE)
    playing = {s.bot: s for s in store.current_versions()}
    samples = sample_names(settings)
    seated = challenge.outcome.get("seated", {})  # the versions its first slot seated: the same ones to its end

    def entrant(name: str) -> Entrant:
        if name in samples and name not in playing and name not in seated:
            return samples[name]
        sid = seated.get(name)
        found = store.submission(sid) if sid is not None else playing.get(name)
        if found is None or found.status not in PLAYABLE:
            raise ChallengeRefused(f"{name} has no admitted version to play any more", 409)
        return entrant_of(found)

    field = [entrant(challenge.bot), *(entrant(r) for r in challenge.rivals)]
    taken = {e.name for e in field}
    field += sample_opponents(play.game, max(0, seats - len(field)), taken, settings.samples)
    per_round = comb(len(field) - 1, seats - 1) * seats
    rounds = max(1, challenge.games // per_round)
    return TournamentSpec(play=play, fmt=Gauntlet(), entrants=tuple(field), seats=seats, rounds=rounds,
                          duplicate=True)


def play_some(season: Season, store: Store) -> None:
    """Between two ladder waves: play the oldest unfinished challenge for at most SLOT_SECONDS (its tables under
    way then finish; the next slot goes on from what is stored), on the season's own workers or cluster. Whatever
    goes wrong with it ends that challenge with the reason, never the ladder."""
    found = store.unfinished_challenges()
    if not found or season.stopping.is_set():
        return
    try:
        _play(season, store, found[0])
    except ClusterLost:
        raise  # the season waits for its cluster, and the challenge goes on once it is back
    except Exception as exc:  # noqa: BLE001 - a challenge that cannot be played must not stop the ladder's thread
        log.warning("challenge %d ended: %s", found[0].id, exc)
        _end(store, found[0], {**found[0].outcome, "error": f"it could not be played: {exc}"})


def _play(season: Season, store: Store, challenge: Challenge) -> None:
    settings = season.settings
    try:
        spec = spec_of(store, settings, challenge)
    except ArenaError as exc:
        _end(store, challenge, {**challenge.outcome, "error": str(exc)})
        log.info("challenge %d ended: %s", challenge.id, exc)
        return
    seated = {e.name: _upload_of(e) for e in spec.entrants if _upload_of(e) is not None}
    store.set_challenge(challenge.id, PLAYING, {**challenge.outcome, "seated": seated})
    runner = Runner(spec, store, settings.results_dir, jobs=settings.jobs, name=tournament_name(settings, challenge.id),
                    time_limit=SLOT_SECONDS, player=season.cluster())
    season.run_aside(runner)
    t = runner.tournament
    assert t is not None  # opened by the run
    outcome = {**outcome_of(store, runner.spec, t, challenge), "seated": seated}
    if outcome.pop("finished"):
        _end(store, challenge, outcome)
    else:
        store.set_challenge(challenge.id, PLAYING, outcome)


def _end(store: Store, challenge: Challenge, outcome: dict[str, Any]) -> None:
    """A challenge done (played out, decided, or ended by an error), and its author's hooks told so once."""
    store.set_challenge(challenge.id, DONE, outcome)
    told = {k: outcome[k] for k in ("verdict", "elo", "elo_low", "elo_high", "error", "results") if k in outcome}
    webhooks.notify(store, webhooks.CHALLENGE_DONE, challenge.bot, {"challenge": challenge.id, **told},
                    author=challenge.author, once=f"{webhooks.CHALLENGE_DONE}:{challenge.id}")


def _upload_of(entrant: Entrant) -> int | None:
    """The upload an entrant of an admitted submission plays (its version VERSION#UPLOAD), None for a sample bot."""
    _, mark, number = entrant.version.rpartition("#")
    return int(number) if mark and number.isdigit() else None


def outcome_of(store: Store, spec: TournamentSpec, t: Tournament, challenge: Challenge) -> dict[str, Any]:
    """What a challenge's games came to: its bot against each rival (ahead, behind, level), and for a test its
    verdict with the Elo difference and its interval (or the fault of a side that faulted in most of its games);
    "finished" once no game is left to play."""
    names = spec.names()
    results = {r["rival"]: {"ahead": r["ahead"], "behind": r["behind"], "level": r["level"]}
               for r in head_to_head(store, t, [names[0]])}
    if not challenge.until_decided:
        total = spec.fmt.total_games(spec)
        return {"results": results, "finished": total is not None and store.recorded_count(t.id) >= total}
    report = compare.final_report(store, t, spec)
    counts, verdict = compare.current(store, t, spec)
    low, high = report["interval"]
    shown = {Verdict.BETTER.value: "better", compare.FAULTED: "faulted"}.get(report["verdict"], "undecided")
    if report["verdict"] == Verdict.NOT_BETTER.value and report["estimate"] is not None and report["estimate"] < 0:
        shown = "worse"
    cap = compare.pairs_cap(spec)
    finished = verdict is not Verdict.UNDECIDED or report["faulted"] is not None or futile(spec, counts) or \
        (cap is not None and compare.deals_played(store, t.id) >= cap)
    out = {"results": results, "verdict": shown if finished else "undecided", "elo": _finite(report["estimate"]),
           "elo_low": _finite(low), "elo_high": _finite(high), "pairs": report["pairs"], "finished": finished}
    if report["faulted"] is not None:
        out["fault"] = report["faulted"]
    return out


def _finite(value: float | None) -> float | None:
    """A figure as JSON may hold it: None for an unbounded end or none at all."""
    return None if value is None or value != value or abs(value) == float("inf") else round(value, 1)


def view(store: Store, settings: SeasonSettings, viewer: Author | None, cid: int) -> dict[str, Any] | None:
    """GET /api/challenges/ID: {"id", "status", "games", "results"} (and a test's "verdict", "elo", "elo_low",
    "elo_high"), for its author, the organiser, and the authors of its rivals (not of a test: its author's alone);
    None (a 404) for anyone else."""
    challenge = store.challenge(cid)
    if challenge is None or not may_see(store, viewer, challenge):
        return None
    t = store.named_tournament(tournament_name(settings, cid))
    games = [] if t is None else sorted(seq + 1 for seq in store.done_seqs(t.id))
    out: dict[str, Any] = {"id": cid, "bot": challenge.bot, "rivals": list(challenge.rivals),
                           "status": challenge.status, "games": games,
                           "results": challenge.outcome.get("results", {})}
    if challenge.until_decided:
        out.update(version=challenge.version, rival_version=challenge.rival_version,
                   **{k: challenge.outcome.get(k) for k in ("verdict", "elo", "elo_low", "elo_high", "pairs")})
        if challenge.status == DONE and out["verdict"] is None:
            out["verdict"] = "undecided"
        if "fault" in challenge.outcome:
            out["fault"] = challenge.outcome["fault"]
    if "error" in challenge.outcome:
        out["error"] = challenge.outcome["error"]
    return out


def may_see(store: Store, viewer: Author | None, challenge: Challenge) -> bool:
    """True if viewer may see the challenge: its author's bot's, or (not a test) one of its rivals' authors."""
    bots = [challenge.bot] if challenge.until_decided else [challenge.bot, *challenge.rivals]
    return any(access.may_see_bot(viewer, store.bot_owner(b)) for b in bots)


def game_log(store: Store, settings: SeasonSettings, viewer: Author | None, cid: int, number: int,
             bot: str) -> dict[str, Any] | None:
    """The bot's own per-decision log of a challenge's game, as the ladder's logs are given (its seats' decisions
    and faults, no other seat's), to its author and the organiser; None (a 404) for anyone else."""
    challenge = store.challenge(cid)
    if challenge is None or bot not in (challenge.bot, *challenge.rivals) or \
            not access.may_see_bot(viewer, store.bot_owner(bot)):
        return None
    t = store.named_tournament(tournament_name(settings, cid))
    if t is None or not 1 <= number <= 2**62:
        return None
    try:
        game = store.game_numbered(t, number)
    except ArenaError:
        return None
    own = {bot, bot + BASE_MARK} if challenge.until_decided else {bot}
    seats = {s.seat for s in game.seats if s.bot in own}
    if not seats or not game.replay:
        return None
    record = load_record(replay_path(game.replay, settings.results_dir) or settings.results_dir)
    decisions = [{"decision": n, "seat": d.seat, "time": d.time, "cpu": d.cpu,
                  "fault": d.fault.value if d.fault else None, "log": d.log, "log_dropped": d.log_dropped}
                 for n, d in enumerate(record.decisions) if d.seat in seats]
    faults = [{"seat": f.seat, "decision": f.decision, "kind": f.kind.value, "detail": f.detail,
               "stderr": f.stderr} for f in record.faults if f.seat in seats]
    return {"challenge": cid, "game": number, "bot": bot, "seats": sorted(seats), "decisions": decisions,
            "faults": faults}


