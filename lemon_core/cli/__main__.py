"""``python -m lemon_core.cli …``: the ``lemon`` command, run by this interpreter whether or not
its console script is on ``PATH`` (the tests run lemon this way)."""

from lemon_core.cli import console

if __name__ == "__main__":
    console()
