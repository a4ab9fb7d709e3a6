"""Generate the byte-exactness corpus: eval files, configs and referenced files, in several layouts.

Each layout is a folder of its own under tests/corpus/ and is meant to be run with THAT folder as the working
directory and the repo root (the oracle is called as `cd LAYOUT && node oracle.cjs EVAL_FILE .`), so a layout can
place its eval files below the root, its config above them, and so on.

Deterministic: same output bytes every run (no dates, no randomness, sorted writes). Run:

    .venv/bin/python tests/corpus/generate.py            # rewrites tests/corpus/<layouts>
    .venv/bin/python tests/corpus/generate.py --out DIR  # writes elsewhere (for the up-to-date check)

The `abspath` layout writes absolute paths into its eval file; they are made from --abs-root (default: the real
location of tests/corpus/abspath), so the committed corpus is tied to the checkout location for that one layout.
layouts.json lists every layout, its eval files, and the absolute root the abspath layout was made for.
"""

from __future__ import annotations

import argparse
import json
import re
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

EVAL_SCHEMA = "agentv-eval-v2"
CONFIG_SCHEMA = "agentv-config-v2"


# --------------------------------------------------------------------------------------------------------------
# A tiny YAML emitter: block style, strings double-quoted (JSON escapes are valid YAML) unless wrapped in Raw
# (emitted verbatim: `yes`, `2024-01-01`, `0755`...) or Lit (block literal scalar).


class Raw(str):
    """Emitted verbatim, unquoted."""


class Lit:
    """A block scalar: `|`, `|-`, `|+`, `>` ..."""

    def __init__(self, text: str, style: str = "|-"):
        self.text = text
        self.style = style


def _scalar(v) -> str:
    if isinstance(v, Raw):
        return str(v)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    if isinstance(v, str):
        if _PLAIN_OK.match(v) and v.lower() not in _YAML_WORDS and ": " not in v and " #" not in v:
            return v  # what people write: plain scalars where they are unambiguous strings
        # JSON escapes are YAML escapes too; DEL and C1 controls are not printable in YAML, so escape them
        return re.sub(r"[\x7f-\x9f]", lambda m: f"\\u{ord(m.group()):04x}", json.dumps(v, ensure_ascii=False))
    raise TypeError(type(v))


_PLAIN_OK = re.compile(r"[A-Za-z][A-Za-z0-9 _./,?!()+-]*[A-Za-z0-9_./?!)]\Z")
_YAML_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf"}


def _key(k) -> str:
    if isinstance(k, Raw):
        return str(k)
    if isinstance(k, str) and k and all(c.isalnum() or c in "_-$" for c in k):
        return k
    return _scalar(k)


def _block(v, ind: int) -> str:
    """Text placed after `key:` or `-`: either ` scalar` or a newline-started indented block."""
    pad = "  " * ind
    if isinstance(v, Lit):
        lines = v.text.split("\n")
        if v.text.endswith("\n"):
            lines = lines[:-1]  # the last line break ends the last line; it is not an empty line
        body = "".join((pad + line if line else "") + "\n" for line in lines)
        return " " + v.style + "\n" + body[:-1]
    if isinstance(v, dict):
        if not v:
            return " {}"
        return "".join("\n" + pad + _key(k) + ":" + _block(x, ind + 1) for k, x in v.items())
    if isinstance(v, list):
        if not v:
            return " []"
        out = []
        for x in v:
            item = _block(x, ind + 1)
            if isinstance(x, (dict, list)) and x:
                item = " " + item[len("\n" + "  " * (ind + 1)):]
            out.append("\n" + pad + "-" + item)
        return "".join(out)
    return " " + _scalar(v)


def dump_yaml(doc: dict) -> str:
    return _block(doc, 0).lstrip("\n") + "\n"


def eval_doc(cases: list, extra: dict | None = None) -> str:
    doc = {"$schema": EVAL_SCHEMA}
    if extra:
        doc.update(extra)
    doc["evalcases"] = cases
    return dump_yaml(doc)


def config_doc(patterns) -> str:
    return dump_yaml({"$schema": CONFIG_SCHEMA, "guideline_patterns": patterns})


# --------------------------------------------------------------------------------------------------------------
# Case builders


def T(value):
    return {"type": "text", "value": value}


def F(path):
    return {"type": "file", "value": path}


def M(role, content):
    return {"role": role, "content": content}


def C(id, messages, outcome="The answer is correct and complete.", expected=None, **extra):
    case = {}
    if id is not None:
        case["id"] = id
    if outcome is not None:
        case["outcome"] = outcome
    if messages is not None:
        case["input_messages"] = messages
    if expected is not None:
        case["expected_messages"] = expected
    case.update(extra)
    return case


class Layout:
    def __init__(self, name: str):
        self.name = name
        self.files: dict[str, bytes] = {}
        self.links: dict[str, str] = {}
        self.runs: list[dict] = []  # extra recordings: {"eval", "cwd", "root"}, relative to the layout folder
        self.evals: list[str] = []

    def file(self, rel: str, content: str | bytes):
        self.files[rel] = content.encode("utf-8") if isinstance(content, str) else content

    def dir(self, rel: str):
        # git keeps no empty folders: a folder used as a "file" reference holds a keep file
        self.file(rel + "/keep.txt", "kept so git stores the folder\n")

    def symlink(self, rel: str, target: str):
        self.links[rel] = target

    def eval(self, rel: str, text: str | bytes, crlf: bool = False):
        if isinstance(text, str) and crlf:
            text = text.replace("\n", "\r\n")
        self.file(rel, text)
        self.evals.append(rel)


# --------------------------------------------------------------------------------------------------------------
# Shared referenced files

GUIDE_STYLE = "# Style\n\nAnswer briefly.\nUse British spelling.\n"
GUIDE_RULES = "Rule 1: cite sources.\nRule 2: never guess.\n\n"
PLAIN_MD = "# Plain notes\n\nNot a guideline.\n"
SNIPPET_PY = "def add(a, b):\n    return a + b\n"
FENCED_MD = "Intro\n\n```python\nprint('inside a file')\n```\n\nOutro\n"


def common_files(lay: Layout, base: str = ""):
    p = base
    lay.file(p + "prompts/style.instructions.md", GUIDE_STYLE)
    lay.file(p + "prompts/rules.instructions.md", GUIDE_RULES)
    lay.file(p + "prompts/plain.md", PLAIN_MD)
    lay.file(p + "prompts/nested/deep.instructions.md", "Deep guideline.\n")
    lay.file(p + "prompts/nested/notes.md", "Nested notes.\n")
    lay.file(p + "docs/guide.md", "# Guide\n\nStep one.\nStep two.\n")
    lay.file(p + "docs/snippet.py", SNIPPET_PY)
    lay.file(p + "docs/fenced.md", FENCED_MD)
    lay.file(p + "docs/prompts/inner.md", "Inner prompt in docs/prompts.\n")
    lay.file(p + ".hidden/secret.instructions.md", "Hidden-folder guideline.\n")
    lay.file(p + "docs/.dotfile.md", "Dotfile content.\n")


# --------------------------------------------------------------------------------------------------------------
# Layout: basic — config at the root, eval files in evals/ (and deeper), files everywhere.


