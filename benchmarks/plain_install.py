"""A plain install of this checkout for the export benchmarks: what `pip install turnlens` gives a user.

The checkout is built into a wheel and installed (files copied, bytecode compiled) into benchmarks/out/plain-venv,
whose `turnlens` command is then timed. Its dependencies are the ones of the interpreter running the benchmark
(.venv), reached through a .pth line, so nothing is downloaded but the wheel's build backend (pip's build isolation,
usually from pip's cache).

Why not .venv/bin/turnlens: .venv holds an editable install (what a developer has), whose modules are found through
links and never compiled by pip, so its start is not what users get.
The benchmarks time the plain install unless given --editable, and say which one they timed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "benchmarks" / "out"
VENV = OUT / "plain-venv"
EDITABLE = REPO / ".venv" / "bin" / "turnlens"


def plain_turnlens() -> Path:
    """The `turnlens` command of a fresh plain install of the checkout as it is now. Raises CalledProcessError when
    the wheel cannot be built or installed."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        site = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        # the dependencies of the running interpreter, after the plain venv's own packages
        (Path(site) / "turnlens-bench-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    wheels = OUT / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    build = REPO / "build"  # where setuptools builds the wheel: taken away again unless it was there before
    had_build = build.exists()
    try:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(REPO)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    finally:
        if not had_build:
            shutil.rmtree(build, ignore_errors=True)
    wheel = next(wheels.glob("turnlens-*.whl"))
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", "--no-index", str(wheel)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return VENV / "bin" / "turnlens"


def turnlens_command(editable: bool) -> tuple[Path, str]:
    """The `turnlens` to time and how to say which one it is."""
    if editable:
        return EDITABLE, f"editable install ({EDITABLE.relative_to(REPO)})"
    try:
        command = plain_turnlens()
    except (subprocess.CalledProcessError, StopIteration, OSError) as exc:
        return EDITABLE, f"editable install ({EDITABLE.relative_to(REPO)}): the plain install failed ({exc})"
    return command, f"plain install of this checkout ({command.relative_to(REPO)})"
