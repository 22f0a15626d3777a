"""bali-arena's bot processes: starting a bot, its sandbox and limits, its submission folder."""