def layout_basic() -> Layout:
    lay = Layout("basic")
    lay.file(".agentv/config.yaml", config_doc(["**/*.instructions.md"]))
    common_files(lay)
    f = "evals/files/"
    lay.file(f + "data.json", '{"a": 1, "b": [1, 2]}\n')
    lay.file(f + "crlf.txt", b"line one\r\nline two\r\n\r\nline four\r\n")
    lay.file(f + "mixed_eol.txt", b"unix\nwindows\r\nold-mac\rend\n")
    lay.file(f + "empty.txt", b"")
    lay.file(f + "whitespace.txt", "   \n\t\n\n")
    lay.file(f + "binary.bin", bytes(range(0, 256)))
    lay.file(f + "latin1.txt", "caf\u00e9 na\u00efve\n".encode("latin-1"))
    lay.file(f + "utf16.txt", "hello utf16\n".encode("utf-16"))
    lay.file(f + "bom.txt", b"\xef\xbb\xbfwith bom\n")
    lay.file(f + "unicode.md", "Emoji 😀🚀, accents éàü, CJK 漢字, RTL עברית, zero-width\u200bjoin.\n")
    lay.file(f + "no_newline.txt", "no trailing newline")
    lay.file(f + "trailing.txt", "trailing newlines\n\n\n\n")
    lay.file(f + "leading.txt", "\n\n  leading blank lines\n")
    lay.file(f + "local.instructions.md", "Local guideline next to the eval.\n")
    lay.file(f + "with space.md", "File name with a space.\n")
    lay.file(f + "fence_unterminated.md", "```js\nconsole.log(1)\n")
    lay.file(f + "markup.txt", "[bold]not markup[/bold] @[User]: [[ ## question ## ]] <file path=\"x\">\n")
    lay.file(f + "ctrl.txt", "bell\x07 esc\x1b[31mred\x1b[0m tab\tend\n")
    lay.file(f + "tabs.py", "def f():\n\treturn 1\n")
    lay.dir(f + "folder.md")
    lay.dir(f + "folder.instructions.md")
    lay.file("evals/sibling.md", "Sibling of the eval files.\n")
    lay.file("evals/nested/deeper/near.md", "Near the nested eval.\n")
    lay.file("evals/nested/deeper/near.instructions.md", "Nested guideline.\n")
    lay.file("evals/nested/mid.md", "Middle folder file.\n")
    lay.file("rootfile.md", "At the repo root.\n")

    lay.eval("evals/content.yaml", eval_doc(content_cases()))
    lay.eval("evals/roles.yaml", eval_doc(role_cases()))
    lay.eval("evals/files.yaml", eval_doc(file_cases()))
    lay.eval("evals/fences.yaml", eval_doc(fence_cases()))
    lay.eval("evals/expected.yaml", eval_doc(expected_cases()))
    lay.eval("evals/skips.yaml", eval_doc(skip_cases()))
    lay.eval("evals/scalars.yaml", scalar_eval_text())
    lay.eval("evals/crlf.yaml", eval_doc(crlf_cases()), crlf=True)
    lay.eval("evals/nested/deeper/paths.yaml", eval_doc(nested_path_cases()))
    lay.eval("evals/alt-extension.yml", eval_doc(alt_ext_cases()))
    lay.eval("evals/more.yaml", eval_doc(more_cases()))
    lay.eval("evals/templates.yaml", eval_doc(template_cases()))
    g = "evals/guides/"
    lay.file(g + "crlf.instructions.md", b"CRLF guideline\r\nsecond line\r\n")
    lay.file(g + "empty.instructions.md", b"")
    lay.file(g + "blank.instructions.md", "  \n\n")
    lay.file(g + "no-newline.instructions.md", "no trailing newline")
    lay.file(g + "trailing.instructions.md", "trailing blank lines\n\n\n")
    lay.file(g + "binary.instructions.md", b"\x00\x01\xff\xfe")
    lay.file(g + "fence.instructions.md", "```md\nfenced guideline\n```\n")
    lay.file(g + "sub/style.instructions.md", "Same basename as prompts/style.instructions.md.\n")
    lay.dir(g + "folder.instructions.md")
    names = ["crlf", "empty", "blank", "no-newline", "trailing", "binary", "fence", "folder", "missing"]
    lay.eval("evals/guidelines.yaml", eval_doc(
        [C(f"guide-{n}", [M("system", [F(f"guides/{n}.instructions.md")]), M("user", "Q")]) for n in names]
        + [C(f"guide-{n}-turns", [M("user", "U"), M("assistant", "A"),
                                  M("user", [F(f"guides/{n}.instructions.md"), T("Q")])]) for n in names]
        + [C("guide-same-basename", [M("system", [F("guides/sub/style.instructions.md"),
                                                  F("/prompts/style.instructions.md")]), M("user", "Q")]),
           C("guide-all", [M("system", [F(f"guides/{n}.instructions.md") for n in names]), M("user", "Q")]),
           C("guide-order", [M("user", [F("/prompts/rules.instructions.md"), T("first")]), M("assistant", "A"),
                             M("system", [F("/prompts/style.instructions.md"), T("late")]),
                             M("user", [F("guides/crlf.instructions.md"), T("last")])])]))
    lay.eval("evals/odd-keys.yaml", eval_doc([
        C("evaluator-key", [M("user", "Q")], evaluator="llm_judge"),
        C("custom-evaluator-prompt", [M("user", "Q")],
          execution={"evaluators": [{"name": "custom", "type": "llm_judge", "prompt": "./files/markup.txt"}]}),
        C("evaluators-list", [M("user", "Q")], evaluators=[{"name": "c", "type": "code", "script": "x.py"}]),
        C("file-path-key", [M("user", [{"type": "file", "path": "files/data.json"}, T("Q")])]),
        C("file-extra-keys", [M("user", [{"type": "file", "value": "files/data.json", "text": "ignored"}, T("Q")])]),
        C("text-value-list", [M("user", [{"type": "text", "value": ["a", "b"]}, T("Q")])]),
        C("text-value-mapping", [M("user", [{"type": "text", "value": {"k": "v"}}, T("Q")])]),
        C("text-value-bool", [M("user", [{"type": "text", "value": True}, T("Q")])]),
        C("message-extra-keys", [{"role": "user", "content": "Q", "name": "alice", "tool_call_id": "t1"}]),
        C("role-number", [{"role": 1, "content": "numeric role"}, M("user", "Q")]),
        C("role-empty", [{"role": "", "content": "empty role"}, M("user", "Q")]),
        C("role-padded", [{"role": " user ", "content": "padded role"}, M("user", "Q")]),
        C("type-padded", [M("user", [{"type": " text", "value": "padded type"}, T("Q")])]),
        C("input-messages-nested-list", [[M("user", "nested")], M("user", "Q")]),
    ]))
    lay.symlink("evals/links/to-file.json", "../files/data.json")
    lay.symlink("evals/links/to-folder.md", "../files/folder.md")
    lay.symlink("evals/links/broken.md", "../files/nowhere.md")
    lay.symlink("evals/links/loop-a.md", "loop-b.md")
    lay.symlink("evals/links/loop-b.md", "loop-a.md")
    lay.symlink("evals/links/style.instructions.md", "../../prompts/plain.md")
    lay.symlink("evals/links/plain-named.md", "../../prompts/style.instructions.md")
    lay.symlink("evals/links/dir-link", "../../prompts")
    links = ["links/to-file.json", "links/to-folder.md", "links/broken.md", "links/loop-a.md",
             "links/style.instructions.md", "links/plain-named.md", "links/dir-link/style.instructions.md",
             "links/dir-link/plain.md", "./links/dir-link/../dir-link/plain.md"]
    lay.eval("evals/links.yaml", eval_doc(
        [C(f"link-{i}-flat", [M("user", [F(ref), T("q")])]) for i, ref in enumerate(links)]
        + [C(f"link-{i}-turns", [M("user", "U"), M("assistant", "A"), M("user", [F(ref), T("q")])])
           for i, ref in enumerate(links)]))
    for name, text in yaml_syntax_files():
        lay.eval(f"evals/yaml/{name}.yaml", text)
    # a %YAML 1.1 directive switches the reference's parser to the 1.1 schema (yes/on booleans, octals, merge keys)
    lay.eval("evals/yaml/directive-1.1-scalars.yaml", "%YAML 1.1\n---\n" + scalar_eval_text())
    lay.eval("evals/yaml/directive-1.2-scalars.yaml", "%YAML 1.2\n---\n" + scalar_eval_text())
    merge = dict(yaml_syntax_files())["merge-key"]
    lay.eval("evals/yaml/directive-1.1-merge-key.yaml", "%YAML 1.1\n---\n" + merge)
    lay.eval("evals/yaml/directive-1.1-sexagesimal.yaml", "%YAML 1.1\n---\n" + eval_doc([
        C("sexagesimal", [M("user", Raw("1:30"))], outcome=Raw("190:20:30")),
        C("binary-int", [M("user", Raw("0b1010"))]),
        C("octal-int", [M("user", Raw("0755"))]),
        C("float-dot", [M("user", Raw("1."))]),
        C("bool-y", [M("user", Raw("y"))]),
        C("bool-On", [M("user", Raw("On"))]),
        C("timestamp", [M("user", Raw("2001-12-14 21:59:43.10 -5"))]),
        C("ok-last", [M("user", "last")]),
    ]))
    lay.eval("evals/cr-only.yaml", eval_doc(crlf_cases()[:5]).replace("\n", "\r"))
    lay.eval("evals/mixed-eol.yaml", "".join(
        line + ("\r\n" if i % 2 else "\n") for i, line in enumerate(eval_doc(crlf_cases()[:6]).split("\n")[:-1])))
    lay.eval("evals/bom-crlf.yaml", "\ufeff" + eval_doc(crlf_cases()[:4]).replace("\n", "\r\n"))
    lay.file("evals/files/cr-only.txt", b"old\rmac\rfile\r")
    lay.file("evals/files/crlf-only.txt", b"\r\n")
    lay.file("evals/files/nul.txt", b"before\x00after\n")
    lay.file("evals/files/lone-surrogate.txt", b"bad \xed\xa0\x80 utf8\n")
    lay.file("evals/files/truncated-utf8.txt", b"cut \xe2\x82")
    lay.eval("evals/file-bytes.yaml", eval_doc([
        C(f"bytes-{name}", [M("system", "S"), M("user", [F(f"files/{name}"), T("q")])])
        for name in ["cr-only.txt", "crlf-only.txt", "nul.txt", "lone-surrogate.txt", "truncated-utf8.txt",
                     "bom.txt", "utf16.txt", "latin1.txt", "empty.txt", "whitespace.txt"]
    ] + [C(f"bytes-flat-{name}", [M("user", [F(f"files/{name}")])])
         for name in ["cr-only.txt", "crlf-only.txt", "nul.txt", "truncated-utf8.txt", "empty.txt"]]))
    lay.file("evals/files/caf\u00e9 \U0001F600.md", "Unicode file name.\n")
    lay.file("evals/files/hash#name.md", "Hash in the name.\n")
    lay.file("evals/files/percent%20name.md", "Percent in the name.\n")
    lay.file("evals/files/Case.md", "Capitalised name.\n")
    lay.file("evals/files/only-fence.md", "```sh\necho from a file\n```\n")
    return lay


def more_cases() -> list:
    g = "/prompts/style.instructions.md"
    return [
        C("outcome-padded", [M("user", "q")], outcome="  padded outcome  "),
        C("outcome-trailing-newlines", [M("user", "q")], outcome="outcome\n\n"),
        C("outcome-inner-blank-lines", [M("user", "q")], outcome="a\n\n\nb"),
        C("expected-padded", [M("user", "q")], expected=[M("assistant", "\n\n  padded reference  \n")]),
        C("expected-list-blank-and-text", [M("user", "q")], expected=[M("assistant", [T(" "), T("x"), T("y")])]),
        C("expected-file-only", [M("user", "q")], expected=[M("assistant", [F("files/data.json")])]),
        C("id-unicode-😀", [M("user", "unicode id")]),
        C("id with\nnewline", [M("user", "newline id")]),
        C("x" * 300, [M("user", "long id")]),
        C("mid-system-guideline-matched", [M("user", "U1"), M("assistant", "A"),
                                            M("system", [F(g), T("later rules")]), M("user", "U2")]),
        C("mid-system-guideline-only-matched", [M("user", "U1"), M("system", [F(g)]), M("user", "U2")]),
        C("leading-blank-then-system", [M("system", ""), M("system", "S2"), M("user", "U")]),
        C("leading-system-guideline-then-system", [M("system", [F(g)]), M("system", "S2"), M("user", "U")]),
        C("guideline-in-two-turns", [M("system", [F(g), T("S")]), M("user", [F(g), T("U")])]),
        C("guideline-in-assistant-turn", [M("user", "U"), M("assistant", [F(g), T("A")]), M("user", "U2")]),
        C("guideline-in-tool-turn-only", [M("user", "U"), M("tool", [F(g)])]),
        C("system-fence-in-chat", [M("system", "```r\nrule\n```"), M("user", "U"), M("assistant", "A")]),
        C("user-fence-marked", [M("system", "S"), M("user", "```py\nx\n```\nand\n```py\ny\n```")]),
        C("fence-file-flat", [M("user", [F("files/only-fence.md"), T("run it")])]),
        C("fence-file-and-text-fence", [M("user", [F("files/only-fence.md"), T("```py\nz\n```")])]),
        C("unicode-file-name", [M("user", [F("files/caf\u00e9 \U0001F600.md"), T("q")])]),
        C("hash-file-name", [M("user", [F("files/hash#name.md"), T("q")])]),
        C("percent-file-name", [M("user", [F("files/percent%20name.md"), T("q")])]),
        C("percent-decoded-missing", [M("user", [F("files/percent name.md"), T("q")])]),
        C("case-mismatch-missing", [M("user", [F("files/case.md"), T("q")])]),
        C("case-exact", [M("user", [F("files/Case.md"), T("q")])]),
        C("url-value", [M("user", [F("https://example.com/x.md"), T("q")])]),
        C("tilde-value", [M("user", [F("~/x.md"), T("q")])]),
        C("file-uri-value", [M("user", [F("file:///etc/hostname"), T("q")])]),
        C("windows-separators-guideline", [M("system", [F("..\\prompts\\style.instructions.md")]), M("user", "q")]),
        C("many-files-one-turn", [M("user", [F("files/data.json"), F("/docs/guide.md"), F("/docs/snippet.py"),
                                             F(g), F("files/nope.txt"), T("q")])]),
        C("many-turns-files", [M("system", [F("/docs/guide.md"), T("S")]), M("user", [F("files/data.json")]),
                               M("assistant", [F("/docs/snippet.py")]), M("tool", [F("files/crlf.txt")]),
                               M("user", "last")]),
        C("text-only-whitespace-lines", [M("user", [T("a"), T("\n\n"), T("b")])]),
        C("text-inner-blank-lines", [M("user", "a\n\n\n\nb")]),
        C("text-trailing-spaces-lines", [M("user", "a  \nb\t\n")]),
        C("marked-text-padding", [M("system", "  S  "), M("user", "\n U \n")]),
        C("chat-user-guideline-only-dropped", [M("system", "S"), M("user", [F(g)]), M("user", "U")]),
        C("chat-assistant-blank-kept?", [M("system", "S"), M("assistant", " "), M("user", "U")]),
        C("alias-role-ai", [M("ai", "A"), M("user", "U")]),
        C("alias-role-human", [M("human", "H"), M("user", "U")]),
        C("role-function", [M("user", "U"), M("function", "F")]),
    ]


