"""formatting/ is the pure engine: importing any of it must load neither textual nor rich (harlequin's model)."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import turnlens.formatting

ROOT = Path(__file__).resolve().parents[2]


def test_formatting_imports_neither_textual_nor_rich():
    modules = sorted(m.name for m in pkgutil.walk_packages(turnlens.formatting.__path__, "turnlens.formatting."))
    assert "turnlens.formatting.prompts.engine" in modules and "turnlens.formatting.evals.loader" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"formatting pulled in: {out.stdout.strip()}"


def test_export_command_does_not_import_textual():
    code = (
        "import sys\n"
        "import turnlens.tui.export_cli, turnlens.formatting.export.evals, turnlens.formatting.inputs\n"
        "assert 'textual' not in sys.modules and 'rich' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_the_results_view_opens_without_the_eval_engine():
    """The results view's first frame is timed (benchmarks/bench_results4.py): its screen is made without the eval
    model's dataclasses, the YAML reader of eval files or the compare machinery, loaded when a view needs them. Made
    as the command makes it: parsing its options (--dialect's choices) does not load the dialects either."""
    code = (
        "import sys\n"
        "from turnlens.tui.cli import open_app\n"
        "app = open_app(['sample_evals/.agentv/results', '--no-watch'], terminal=False)\n"
        "screen = app._first_screen_factory()\n"
        "assert type(screen).__name__ == 'ResultsScreen', screen\n"
        "unwanted = ('turnlens.formatting.model', 'turnlens.formatting.evals.loader',\n"
        "            'turnlens.formatting.evals.yaml12', 'turnlens.formatting.prompts.engine',\n"
        "            'turnlens.formatting.results.compare', 'turnlens.formatting.dialects.registry', 'yaml')\n"
        "print(','.join(name for name in unwanted if name in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
