"""Byte-exactness against the reference: every recorded oracle output (tests/fixtures/oracle/) must equal what the
engine exports for the same eval file, case by case, in both modes.

Per eval file:
- accepted cases (paired with the oracle's by id, n-th duplicate with n-th) have the same lm/agent question,
  guidelines and chatPrompt and the same evaluator prompt, byte for byte, and the same `evaluator_prompts` (a case
  with its own evaluators); also guideline_paths when the engine's rows carry that extra key; rows say dialect
  agentv-0.15;
- the explanation agrees with the oracle: markers are used exactly when the oracle has a chatPrompt, and the rule's
  evidence (trigger and visible messages) is consistent;
- the cases the engine skips are those the oracle warns about ("Skipping incomplete eval case: <id>", "Skipping
  invalid eval case entry", "No valid expected message found for eval case: <id>");
- a file the oracle refuses (load_error) is refused by the engine too.
The design profile must keep the same question, guidelines and evaluator prompt, and its chatPrompt must have the
shape docs/rules.md gives it; `turnlens export` itself is run on a sample of files.

Progress for the engine author (no pytest needed):

    .venv/bin/python tests/engine/test_golden_agentv015.py --summary            # "N/M cases match" + first mismatches
    .venv/bin/python tests/engine/test_golden_agentv015.py --summary --only files.yaml --limit 20 --per-file
    .venv/bin/python tests/engine/test_golden_agentv015.py --summary --warnings # also compare per-case warnings
    .venv/bin/python tests/engine/test_golden_agentv015.py --known-lines  # mismatches as known_mismatches.txt lines

Fixtures come from tests/fixtures/record_oracle.py (needs node); these tests never run node.
Known, accepted differences can be listed in tests/fixtures/oracle/known_mismatches.txt ("fixture :: case :: field"
per line): they make the test xfail instead of fail; anything else still fails.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import sys
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE_DIR = REPO / "tests" / "fixtures" / "oracle"
MANIFEST = FIXTURE_DIR / "manifest.json"
KNOWN = FIXTURE_DIR / "known_mismatches.txt"
CORPUS = REPO / "tests" / "corpus"
ROOT_PLACEHOLDER = "<ROOT>"
REPO_PLACEHOLDER = "<REPO>"
MODES = ("lm", "agent")
MODE_FIELDS = ("question", "guidelines", "chatPrompt")
SKIP_INCOMPLETE = "Warning: Skipping incomplete eval case: "
SKIP_NO_EXPECTED = "Warning: No valid expected message found for eval case: "  # the case is dropped too
SKIP_INVALID = "Warning: Skipping invalid eval case entry"
NO_STRING_ID = "<no string id>"  # the oracle prints "unknown" for a missing/non-string id


# ------------------------------------------------------------------------------------------------ fixtures


def load_manifest() -> dict:
    if not MANIFEST.exists():
        return {"fixtures": {}}
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def load_known() -> set[tuple[str, str, str]]:
    known = set()
    if KNOWN.exists():
        for line in KNOWN.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                parts = [p.strip() for p in line.split("::")]
                if len(parts) == 3:
                    known.add(tuple(parts))
    return known


@dataclass
class OracleOutput:
    cases: list[dict]
    warnings: list[str]
    load_error: str | None


def read_fixture(key: str, root: Path) -> OracleOutput:
    cases, warnings, load_error = [], [], None
    text = (FIXTURE_DIR / (key + ".jsonl")).read_text(encoding="utf-8")
    for line in text.split("\n"):
        if not line.strip():
            continue
        obj = json.loads(line)
        if "lm" in obj:
            cases.append(obj)
            continue
        fix = lambda s: s.replace(ROOT_PLACEHOLDER, str(root)).replace(REPO_PLACEHOLDER, str(REPO))  # noqa: E731
        warnings += [fix(w) for w in obj.get("warnings", [])]
        if obj.get("load_error") is not None:
            load_error = fix(obj["load_error"])
    return OracleOutput(cases, warnings, load_error)


def oracle_skip_labels(warnings: list[str]) -> Counter:
    labels = Counter()
    for w in warnings:
        if w.startswith(SKIP_INVALID):
            labels[NO_STRING_ID] += 1
            continue
        for prefix in (SKIP_INCOMPLETE, SKIP_NO_EXPECTED):
            if w.startswith(prefix):
                name = w[len(prefix) :]
                labels[NO_STRING_ID if name == "unknown" else name] += 1
    return labels


def engine_skip_labels(rows: list[dict]) -> Counter:
    return Counter(
        r["id"] if isinstance(r.get("id"), str) and r["id"] != "unknown" else NO_STRING_ID
        for r in rows
        if "skipped" in r
    )


def sha256(path: Path) -> str:
    if path.is_dir():
        return "folder"
    if not path.exists():
        return "missing"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def why_not_comparable(entry: dict) -> str | None:
    """A reason to skip this fixture, or None."""
    if entry.get("oracle_crash"):
        return f"the oracle itself crashes on this file ({entry['oracle_crash']}): nothing to compare"
    bound = entry.get("location_bound")
    if bound and Path(bound) != (REPO / entry["root"]).resolve():
        return f"eval file holds absolute paths made for {bound}; regenerate and re-record here"
    eval_path = REPO / entry["eval"]
    if sha256(eval_path) != entry["eval_sha256"]:
        return f"{entry['eval']} changed since it was recorded; re-record (tests/fixtures/record_oracle.py)"
    return None


# ------------------------------------------------------------------------------------------------ engine


def import_engine():
    """turnlens.formatting.export_rows. An engine that fails to import fails the suite loudly (never a skip)."""
    from turnlens.formatting.export.evals import export_rows

    return export_rows


@contextmanager
def chdir(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_engine(export_rows, entry: dict, profile: str = "agentv"):
    root = (REPO / entry["root"]).resolve()
    cwd = (REPO / entry.get("cwd", entry["root"])).resolve()
    with chdir(cwd):
        return export_rows(str(REPO / entry["eval"]), repo_root=str(root), profile=profile, cwd=str(cwd))


# ------------------------------------------------------------------------------------------------ comparison


@dataclass
class Mismatch:
    case: str  # readable case label: id, "#n" for the n-th duplicate
    field: str  # e.g. "lm.question", "evaluator_prompt", "presence", "skipped", "load_error"
    expected: object
    actual: object

    def key(self, fixture: str) -> tuple[str, str, str]:
        return (fixture, self.case, self.field)


@dataclass
class FileResult:
    fixture: str
    total: int = 0  # oracle-accepted cases
    matched: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    file_problems: list[Mismatch] = field(default_factory=list)  # skip set / refusal disagreements


def evidence_trouble(markers: dict) -> str | None:
    """The rule names its evidence consistently; what is wrong, or None."""
    try:
        rule, trigger, visible = markers["rule"], markers["trigger_messages"], markers["visible_messages"]
        roles = [m["role"] for m in markers["messages"]]
        if markers["uses_markers"] != (rule in ("non-user turn", "several visible turns")):
            return f"uses_markers={markers['uses_markers']} with rule {rule!r}"
        if rule == "non-user turn":
            # (not necessarily the first assistant/tool message as written: the reference drops some messages)
            if not trigger or any(roles[i] not in ("assistant", "tool") for i in trigger):
                return f"non-user turn names {trigger}, roles {[roles[i] for i in trigger]}"
        elif rule == "several visible turns" and (len(visible) < 2 or trigger != visible):
            return f"several visible turns with visible={visible}, trigger={trigger}"
        elif rule == "single visible turn" and len(visible) != 1:
            return f"single visible turn with visible={visible}"
        elif rule == "no visible content" and visible:
            return f"no visible content with visible={visible}"
    except (KeyError, TypeError) as exc:
        return f"malformed markers: {exc!r}"
    return None


def case_labels(ids: list) -> list[str]:
    seen: Counter = Counter()
    labels = []
    for i in ids:
        seen[i] += 1
        base = i if isinstance(i, str) else repr(i)
        labels.append(base if seen[i] == 1 else f"{base}#{seen[i]}")
    return labels


def compare(
    fixture: str, oracle: OracleOutput, rows: list[dict], error, mode_fields: tuple[str, ...] = MODE_FIELDS
) -> FileResult:
    res = FileResult(fixture, total=len(oracle.cases))
    if oracle.load_error is not None or error is not None:
        if oracle.load_error is None:
            res.file_problems.append(Mismatch("(file)", "load_error", None, str(error)))
        elif error is None:
            res.file_problems.append(Mismatch("(file)", "load_error", oracle.load_error, f"accepted: {len(rows)} rows"))
        return res

    accepted = [r for r in rows if "skipped" not in r]
    for r in rows:  # docs/export.md: {"index", "id" (as written, or null), "skipped": "<reason>"}
        if "skipped" in r and not (
            isinstance(r.get("index"), int) and "id" in r and isinstance(r["skipped"], str) and r["skipped"]
        ):
            res.file_problems.append(Mismatch("(file)", "skipped row shape", '{"index", "id", "skipped"}', r))
    want_skips, got_skips = oracle_skip_labels(oracle.warnings), engine_skip_labels(rows)
    if want_skips != got_skips:
        res.file_problems.append(
            Mismatch("(file)", "skipped", dict(sorted(want_skips.items())), dict(sorted(got_skips.items())))
        )

    # pair oracle cases with engine rows by id, n-th occurrence with n-th occurrence (ids may repeat)
    pool: dict = {}
    for row in accepted:
        pool.setdefault(json.dumps(row.get("id")), []).append(row)
    labels = case_labels([c["id"] for c in oracle.cases])
    for label, want in zip(labels, oracle.cases):
        candidates = pool.get(json.dumps(want["id"]), [])
        if not candidates:
            res.mismatches.append(Mismatch(label, "presence", "case accepted", "case missing or skipped"))
            continue
        got = candidates.pop(0)
        before = len(res.mismatches)
        for mode in MODES:
            for name in mode_fields:
                w = want[mode][name]
                g = (got.get(mode) or {}).get(name, "<missing key>")
                if w != g:
                    res.mismatches.append(Mismatch(label, f"{mode}.{name}", w, g))
        # the explanation must agree with the oracle about markers: in the agentv profile a chatPrompt exists
        # exactly when role markers are used, and the rule names a marker reason exactly then. Not decidable when
        # the question is empty: a blank assistant turn still means markers, but leaves no chatPrompt either.
        markers = got.get("markers")
        if isinstance(markers, dict) and want["lm"]["question"] != "":
            uses = want["lm"]["chatPrompt"] is not None
            rule_marks = markers.get("rule") in ("non-user turn", "several visible turns")
            if markers.get("uses_markers") != uses or rule_marks != uses:
                res.mismatches.append(
                    Mismatch(
                        label,
                        "markers.rule",
                        f"uses_markers={uses} (oracle chatPrompt {'present' if uses else 'null'})",
                        f"uses_markers={markers.get('uses_markers')}, rule={markers.get('rule')!r}",
                    )
                )
        if isinstance(markers, dict):
            trouble = evidence_trouble(markers)
            if trouble:
                res.mismatches.append(Mismatch(label, "markers.evidence", "consistent evidence", trouble))
        # an extra key of the export rows: compared when the engine provides it
        if "guideline_paths" in got and got["guideline_paths"] != want.get("guideline_paths"):
            res.mismatches.append(
                Mismatch(label, "guideline_paths", want.get("guideline_paths"), got["guideline_paths"])
            )
        # a case with its own evaluators: each one's prompt (0.15.1's evaluator_prompts), absent otherwise
        if want.get("evaluator_prompts") != got.get("evaluator_prompts"):
            res.mismatches.append(
                Mismatch(label, "evaluator_prompts", want.get("evaluator_prompts"), got.get("evaluator_prompts"))
            )
        if got.get("dialect", "agentv-0.15") != "agentv-0.15":
            res.mismatches.append(Mismatch(label, "dialect", "agentv-0.15", got.get("dialect")))
        if want["evaluator_prompt"] != got.get("evaluator_prompt", "<missing key>"):
            res.mismatches.append(
                Mismatch(label, "evaluator_prompt", want["evaluator_prompt"], got.get("evaluator_prompt"))
            )
        if len(res.mismatches) == before:
            res.matched += 1
    for leftovers in pool.values():
        for row in leftovers:
            rid = row.get("id")
            res.mismatches.append(
                Mismatch(
                    rid if isinstance(rid, str) else repr(rid),
                    "presence",
                    "not accepted by the oracle",
                    "case accepted",
                )
            )
    return res


# ------------------------------------------------------------------------------------------------ readable diffs


def _lines(value) -> list[str]:
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, indent=1, ensure_ascii=False)
    # repr each line so blank lines, trailing spaces, \r and control characters are visible
    return [repr(line)[1:-1] + "\n" for line in text.split("\n")]


def first_difference(a, b) -> str:
    if not (isinstance(a, str) and isinstance(b, str)):
        return ""
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    lo = max(0, n - 30)
    return (
        f"first difference at char {n} (expected len {len(a)}, engine len {len(b)}):\n"
        f"    expected: {a[lo : n + 30]!r}\n    engine:   {b[lo : n + 30]!r}\n"
    )


def describe(m: Mismatch, fixture: str = "", max_lines: int = 40) -> str:
    head = f"{fixture} :: {m.case} :: {m.field}\n"
    if m.field in ("presence", "skipped", "skipped row shape", "load_error", "markers.rule", "markers.evidence"):
        return head + f"    oracle: {m.expected!r}\n    engine: {m.actual!r}\n"
    diff = list(difflib.unified_diff(_lines(m.expected), _lines(m.actual), "oracle", "engine", n=2))
    if len(diff) > max_lines:
        diff = diff[:max_lines] + [f"... ({len(diff) - max_lines} more diff lines)\n"]
    return head + first_difference(m.expected, m.actual) + "".join("    " + d for d in diff)


# ------------------------------------------------------------------------------------------------ pytest

try:
    import pytest
except ImportError:  # the --summary mode works without pytest
    pytest = None

if pytest is not None:
    _MANIFEST = load_manifest()
    _KEYS = list(_MANIFEST.get("fixtures", {}))

    @pytest.fixture(scope="module")
    def export_rows():
        return import_engine()

    @pytest.fixture(scope="module")
    def known() -> set[tuple[str, str, str]]:
        """known_mismatches.txt, read once per module (not once per test)."""
        return load_known()

    @pytest.fixture(scope="module")
    def not_comparable():
        """why_not_comparable per fixture, worked out once per module: it hashes the eval file, and three tests ask."""
        reasons: dict[str, str | None] = {}

        def reason(fixture: str) -> str | None:
            if fixture not in reasons:
                reasons[fixture] = why_not_comparable(_MANIFEST["fixtures"][fixture])
            return reasons[fixture]

        return reason

    @pytest.fixture(scope="module")
    def design_runs() -> dict:
        return {}

    def design_export(design_runs: dict, export_rows, fixture: str):
        """The design profile's export of a fixture, run once for the two tests that read it (kept by the first to
        ask, dropped by the second: they only read it)."""
        if fixture in design_runs:
            return design_runs.pop(fixture)
        design_runs[fixture] = run_engine(export_rows, _MANIFEST["fixtures"][fixture], profile="design")
        return design_runs[fixture]

    @pytest.mark.parametrize("fixture", _KEYS)
    def test_engine_matches_oracle(fixture, export_rows, known, not_comparable):
        entry = _MANIFEST["fixtures"][fixture]
        reason = not_comparable(fixture)
        if reason:
            pytest.skip(reason)
        root = (REPO / entry["root"]).resolve()
        oracle = read_fixture(fixture, root)
        rows, error = run_engine(export_rows, entry)
        res = compare(fixture, oracle, rows, error)
        problems = res.file_problems + res.mismatches
        new = [m for m in problems if m.key(fixture) not in known]
        if new:
            shown = "\n".join(describe(m, fixture) for m in new[:8])
            more = f"\n... and {len(new) - 8} more mismatches" if len(new) > 8 else ""
            pytest.fail(
                f"{res.matched}/{res.total} cases match the oracle; command: {entry['command']}\n\n{shown}{more}",
                pytrace=False,
            )
        if problems:
            pytest.xfail(f"{len(problems)} known mismatches (tests/fixtures/oracle/known_mismatches.txt)")

    @pytest.mark.parametrize("fixture", _KEYS)
    def test_design_profile_keeps_question_and_guidelines(fixture, export_rows, known, not_comparable, design_runs):
        """The design profile changes only chatPrompt; question, guidelines and the evaluator prompt
        are the agentv ones, so the oracle is their truth too."""
        entry = _MANIFEST["fixtures"][fixture]
        reason = not_comparable(fixture)
        if reason:
            pytest.skip(reason)
        oracle = read_fixture(fixture, (REPO / entry["root"]).resolve())
        rows, error = design_export(design_runs, export_rows, fixture)
        res = compare(fixture, oracle, rows, error, mode_fields=("question", "guidelines"))
        known_cases = {k[:2] for k in known}  # a case known to differ in agentv differs here too
        new = [m for m in res.file_problems + res.mismatches if m.key(fixture)[:2] not in known_cases]
        if new:
            pytest.fail(
                f"design profile: {res.matched}/{res.total} cases keep the oracle's strings\n\n"
                + "\n".join(describe(m, fixture) for m in new[:5]),
                pytrace=False,
            )
        if res.file_problems or res.mismatches:
            pytest.xfail("known mismatches (tests/fixtures/oracle/known_mismatches.txt)")

    def design_chat_trouble(rendered: dict) -> str | None:
        """The design profile: a chatPrompt for every case; at most one system message, first, holding the
        guidelines block first; roles kept; turns with no parts dropped (so no empty message)."""
        chat = rendered["chatPrompt"]
        if not isinstance(chat, list):
            return f"chatPrompt is {chat!r}"
        roles = [m["role"] for m in chat]
        if roles.count("system") > 1 or ("system" in roles and roles[0] != "system"):
            return f"system messages not merged into one leading message: roles {roles}"
        if set(roles) - {"system", "user", "assistant", "tool"}:
            return f"unexpected roles {roles}"
        if rendered["guidelines"] and not (chat and chat[0]["content"].startswith("[[ ## Guidelines ## ]]")):
            return "guidelines block is not the start of the leading system message"
        empty = [i for i, m in enumerate(chat) if not m["content"]]
        if empty:
            return f"messages {empty} are empty: {chat}"
        return None

    @pytest.mark.parametrize("fixture", _KEYS)
    def test_design_chatprompt_shape(fixture, export_rows, known, not_comparable, design_runs):
        reason = not_comparable(fixture)
        if reason:
            pytest.skip(reason)
        rows, error = design_export(design_runs, export_rows, fixture)
        troubles, known_hits = [], 0
        for row in rows:
            if "skipped" in row:
                continue
            for mode in MODES:
                trouble = design_chat_trouble(row[mode])
                if trouble and (fixture, str(row["id"]), f"design.{mode}.chatPrompt") in known:
                    known_hits += 1
                elif trouble:
                    troubles.append(f"{fixture} :: {row['id']} :: design.{mode}.chatPrompt\n    {trouble}")
        assert not troubles, "\n".join(troubles[:5])
        if known_hits:
            pytest.xfail(f"{known_hits} known design chatPrompt problems (known_mismatches.txt)")

    TURNLENS = REPO / ".venv" / "bin" / "turnlens"

    def _cli_sample() -> list[str]:
        """Every sample_evals file and all of corpus/big (files over 256 KiB, which the command exports in slices
        on several cores); per other layout, two accepted files and up to 12 refused ones. A process each: the
        in-process test above covers every file."""
        picked, accepted, refused = [], Counter(), Counter()
        for key, entry in _MANIFEST.get("fixtures", {}).items():
            layout = entry.get("layout", "sample_evals")
            counter, limit = (refused, 12) if entry.get("load_error") else (accepted, 2)
            if layout in ("sample_evals", "big") or counter[layout] < limit:
                picked.append(key)
            counter[layout] += 1
        return picked

    @pytest.mark.parametrize("fixture", _cli_sample())
    def test_cli_export_matches_oracle(fixture, export_rows):
        """The command outside checks run: `turnlens export EVAL_FILE --repo-root ROOT` from ROOT."""
        import subprocess

        if not TURNLENS.exists():
            pytest.skip(f"{TURNLENS} not installed")
        entry = _MANIFEST["fixtures"][fixture]
        reason = why_not_comparable(entry)
        if reason:
            pytest.skip(reason)
        root = (REPO / entry["root"]).resolve()
        proc = subprocess.run(
            [str(TURNLENS), "export", entry["eval_arg"], "--repo-root", entry["root_arg"]],
            cwd=REPO / entry["cwd"],
            capture_output=True,
            timeout=60,
        )
        oracle = read_fixture(fixture, root)
        if oracle.load_error is not None:
            assert proc.returncode == 1 and proc.stdout == b"", "a refused file: exit status 1, nothing on stdout"
            assert Path(entry["eval"]).name in proc.stderr.decode("utf-8", "replace"), "the message names the file"
            assert b"Traceback" not in proc.stderr
            at = re.search(r"at line (\d+)", oracle.load_error)
            if at:  # the reference names a line, so must we (not always the same: parsers notice at different points)
                err = proc.stderr.decode("utf-8", "replace")
                assert re.search(r":\d+:|line \d+", err), (
                    f"the oracle says line {at.group(1)}: {oracle.load_error!r}; turnlens names none: {err!r}"
                )
            return
        if proc.returncode != 0 and (fixture, "(cli)", "exit status") in load_known():
            pytest.xfail("known: turnlens export fails on this file (known_mismatches.txt)")
        assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-2000:]
        rows = [json.loads(line) for line in proc.stdout.split(b"\n") if line.strip()]
        res = compare(fixture, oracle, rows, None)
        problems = [m for m in res.file_problems + res.mismatches if m.key(fixture) not in load_known()]
        if problems:
            pytest.fail(
                "turnlens export differs from the oracle:\n\n" + "\n".join(describe(m, fixture) for m in problems[:5]),
                pytrace=False,
            )

    def test_corpus_is_large_and_varied():
        corpus = [e for k, e in _MANIFEST.get("fixtures", {}).items() if k.startswith("corpus/")]
        assert sum(e["cases"] for e in corpus) >= 300
        assert len({e["layout"] for e in corpus}) >= 5
        assert sum(e["skipped"] for e in corpus) > 0 and any(e["load_error"] for e in corpus)

    def test_corpus_is_what_the_generator_writes(tmp_path):
        """The committed corpus is exactly generate.py's output (so the recordings match the generator)."""
        sys.path.insert(0, str(CORPUS))
        try:
            import generate
        finally:
            sys.path.remove(str(CORPUS))
        layouts = json.loads((CORPUS / "layouts.json").read_text(encoding="utf-8"))
        generate.write(tmp_path, abs_root=layouts["abspath_root"])

        def tree(base: Path) -> dict:
            return {
                p.relative_to(base).as_posix(): sha256(p)
                for p in sorted(base.rglob("*"))
                if p.is_file() and "__pycache__" not in p.parts and p.name not in ("generate.py", "README.md")
            }

        assert tree(tmp_path) == tree(CORPUS), "tests/corpus is stale: run tests/corpus/generate.py and re-record"

    def test_fixtures_were_recorded_with_this_oracle():
        oracle = Path(_MANIFEST.get("oracle", "/work/shared/oracle/agentv-0.15.1-oracle.cjs"))
        if not oracle.exists():
            pytest.skip(f"{oracle} not here: nothing to check the recordings against")
        assert sha256(oracle) == _MANIFEST["oracle_sha256"], (
            "the oracle changed since the fixtures were recorded: run tests/fixtures/record_oracle.py"
        )

    def test_every_corpus_eval_file_is_recorded():
        layouts = json.loads((CORPUS / "layouts.json").read_text(encoding="utf-8"))
        wanted = {f"corpus/{name}/{e}" for name, lay in layouts["layouts"].items() for e in lay["evals"]}
        assert wanted <= set(_MANIFEST.get("fixtures", {})), "run tests/fixtures/record_oracle.py --only corpus"


