"""`arena serve`: one process that hosts a competition: a web site (uploads, statuses, private logs, the live
leaderboard) over the results store, while it admits uploads and plays the ladder. The processes are
supervise.py's, the routes app.py's and web/'s, the library behind them hosting.py's."""

from arena.server.supervise import SeasonProcess, check_address, check_proxy, publish_site, serve

__all__ = ["SeasonProcess", "check_address", "check_proxy", "publish_site", "serve"]