def content_cases() -> list:
    q = "What is 2 + 2?"
    cases = [
        C("string-content", [M("user", q)]),
        C("list-one-text", [M("user", [T(q)])]),
        C("list-two-texts", [M("user", [T("First part."), T("Second part.")])]),
        C("empty-string-content", [M("user", "")]),
        C("whitespace-string-content", [M("user", "   \n\t  ")]),
        C("empty-text-segment", [M("user", [T(""), T(q)])]),
        C("whitespace-text-segment", [M("user", [T("  \n "), T(q)])]),
        C("only-blank-segments", [M("user", [T(""), T("   ")])]),
        C("empty-list-content", [M("user", [])]),
        C("text-leading-trailing-space", [M("user", "  padded question  ")]),
        C("text-trailing-newlines", [M("user", Lit("Line one\nLine two\n\n", "|+"))]),
        C("literal-block", [M("user", Lit("Line one\n  indented\nLine three", "|-"))]),
        C("folded-block", [M("user", Lit("Folded line one\nfolded line two\n\nnew paragraph", ">-"))]),
        C("unknown-segment-type", [M("user", [{"type": "image", "value": "cat.png"}, T(q)])]),
        C("unknown-type-only", [M("user", [{"type": "image_url", "value": "http://x/y.png"}])]),
        C("segment-missing-type", [M("user", [{"value": "no type here"}, T(q)])]),
        C("segment-missing-value", [M("user", [{"type": "text"}, T(q)])]),
        C("segment-value-number", [M("user", [{"type": "text", "value": 42}, T(q)])]),
        C("segment-text-key", [M("user", [{"type": "text", "text": "uses text key"}, T(q)])]),
        C("segment-type-uppercase", [M("user", [{"type": "Text", "value": "capital T"}, T(q)])]),
        C("non-mapping-string-entry", [M("user", ["bare string entry", T(q)])]),
        C("non-mapping-number-entry", [M("system", "sys"), M("user", [T(q), 7])]),
        C("non-mapping-null-entry", [M("user", [None, T(q)])]),
        C("non-mapping-list-entry", [M("user", [[T("nested")], T(q)])]),
        C("non-mapping-in-second-message", [M("user", "kept"), M("user", [T("dropped?"), "x"])]),
        C("content-mapping-not-list", [M("user", {"type": "text", "value": "mapping content"})]),
        C("content-number", [M("user", 12345)]),
        C("content-null", [M("user", None)]),
        C("content-missing", [{"role": "user"}, M("user", q)]),
        C("role-missing", [{"content": "no role"}, M("user", q)]),
        C("role-unknown", [M("critic", "unknown role text"), M("user", q)]),
        C("role-uppercase", [M("User", q)]),
        C("role-developer", [M("developer", "dev text"), M("user", q)]),
        C("message-not-mapping", ["just a string", M("user", q)]),
        C("unicode-emoji", [M("user", "Résumé ✓ — naïve café 😀🚀 漢字 עברית")]),
        C("unicode-combining", [M("user", "e\u0301 vs \u00e9, zero\u200bwidth, nbsp\u00a0here")]),
        C("control-characters", [M("user", "bell\x07 esc\x1b[31mred\x1b[0m del\x7f")]),
        C("markup-lookalikes", [M("user", "[bold]x[/bold] [@click=app.quit]go[/] @[User]: [[ ## question ## ]]")]),
        C("fake-role-markers", [M("user", "@[System]:\nfake system\n\n@[Assistant]:\nfake")]),
        C("angle-brackets", [M("user", "<file path=\"fake\">not a file</file> <Attached: nope>")]),
        C("tabs-and-cr", [M("user", "tab\there\rcarriage")]),
        C("crlf-in-string", [M("user", "line1\r\nline2\r\n")]),
        C("long-text", [M("user", " ".join(f"word{i}" for i in range(400)))]),
        C("many-lines", [M("user", "\n".join(f"line {i}" for i in range(60)))]),
        C("text-looks-like-path", [M("user", [T("prompts/style.instructions.md"), T(q)])]),
        C("two-users-text", [M("user", "first"), M("user", "second")]),
        C("user-then-blank-user", [M("user", q), M("user", "   ")]),
        C("blank-system-then-user", [M("system", "  "), M("user", q)]),
        C("empty-system-list-then-user", [M("system", []), M("user", q)]),
        C("system-only", [M("system", "You are a system.")]),
        C("extra-case-keys", [M("user", q)], note="ignored", conversation_id="conv-1",
          execution={"evaluator": "llm_judge"}),
        C("outcome-multiline", [M("user", q)], outcome=Lit("Line A\nLine B\n", "|")),
        C("outcome-empty", [M("user", q)], outcome=""),
        C("outcome-unicode", [M("user", q)], outcome="Réponse correcte 😀"),
    ]
    return cases


def role_cases() -> list:
    return [
        C("sys-user", [M("system", "You are helpful."), M("user", "Hi")]),
        C("user-only", [M("user", "Hi")]),
        C("assistant-only", [M("assistant", "I am an assistant.")]),
        C("tool-only", [M("tool", "tool output")]),
        C("empty-input-messages", []),
        C("two-leading-systems", [M("system", "S1"), M("system", "S2"), M("user", "U")]),
        C("three-leading-systems", [M("system", "S1"), M("system", "S2"), M("system", "S3"), M("user", "U")]),
        C("leading-systems-blank-middle", [M("system", "S1"), M("system", " "), M("system", "S3"), M("user", "U")]),
        C("mid-system", [M("user", "U1"), M("system", "mid system"), M("user", "U2")]),
        C("mid-system-after-assistant", [M("user", "U1"), M("assistant", "A1"), M("system", "S"), M("user", "U2")]),
        C("mid-tool", [M("user", "U1"), M("assistant", "calling tool"), M("tool", "{\"r\": 1}"), M("user", "U2")]),
        C("tool-first", [M("tool", "early tool"), M("user", "U")]),
        C("system-last", [M("user", "U"), M("system", "trailing system")]),
        C("assistant-last", [M("user", "U"), M("assistant", "A")]),
        C("user-assistant-user", [M("user", "U1"), M("assistant", "A1"), M("user", "U2")]),
        C("long-dialogue",
          [M("system", "S")] + [M("user" if i % 2 == 0 else "assistant", f"turn {i}") for i in range(10)]),
        C("blank-assistant", [M("user", "U"), M("assistant", ""), M("user", "U2")]),
        C("blank-assistant-only-user", [M("assistant", "  "), M("user", "U")]),
        C("blank-tool", [M("user", "U"), M("tool", [])]),
        C("sys-tool-sys", [M("system", "S1"), M("tool", "T"), M("system", "S2"), M("user", "U")]),
        C("system-after-system-and-blank-user", [M("system", "S1"), M("user", ""), M("system", "S2"), M("user", "U")]),
        C("system-list-content", [M("system", [T("S part 1"), T("S part 2")]), M("user", "U")]),
        C("assistant-list-content", [M("user", "U"), M("assistant", [T("A1"), T("A2")]), M("user", "U2")]),
        C("tool-list-content", [M("user", "U"), M("tool", [T("T1"), T("T2")])]),
        C("system-with-guideline-and-text",
          [M("system", [F("../prompts/style.instructions.md"), T("Sys text")]), M("user", "U")]),
        C("mid-system-with-guideline",
          [M("user", "U1"), M("assistant", "A"),
           M("system", [F("../prompts/style.instructions.md"), T("later rules")]), M("user", "U2")]),
        C("mid-system-with-root-guideline",
          [M("user", "U1"), M("system", [F("/prompts/rules.instructions.md")]), M("user", "U2")]),
        C("tool-with-file", [M("user", "U"), M("assistant", "A"), M("tool", [F("files/data.json")]), M("user", "U2")]),
        C("tool-with-guideline", [M("user", "U"), M("tool", [F("/prompts/style.instructions.md"), T("tool text")])]),
        C("assistant-with-guideline-only",
          [M("user", "U"), M("assistant", [F("/prompts/style.instructions.md")]), M("user", "U2")]),
        C("user-guideline-only-then-user", [M("user", [F("/prompts/style.instructions.md")]), M("user", "U2")]),
        C("two-systems-with-files",
          [M("system", [F("/prompts/style.instructions.md")]), M("system", [F("/docs/guide.md")]), M("user", "U")]),
        C("guideline-only-system-user", [M("system", [F("/prompts/style.instructions.md")]), M("user", "U")]),
        C("guideline-only-everything",
          [M("system", [F("/prompts/style.instructions.md")]), M("user", [F("/prompts/rules.instructions.md")])]),
        C("all-blank", [M("system", " "), M("user", "")]),
        C("all-blank-with-assistant", [M("user", ""), M("assistant", "")]),
        C("user-empty-list-assistant", [M("user", []), M("assistant", "A")]),
        C("system-file-user-text", [M("system", [F("/docs/guide.md")]), M("user", "U")]),
        C("system-text-user-file", [M("system", "S"), M("user", [F("/docs/snippet.py")])]),
        C("roles-with-unknown-in-middle", [M("user", "U"), M("narrator", "N"), M("user", "U2")]),
    ]


def file_cases() -> list:
    q = "Review the attachment."
    refs = [
        ("rel-local", "files/data.json"),
        ("dot-slash", "./files/data.json"),
        ("dotdot-to-root", "../docs/guide.md"),
        ("root-relative-slash", "/docs/guide.md"),
        ("root-relative-backslash", "\\docs\\guide.md"),
        ("leading-backslash-forward", "\\docs/guide.md"),
        ("backslash-separators", "files\\data.json"),
        ("found-via-root", "docs/guide.md"),
        ("found-via-parent", "sibling.md"),
        ("root-file", "rootfile.md"),
        ("double-slash", "files//data.json"),
        ("dot-segments-inside", "files/../files/data.json"),
        ("trailing-slash", "files/data.json/"),
        ("missing-file", "files/nope.txt"),
        ("missing-abs-like", "/definitely/not/here.md"),
        ("missing-windows-drive", "C:\\nope\\x.md"),
        ("missing-dotdot", "../../../outside-of-everything.md"),
        ("directory", "files/folder.md"),
        ("directory-guideline-name", "files/folder.instructions.md"),
        ("binary", "files/binary.bin"),
        ("latin1", "files/latin1.txt"),
        ("utf16", "files/utf16.txt"),
        ("bom", "files/bom.txt"),
        ("empty-file", "files/empty.txt"),
        ("whitespace-file", "files/whitespace.txt"),
        ("crlf-file", "files/crlf.txt"),
        ("mixed-eol-file", "files/mixed_eol.txt"),
        ("unicode-file", "files/unicode.md"),
        ("no-newline-file", "files/no_newline.txt"),
        ("trailing-newlines-file", "files/trailing.txt"),
        ("leading-blank-file", "files/leading.txt"),
        ("space-in-name", "files/with space.md"),
        ("markup-file", "files/markup.txt"),
        ("control-chars-file", "files/ctrl.txt"),
        ("tabs-file", "files/tabs.py"),
        ("unterminated-fence-file", "files/fence_unterminated.md"),
        ("fenced-file", "/docs/fenced.md"),
        ("guideline-local", "files/local.instructions.md"),
        ("guideline-dotdot", "../prompts/style.instructions.md"),
        ("guideline-root-slash", "/prompts/style.instructions.md"),
        ("guideline-via-root", "prompts/style.instructions.md"),
        ("guideline-dot-slash", "./files/local.instructions.md"),
        ("guideline-nested", "/prompts/nested/deep.instructions.md"),
        ("guideline-hidden-folder", "/.hidden/secret.instructions.md"),
        ("guideline-hidden-dotdot", "../.hidden/secret.instructions.md"),
        ("dotfile", "/docs/.dotfile.md"),
        # outside the layout's root (still inside tests/corpus): found relative to the eval file's folder
        ("escape-root-existing", "../../patterns/prompts/plain.md"),
        ("escape-root-guideline", "../../patterns/prompts/style.instructions.md"),
    ]
    cases = []
    for name, ref in refs:
        cases.append(C(f"file-{name}", [M("user", [F(ref), T(q)])]))
    # The same references in a marked conversation, where format-time matching shows.
    for name, ref in refs[::3] + [r for r in refs if r[0].startswith("guideline")]:
        cases.append(C(f"file-{name}-in-system", [M("system", [F(ref)]), M("user", q)]))
        cases.append(C(f"file-{name}-after-assistant",
                       [M("user", "U"), M("assistant", "A"), M("user", [T(q), F(ref)])]))
    cases += [
        C("file-only-flat", [M("user", [F("files/data.json")])]),
        C("file-missing-only", [M("user", [F("files/nope.txt")])]),
        C("file-twice", [M("user", [F("files/data.json"), F("files/data.json"), T(q)])]),
        C("guideline-twice",
          [M("system", [F("/prompts/style.instructions.md"), F("../prompts/style.instructions.md")]), M("user", q)]),
        C("two-guidelines",
          [M("system", [F("/prompts/style.instructions.md"), F("/prompts/rules.instructions.md")]), M("user", q)]),
        C("guideline-then-file-then-text",
          [M("user", [F("/prompts/style.instructions.md"), F("/docs/snippet.py"), T(q)])]),
        C("text-between-files", [M("user", [F("/docs/guide.md"), T("between"), F("/docs/snippet.py")])]),
        C("file-segment-no-value", [M("user", [{"type": "file"}, T(q)])]),
        C("file-segment-empty-value", [M("user", [F(""), T(q)])]),
        C("file-segment-number-value", [M("user", [F(123), T(q)])]),
        C("file-segment-whitespace-value", [M("user", [F("  "), T(q)])]),
        C("file-value-with-spaces-around", [M("user", [F(" files/data.json "), T(q)])]),
        C("file-in-expected", [M("user", q)], expected=[M("assistant", [F("files/data.json"), T("done")])]),
    ]
    return cases