# ------------------------------------------------------------------------------------------------ --summary


def oracle_case_warnings(oracle: OracleOutput) -> Counter:
    """The oracle's warnings about single cases (not skips, not the config), without the "Warning: " prefix."""
    out = Counter()
    for w in oracle.warnings:
        if w.startswith((SKIP_INCOMPLETE, SKIP_NO_EXPECTED, SKIP_INVALID)) or "config.yaml" in w:
            continue
        out[w.removeprefix("Warning: ")] += 1
    return out


def warning_differences(oracle: OracleOutput, rows: list[dict]) -> tuple[Counter, Counter]:
    """(oracle warnings the engine's rows lack, engine row warnings the oracle lacks); "file:line: " dropped."""
    engine = Counter()
    for row in rows:
        for w in row.get("warnings", []):
            engine[re.sub(r"^.*?:\d+: ", "", w, count=1)] += 1
    want = oracle_case_warnings(oracle)
    return want - engine, engine - want


def summary(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="test_golden_agentv015.py", description="How much of the oracle the engine matches."
    )
    ap.add_argument("--summary", action="store_true", help="(default) print N/M cases match and first mismatches")
    ap.add_argument("--only", action="append", default=[], help="fixtures whose name contains this (repeatable)")
    ap.add_argument("--limit", type=int, default=10, help="mismatches to show in full (default 10)")
    ap.add_argument("--per-file", action="store_true", help="print a line for every eval file")
    ap.add_argument(
        "--warnings",
        action="store_true",
        help="also compare the oracle's per-case warnings (file not found, unreadable, expected messages) "
        "with the `warnings` of the engine's rows (informational, not a test)",
    )
    ap.add_argument(
        "--known-lines",
        action="store_true",
        help="print only the current mismatches, in the format of known_mismatches.txt",
    )
    args = ap.parse_args(argv)

    sys.path.insert(0, str(REPO))
    try:
        export_rows = import_engine()
    except ImportError as exc:
        print(f"cannot compare: {exc}")
        return 2
    manifest = load_manifest()
    known = load_known()
    total = matched = files_ok = files = 0
    warn_total = warn_missing = warn_extra = 0
    warn_shown: list[str] = []
    shown: list[str] = []
    skipped_files = []
    by_field: Counter = Counter()
    for key, entry in manifest["fixtures"].items():
        if args.only and not any(o in key for o in args.only):
            continue
        reason = why_not_comparable(entry)
        if reason:
            skipped_files.append(f"{key}: {reason}")
            continue
        files += 1
        root = (REPO / entry["root"]).resolve()
        oracle = read_fixture(key, root)
        try:
            rows, error = run_engine(export_rows, entry)
        except Exception as exc:
            total += len(oracle.cases)
            line = f"{key}: engine raised {type(exc).__name__}: {exc}"
            shown.append(line + "\n")
            by_field["engine raised"] += 1
            if args.per_file:
                print(f"  RAISED {key}")
            continue
        res = compare(key, oracle, rows, error)
        total += res.total
        matched += res.matched
        problems = res.file_problems + res.mismatches
        if args.warnings:
            missing, extra = warning_differences(oracle, rows)
            warn_total += sum(oracle_case_warnings(oracle).values())
            warn_missing += sum(missing.values())
            warn_extra += sum(extra.values())
            for w in list(missing.elements())[:2]:
                if len(warn_shown) < args.limit:
                    warn_shown.append(f"{key}: oracle only: {w!r}")
            for w in list(extra.elements())[:2]:
                if len(warn_shown) < args.limit:
                    warn_shown.append(f"{key}: engine only: {w!r}")
        if args.known_lines:
            for m in problems:
                print(" :: ".join(m.key(key)))
            continue
        files_ok += not res.file_problems
        for m in problems:
            by_field[m.field] += 1
            if len(shown) < args.limit:
                tag = "  (known)" if m.key(key) in known else ""
                shown.append(describe(m, key) + tag)
        if args.per_file:
            flag = "ok " if not problems else "BAD"
            print(
                f"  {flag} {res.matched:4d}/{res.total:<4d} {key}"
                + (f"  [{', '.join(p.field for p in res.file_problems)}]" if res.file_problems else "")
            )
    if args.known_lines:
        return 0
    if shown:
        print("First mismatches:\n")
        print("\n".join(shown))
    if skipped_files:
        print("Not compared:")
        for s in skipped_files:
            print("  " + s)
    if by_field:
        print("Mismatches by field: " + ", ".join(f"{k} {v}" for k, v in by_field.most_common()))
    if args.warnings:
        print("\n".join(warn_shown))
        print(
            f"case warnings: {warn_total - warn_missing}/{warn_total} oracle warnings found in the engine's rows, "
            f"{warn_extra} engine warnings the oracle does not give"
        )
    print(f"{matched}/{total} cases match; {files_ok}/{files} eval files agree on skipped cases and refusal")
    return 0 if matched == total and files_ok == files else 1


if __name__ == "__main__":
    raise SystemExit(summary(sys.argv[1:]))
