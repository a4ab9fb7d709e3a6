"""Which memory limit a process that ran out of memory hit, worded for its message: the limit set on the process
(`ulimit -v` or `ulimit -d`), its control group's (a container's), or the machine's memory. Read only when memory
ran out, so an out-of-memory message blames what was really hit (not --max-file-size, which bounds a file's size)."""

from __future__ import annotations

import os


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.0f} MiB"


def _process_limit() -> str | None:
    try:
        import resource
    except ImportError:  # not POSIX
        return None
    for limit, name in ((resource.RLIMIT_AS, "ulimit -v"), (resource.RLIMIT_DATA, "ulimit -d")):
        try:
            soft, _hard = resource.getrlimit(limit)
        except (OSError, ValueError):
            continue
        if soft != resource.RLIM_INFINITY and soft > 0:
            return f"this process may use at most {_mib(soft)} ({name})"
    return None


def _group_limit() -> str | None:
    """The memory.max of this process's control group (cgroup v2), when it sets one."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as own:
            groups = [line.strip().split(":", 2)[2] for line in own if line.startswith("0::")]
        if not groups:
            return None
        with open(os.path.join("/sys/fs/cgroup", groups[0].lstrip("/"), "memory.max"), encoding="utf-8") as limit:
            value = limit.read().strip()
    except (OSError, IndexError, ValueError):
        return None
    if not value.isdigit():
        return None  # "max": none
    return f"its control group (a container) may use at most {_mib(int(value))} (memory.max)"


def limit_hit() -> str:
    """The limit that stopped this process, e.g. `this process may use at most 488 MiB (ulimit -v)`."""
    return _process_limit() or _group_limit() or "the machine's memory ran out"
