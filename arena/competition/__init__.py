"""The hosted competition as a library, below the web layer: who may see what (access.py) and whose a bot name is
(names.py), which every route and page of `arena serve` and the season ask."""