def fence_cases() -> list:
    return [
        C("fence-one", [M("user", "Fix this:\n```python\nprint('hi')\n```\nThanks")]),
        C("fence-two", [M("user", "A:\n```js\nlet a = 1\n```\nB:\n```sh\nls -la\n```\nend")]),
        C("fence-no-lang", [M("user", "```\nplain fence\n```")]),
        C("fence-unterminated", [M("user", "start\n```python\nnever closed")]),
        C("fence-inline", [M("user", "inline ```x = 1``` fence")]),
        C("fence-tilde", [M("user", "~~~\ntilde fence\n~~~")]),
        C("fence-four-backticks", [M("user", "````md\n```inner```\n````")]),
        C("fence-indented", [M("user", "  ```\n  indented fence\n  ```")]),
        C("fence-lang-with-attrs", [M("user", "```python title=\"x.py\"\npass\n```")]),
        C("fence-empty", [M("user", "```\n```")]),
        C("fence-three-blocks", [M("user", "".join(f"```l{i}\nblock {i}\n```\n" for i in range(3)))]),
        C("fence-in-two-segments", [M("user", [T("```py\na = 1\n```"), T("```py\nb = 2\n```")])]),
        C("fence-split-across-segments", [M("user", [T("```py\nopen"), T("close\n```")])]),
        C("fence-in-system-multi", [M("system", "```rules\nbe nice\n```"), M("user", "go")]),
        C("fence-multi-turn", [M("user", "```a\n1\n```"), M("assistant", "```b\n2\n```"), M("user", "done")]),
        C("fence-with-file", [M("user", [F("/docs/fenced.md"), T("Explain.")])]),
        C("fence-with-snippet", [M("user", [F("/docs/snippet.py"), T("```py\nmore\n```")])]),
        C("fence-crlf", [M("user", "x\r\n```py\r\ncode\r\n```\r\n")]),
        C("fence-backticks-odd", [M("user", "`` not a fence `` and ``` alone")]),
        C("fence-only", [M("user", "```json\n{\"a\": 1}\n```")]),
        C("fence-with-guideline", [M("user", [F("/prompts/style.instructions.md"), T("```py\nx\n```")])]),
    ]


def expected_cases() -> list:
    q = "Say hello."
    return [
        C("expected-string", [M("user", q)], expected=[M("assistant", "Hello!")]),
        C("expected-list-text", [M("user", q)], expected=[M("assistant", [T("Hello"), T("world")])]),
        C("expected-two-messages", [M("user", q)], expected=[M("assistant", "first"), M("assistant", "second")]),
        C("expected-user-role", [M("user", q)], expected=[M("user", "odd but allowed")]),
        C("expected-tool-then-assistant", [M("user", q)], expected=[M("tool", "t"), M("assistant", "final")]),
        C("expected-empty-list", [M("user", q)], expected=[]),
        C("expected-blank", [M("user", q)], expected=[M("assistant", "  ")]),
        C("expected-multiline", [M("user", q)], expected=[M("assistant", Lit("Line 1\nLine 2\n", "|"))]),
        C("expected-not-list", [M("user", q)], expected="just a string"),
        C("expected-mapping", [M("user", q)], expected={"role": "assistant", "content": "x"}),
        C("expected-non-mapping-entry", [M("user", q)], expected=["x", M("assistant", "y")]),
        C("expected-fence", [M("user", q)], expected=[M("assistant", "```py\nprint(1)\n```")]),
        C("expected-unicode", [M("user", q)], expected=[M("assistant", "Bonjour 😀")]),
        C("expected-with-missing-file", [M("user", q)], expected=[M("assistant", [F("files/nope.txt"), T("x")])]),
        C("expected-with-guideline", [M("user", q)], expected=[M("assistant", [F("/prompts/style.instructions.md")])]),
        C("expected-content-list-unknown",
          [M("user", q)], expected=[M("assistant", [{"type": "image", "value": "x"}])]),
        C("expected-no-content", [M("user", q)], expected=[{"role": "assistant"}]),
        C("expected-null", [M("user", q)], expected=None, expected_messages=None),
        C("reference-answer-key", [M("user", q)], reference_answer="explicit reference"),
        C("expected-multi-turn-input",
          [M("user", "U"), M("assistant", "A"), M("user", q)], expected=[M("assistant", "Hi")]),
    ]


def skip_cases() -> list:
    good = [M("user", "fine")]
    return [
        C("ok-before", good),
        C(None, good),  # missing id
        C("missing-outcome", good, outcome=None),
        C("missing-input", None),
        C(12, good),  # numeric id
        C(True, good),  # boolean id
        C("", good),  # empty-string id (a string)
        C("outcome-number", good, outcome=5),
        C("outcome-list", good, outcome=["a", "b"]),
        C("input-string", "not a list"),
        C("input-mapping", {"role": "user", "content": "x"}),
        C("input-null", None, input_messages=None),
        C("dup-id", [M("user", "first of the duplicates")]),
        C("dup-id", [M("user", "second of the duplicates")]),
        C("dup-id", [M("system", "S"), M("user", "third of the duplicates")]),
        C("expected-outcome-key", good, outcome=None, expected_outcome="alias for outcome?"),
        C("both-outcome-keys", good, expected_outcome="the alias"),
        C(["list", "id"], good),
        C("ok-after", good),
        C("id with spaces & symbols/é", good),
        C("ok-after-weird", good),
    ] + ["not a mapping case", None, 42, ["a list case"]] + [C("ok-last", good)]


def scalar_eval_text() -> str:
    """YAML 1.2 core schema: these plain scalars are strings (or numbers written as text)."""
    scalars = ["yes", "no", "on", "off", "y", "n", "true", "false", "True", "NO", "null", "~", "2024-01-01",
               "2024-01-01T10:00:00Z", "0755", "0o17", "0x1F", "1_000", "1e3", ".5", "+12", "-0", ".inf", ".NaN",
               "12:30:00", "1.0", "007", "=", "<<"]
    out = [f"$schema: {EVAL_SCHEMA}", "evalcases:"]
    for i, s in enumerate(scalars):
        out += [f"  - id: scalar-{i:02d}", f"    outcome: {s}", "    input_messages:",
                "      - role: user", f"        content: {s}"]
    for i, s in enumerate(["yes", "2024-01-01", "0755", "on", "12:30:00"]):
        out += [f"  - id: scalar-text-{i}", "    outcome: fine", "    input_messages:",
                "      - role: user", "        content:", "          - type: text", f"            value: {s}"]
    # ids written as plain scalars that a YAML 1.1 parser would turn into non-strings
    for i, s in enumerate(["yes", "2024-01-02", "0755", "1.5", "null"]):
        out += [f"  - id: {s}", "    outcome: fine", "    input_messages:",
                "      - role: user", f"        content: plain id {i}"]
    out += ["  - id: anchors", "    outcome: &o shared outcome", "    input_messages:",
            "      - &m {role: user, content: anchored}", "      - *m"]
    out += ["  - id: flow-style", "    outcome: flow", "    input_messages: [{role: system, content: S}, "
            "{role: user, content: [{type: text, value: 'single quoted'}]}]"]
    out += ["  - id: comments   # trailing comment", "    outcome: 'x' # c", "    input_messages:",
            "      # a comment line", "      - role: user", "        content: \"has # hash\" # comment"]
    out += ["  - id: tagged-str", "    outcome: !!str 123", "    input_messages:",
            "      - role: user", "        content: !!str yes"]
    out += ["  - id: single-quoted", "    outcome: 'it''s'", "    input_messages:",
            "      - role: user", "        content: 'line1", "", "          line2'"]
    out += ["  - id: plain-multiline", "    outcome: ok", "    input_messages:",
            "      - role: user", "        content: first line", "          continues here"]
    return "\n".join(out) + "\n"


def template_cases() -> list:
    """Text that template engines and JS String.replace treat specially, in every evaluator-prompt slot."""
    specials = ["costs $$5, $& and $` and $' and $1 $<name>", "{{question}} {{ reference_answer }}",
                "{{candidate_answer}}{{expected_outcome}}", "${question} %s %(x)s {0}",
                "[[ ## candidate_answer ## ]]\n[[ ## question ## ]]", "\\n \\ backslashes \\1", "$"]
    cases = []
    for i, text in enumerate(specials):
        cases.append(C(f"tpl-{i}-question", [M("user", text)]))
        cases.append(C(f"tpl-{i}-outcome", [M("user", "q")], outcome=text))
        cases.append(C(f"tpl-{i}-reference", [M("user", "q")], expected=[M("assistant", text)]))
        cases.append(C(f"tpl-{i}-all", [M("system", text), M("user", text)], outcome=text,
                       expected=[M("assistant", text)]))
    return cases


