"""Every import made inside a function in formatting/ and tui/, with the reason it is not at the top of its module.

An import belongs at the top of its module. One made inside a function is deliberate, and listed here under its
reason: REASONS says what each group means, DEFERRED lists (importing module -> {imported module: note}) per group;
the note, when there is one, says more than the group does. tests/house/test_deferred_imports.py walks the source and
fails on an import inside a function that is not listed here, and on a listed one that is gone.

Adding one: put it under the group that says why (or add a group, with its reason); if none does, import at the top.
"Kept off the first frame" is checked with `python -X importtime` and benchmarks/bench_firstframe.py: a module already
imported before the first frame (Textual, orjson, the eval-file reader...) gains nothing from waiting.
"""

from __future__ import annotations

REASONS: dict[str, str] = {
    "first-frame": (
        "Kept off the first frame: not imported before the inspector's or the results view's first frame, or the "
        "export's first row (their times are benchmarked: bench_firstframe.py, bench_scale.py), but by the view, "
        "action or kind of file that needs it"
    ),
    "rare": (
        "A path few sessions take (a page, a view, an export format, a kind of pattern, a crash): its module is "
        "not paid for by every start"
    ),
    "command": (
        "The command line loads what the command asked for and no more: `turnlens export` and `diff` never load "
        "Textual, the app never loads the export's machinery, --version/--help and a refused option answer without "
        "the engine"
    ),
    "worker": (
        "Imported in the worker thread that uses it: the import (the eval engine, Rust extensions) does not hold "
        "the UI thread or the GIL while it draws"
    ),
    "cycle": "The imported module imports this one as it loads (a package whose screens import the package)",
    "platform": (
        "POSIX- or Linux-only: imported where it is used, behind a check, so the rest runs where it is missing"
    ),
    "to-move": (
        "No reason: already imported at the top of the module or before the first frame. To move to the top; left "
        "today because its file is being changed by other work"
    ),
}

F = "turnlens.formatting"
T = "turnlens.tui"

