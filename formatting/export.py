"""`turnlens export`: every case of an eval file as JSONL (DECISIONS §6), or a results file (see results_export).

Kept free of textual/rich imports so the command starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

from .engine import format_case
from .loader import load_eval_file
from .model import Diagnostic, PROFILES

try:
    import orjson

    def _dumps(obj) -> bytes:
        return orjson.dumps(obj)
except ImportError:  # pragma: no cover - orjson is a dependency; keep working without it
    import json

    def _dumps(obj) -> bytes:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def export_rows(path: str, repo_root: Optional[str] = None, profile: str = "agentv",
                cwd: Optional[str] = None) -> tuple[list[dict], Optional[Diagnostic]]:
    """The export rows of one eval file, or the reason it was refused."""
    ev = load_eval_file(path, repo_root=repo_root, cwd=cwd)
    if ev.error is not None:
        return [], ev.error
    rows: list[dict] = []
    rel_paths: dict[str, str] = {}

    def rel(p: str) -> str:
        hit = rel_paths.get(p)
        if hit is None:
            hit = rel_paths[p] = os.path.relpath(p, ev.repo_root).replace(os.sep, "/")
        return hit

    for case in ev.cases:
        if case.skipped is not None:
            rows.append({"index": case.index, "id": case.id, "skipped": case.skipped, "line": case.line})
            continue
        fc = format_case(case, ev, profile)  # type: ignore[arg-type]
        rows.append({
            "id": case.id,
            "lm": fc.lm.to_json(),
            "agent": fc.agent.to_json(),
            "evaluator_prompt": fc.evaluator_prompt,
            "markers": fc.explanation.to_json(),
            "profile": profile,
            "guideline_paths": [rel(p) for p in case.guideline_paths],
            "warnings": [str(d) for d in case.diagnostics],
        })
    return rows, None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="turnlens export",
        description="Write what every case of an eval file becomes (question, guidelines, chatPrompt for lm and "
                    "agent mode, evaluator prompt, marker rule) as JSONL; or export a results file.")
    p.add_argument("paths", nargs="+", metavar="FILE", help="an eval file (or AgentV results files with --format)")
    p.add_argument("--repo-root", metavar="DIR", help="repo root (default: nearest folder with .git, else the cwd)")
    p.add_argument("--profile", choices=PROFILES, default="agentv", help="chatPrompt profile (default: agentv)")
    p.add_argument("--format", choices=("toon", "jsonl", "markdown"),
                   help="export AgentV results files in this format instead")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings on stderr")
    return p


def _is_results(path: str) -> bool:
    try:
        from .results import looks_like_results_file
    except ImportError:
        return path.endswith(".jsonl")
    return looks_like_results_file(path)


def main(argv: Optional[list[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.format or any(_is_results(p) for p in args.paths):
        try:
            from .results_export import main as results_main
        except ImportError:
            print("turnlens export: exporting results files is not available in this build", file=sys.stderr)
            return 2
        return results_main(list(argv if argv is not None else sys.argv[1:]))
    out = sys.stdout.buffer
    status = 0
    for path in args.paths:
        rows, error = export_rows(path, repo_root=args.repo_root, profile=args.profile)
        if error is not None:
            print(f"turnlens export: {error}", file=sys.stderr)
            status = 1
            continue
        chunks = []
        for row in rows:
            if not args.quiet:
                for w in row.get("warnings", ()):
                    print(f"turnlens export: warning: {w}", file=sys.stderr)
                if "skipped" in row:
                    label = row["id"] if row["id"] is not None else f"#{row['index'] + 1}"
                    where = f"{path}:{row['line']}" if row.get("line") else path
                    print(f"turnlens export: warning: {where}: case {label} skipped: {row['skipped']}",
                          file=sys.stderr)
            chunks.append(_dumps(row))
        if chunks:
            out.write(b"\n".join(chunks) + b"\n")
    out.flush()
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