def yaml_syntax_files() -> list[tuple[str, str]]:
    """YAML constructs the parsers may disagree on: one file each, so a refusal hides nothing else."""
    head = f"$schema: {EVAL_SCHEMA}\nevalcases:\n"
    user = "    input_messages:\n      - role: user\n        content: "
    parts = [
        "  - id: explicit-indent\n    outcome: ok\n    input_messages:\n      - role: user\n        content: |2\n"
        "            indented two more\n          base\n",
        "  - id: folded-more-indented\n    outcome: ok\n    input_messages:\n      - role: user\n        content: >\n"
        "          folded\n            more indented\n          back\n\n          para\n",
        "  - id: block-keep-at-end\n    outcome: ok\n    input_messages:\n      - role: user\n        content: |+\n"
        "          kept\n\n",
        "  - id: block-empty\n    outcome: ok\n    input_messages:\n      - role: user\n        content: |\n",
        "  - id: escapes-yaml\n    outcome: ok\n" + user + '"nel\\N ls\\L ps\\P nbsp\\_ nul\\0 bell\\a"\n',
        "  - id: escapes-surrogates\n    outcome: ok\n" + user + '"pair \\ud83d\\ude00 end"\n',
        "  - id: escapes-line-continuation\n    outcome: ok\n" + user + '"first \\\n          second"\n',
        "  - id: double-quoted-folding\n    outcome: ok\n" + user + '"a\n\n          b\n          c"\n',
        "  - id: single-quoted-folding\n    outcome: ok\n" + user + "'a\n\n          b\n          c'\n",
        "  - id: plain-blank-lines\n    outcome: ok\n" + user + "first\n\n          second\n",
        "  - id: merge-key\n    outcome: ok\n    input_messages:\n      - &base {role: user, content: base}\n"
        "      - <<: *base\n        content: merged\n",
        "  - id: anchor-on-content\n    outcome: &oc ok\n    input_messages:\n      - role: user\n"
        "        content: &c [{type: text, value: shared}]\n      - role: user\n        content: *c\n",
        "  - id: binary-tag\n    outcome: ok\n" + user + "!!binary aGVsbG8=\n",
        "  - id: str-tag-number\n    outcome: ok\n" + user + "!!str 0755\n",
        "  - id: int-tag\n    outcome: ok\n" + user + "!!int '12'\n",
        "  - id: null-content-tilde\n    outcome: ok\n" + user + "~\n",
        "  - id: empty-value\n    outcome: ok\n    input_messages:\n      - role: user\n        content:\n",
        "  - id: quoted-keys\n    \"outcome\": ok\n    'input_messages':\n"
        "      - \"role\": user\n        'content': hi\n",
        "  - id: explicit-key\n    ? outcome\n    : ok\n" + user + "hi\n",
        "  - id: comment-after-block\n    outcome: ok\n    input_messages:\n      - role: user\n"
        "        content: |  # a comment\n          text\n        # trailing comment\n",
        "  - id: hash-in-plain\n    outcome: ok\n" + user + "C# and a#b\n",
        "  - id: colon-in-plain\n    outcome: ok\n" + user + "time 12:30 and a:b\n",
        "  - id: flow-multiline\n    outcome: ok\n    input_messages: [\n"
        "      {role: user,\n       content: flow}\n    ]\n",
        "  - id: long-line\n    outcome: ok\n" + user + "x" * 5000 + "\n",
        "  - id: trailing-spaces-plain   \n    outcome: ok   \n" + user + "value   \n",
        "  - {id: inline-case, outcome: ok, input_messages: [{role: user, content: inline}]}\n",
        "  - id: null-id\n    outcome: ok\n" + user + "x\n",
        "  - id: 1e3\n    outcome: ok\n" + user + "x\n",
        "  - id: 'true'\n    outcome: ok\n" + user + "quoted true id\n",
    ]
    files = []
    for part in parts:
        name = part.split("id: ", 1)[1].split("\n", 1)[0].split(",", 1)[0].strip(" '")
        files.append((name, head + part + "  - id: ok-last\n    outcome: ok\n" + user + "last\n"))
    return files


def crlf_cases() -> list:
    return [
        C("crlf-string", [M("user", "Hello from a CRLF file")]),
        C("crlf-literal", [M("user", Lit("Line one\nLine two\n", "|"))]),
        C("crlf-literal-keep", [M("user", Lit("Keep\n\n", "|+"))]),
        C("crlf-folded", [M("user", Lit("fold a\nfold b", ">"))]),
        C("crlf-multi-turn", [M("system", "S"), M("user", "U"), M("assistant", "A"), M("user", "U2")]),
        C("crlf-with-crlf-file", [M("user", [F("files/crlf.txt"), T("Explain")])]),
        C("crlf-with-file-multi", [M("system", [F("files/crlf.txt")]), M("user", "U")]),
        C("crlf-guideline", [M("system", [F("/prompts/style.instructions.md")]), M("user", "U")]),
        C("crlf-fence", [M("user", Lit("```py\nx = 1\n```\nafter", "|"))]),
        C("crlf-quoted-escapes", [M("user", "escaped\\r\\n stays as text")]),
        C("crlf-quoted-cr", [M("user", "real\rcr")]),
        C("crlf-expected", [M("user", "q")], expected=[M("assistant", Lit("a\nb", "|-"))]),
        C("crlf-empty-input", []),
        C("crlf-blank", [M("user", "  ")]),
        C("crlf-unicode", [M("user", "Ünïcödé 😀")]),
    ]


def nested_path_cases() -> list:
    q = "Use the file."
    refs = [
        ("near", "near.md"), ("near-dot", "./near.md"), ("mid-dotdot", "../mid.md"), ("mid-found-up", "mid.md"),
        ("sibling-dotdot", "../../sibling.md"), ("sibling-found-up", "sibling.md"),
        ("root-dotdot", "../../../rootfile.md"), ("root-found", "rootfile.md"), ("root-slash", "/rootfile.md"),
        ("docs-slash", "/docs/guide.md"), ("docs-dotdot", "../../../docs/guide.md"), ("docs-plain", "docs/guide.md"),
        ("files-up", "files/data.json"), ("eval-rel-from-root", "evals/nested/mid.md"),
        ("near-guideline", "near.instructions.md"), ("near-guideline-dot", "./near.instructions.md"),
        ("root-guideline-dotdot", "../../../prompts/style.instructions.md"),
        ("root-guideline-slash", "/prompts/style.instructions.md"),
        ("root-guideline-plain", "prompts/style.instructions.md"),
        ("too-many-dotdot", "../../../../rootfile.md"),
        ("missing", "nowhere.md"),
    ]
    cases = []
    for name, ref in refs:
        cases.append(C(f"nested-{name}", [M("user", [F(ref), T(q)])]))
        cases.append(C(f"nested-{name}-multi", [M("system", [F(ref)]), M("user", [T(q), F(ref)])]))
    return cases


def alt_ext_cases() -> list:
    return [
        C("yml-extension", [M("user", "from a .yml file")]),
        C("yml-multi", [M("system", [F("/prompts/rules.instructions.md"), T("S")]), M("user", "U")]),
    ]


# --------------------------------------------------------------------------------------------------------------
# Layout: patterns — one folder per guideline-pattern shape, each with its own config and eval file.

PATTERN_SETS = {
    "instructions": ["**/*.instructions.md"],
    "star-md": ["*.md"],
    "globstar-md": ["**/*.md"],
    "prompts-globstar": ["prompts/**"],
    "globstar-prompts-md": ["**/prompts/*.md"],
    "braces": ["**/{style,rules}.instructions.md", "docs/{guide,snippet}.*"],
    "question-mark": ["prompts/?lain.md", "docs/guid?.md"],
    "char-class": ["prompts/[pq]lain.md", "docs/[a-h]uide.md", "prompts/nested/[!n]eep.instructions.md"],
    "negation": ["**/*.md", "!**/plain.md"],
    "negation-only": ["!prompts/plain.md"],
    "backslashes": ["prompts\\\\*.md", "prompts\\plain.md", "**\\*.instructions.md"],
    "dot-slash": ["./prompts/*.md", "./**/*.instructions.md"],
    "absolute-like": ["/prompts/*.md", "/**/*.instructions.md"],
    "eval-relative": ["../prompts/*.md", "files/*.md"],
    "dotfiles": ["**/.hidden/*.md", ".hidden/**", "docs/.*.md"],
    "extglob": ["prompts/@(plain|style).md", "prompts/+(rules).instructions.md"],
    "exact-path": ["prompts/plain.md"],
    "star-only": ["*", "**"],
    "empty-string": [""],
    "trailing-slash": ["prompts/"],
    "case-sensitivity": ["**/*.MD", "PROMPTS/**"],
    "nested-braces": ["**/{prompts,docs}/**/*.{md,py}"],
    "range-class": ["docs/snippet.p[x-z]", "prompts/[a-p]*.md"],
    "posix-class": ["prompts/[[:alpha:]]lain.md"],
    "escaped-star": ["prompts/\\*.md", "docs/guide\\.md"],
    "double-negation": ["!!prompts/plain.md"],
    "star-in-middle": ["pr*ts/*.md", "d*/g*"],
    "globstar-middle": ["prompts/**/*.md"],
    "globstar-suffix": ["prompts/**", "docs/**/"],
    "dot-globstar": ["**/.*/**", "**/.*"],
    "spaces-around": [" **/*.md ", "prompts/plain.md "],
    "mixed-with-negation-first": ["!**/style.instructions.md", "**/*.instructions.md"],
    "parent-globstar": ["../**/*.md", "**/../prompts/*.md"],
}


def layout_patterns() -> Layout:
    lay = Layout("patterns")
    common_files(lay)
    lay.file("prompts/UPPER.MD", "Upper-case extension.\n")
    refs = [
        ("plain-dotdot", "../prompts/plain.md"),
        ("plain-slash", "/prompts/plain.md"),
        ("plain-root", "prompts/plain.md"),
        ("style-dotdot", "../prompts/style.instructions.md"),
        ("style-slash", "/prompts/style.instructions.md"),
        ("deep-slash", "/prompts/nested/deep.instructions.md"),
        ("notes-root", "prompts/nested/notes.md"),
        ("guide-dotdot", "../docs/guide.md"),
        ("snippet-slash", "/docs/snippet.py"),
        ("inner-slash", "/docs/prompts/inner.md"),
        ("hidden-slash", "/.hidden/secret.instructions.md"),
        ("dotfile-slash", "/docs/.dotfile.md"),
        ("local", "files/local.md"),
        ("local-dot", "./files/local.md"),
        ("upper-md", "/prompts/UPPER.MD"),
        ("deep-dotdot", "../prompts/nested/deep.instructions.md"),
    ]
    for set_name, patterns in PATTERN_SETS.items():
        folder = f"p-{set_name}/"
        lay.file(folder + ".agentv/config.yaml", config_doc(patterns))
        lay.file(folder + "files/local.md", f"Local file of {set_name}.\n")
        cases = []
        for name, ref in refs:
            cases.append(C(f"{set_name}-{name}-flat", [M("user", [F(ref), T("Question?")])]))
            cases.append(C(f"{set_name}-{name}-system", [M("system", [F(ref), T("Sys")]), M("user", "Question?")]))
            cases.append(C(f"{set_name}-{name}-turns",
                           [M("user", "U"), M("assistant", "A"), M("user", [F(ref), T("Q2")])]))
        lay.eval(folder + "eval.yaml", eval_doc(cases))
    return lay


# --------------------------------------------------------------------------------------------------------------
# Layout: configs — which config wins: eval folder, parent folder, invalid ones, none.


def config_probe_cases(tag: str) -> list:
    return [
        C(f"{tag}-instructions", [M("system", [F("/prompts/style.instructions.md")]), M("user", "Q")]),
        C(f"{tag}-plain-md", [M("system", [F("/prompts/plain.md")]), M("user", "Q")]),
        C(f"{tag}-local-md", [M("user", [F("local.md"), T("Q")])]),
        C(f"{tag}-docs", [M("user", "U"), M("assistant", "A"), M("user", [F("/docs/guide.md"), T("Q")])]),
        C(f"{tag}-flat-guideline", [M("user", [F("/prompts/rules.instructions.md"), T("Q")])]),
    ]


