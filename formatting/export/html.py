"""`--format html`: one self-contained HTML page to share, for eval files, a run's results, or a `turnlens diff`.

The page loads nothing (a Content-Security-Policy forbids it: no fonts, scripts or images from anywhere), needs no
JavaScript (sections fold with <details>), and follows the reader's light or dark setting. Every text from a file
is escaped and its control characters made visible (sanitize), so nothing in an eval or a result acts as markup.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from turnlens.formatting.records import JsonObject
from turnlens.formatting.sanitize import sanitize, sanitize_line

if TYPE_CHECKING:  # (imported where used: a page of one kind does not load the others' modules)
    from turnlens.formatting.diff.compare import TreeDiff
    from turnlens.formatting.results.drift import DriftReport

# Past these counts a page names how many more there are instead (a page of 100,000 results helps nobody).
MAX_TESTS = 5_000
MAX_RESULTS = 2_000

_CSS = """
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0;
  --panel: #f6f8fa; --accent: #0969da; --add-bg: #dafbe1; --add-fg: #116329; --del-bg: #ffebe9; --del-fg: #a40e26;
  --mark: #8250df; --flat: #1a7f37; --warn: #9a6700; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23; --accent: #4493f8;
    --add-bg: #12261e; --add-fg: #3fb950; --del-bg: #25171c; --del-fg: #f85149; --mark: #ab7df8; --flat: #3fb950;
    --warn: #d29922; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
.sub { color: var(--muted); margin: 0 0 1rem; }
pre, code { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem;
  white-space: pre-wrap; overflow-wrap: anywhere; margin: .25rem 0 .75rem; }
details { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; padding: 0 .8rem; }
details[open] { padding-bottom: .6rem; }
summary { cursor: pointer; padding: .5rem 0; font-weight: 600; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: .25rem .6rem; text-align: left; vertical-align: top; }
th { background: var(--panel); }
.badge { display: inline-block; border-radius: 4px; padding: 0 .4rem; font-size: 12px; font-weight: 700;
  border: 1px solid currentColor; margin-right: .35rem; }