DEFERRED: dict[str, dict[str, dict[str, str]]] = {
    "first-frame": {
        f"{F}.dialects.agentv015": {f"{F}.evals.agentv015": "its loader, with the first file of its dialect"},
        f"{F}.dialects.agentv4": {f"{F}.evals.agentv4": "its loader (~7 ms), with the first file of its dialect"},
        f"{F}.dialects.discover": {
            f"{F}.evals.paths": "the results view's first frame reads no eval file",
            f"{F}.evals.yaml12": "the YAML reader: not needed by the results view",
            f"{F}.evals.globs": "only a config's eval_patterns",
            "wcmatch": "only a folder is walked",
        },
        f"{F}.evals.agentv015": {f"{F}.evals.agentv4": "only to say a file looks like AgentV 4"},
        f"{F}.evals.loader": {f"{F}.memlimit": "only when a load runs out of memory"},
        f"{F}.evals.yaml_binding": {
            "yaml": "PyYAML is imported with the first YAML file: JSONL and results never pay for it",
            "yaml.events": "",
            "yaml.nodes": "",
            "yaml.resolver": "",
            "yaml._yaml": "libyaml's parser, when PyYAML was built with it",
            "yaml.composer": "PyYAML's own parser, when it was built without libyaml",
            "yaml.parser": "",
            "yaml.reader": "",
            "yaml.scanner": "",
        },
        f"{F}.prompts.highlight": {
            "pygments.lexers": "seconds on a busy machine: imported in the background after the first frame",
            "pygments.util": "",
        },
        f"{F}.results.drift": {
            f"{F}.dialects.load": "the eval engine: drift is checked in a worker, once a result is opened",
            f"{F}.dialects.format": "",
            f"{F}.results.task_bundle": "",
            f"{F}.results.artifacts": "",
            f"{F}.prompts.agentv4": "",
            f"{F}.prompts.agentv015": "",
        },
        f"{F}.results.follow": {f"{F}.evals.yaml12": "only a run's YAML results"},
        f"{F}.results.index": {f"{F}.evals.yaml12": "only a run's YAML results"},
        f"{F}.results.record": {f"{F}.evals.yaml12": "only a run's YAML results"},
        f"{F}.results.threshold": {
            f"{F}.evals.yaml12": "only when a suite's threshold is looked up",
            f"{F}.results.drift": "",
        },
        f"{F}.evals.slices": {"bisect": "only an anchored suite cut in slices (the export's start does not import it)"},
        f"{F}.export.evals": {
            f"{F}.evals.slices": "only a file big enough to be cut",
            f"{F}.evals.references": "",
            f"{F}.export.parallel": "the worker processes: only a big file",
            "tempfile": "",
        },
        f"{T}.app": {
            f"{T}.inspector.screen": "each first screen imports only itself: the inspector is not the results view",
            f"{T}.results": "",
            f"{T}.session": "the eval engine: not imported for results",
            f"{T}.commands": "the palette's box and commands: only once the palette is first opened",
        },
        f"{T}.inspector.screen": {f"{T}.commands": "the palette's commands and the jump box: only once opened"},
        f"{T}.inspector.authoring": {f"{F}.graders.prompts": "only the grading pane"},
        f"{T}.render": {
            "pygments.token": "syntax colours: only once a highlighted text is drawn",
            "pygments.styles": "",
            "rich.syntax": "",
        },
        f"{T}.results.loading": {f"{F}.results.compare": "only two runs compared"},
        f"{T}.results.model": {f"{F}.results.compare": "only two runs compared"},
        f"{T}.results.widgets": {f"{F}.results.compare": "a run's list, the first frame, needs none"},
        f"{T}.results.screen": {
            f"{T}.results.compare": "",
            f"{T}.results.detail": "a result's detail: only once one is opened",
            f"{F}.results.compare": "",
        },
    },
    "rare": {
        f"{F}.diff.compare": {
            f"{F}.prompts.agentv015": "only a changed grader prompt",
            f"{F}.graders.prompts": "",
            f"{F}.dialects.format": "only a version read from git",
            f"{F}.dialects.load": "",
        },
        f"{F}.diff.versions": {f"{F}.dialects.discover": "only a folder's versions"},
        f"{F}.evals.agentv4": {
            "wcmatch": "few suites name their tests with a glob",
            f"{F}.evals.globs": "",
        },
        f"{F}.evals.globs": {
            "regex": "only a pattern that needs what re lacks",
            "bracex": "only a pattern with braces",
            "wcmatch": "only a pattern with wildcards",
        },
        f"{F}.export.html": {
            f"{F}.evals.interpolate": "each page imports what it shows",
            f"{F}.export.evals": "",
            f"{F}.dialects.discover": "",
            f"{F}.dialects.load": "",
            f"{F}.export.results": "",
            f"{F}.results.discover": "",
            f"{F}.results.drift": "",
            f"{F}.results.index": "",
            f"{F}.results.queries": "",
            f"{F}.diff.report": "",
            f"{F}.export.output": "",
        },
        f"{F}.export.output": {"select": "only an output pipe that is full"},
        f"{F}.export.parallel": {"select": ""},
        f"{F}.export.results": {
            f"{F}.results.artifacts": "only rows with artifacts",
            "toon_format": "only --format toon",
            f"{F}.results.stats": "only --stats",
            "tempfile": "",
        },
        f"{F}.inputs": {f"{F}.results.discover": "only a folder with no eval file"},
        f"{F}.results.agentv_compare": {
            f"{F}.jsjson": "what orjson refuses and JSON.parse reads: a lone surrogate escaped, 1e400, any depth"
        },
        f"{F}.results.artifacts": {f"{F}.results.traces": "only a test with a trace"},
        f"{F}.results.latest": {
            f"{F}.results.discover": "only when the inspector looks for a case's latest result",
            f"{F}.evals.paths": "",
        },
        f"{F}.results.stats": {f"{F}.results.artifacts": ""},
        f"{F}.results.task_bundle": {f"{F}.dialects.load": "only a run folder's task bundle", f"{F}.evals.yaml12": ""},
        f"{T}.inspector.diff": {
            f"{F}.diff.trees": "only the compare-with-HEAD view",
            f"{F}.diff.versions": "",
            f"{F}.diff.report": "",
        },
        f"{T}.inspector.screen": {
            f"{T}.inspector.grading": "each view or screen is imported when it is opened",
            f"{T}.editor": "only once a file is opened in an editor (off the first frame)",
            f"{T}.screens": "",
            f"{T}.inspector.diff": "",
            f"{F}.results.latest": "",
        },
        f"{T}.results.commands": {f"{T}.screens": "only the help screen"},
        f"{T}.results.compare": {f"{T}.results.detail": "only once a pair is opened"},
        f"{T}.results.screen": {
            f"{T}.editor": "opening a file in an editor, or the inspector, from the results view",
            f"{T}.session": "",
            f"{T}.widgets.case_list": "",
            f"{F}.results.stats": "each view is imported when it is opened",
            f"{F}.results.trend": "",
        },
        f"{T}.textual_compat": {
            "rich.traceback": "with rich.pretty, ~30 ms of every start, and only a crash needs it",
        },
    },
    "command": {
        f"{T}.arguments": {f"{F}.dialects.registry": "--dialect's choices, only when listed"},
        f"{T}.cli": {
            "importlib.metadata": "only --version",
            f"{F}.evals.files": "",
            f"{T}.export_cli": "",
            f"{T}.diff_cli": "",
            f"{T}.signals": "",
            f"{F}.export.output": "",
            "shlex": "only serve",
            "textual_serve.server": "only serve",
            f"{F}.sanitize": "",
            f"{T}.session": "",
            f"{F}.gcpause": "",
            f"{T}.app": "imports Textual: only the app",
            f"{T}.settings": "",
        },
        f"{T}.diff_cli": {
            f"{F}.evals.files": "",
            f"{F}.export.output": "",
            f"{T}.app": "only the diff shown in the app",
            f"{T}.inspector.diff": "",
            f"{F}.diff.trees": "",
            f"{F}.diff.versions": "",
            f"{F}.sanitize": "",
            f"{F}.diff.report": "",
            f"{F}.export.html": "only --format html",
        },
        f"{T}.export_cli": {
            f"{F}.memlimit": "",
            f"{F}.inputs": "",
            f"{F}.export.html": "each export imports its own machinery",
            f"{F}.export.evals": "",
            f"{F}.export.results": "",
            f"{F}.results.queries": "",
            f"{F}.results.agentv_compare": "",
        },
    },
    "worker": {
        f"{T}.inspector.watcher": {"watchfiles": "in the watching thread"},
        f"{T}.results.detail": {f"{F}.results.drift": "drift is checked in a worker"},
        f"{T}.results.loading": {f"{F}.results.wake": "in the follow thread (ctypes and its inotify binding)"},
        f"{T}.results.screen": {f"{F}.results.drift": "drift is checked in a worker"},
    },
    "cycle": {
        f"{T}.results": {
            f"{T}.results.model": "the package's screens import it",
            f"{T}.results.compare": "",
            f"{T}.results.screen": "",
        },
    },
    "platform": {
        f"{F}.export.parallel": {"fcntl": "F_SETPIPE_SZ (Linux): a wider pipe for a worker's summary"},
        f"{F}.memlimit": {"resource": "POSIX: the process's memory limits"},
        f"{T}.signals": {"termios": "POSIX: the terminal's settings, restored after a signal"},
    },
    "to-move": {},
}