def layout_configs() -> Layout:
    lay = Layout("configs")
    common_files(lay)
    lay.file(".agentv/config.yaml", config_doc(["**/*.instructions.md"]))
    variants = {
        "parent-only": None,  # no config of its own: the root one applies
        "own-valid": config_doc(["**/*.md"]),
        "own-broken-yaml": "$schema: agentv-config-v2\nguideline_patterns: [\n",
        "own-missing-schema": dump_yaml({"guideline_patterns": ["**/*.md"]}),
        "own-wrong-schema": dump_yaml({"$schema": "agentv-config-v1", "guideline_patterns": ["**/*.md"]}),
        "own-patterns-string": dump_yaml({"$schema": CONFIG_SCHEMA, "guideline_patterns": "**/*.md"}),
        "own-patterns-nonstring": dump_yaml({"$schema": CONFIG_SCHEMA, "guideline_patterns": [1, "**/*.md"]}),
        "own-patterns-null": dump_yaml({"$schema": CONFIG_SCHEMA, "guideline_patterns": None}),
        "own-no-patterns": dump_yaml({"$schema": CONFIG_SCHEMA}),
        "own-empty-patterns": config_doc([]),
        "own-empty-file": "",
        "own-list-toplevel": "- a\n- b\n",
        "own-dup-keys": "$schema: agentv-config-v2\nguideline_patterns: ['**/*.md']\nguideline_patterns: ['x']\n",
        "own-crlf": config_doc(["**/*.md"]).replace("\n", "\r\n"),
        "own-extra-keys": dump_yaml({"$schema": CONFIG_SCHEMA, "guideline_patterns": ["**/plain.md"], "other": 1}),
        "own-bom": "\ufeff" + config_doc(["**/*.md"]),
        "own-yaml11-directive": "%YAML 1.1\n---\n" + config_doc(["**/*.md"]),
        "own-duplicate-patterns": config_doc(["**/*.md", "**/*.md", "**/plain.md"]),
        "own-tabs": "$schema: agentv-config-v2\nguideline_patterns:\n\t- '**/*.md'\n",
        "own-schema-number": dump_yaml({"$schema": 2, "guideline_patterns": ["**/*.md"]}),
        "own-flow-style": "{$schema: agentv-config-v2, guideline_patterns: ['**/plain.md', '**/guide.md']}\n",
    }
    for name, cfg in variants.items():
        folder = f"{name}/"
        if cfg is not None:
            lay.file(folder + ".agentv/config.yaml", cfg)
        lay.file(folder + "local.md", f"Local of {name}.\n")
        lay.eval(folder + "eval.yaml", eval_doc(config_probe_cases(name)))
    # a config two levels up (intermediate folder), eval deeper
    lay.file("middle/.agentv/config.yaml", config_doc(["**/plain.md"]))
    lay.file("middle/a/b/local.md", "Local of middle.\n")
    lay.eval("middle/a/b/eval.yaml", eval_doc(config_probe_cases("middle")))
    # a config that is a folder
    lay.dir("config-is-dir/.agentv/config.yaml")
    lay.file("config-is-dir/local.md", "Local of config-is-dir.\n")
    lay.eval("config-is-dir/eval.yaml", eval_doc(config_probe_cases("config-is-dir")))
    # config.yml (not .yaml) is not the config file name
    lay.file("yml-name/.agentv/config.yml", config_doc(["**/*.md"]))
    lay.file("yml-name/local.md", "Local of yml-name.\n")
    lay.eval("yml-name/eval.yaml", eval_doc(config_probe_cases("yml-name")))
    # the eval file sits at the repo root, next to the root config
    lay.file("local.md", "Local at the root.\n")
    lay.eval("root-eval.yaml", eval_doc(config_probe_cases("root-eval")))
    return lay


def layout_noconfig() -> Layout:
    lay = Layout("noconfig")
    common_files(lay)
    lay.file("evals/local.md", "Local.\n")
    lay.eval("evals/eval.yaml", eval_doc(config_probe_cases("noconfig") + [
        C("noconfig-guideline-multi", [M("system", [F("../prompts/style.instructions.md")]), M("user", "U"),
                                        M("assistant", "A"), M("user", [F("/prompts/rules.instructions.md")])]),
        C("noconfig-empty", []),
    ]))
    # a config-looking file that is not in .agentv/
    lay.file("evals/config.yaml", config_doc(["**/*.md"]))
    return lay


# --------------------------------------------------------------------------------------------------------------
# Layout: loaderrors — files the reference refuses (or surprisingly accepts).


def layout_loaderrors() -> Layout:
    lay = Layout("loaderrors")
    good_case = "  - id: c1\n    outcome: ok\n    input_messages:\n      - role: user\n        content: hi\n"
    head = f"$schema: {EVAL_SCHEMA}\nevalcases:\n"
    texts = {
        "invalid-yaml.yaml": head + "  - id: [unclosed\n",
        "duplicate-keys.yaml": head + "  - id: c1\n    id: c2\n    outcome: ok\n    input_messages: []\n",
        "duplicate-top-keys.yaml": head + good_case + "evalcases: []\n",
        "missing-schema.yaml": "evalcases:\n" + good_case,
        "wrong-schema.yaml": "$schema: agentv-eval-v1\nevalcases:\n" + good_case,
        "schema-not-first.yaml": "evalcases:\n" + good_case + f"$schema: {EVAL_SCHEMA}\n",
        "no-evalcases.yaml": f"$schema: {EVAL_SCHEMA}\n",
        "evalcases-mapping.yaml": f"$schema: {EVAL_SCHEMA}\nevalcases:\n  c1: x\n",
        "evalcases-null.yaml": f"$schema: {EVAL_SCHEMA}\nevalcases:\n",
        "evalcases-empty.yaml": f"$schema: {EVAL_SCHEMA}\nevalcases: []\n",
        "toplevel-list.yaml": "- a\n- b\n",
        "toplevel-scalar.yaml": "just text\n",
        "empty.yaml": "",
        "comments-only.yaml": "# nothing here\n",
        "tabs-indent.yaml": head + "\t- id: c1\n",
        "multi-document.yaml": head + good_case + "---\n" + head + good_case,
        "bom.yaml": "\ufeff" + head + good_case,
        "explicit-doc-start.yaml": "---\n" + head + good_case,
        "doc-end-marker.yaml": head + good_case + "...\n",
        "yaml-directive.yaml": "%YAML 1.2\n---\n" + head + good_case,
        "crlf-valid.yaml": (head + good_case).replace("\n", "\r\n"),
        "alias-unknown.yaml": head + "  - *nope\n",
        "schema-extra-space.yaml": f"$schema: ' {EVAL_SCHEMA}'\nevalcases:\n" + good_case,
        "extra-top-keys.yaml": head + good_case + "description: extra keys are fine\ntarget: default\n",
        "unicode-escape.yaml": head + "  - id: c1\n    outcome: ok\n    input_messages:\n      - role: user\n"
                               "        content: \"\\u00e9\\U0001F600\\x41\"\n",
        "big-int-id.yaml": head + "  - id: 123456789012345678901234567890\n    outcome: ok\n    input_messages: []\n",
    }
    for name, text in texts.items():
        lay.eval(name, text)
    lay.evals.append("does-not-exist.yaml")  # recorded on purpose: the oracle says ENOENT
    lay.dir("a-folder.yaml")
    lay.evals.append("a-folder.yaml")
    lay.eval("latin1.yaml", (head + good_case.replace("hi", "caf\u00e9")).encode("latin-1"))
    lay.eval("nul-byte.yaml", (head + good_case).encode() + b"\x00")
    lay.eval("utf16.yaml", (head + good_case).encode("utf-16"))
    return lay


# --------------------------------------------------------------------------------------------------------------
# Layout: abspath — absolute references (location-dependent; see module docstring).


def layout_abspath(abs_root: str) -> Layout:
    lay = Layout("abspath")
    lay.file(".agentv/config.yaml", config_doc(["**/*.instructions.md"]))
    lay.file("prompts/abs.instructions.md", "Absolute guideline.\n")
    lay.file("docs/abs.md", "Absolute doc.\n")
    lay.file("evals/near.md", "Near.\n")
    a = abs_root.rstrip("/")
    refs = [
        ("abs-doc", f"{a}/docs/abs.md"),
        ("abs-guideline", f"{a}/prompts/abs.instructions.md"),
        ("abs-near", f"{a}/evals/near.md"),
        ("abs-missing", f"{a}/docs/missing.md"),
        ("abs-dotdot", f"{a}/evals/../docs/abs.md"),
        ("abs-double-slash", f"/{a}/docs/abs.md"),
    ]
    cases = []
    for name, ref in refs:
        cases.append(C(f"{name}-flat", [M("user", [F(ref), T("Q")])]))
        cases.append(C(f"{name}-system", [M("system", [F(ref)]), M("user", "Q")]))
        cases.append(C(f"{name}-turns", [M("user", "U"), M("assistant", "A"), M("user", [F(ref), T("Q")])]))
    lay.eval("evals/abs.yaml", eval_doc(cases))
    return lay


# --------------------------------------------------------------------------------------------------------------


def layout_dotfolder() -> Layout:
    lay = Layout("dotfolder")
    common_files(lay)
    lay.file(".agentv/config.yaml", config_doc(["**/*.instructions.md", ".evals/**/*.md"]))
    lay.file(".evals/local.instructions.md", "Guideline inside a dot-folder.\n")
    lay.file(".evals/notes.md", "Notes inside a dot-folder.\n")
    lay.file(".evals/sub/deeper.md", "Deeper inside a dot-folder.\n")
    refs = [("local-guideline", "local.instructions.md"), ("local-guideline-dot", "./local.instructions.md"),
            ("notes", "notes.md"), ("deeper", "sub/deeper.md"), ("root-guideline", "/prompts/style.instructions.md"),
            ("root-guideline-dotdot", "../prompts/style.instructions.md"), ("self-by-root", ".evals/notes.md"),
            ("self-by-root-slash", "/.evals/notes.md")]
    cases = []
    for name, ref in refs:
        cases.append(C(f"dot-{name}-flat", [M("user", [F(ref), T("Q")])]))
        cases.append(C(f"dot-{name}-system", [M("system", [F(ref)]), M("user", "Q")]))
        cases.append(C(f"dot-{name}-turns", [M("user", "U"), M("assistant", "A"), M("user", [F(ref), T("Q")])]))
    lay.eval(".evals/eval.yaml", eval_doc(cases))
    return lay


