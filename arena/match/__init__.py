"""A match: games between bot processes, their records and replays."""
