"""The season's link to its Dask cluster: one connection for the whole season, reached at its first use and again
after it was lost, and each outage said once in the log however many threads find it."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from arena.errors import ConfigError
from arena.tournament.cluster import ClusterLost, ClusterPlayer
from arena.tournament.cluster_tls import ClusterAccess

log = logging.getLogger("arena.serve")


class ClusterLink:
    """The Dask cluster a season plays and admits on, or none (`address` None: the local workers)."""

    def __init__(self, address: str | None, jobs: int, results_dir: Path, built_dir: Path,
                 access: ClusterAccess = ClusterAccess()) -> None:
        self.address, self.jobs = address, jobs
        self.results_dir, self.built_dir, self.access = results_dir, built_dir, access
        self._player: ClusterPlayer | None = None  # once the scheduler has been reached
        self._connecting = threading.Lock()
        self._lost: str | None = None  # what was said of the cluster's loss, until it is reached again
        self._said = threading.Lock()  # apart from _connecting, which player() holds while it says the loss

    def player(self) -> ClusterPlayer | None:
        """The cluster's player (None without a cluster): reached at its first use, and again after it was lost
        (ClusterLost, an ArenaError, while it cannot be reached: the caller tries later)."""
        if self.address is None:
            return None
        with self._connecting:
            if self._player is not None and self._player.connected():
                if self._lost is not None:  # the client reached it again by itself
                    log.info("the Dask scheduler at %s is reached again", self.address)
                    self._lost = None
                return self._player
            if self._player is not None:
                self._say_lost(f"the Dask scheduler at {self.address} was lost; reaching it again")
                self._player.close()
                self._player = None
            try:
                self._player = ClusterPlayer(self.address, self.jobs, self.results_dir, built_dir=self.built_dir,
                                             access=self.access)
            except ConfigError as exc:
                raise ClusterLost(f"{exc}; tried again in a while (the pages are served meanwhile)") from None
            log.info("playing on the Dask cluster at %s", self.address)
            self._lost = None
            return self._player

    def lost(self, exc: ClusterLost) -> None:
        """A thread found the cluster lost: said once per outage (unless the loss was an old client's, gone
        since a new one reached the cluster)."""
        player = self._player
        if player is None or not player.connected():
            self._say_lost(str(exc))

    def _say_lost(self, message: str) -> None:
        # A scheduler may be away for hours and each try fails again, in whatever words: said once an outage.
        with self._said:
            said, self._lost = self._lost, self._lost or message
        if said is None:
            log.error("%s", message)

    def close(self) -> None:
        """Let the cluster go (its workers stay; the next use reaches it again). Not under the connecting lock: a
        stop must not wait for a scheduler that does not answer."""
        player, self._player = self._player, None
        if player is not None:
            player.close()
