"""turnlens: a terminal transcript inspector for AgentV eval files and results.

Installed, the repository's folders live under this one name: `turnlens.formatting` (the engine, pure Python) and
`turnlens.tui` (the Textual app and the `turnlens` command). The bundled `sample_evals/` ships as package data.
Importing this package imports nothing but os, signal and sys, so `import turnlens.formatting` stays free of the UI
toolkit.
"""

import os as _os
import signal as _signal
import sys as _sys


def _interrupted_while_starting(_signum, _frame):  # pragma: no cover - a signal in the first ~100 ms
    """Ctrl-C before the command has loaded its modules (the console script's own imports, ~50-110 ms): said in one
    line and exit 130, as later, instead of a traceback from inside an import."""
    try:
        _os.write(2, b"turnlens: interrupted\n")
    finally:
        _os._exit(130)


# Only when this package is imported to run the `turnlens` command (the console script, or `python -m turnlens`,
# whose argv[0] is still "-m" here), never when a program imports it as a library. tui/cli.py hands SIGINT back to
# Python's own handling once it runs.
if (
    _sys.argv
    and (_os.path.basename(_sys.argv[0]) == "turnlens" or _sys.argv[0] == "-m")
    and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler
):
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)