def layout_fuzz() -> Layout:
    """Seeded random combinations of roles, content shapes and references: breadth the hand-written files lack."""
    import random

    lay = Layout("fuzz")
    common_files(lay)
    lay.file(".agentv/config.yaml", config_doc(["**/*.instructions.md", "docs/**/*.md"]))
    lay.file("suite/files/a.txt", "alpha\n")
    lay.file("suite/files/b.md", "```py\nbeta()\n```\n")
    lay.file("suite/files/c.instructions.md", "Suite guideline.\n")
    lay.file("suite/files/crlf.txt", b"crlf\r\nfile\r\n")
    lay.file("suite/files/empty.txt", b"")
    lay.file("suite/files/blank.txt", "\n  \n")
    lay.dir("suite/files/dir.md")
    refs = ["files/a.txt", "./files/b.md", "files/c.instructions.md", "./files/c.instructions.md",
            "files/crlf.txt", "files/empty.txt", "files/blank.txt", "files/dir.md", "files/missing.txt",
            "../prompts/style.instructions.md", "/prompts/style.instructions.md", "prompts/rules.instructions.md",
            "/docs/guide.md", "docs/guide.md", "../docs/guide.md", "/docs/prompts/inner.md", "../docs/snippet.py",
            "\\docs\\guide.md", "/.hidden/secret.instructions.md"]
    texts = ["Hello", "", "   ", "\n\t\n", "Line 1\nLine 2", "```py\nx = 1\n```", "a ```inline``` b",
             "```\nunterminated", "Ünïcödé 😀", "crlf\r\ntext", "  padded  ", "@[User]:\nfake",
             "[[ ## question ## ]]", "two\n\nparagraphs\n\n"]
    roles = ["system"] * 3 + ["user"] * 6 + ["assistant"] * 3 + ["tool"] * 2 + ["critic", "User"]

    def segment(rng):
        r = rng.random()
        if r < 0.45:
            return T(rng.choice(texts))
        if r < 0.9:
            return F(rng.choice(refs))
        if r < 0.96:
            return {"type": rng.choice(["image", "", "Text", "file_ref"]), "value": rng.choice(texts)}
        return rng.choice(["bare", 3, None])

    def message(rng):
        role = rng.choice(roles)
        if rng.random() < 0.35:
            return M(role, rng.choice(texts))
        return M(role, [segment(rng) for _ in range(rng.randint(0, 4))])

    for f in range(3):
        rng = random.Random(20260 + f)
        cases = []
        for n in range(200):
            msgs = [message(rng) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 6]))]
            expected = None
            if rng.random() < 0.3:
                expected = [message(rng) for _ in range(rng.randint(0, 2))]
            cases.append(C(f"fuzz{f}-{n:03d}", msgs, outcome=rng.choice(["Good.", "Line 1\nLine 2", " x "]),
                           expected=expected))
        lay.eval(f"suite/fuzz-{f}.yaml", eval_doc(cases))
    return lay


def layout_fuzzdeep() -> Layout:
    """Seeded random conversations shaped like real ones (leading systems, alternating turns, late system/tool
    turns), from an eval folder three levels down with its own config, references spelled from there."""
    import random

    lay = Layout("fuzzdeep")
    common_files(lay)
    lay.file(".agentv/config.yaml", config_doc(["**/*.instructions.md"]))
    lay.file("deep/.agentv/config.yaml", config_doc(["**/*.instructions.md", "a/b/files/*.md", "*.md"]))
    b = "deep/a/b/"
    lay.file(b + "files/notes.md", "Notes next to the suite.\n")
    lay.file(b + "files/rules.instructions.md", "Suite rules.\n")
    lay.file(b + "files/code.py", "print('suite')\r\n")
    lay.file(b + "files/fence.md", "```js\nlet x\n```\n")
    lay.file(b + "files/empty.md", b"")
    lay.file("deep/top.md", "Top of deep.\n")
    refs = ["files/notes.md", "./files/notes.md", "files/rules.instructions.md", "./files/rules.instructions.md",
            "files/code.py", "files/fence.md", "files/empty.md", "files/none.md", "../b/files/notes.md",
            "/deep/a/b/files/notes.md", "deep/a/b/files/notes.md", "a/b/files/notes.md", "top.md", "../../top.md",
            "/deep/top.md", "../../../prompts/style.instructions.md", "/prompts/style.instructions.md",
            "prompts/rules.instructions.md", "../../../docs/guide.md", "/docs/guide.md"]
    texts = ["Please help.", "", "  ", "Line A\nLine B", "```python\nprint(1)\n```", "```\nbare fence\n```",
             "Before\n```sh\nls\n```\nAfter\n```sh\npwd\n```", "```unterminated", "Emoji 🚀 and café",
             "trailing newline\n", "\nleading newline", "x\r\ny", "<file path=\"fake\">", "@[Tool]:\nfake"]

    def content(rng):
        if rng.random() < 0.4:
            return rng.choice(texts)
        segs = []
        for _ in range(rng.randint(1, 4)):
            segs.append(F(rng.choice(refs)) if rng.random() < 0.5 else T(rng.choice(texts)))
        return segs

    for f in range(4):
        rng = random.Random(777 + f)
        cases = []
        for n in range(150):
            msgs = [M("system", content(rng)) for _ in range(rng.choice([0, 0, 1, 1, 2, 3]))]
            for t in range(rng.choice([1, 1, 2, 3, 4, 6])):
                r = rng.random()
                role = ("user", "assistant")[t % 2] if r < 0.8 else ("system" if r < 0.9 else "tool")
                msgs.append(M(role, content(rng)))
            expected = [M("assistant", content(rng))] if rng.random() < 0.5 else None
            cases.append(C(f"deep{f}-{n:03d}", msgs, outcome=rng.choice(["Correct.", "Fixes it\nproperly"]),
                           expected=expected))
        lay.eval(f"{b}fuzz-{f}.yaml", eval_doc(cases))
    return lay


def layout_globfuzz() -> Layout:
    """Seeded random guideline patterns (one config per folder) against references spelled every way."""
    import random

    lay = Layout("globfuzz")
    common_files(lay)
    lay.file("prompts/UPPER.MD", "Upper-case extension.\n")
    lay.file("prompts/a.b.c.md", "Dots in the name.\n")
    lay.file("prompts/x{y}.md", "Braces in the name.\n")
    lay.file("docs/prompts/nested/leaf.instructions.md", "Leaf guideline.\n")
    segments = ["**", "*", "prompts", "docs", "nested", "p*", "*s", "?ocs", "[pd]*", "{prompts,docs}", ".hidden",
                ".*", "files", "[!d]*", "prompt?"]
    finals = ["*.md", "*.instructions.md", "*", "plain.md", "*.{md,py}", "?lain.md", "[a-z]*.md", "*.MD", "deep.*",
              "**", "*.py", "!(*.md)", "@(plain|notes).md", "+(a|b).md", "*.*.*", "x{y}.md", "x\\{y\\}.md",
              "*.instructions.md/", "[[:lower:]]*.md", "{,*.}md"]
    prefixes = ["", "", "", "", "./", "/", "!", "**/", "../", "!**/"]
    refs = ["../prompts/plain.md", "/prompts/plain.md", "prompts/plain.md", "/prompts/style.instructions.md",
            "../prompts/style.instructions.md", "/prompts/nested/deep.instructions.md", "prompts/nested/notes.md",
            "/docs/guide.md", "../docs/snippet.py", "/docs/prompts/inner.md",
            "docs/prompts/nested/leaf.instructions.md",
            "/.hidden/secret.instructions.md", "/docs/.dotfile.md", "/prompts/UPPER.MD", "../prompts/a.b.c.md",
            "/prompts/x{y}.md", "files/local.md", "./files/local.md"]
    rng = random.Random(424242)
    for n in range(40):
        patterns = []
        for _ in range(rng.randint(1, 3)):
            segs = [rng.choice(segments) for _ in range(rng.choice([0, 0, 1, 1, 2]))]
            patterns.append(rng.choice(prefixes) + "".join(seg + "/" for seg in segs) + rng.choice(finals))
        folder = f"g{n:02d}/"
        lay.file(folder + ".agentv/config.yaml", config_doc(patterns))
        lay.file(folder + "files/local.md", f"Local file of g{n:02d}.\n")
        cases = []
        for i, ref in enumerate(refs):
            cases.append(C(f"g{n:02d}-r{i:02d}-flat", [M("user", [F(ref), T("Q")])]))
            cases.append(C(f"g{n:02d}-r{i:02d}-turns", [M("user", "U"), M("assistant", "A"),
                                                          M("user", [F(ref), T("Q2")])]))
        lay.eval(folder + "eval.yaml", eval_doc(cases))
    return lay


def layout_cwd() -> Layout:
    """The working directory is a search root of its own; and an eval file may sit outside the repo root."""
    lay = Layout("cwd")
    lay.file(".agentv/config.yaml", config_doc(["**/*.instructions.md"]))
    lay.file("cwd-root-only-file.md", "Only at the layout folder.\n")
    lay.file("work/cwd-only-file.md", "Only in the working directory.\n")
    lay.file("work/sub/cwd-guide.instructions.md", "Guideline under the working directory.\n")
    lay.file("work/.agentv/config.yaml", config_doc(["**/*.md"]))
    lay.file("evals/cwd-eval-only.md", "Next to the eval file.\n")
    refs = ["cwd-only-file.md", "cwd-root-only-file.md", "sub/cwd-guide.instructions.md", "cwd-eval-only.md",
            "/cwd-only-file.md", "cwd-nowhere.md", "work/cwd-only-file.md"]
    cases = []
    for i, ref in enumerate(refs):
        cases.append(C(f"cwd-{i}-flat", [M("user", [F(ref), T("Q")])]))
        cases.append(C(f"cwd-{i}-system", [M("system", [F(ref)]), M("user", "Q")]))
        cases.append(C(f"cwd-{i}-turns", [M("user", "U"), M("assistant", "A"), M("user", [F(ref), T("Q")])]))
    lay.eval("evals/eval.yaml", eval_doc(cases))
    # run from work/ with the layout folder as the root; then with work/ itself as the root (eval file outside it)
    lay.runs.append({"eval": "evals/eval.yaml", "cwd": "work", "root": "."})
    lay.runs.append({"eval": "evals/eval.yaml", "cwd": "work", "root": "work"})
    return lay


def layout_big() -> Layout:
    """Files over 256 KiB with many cases: `turnlens export` cuts these into slices exported on several cores, so
    they test the sliced path (and its refusals) against the oracle. Long ignored `note`s keep the fixtures small."""
    lay = Layout("big")
    common_files(lay)
    lay.file(".agentv/config.yaml", config_doc(["**/*.instructions.md"]))
    lay.file("evals/files/a.txt", "alpha\n")
    note = Lit("\n".join(f"Padding line {i} that the reference ignores entirely." for i in range(55)), "|")
    shapes = [
        lambda n: C(f"big-{n:03d}", [M("user", f"Question {n}")], note=note),
        lambda n: C(f"big-{n:03d}", [M("system", [F("../prompts/style.instructions.md"), T("S")]),
                                     M("user", [F("files/a.txt"), T(f"Q{n}")])], note=note),
        lambda n: C(f"big-{n:03d}", [M("user", "U"), M("assistant", "A"), M("tool", [F("/docs/guide.md")]),
                                     M("user", f"Q{n}")], note=note, expected=[M("assistant", f"R{n}")]),
        lambda n: C(f"big-{n:03d}", [M("user", "missing outcome")], outcome=None, note=note),
        lambda n: C("big-dup", [M("user", f"dup {n}")], note=note),
        lambda n: C(f"big-{n:03d}", [M("user", f"Fence {n}\n```py\nx = {n}\n```")], note=note),
    ]
    cases = [shapes[n % len(shapes)](n) for n in range(96)]
    plain = eval_doc(cases)
    lay.eval("evals/big-plain.yaml", plain)
    lay.eval("evals/big-crlf.yaml", plain, crlf=True)
    lay.eval("evals/big-bom.yaml", "\ufeff" + plain)
    lines = plain.split("\n")
    late = max(i for i, line in enumerate(lines) if line.startswith("  - id: big-090"))
    lay.eval("evals/big-error-late.yaml", "\n".join(lines[:late + 1] + ["    outcome: [unclosed"] + lines[late + 1:]))
    lay.eval("evals/big-dupkey-late.yaml", "\n".join(lines[:late + 1] + ["    id: again"] + lines[late + 1:]))
    lay.eval("evals/big-latin1-late.yaml",
             "\n".join(lines[:late + 1] + ["    extra: caf\u00e9"] + lines[late + 1:]).encode("latin-1"))
    lay.eval("evals/big-items-at-column-0.yaml",
             "\n".join(line[2:] if line.startswith("  ") else line for line in lines))
    lay.eval("evals/big-trailing-key.yaml", plain + "description: a key after the cases\n")
    lay.eval("evals/big-comments.yaml", plain.replace("\n  - id: big-0", "\n# a comment at column 0\n  - id: big-0"))
    lay.eval("evals/big-anchor.yaml", plain.replace("outcome: The answer", "outcome: &o The answer", 1)
             + "  - id: big-alias\n    outcome: *o\n    input_messages: [{role: user, content: alias}]\n")
    return lay


