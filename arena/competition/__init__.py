"""The hosted competition as a library, below the web layer: who may see what (access.py), which every route and
page of `arena serve` asks."""
