"""Learn to play from a season's winners: the worked example of bali-arena's export (docs/export.md of bali-arena).

    arena export -t SEASON --out season-data        # or download the served season's files from /api/export/
    python3 learn.py season-data                    # writes learned.json beside this file
    arena compare --game bali-2017 {{name}} "python3 -m sample_bots.random_bot"

It reads the decisions with pyarrow (`python3 -m pip install pyarrow`), a batch at a time, keeps those of the seats
that won their game (rank 1), and counts, for each kind of decision and each option, how often a winner was offered
it and how often a winner chose it. bot.py then plays, at each decision, the option winners chose most often when
they were offered it (learned.json there; without it, bot.py plays its own strategy). A frequency model is the
simplest thing that learns: a next step is to describe each option by features of the view too.
"""

import argparse
import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
IGNORED = ("row",)  # where an option sits in a display says nothing by itself about what it is worth


def option_key(kind, option):
    """The name of an option of a decision of `kind`, the same in every game: its kind and its fields."""
    return kind + " " + json.dumps({k: v for k, v in option.items() if k not in IGNORED}, sort_keys=True)


def winners(folder):
    """The (game, seat) of every seat that won its game."""
    seats = pq.read_table(folder / "seats.parquet", columns=["game", "seat", "rank"]).to_pylist()
    return {(s["game"], s["seat"]) for s in seats if s["rank"] == 1}


def learn(folder):
    """For each option a winner was offered: the share of the times a winner chose it (smoothed)."""
    won = winners(folder)
    offered, chosen, decisions = Counter(), Counter(), 0
    table = pq.ParquetFile(folder / "decisions.parquet")
    for batch in table.iter_batches(columns=["game", "seat", "kind", "asked", "options", "chosen"]):
        for row in batch.to_pylist():
            if not row["asked"] or (row["game"], row["seat"]) not in won:
                continue
            options = json.loads(row["options"])
            if len(options) < 2:
                continue
            decisions += 1
            for index, option in enumerate(options):
                key = option_key(row["kind"], option)
                offered[key] += 1
                chosen[key] += index == row["chosen"]
    scores = {key: (chosen[key] + 1) / (offered[key] + 2) for key in offered}
    return {"winners": len(won), "decisions": decisions, "scores": scores}


def main():
    parser = argparse.ArgumentParser(description="Learn from a season's winners (an arena export).")
    parser.add_argument("data", type=Path, help="the folder of an arena export (Parquet)")
    parser.add_argument("--out", type=Path, default=HERE / "learned.json", help="where to write what it learned")
    args = parser.parse_args()
    model = learn(args.data)
    args.out.write_text(json.dumps(model, indent=1, sort_keys=True) + "\n")
    print(f"learned from {model['decisions']:,} decisions of {model['winners']:,} winners: "
          f"{len(model['scores']):,} options scored, in {args.out}")


if __name__ == "__main__":
    main()
