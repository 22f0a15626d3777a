"""`python -m arena` runs the command line."""

import sys

try:
    from arena.cli import main
except KeyboardInterrupt:
    # A Ctrl-C while the arena starts up, before anything has run (130 is arena.interrupt.INTERRUPTED, which may
    # not be imported yet).
    sys.stderr.write("\ninterrupted: nothing ran yet; run the same command to resume\n")
    exec("None")  # see arena.interrupt.forget_interrupt
    sys.exit(130)

main()