.MARK { color: var(--mark); } .FLAT { color: var(--flat); } .SKIP, .warn { color: var(--warn); }
.pass { color: var(--flat); } .fail { color: var(--del-fg); }
.role { color: var(--accent); font-weight: 700; }
.muted { color: var(--muted); font-weight: 400; }
.add { background: var(--add-bg); color: var(--add-fg); display: block; }
.del { background: var(--del-bg); color: var(--del-fg); display: block; }
.hunk { color: var(--accent); display: block; } .ctx { display: block; }
.modes { display: grid; grid-template-columns: repeat(auto-fit, minmax(28rem, 1fr)); gap: 1rem; }
"""


def _e(text: Any) -> str:
    """Escaped for HTML, control characters made visible."""
    return html.escape(sanitize(str(text)), quote=True)


def _e_line(text: Any) -> str:
    return html.escape(sanitize_line(str(text)), quote=True)


def page(title: str, subtitle: str, body: Iterable[str]) -> str:
    """A whole page: head with the inline style and a policy that forbids loading anything, then `body`."""
    head = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        '<meta name="color-scheme" content="light dark">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e_line(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f'<h1>{_e_line(title)}</h1>\n<p class="sub">{_e_line(subtitle)}</p>\n'
    )
    return head + "".join(body) + "\n</body>\n</html>\n"


def _pre(text: str | None, empty: str = "(empty)") -> str:
    if text is None:
        return f'<pre class="muted">{_e(empty)}</pre>'
    return f"<pre>{_e(text)}</pre>" if text != "" else f'<pre class="muted">{_e(empty)}</pre>'


def _chat(chat: list[JsonObject] | None) -> str:
    if chat is None:
        return '<pre class="muted">(no chatPrompt: the question is sent)</pre>'
    parts = [f'<span class="role">[{_e_line(m.get("role"))}]</span>\n{_e(m.get("content"))}' for m in chat]
    return "<pre>" + "\n".join(parts) + "</pre>"


# ------------------------------------------------------------------------------------------------ eval files


def eval_files_page(files: list[tuple[str, Any]], title: str = "turnlens: eval files") -> str:
    """Every test of the loaded eval files (`(shown path, EvalFile)`): its prompts in lm and agent mode, the
    grader prompt, and the marker rule with the fate of every segment."""
    from turnlens.formatting.evals.interpolate import is_env_note
    from turnlens.formatting.export.evals import iter_rows

    count = sum(len(ev.cases) for _, ev in files)
    subtitle = f"{count} test{'s' if count != 1 else ''} in {len(files)} file{'s' if len(files) != 1 else ''}"

    def body() -> Iterator[str]:
        shown = 0
        yield (
            "<nav><ul>"
            + "".join(
                f'<li><a href="#file-{n}">{_e_line(name)}</a> <span class="muted">({len(ev.cases)})</span></li>'
                for n, (name, ev) in enumerate(files)
            )
            + "</ul></nav>\n"
        )
        for n, (name, ev) in enumerate(files):
            yield f'<h2 id="file-{n}">{_e_line(name)}</h2>\n'
            if ev.error is not None:
                yield f'<p class="warn">Refused: {_e(ev.error)}</p>\n'
                continue
            yield f'<p class="sub">{_e_line(ev.dialect)}: {_e_line(ev.dialect_reason)}</p>\n'
            for diagnostic in ev.diagnostics:
                if diagnostic.severity == "info" and is_env_note(diagnostic.message):
                    continue  # what ${{ VAR }} replaced is said in each test's rule, not as a warning
                yield f'<p class="warn">⚠ {_e_line(diagnostic)}</p>\n'
            for row in iter_rows(ev):
                if shown >= MAX_TESTS:
                    yield f'<p class="warn">… and more tests not shown (this page shows the first {MAX_TESTS}).</p>'
                    return
                shown += 1
                yield _eval_row(row)

    return page(title, subtitle, body())


def _eval_row(row: JsonObject) -> str:
    test_id = row.get("id")
    if "skipped" in row:
        return (
            f'<details><summary><span class="badge SKIP">SKIP</span>{_e_line(test_id)}</summary>'
            f"<p>{_e(row['skipped'])}</p></details>\n"
        )
    markers = row["markers"]
    badge = "MARK" if markers["uses_markers"] else "FLAT"
    out = [
        f'<details id="test-{_e_line(test_id)}"><summary><span class="badge {badge}">{badge}</span>'
        f'{_e_line(test_id)} <span class="muted">— {_e_line(markers["summary"])}</span></summary>\n'
    ]
    if markers["evidence"]:
        out.append("<ul>" + "".join(f"<li>{_e_line(line)}</li>" for line in markers["evidence"]) + "</ul>\n")
    out.append('<div class="modes">')
    for mode in ("lm", "agent"):
        rendered = row[mode]
        out.append(f"<section><h3>{mode} mode</h3>")
        out.append("<h4>question</h4>" + _pre(rendered["question"]))
        if "systemMessage" in rendered:
            out.append("<h4>systemMessage</h4>" + _pre(rendered["systemMessage"], "(none)"))
        else:
            out.append("<h4>guidelines</h4>" + _pre(rendered["guidelines"], "(none)"))
        out.append("<h4>chatPrompt</h4>" + _chat(rendered["chatPrompt"]))
        out.append("</section>")
    out.append("</div>")
    out.append("<h3>grader prompt</h3>" + _pre(row["evaluator_prompt"]))
    for prompt in row.get("evaluator_prompts") or []:
        out.append(f"<h3>evaluator {_e_line(prompt['name'])} ({_e_line(prompt['type'])})</h3>")
        out.append(_pre(prompt["prompt"], "(a code evaluator: no prompt)"))
    if row.get("assertions"):
        out.append("<h3>graders</h3><table><tr><th>name</th><th>type</th><th>weight</th></tr>")
        for grader in row["assertions"]:
            weight = "" if grader["weight"] is None else f"{grader['weight']:g}"
            out.append(
                f"<tr><td>{_e_line(grader['name'])}</td><td>{_e_line(grader['type'])}</td><td>{weight}</td></tr>"
            )
        out.append("</table>")
    if markers["segments"]:
        out.append("<h3>segments</h3><table><tr><th>message</th><th>segment</th><th>fate</th><th>detail</th></tr>")
        for seg in markers["segments"]:
            out.append(
                f"<tr><td>{seg['message_index'] + 1}</td><td>{seg['segment_index'] + 1}</td>"
                f"<td>{_e_line(seg['fate'])}</td><td>{_e(seg['detail'])}</td></tr>"
            )
        out.append("</table>")
    for warning in row.get("warnings") or []:
        out.append(f'<p class="warn">⚠ {_e_line(warning)}</p>')
    out.append("</details>\n")
    return "".join(out)


def eval_files_page_for(paths: list[str], repo_root: str | None = None, dialect: str = "auto") -> str:
    """The page for eval files and folders as `turnlens export` names them (a folder: its eval files)."""
    from turnlens.formatting.dialects.discover import discover_eval_files
    from turnlens.formatting.dialects.load import load_eval_file

    files = []
    for path in paths:
        found = discover_eval_files(path, repo_root) if os.path.isdir(path) else [path]
        for one in found:
            shown = os.path.relpath(one) if os.path.isabs(one) else one  # as `turnlens export` names it
            files.append((shown, load_eval_file(shown, repo_root=repo_root, dialect=dialect)))
    return eval_files_page(files, "turnlens: " + ", ".join(paths))


# ------------------------------------------------------------------------------------------------ a run


def run_page(paths: list[str], threshold: float | None = None) -> tuple[str, list[str]]:
    """The results of the runs or results files at `paths`: verdict, graders with their assertions, drift
    against the eval files (when found), and the conversation. Also the problems met, one line each."""
    from turnlens.formatting.export.results import export_row
    from turnlens.formatting.results.discover import expand_results_paths
    from turnlens.formatting.results.drift import DriftChecker
    from turnlens.formatting.results.index import ResultsFile
    from turnlens.formatting.results.queries import DEFAULT_THRESHOLD

    threshold = DEFAULT_THRESHOLD if threshold is None else threshold
    sources, diagnostics = expand_results_paths(paths)
    problems = [str(d) for d in diagnostics]
    sections: list[str] = []
    total = passed = shown = 0
    for source in sources:
        results = ResultsFile(source.path)
        try:
            for _ in results.scan():
                pass
            if results.error is not None:
                problems.append(str(results.error))
                continue
            checker = DriftChecker(source.path)
            sections.append(f"<h2>{_e_line(source.name)}</h2>\n")
            rows = []
            for index in range(results.count):
                record = results.record(index)
                row = export_row(record, threshold, source.folder)
                total += 1
                ok = row["verdict"].get("pass")
                passed += 1 if ok else 0
                if shown >= MAX_RESULTS:
                    continue
                shown += 1
                try:
                    drift = checker.check(record)
                except Exception as exc:  # drift is a convenience: a page is still made without it
                    drift = None
                    problems.append(f"{source.path}: drift not computed: {exc}")
                rows.append(_result_row(row, drift))
            sections.extend(rows)
        finally:
            results.close()
    if shown < total:
        sections.append(f'<p class="warn">… and {total - shown} more results not shown (the first {MAX_RESULTS}).</p>')
    subtitle = f"{total} result{'s' if total != 1 else ''}, {passed} passed at threshold {threshold:g}"
    return page("turnlens: " + ", ".join(paths), subtitle, sections), problems


def _result_row(row: JsonObject, drift: DriftReport | None) -> str:
    verdict = row["verdict"]
    ok = verdict.get("pass")
    mark = '<span class="badge pass">PASS</span>' if ok else '<span class="badge fail">FAIL</span>'
    test_id = row.get("test_id", row.get("eval_id"))
    score = verdict.get("score")
    score_text = "" if score is None else f" score {score:g}" if isinstance(score, (int, float)) else ""
    target = row.get("target")
    drift_text = ""
    if drift is not None:
        drifted = drift.drifted_fields
        drift_text = f" · drift: {len(drifted)} field{'s' if len(drifted) != 1 else ''}" if drifted else ""
        if drift.status != "drifted" and not drifted:
            drift_text = f" · {drift.status}"
    out = [
        f'<details><summary>{mark}{_e_line(test_id)} <span class="muted">{_e_line(target or "")}{score_text}'
        f"{_e_line(drift_text)}</span></summary>\n"
    ]
    if verdict.get("error"):
        out.append(f'<p class="fail">Error: {_e(verdict["error"])}</p>')
    for key in ("hits", "misses"):
        if verdict.get(key):
            out.append(f"<h3>{key}</h3><ul>" + "".join(f"<li>{_e_line(h)}</li>" for h in verdict[key]) + "</ul>")
    if verdict.get("reasoning"):
        out.append("<h3>reasoning</h3>" + _pre(verdict["reasoning"]))
    graders = verdict.get("graders") or verdict.get("evaluators") or []
    if graders:
        out.append("<h3>graders</h3>" + _graders_table(graders))
    if verdict.get("assertions"):
        out.append("<h3>assertions</h3>" + _assertions(verdict["assertions"]))
    if drift is not None:
        out.append(f"<h3>drift</h3><p>{_e_line(drift.status)}: {_e_line(drift.message)}</p>")
        for field in drift.drifted_fields:
            out.append(f"<h4>{_e_line(field.field)}</h4>" + unified_diff_html(field.diff))
    out.append("<h3>conversation</h3>" + _chat(row.get("conversation") or []))
    out.append("</details>\n")
    return "".join(out)


def _graders_table(graders: list[JsonObject], depth: int = 0) -> str:
    rows = ["<table><tr><th>grader</th><th>type</th><th>score</th><th>verdict</th><th>assertions</th></tr>"]
    for grader in graders:
        score = grader.get("score")
        assertions = grader.get("assertions") or []
        rows.append(
            f"<tr><td>{'&nbsp;' * 4 * depth}{_e_line(grader.get('name'))}</td><td>{_e_line(grader.get('type'))}</td>"
            f"<td>{'' if not isinstance(score, (int, float)) else f'{score:g}'}</td>"
            f"<td>{_e_line(grader.get('verdict') or grader.get('reasoning') or '')}</td>"
            f"<td>{_assertions(assertions) if assertions else ''}</td></tr>"
        )
        for child in grader.get("graders") or []:
            rows.append(f"<tr><td colspan=5>{_graders_table([child], depth + 1)}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _assertions(assertions: list[JsonObject]) -> str:
    items = []
    for a in assertions:
        mark = '<span class="pass">✓</span>' if a.get("passed") else '<span class="fail">✗</span>'
        evidence = f' <span class="muted">— {_e_line(a["evidence"])}</span>' if a.get("evidence") else ""
        items.append(f"<li>{mark} {_e_line(a.get('text'))}{evidence}</li>")
    return "<ul>" + "".join(items) + "</ul>"


def unified_diff_html(diff: str) -> str:
    """A unified diff with its added and removed lines marked, each line a block of its own (so a marked line's
    background spans the width)."""
    lines = diff.splitlines()
    out = []
    for n, line in enumerate(lines):
        header = (line.startswith("--- ") and n + 1 < len(lines) and lines[n + 1].startswith("+++ ")) or (
            line.startswith("+++ ") and n > 0 and lines[n - 1].startswith("--- ")
        )
        if header or line.startswith("@@"):
            css = "hunk"
        else:
            css = "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx"
        out.append(f'<span class="{css}">{_e(line) or "&nbsp;"}</span>')
    return '<pre class="diff">' + "".join(out) + "</pre>"


# ------------------------------------------------------------------------------------------------ a diff


def diff_page(diff: TreeDiff) -> str:
    """A `turnlens diff` (a TreeDiff): the summary, the changed files with the tests each changes, then every
    changed test with its causes, rule flip, segment fates and field diffs; the added and removed tests."""
    from turnlens.formatting.diff.report import field_diff, summary_line

    def body() -> Iterator[str]:
        for problem in diff.problems:
            yield f'<p class="warn">⚠ {_e_line(problem)}</p>\n'
        yield (
            "<table><tr><th></th><th>tests</th></tr>"
            f"<tr><td>changed</td><td>{len(diff.changed)}</td></tr>"
            f"<tr><td>added</td><td>{len(diff.added)}</td></tr>"
            f"<tr><td>removed</td><td>{len(diff.removed)}</td></tr></table>\n"
        )
        causes = diff.causes()
        if causes:
            yield "<h2>Changed files</h2><table><tr><th>file</th><th>change</th><th>tests it changes</th></tr>"
            for cause, tests in causes:
                names = ", ".join(f"{t.file} › {t.id}" for t in tests[:10])
                more = f" and {len(tests) - 10} more" if len(tests) > 10 else ""
                yield (
                    f"<tr><td><code>{_e_line(cause.file)}</code></td><td>{_e_line(cause.change)}</td>"
                    f"<td>{len(tests)}: {_e_line(names)}{more}</td></tr>"
                )
            yield "</table>\n"
        if diff.changed:
            yield f"<h2>Changed tests ({len(diff.changed)})</h2>\n"
        for n, change in enumerate(diff.changed):
            if n >= MAX_TESTS:
                yield f'<p class="warn">… and {len(diff.changed) - n} more changed tests not shown.</p>'
                break
            rule = f" · rule {change.rule[0]} → {change.rule[1]}" if change.rule else ""
            yield (
                f"<details><summary><code>{_e_line(change.file)}</code> › {_e_line(change.id)} "
                f'<span class="muted">— {_e_line(", ".join(change.field_names))}{_e_line(rule)}</span></summary>\n'
            )
            if change.causes:
                yield (
                    "<p>Because: "
                    + ", ".join(
                        f"<code>{_e_line(c.file)}</code> ({_e_line(c.kind)}, {_e_line(c.change)})"
                        for c in change.causes
                    )
                    + "</p>\n"
                )
            else:
                yield "<p>Because: no file it uses changed (the environment or the engine).</p>\n"
            if change.rule:
                yield (
                    f"<p>Marker rule: <b>{change.rule[0]} → {change.rule[1]}</b>. Before: "
                    f"{_e_line(change.rule_before)}; after: {_e_line(change.rule_after)}</p>\n"
                )
            if change.fates:
                yield (
                    "<h3>segment fates</h3><ul>"
                    + "".join(f"<li>{_e_line(a or '(none)')} → {_e_line(b or '(none)')}</li>" for a, b in change.fates)
                    + "</ul>\n"
                )
            for f in change.fields:
                yield f"<h3>{_e_line(f.name)}</h3>" + unified_diff_html(field_diff(f, diff.before, diff.after))
            yield "</details>\n"
        for title, refs in (("Added", diff.added), ("Removed", diff.removed)):
            if refs:
                yield (
                    f"<h2>{title} tests ({len(refs)})</h2><ul>"
                    + "".join(f"<li><code>{_e_line(r.file)}</code> › {_e_line(r.id)}</li>" for r in refs)
                    + "</ul>\n"
                )

    return page(f"turnlens diff: {diff.before} → {diff.after}", summary_line(diff), body())


def write_page(paths: list[str], results: bool, repo_root: str | None = None, dialect: str = "auto") -> int:
    """`turnlens export PATH… --format html`: the page on stdout; problems on stderr. Exit status."""
    from turnlens.formatting.export import output

    if results:
        text, problems = run_page(paths)
    else:
        text, problems = eval_files_page_for(paths, repo_root, dialect), []
    for problem in problems:
        output.warn(f"turnlens export: warning: {problem}")
    output.write_all(output.binary_stdout(), text.encode("utf-8", "backslashreplace"))
    return 0