def layout_yamlfuzz() -> Layout:
    """Seeded random one-to-three-character mutations of a small valid eval file: does the engine's YAML accept,
    refuse and read exactly what the reference's does?"""
    import random

    lay = Layout("yamlfuzz")
    lay.file(".agentv/config.yaml", config_doc(["**/*.instructions.md"]))
    lay.file("evals/g.instructions.md", "Guideline.\n")
    lay.file("evals/f.txt", "File.\n")
    base = (f"$schema: {EVAL_SCHEMA}\n"
            "evalcases:\n"
            "  - id: one\n"
            "    outcome: Says hi\n"
            "    input_messages:\n"
            "      - role: system\n"
            "        content:\n"
            "          - type: file\n"
            "            value: g.instructions.md\n"
            "          - type: text\n"
            "            value: Be kind\n"
            "      - role: user\n"
            "        content: |\n"
            "          Hello there\n"
            "          ```py\n"
            "          x = 1\n"
            "          ```\n"
            "  - id: two\n"
            "    outcome: 'Quoted: yes'\n"
            "    input_messages: [{role: user, content: \"A \\\"b\\\"\"}, {role: assistant, content: ok}]\n"
            "    expected_messages:\n"
            "      - role: assistant\n"
            "        content: >-\n"
            "          folded\n"
            "          text\n"
            "  - id: three\n"
            "    outcome: plain # comment\n"
            "    input_messages:\n"
            "      - {role: user, content: [{type: file, value: f.txt}, {type: text, value: q}]}\n")
    alphabet = list(":-#'\"\t []{}|>&*!%@`?,\\") + ["\n", "  ", "\r", "\u00a0", "\ufeff", "- ", ": "]
    rng = random.Random(31337)
    for n in range(400):
        text = base
        for _ in range(rng.randint(1, 3)):
            pos = rng.randrange(len(text))
            r = rng.random()
            if r < 0.55:
                text = text[:pos] + rng.choice(alphabet) + text[pos:]
            elif r < 0.85:
                text = text[:pos] + text[pos + 1:]
            else:
                lines = text.split("\n")
                i = rng.randrange(len(lines))
                text = "\n".join(lines[:i + 1] + [lines[i]] + lines[i + 1:])
        lay.eval(f"evals/m{n:03d}.yaml", text)
    # a second base with other constructs: anchors, block scalars with indicators, multi-line flows, quoted keys
    base2 = (f"# leading comment\n$schema: '{EVAL_SCHEMA}'\n"
             "evalcases:\n"
             "- id: \"a1\"\n"
             "  outcome: &o >\n"
             "    Folded\n"
             "    outcome\n"
             "  input_messages:\n"
             "  - role: user\n"
             "    content: |2-\n"
             "        indented\n"
             "      text\n"
             "  - {role: assistant,\n"
             "     content: 'multi\n"
             "       line'}\n"
             "- id: a2\n"
             "  outcome: *o\n"
             "  input_messages: [\n"
             "    {role: system, content: [{type: text, value: \"S\\tT\"}]},\n"
             "    {role: user, \"content\": key}\n"
             "  ]\n"
             "- ? id\n"
             "  : a3\n"
             "  outcome: !!str 12\n"
             "  input_messages:\n"
             "    - role: user\n"
             "      content:\n"
             "        - type: file\n"
             "          value: f.txt   # trailing comment\n"
             "...\n")
    for n in range(300):
        text = base2
        for _ in range(rng.randint(1, 2)):
            pos = rng.randrange(len(text))
            r = rng.random()
            if r < 0.6:
                text = text[:pos] + rng.choice(alphabet) + text[pos:]
            else:
                text = text[:pos] + text[pos + 1:]
        lay.eval(f"evals/n{n:03d}.yaml", text)
    return lay


# --------------------------------------------------------------------------------------------------------------
# Layout: evaluators — a suite's `execution.evaluators`, which a case without its own evaluators and without an
# `execution` mapping inherits (`execution: fast` too), and 1.x-3.x files without `$schema`.


def layout_evaluators() -> Layout:
    lay = Layout("evaluators")
    lay.file("prompts/judge.md", "Judge {{ candidate_answer }} against {{ expected_outcome }} for {{ question }}.\n")
    hi = [M("user", "hi")]
    suite = {"evaluators": [
        {"name": "suite-judge", "type": "llm_judge"},
        {"name": "suite-file-judge", "type": "llm_judge", "prompt": "prompts/judge.md"},
        {"name": "suite-code", "type": "code", "script": "run.sh"},
    ]}  # fmt: skip
    own = [{"name": "own-judge", "type": "llm_judge"}]
    lay.eval("evals/inherit.yaml", eval_doc([
        C("no-execution", hi),
        C("execution-empty", hi, execution={}),
        C("execution-fast", hi, execution="fast"),
        C("execution-null", hi, execution=None),
        C("execution-list", hi, execution=[1]),
        C("execution-target", hi, execution={"target": "x"}),
        C("execution-evaluators-null", hi, execution={"evaluators": None}),
        C("own", hi, evaluators=own),
        C("own-empty", hi, evaluators=[]),
        C("own-null", hi, evaluators=None),
        C("own-invalid", hi, evaluators=[{"name": "x", "type": "nope"}]),
        C("execution-empty-own", hi, execution={}, evaluators=own),
        C("execution-fast-own", hi, execution="fast", evaluators=own),
        C("execution-fast-own-empty", hi, execution="fast", evaluators=[]),
        C("execution-own", hi, execution={"evaluators": own}),
    ], {"execution": suite}))
    lay.eval("evals/suite-empty.yaml", eval_doc([C("a", hi)], {"execution": {"evaluators": []}}))
    lay.eval("evals/suite-invalid.yaml", eval_doc([C("a", hi), C("b", hi)],
                                                  {"execution": {"evaluators": [{"name": "x", "type": "bad"}]}}))
    lay.eval("evals/suite-not-list.yaml", eval_doc([C("a", hi)], {"execution": {"evaluators": "llm_judge"}}))
    lay.eval("evals/suite-execution-fast.yaml", eval_doc([C("a", hi)], {"execution": "fast"}))
    old = "  - id: a\n    expected_outcome: o\n    input_messages: [{role: user, content: hi}]\n"
    lay.eval("evals/no-schema-1x.yaml", "evalcases:\n" + old)
    lay.eval("evals/no-schema-mixed.yaml", "evalcases:\n" + old + "  - id: b\n    criteria: c\n    input: hi\n"
             "    input_messages: [{role: user, content: hi}]\n")
    return lay


def layout_evaluators_fuzz() -> Layout:
    """Seeded random suite and case evaluators: which cases inherit the suite's `execution.evaluators` (no evaluators
    of their own, no `execution` mapping), with judges, prompt files, code evaluators and invalid entries."""
    import random

    rng = random.Random(1815)
    lay = Layout("evalfuzz")
    lay.file("prompts/judge.md", "Judge {{ candidate_answer }} vs {{ expected_outcome }}.\nQ: {{ question }}\n")
    lay.file("prompts/plain.md", "No variables here.\n")
    texts = ["Hello", "", "Line 1\nLine 2", "```py\nx = 1\n```", "  padded  "]

    def evaluator():
        r = rng.random()
        if r < 0.45:
            ev = {"name": rng.choice(["judge", "j2", "quality"]), "type": "llm_judge"}
            if rng.random() < 0.5:
                ev["prompt"] = rng.choice(["prompts/judge.md", "prompts/plain.md", "missing.md", "Inline {{ question }}"])
            return ev
        if r < 0.7:
            ev = {"name": "runner", "type": "code"}
            if rng.random() < 0.8:
                ev["script"] = rng.choice(["run.sh", ""])
            return ev
        return rng.choice([{"name": "", "type": "llm_judge"}, {"name": "x", "type": "rubric"}, "judge", None, 5])

    def evaluators():
        r = rng.random()
        if r < 0.1:
            return rng.choice([None, [], "llm_judge", {"name": "x"}])
        return [evaluator() for _ in range(rng.randint(1, 3))]

    n = 0
    for f in range(8):
        extra = {}
        r = rng.random()
        if r < 0.6:
            extra["execution"] = {"evaluators": evaluators()}
        elif r < 0.7:
            extra["execution"] = rng.choice(["fast", None, {"target": "x"}])
        cases = []
        for _ in range(50):
            n += 1
            case_extra = {}
            r = rng.random()
            if r < 0.15:
                case_extra["evaluators"] = evaluators()
            elif r < 0.25:
                case_extra["execution"] = {"evaluators": evaluators()}
            elif r < 0.35:
                case_extra["execution"] = rng.choice(["fast", None, {}, {"target": "t"}, [1]])
            elif r < 0.4:
                case_extra["execution"] = rng.choice(["fast", {}])
                case_extra["evaluators"] = evaluators()
            messages = [M(rng.choice(["system", "user", "user", "assistant"]), rng.choice(texts))
                        for _ in range(rng.randint(1, 3))]
            cases.append(C(f"ev-{n:03d}", messages, outcome=rng.choice(["Be right.", "Be right.", ""]), **case_extra))
        lay.eval(f"evals/evalfuzz-{f}.yaml", eval_doc(cases, extra))
    return lay


def all_layouts(abs_root: str) -> list[Layout]:
    return [layout_basic(), layout_patterns(), layout_configs(), layout_noconfig(), layout_loaderrors(),
            layout_abspath(abs_root), layout_dotfolder(), layout_fuzz(), layout_globfuzz(),
            layout_cwd(), layout_fuzzdeep(), layout_big(), layout_yamlfuzz(), layout_evaluators(),
            layout_evaluators_fuzz()]


def write(out: Path, abs_root: str | None = None) -> dict:
    out = out.resolve()
    abs_root = abs_root or str(out / "abspath")
    layouts = all_layouts(abs_root)
    for lay in layouts:
        root = out / lay.name
        if root.exists():
            shutil.rmtree(root)
        for rel in sorted(lay.files):
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(lay.files[rel])
        for rel, target in sorted(lay.links.items()):
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, p)
    manifest = {
        "generator": "tests/corpus/generate.py",
        "abspath_root": abs_root,
        "layouts": {lay.name: {"evals": lay.evals, **({"runs": lay.runs} if lay.runs else {})} for lay in layouts},
    }
    (out / "layouts.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    # keep every byte as generated (CRLF, BOM, binary): git must not touch line endings here
    (out / ".gitattributes").write_text("* -text\n", encoding="utf-8")
    return manifest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE), help="output folder (default: tests/corpus)")
    ap.add_argument("--abs-root", default=None, help="absolute root written into the abspath layout "
                    "(default: <out>/abspath)")
    args = ap.parse_args(argv)
    manifest = write(Path(args.out), args.abs_root)
    n = sum(len(v["evals"]) for v in manifest["layouts"].values())
    print(f"wrote {len(manifest['layouts'])} layouts, {n} eval files under {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
