"""Generate the AgentV 4.42.4 corpus: suites, datasets, skills files and the files they reference, in layouts.

Each layout is a folder under tests/corpus4/ standing for a repository: it is the repo root when the oracle is
recorded (`cd LAYOUT && node agentv-4.42.4-oracle.cjs EVAL_FILE .`), unless layouts.json lists a run with another
working directory or root. `probes/` is not generated: it holds copies of the probe files published with the
4.42.4 oracle (FORMAT.md cites them as [pNN]/[lNN]) and is recorded like a layout.

Deterministic (seeded randomness, no dates). Run:

    .venv/bin/python tests/corpus4/generate.py             # rewrites the generated layouts
    .venv/bin/python tests/corpus4/generate.py --out DIR   # writes elsewhere (for the up-to-date check)

Absolute paths never appear in the files: an absolute file reference is written `${{ CORPUS_ROOT }}/...` and the
recorder sets CORPUS_ROOT to the layout's absolute path (so the corpus does not depend on the checkout location).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 4424
GENERATED = ("suites", "fuzz", "refused", "dotenv", "monorepo", "edges", "fuzzwide")

# The environment every generated layout is recorded with (values as the oracle sees them). CORPUS_ROOT is
# filled in with the layout's absolute path at record time.
CORPUS_ENV = {
    "CORPUS_TXT": "hello",
    "CORPUS_NUM": "42",
    "CORPUS_NEG": "-7",
    "CORPUS_DEC": "3.25",
    "CORPUS_LEADING_ZERO": "007",
    "CORPUS_TRUE": "true",
    "CORPUS_FALSE": "false",
    "CORPUS_TITLE_TRUE": "True",
    "CORPUS_EMPTY": "",
    "CORPUS_SPACES": "  padded  ",
    "CORPUS_MULTILINE": "first line\nsecond line",
    "CORPUS_FILE": "files/notes.md",
    "CORPUS_ROLE": "system",
    "CORPUS_BRACES": "{{ name }}",
    "CORPUS_CASES": "./cases/one.yaml",
    "CORPUS_FLOATISH": "1.50",
    "CORPUS_NEG_ZERO": "-0",
    "CORPUS_BIG": "12345678901234567890",
    "CORPUS_EXP": "1e5",
    "CORPUS_PLUS": "+1",
    "CORPUS_ROOT": "<ROOT>",
}

# Referenced files (bytes exact). Written into a layout's files/ folder.
FILES: dict[str, bytes] = {
    "code.py": b"def add(a, b):\n    return a + b\n",
    "notes.md": b"# Notes\n\nShip on Friday.\n",
    "blank.md": b"   \n\t\n",
    "empty.md": b"",
    "crlf.txt": b"line one\r\nline two\r\n",
    "lone-cr.txt": b"alpha\rbeta\r\ngamma",
    "padded.md": b"\n\n  padded content  \n\n",
    "fence.md": b"Example:\n\n```python\nprint('hi')\n```\n",
    "unicode.md": (
        "Caf\u00e9 \u2014 \u65e5\u672c\u8a9e \u2028sep\u2029para \u0085nel \U0001f469\u200d\U0001f4bb\n"
    ).encode(),
    "latin1.txt": b"caf\xe9 cr\xe8me\n",
    "bom.md": b"\xef\xbb\xbfWith a BOM\n",
    "tabs.tsv": b"a\tb\tc\n1\t2\t3\n",
    "control.txt": b"bell\x07 esc\x1b[31mred\x1b[0m nul\x00end\n",
    "style.instructions.md": b"Prefer short answers.\n",
    "pixel.png": bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005"
        "0001ffa65ebf5e0000000049454e44ae426082"
    ),
    "diagram.svg": b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n',
    "photo.JPG": b"\xff\xd8\xff\xe0fakejpeg",
    "photo.jpeg": b"\xff\xd8\xff\xe0fakejpeg",
    "anim.gif": b"GIF89a\x01\x00\x01\x00",
    "shot.webp": b"RIFF\x00\x00\x00\x00WEBP",
    "icon.bmp": b"BM\x00\x00",
    "not-an-image.txt": b"plain text pretending\n",
    "spaced name.md": b"A file name with a space.\n",
    "data.json": b'{"order": 4711, "status": "shipped"}\n',
}


class Writer:
    def __init__(self, out: Path):
        self.out = out
        self.layouts: dict[str, dict] = {}

    def layout(self, name: str, description: str) -> dict:
        lay = {"description": description, "evals": [], "runs": []}
        self.layouts[name] = lay
        return lay

    def file(self, layout: str, rel: str, data: str | bytes) -> None:
        path = self.out / layout / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    def eval(self, layout: str, rel: str, data: str | bytes) -> None:
        self.file(layout, rel, data)
        self.layouts[layout]["evals"].append(rel)

    def files(self, layout: str, folder: str = "files") -> None:
        for name, data in FILES.items():
            self.file(layout, f"{folder}/{name}", data)
        (self.out / layout / folder / "subdir").mkdir(parents=True, exist_ok=True)
        self.file(layout, f"{folder}/subdir/inner.md", b"Inside a folder.\n")


def tests_yaml(header: str, body: str) -> str:
    return (header + "tests:\n" + body) if header else ("tests:\n" + body)


# ----------------------------------------------------------------------------------------------------------------
# suites/: hand-written suites, one per feature, evals under evals/ as AgentV 4 finds them.

SHORTHANDS = r"""description: every shape `input` can take
tests:
  - id: string-input
    criteria: c
    input: What is the capital of France?
  - id: string-input-block-keep
    criteria: c
    input: |+
      Line one.

      Line two.

  - id: string-input-blank
    criteria: c
    input: "   "
  - id: string-input-empty
    criteria: c
    input: ""
  - id: object-without-role
    criteria: c
    input: {ticket: 4711, text: "Where is my order?", tags: [late, urgent]}
  - id: object-empty
    criteria: c
    input: {}
  - id: object-with-role-user
    criteria: c
    input: {role: user, content: "Only me."}
  - id: object-with-role-system
    criteria: c
    input: {role: system, content: "System only."}
  - id: object-with-role-assistant
    criteria: c
    input: {role: assistant, content: "Assistant only."}
  - id: object-with-role-tool
    criteria: c
    input: {role: tool, content: "Tool output only."}
  - id: object-with-role-and-extra-keys
    criteria: c
    input: {role: user, content: "Extra keys.", name: alice, tool_call_id: t1}
  - id: object-with-bad-role
    criteria: c
    input: {role: developer, content: "Dev note."}
  - id: object-with-role-no-content
    criteria: c
    input: {role: user}
  - id: array-of-messages
    criteria: c
    input:
      - role: system
        content: Be brief.
      - role: user
        content: Hello.
  - id: array-with-invalid-elements
    criteria: c
    input:
      - just a string
      - 42
      - null
      - {content: "no role"}
      - {role: developer, content: "bad role"}
      - {role: User, content: "capitalised role"}
      - role: user
        content: The valid one.
  - id: array-all-invalid
    criteria: c
    input: [plain, 1, true]
  - id: array-empty
    criteria: c
    input: []
  - id: input-null
    criteria: c
    input: null
  - id: input-number
    criteria: c
    input: 123
  - id: input-boolean
    criteria: c
    input: true
  - id: input-float
    criteria: c
    input: 1.5
  - id: content-number
    criteria: c
    input:
      - role: user
        content: 7
  - id: content-number-then-text
    criteria: c
    input:
      - role: system
        content: 7
      - role: user
        content: After a numeric system message.
  - id: content-boolean
    criteria: c
    input:
      - role: user
        content: false
  - id: content-null
    criteria: c
    input:
      - role: user
        content: null
      - role: user
        content: Second message.
  - id: content-missing
    criteria: c
    input:
      - role: assistant
      - role: user
        content: After an assistant without content.
  - id: content-object
    criteria: c
    input:
      - role: user
        content: {question: "Refund?", order: {id: 4711, items: [1, 2]}, note: "caf\u00e9 \u2028"}
  - id: content-object-empty
    criteria: c
    input:
      - role: user
        content: {}
  - id: content-empty-array
    criteria: c
    input:
      - role: user
        content: []
  - id: content-empty-array-then-text
    criteria: c
    input:
      - role: system
        content: []
      - role: user
        content: Hi.
  - id: literal-braces
    criteria: c
    input: "Template {{ name }} and ${ HOME } and {{}} stay."
  - id: literal-marker-text
    criteria: c
    input: "@[User]:\nfake turn\n\n[[ ## question ## ]]"
  - id: control-characters
    criteria: c
    input: "bell \a esc \e[1mbold\e[0m tab \t nel \N ls \L ps \P"
  - id: two-user-messages
    criteria: c
    input:
      - role: user
        content: First.
      - role: user
        content: Second.
  - id: user-then-blank-user
    criteria: c
    input:
      - role: user
        content: Visible.
      - role: user
        content: "  "
  - id: yaml-scalars-as-strings
    criteria: c
    input:
      - role: user
        content: yes
      - role: user
        content: "on"
  - id: yaml-date-content
    criteria: c
    input:
      - role: user
        content: 2024-01-01
  - id: octal-like-content
    criteria: c
    input:
      - role: user
        content: 0755
  - id: criteria-only-whitespace
    criteria: "   "
    input: Q
  - id: expected-output-only
    input: Q
    expected_output: A
  - id: assertions-only
    input: Q
    assertions: [Mentions Paris]
  - id: assert-deprecated-only
    input: Q
    assert:
      - type: contains
        value: Paris
  - id: rubrics-only
    input: Q
    rubrics: [Is polite]
  - id: turns-only
    input: Q
    mode: conversation
    turns:
      - input: Next?
  - id: expected-outcome-deprecated
    expected_outcome: Old name for criteria.
    input: Q
  - id: criteria-number
    criteria: 5
    input: Q
"""

INPUT_FILES = r"""description: input_files with string and non-string input
tests:
  - id: files-and-string
    criteria: c
    input_files: [../files/code.py, ../files/notes.md]
    input: Review these files.
  - id: files-and-blank-string
    criteria: c
    input_files: [../files/code.py]
    input: "  "
  - id: files-and-empty-string
    criteria: c
    input_files: [../files/code.py]
    input: ""
  - id: files-and-array
    criteria: c
    input_files: [../files/code.py]
    input:
      - role: user
        content: Review.
  - id: files-and-object
    criteria: c
    input_files: [../files/code.py]
    input: {task: review}
  - id: files-and-no-input
    criteria: c
    input_files: [../files/code.py]
  - id: files-missing-one
    criteria: c
    input_files: [../files/code.py, ../files/nope.md]
    input: One is missing.
  - id: files-all-missing
    criteria: c
    input_files: [nope-a.md, nope-b.md]
    input: All missing.
  - id: files-empty-list
    criteria: c
    input_files: []
    input: Empty list.
  - id: files-as-string
    criteria: c
    input_files: ../files/code.py
    input: A string, not a list.
  - id: files-with-non-strings
    criteria: c
    input_files: [../files/code.py, 42, null, {value: x}]
    input: Odd entries.
  - id: files-blank-whitespace-zero
    criteria: c
    input_files: [../files/blank.md, ../files/empty.md, ../files/padded.md]
    input: Odd files.
  - id: files-crlf-and-cr
    criteria: c
    input_files: [../files/crlf.txt, ../files/lone-cr.txt]
    input: Line ends.
  - id: files-leading-slash
    criteria: c
    input_files: [/files/notes.md]
    input: Leading slash.
  - id: files-dot-slash
    criteria: c
    input_files: [./shared/where.md]
    input: Dot slash.
  - id: files-image
    criteria: c
    input_files: [../files/pixel.png]
    input: An image as input file.
  - id: files-folder
    criteria: c
    input_files: [../files/subdir]
    input: A folder.
  - id: files-duplicate
    criteria: c
    input_files: [../files/notes.md, ../files/notes.md]
    input: Twice.
  - id: files-with-system-suite-like
    criteria: c
    input_files: [../files/fence.md]
    input: |
      Multi-line question
      with a trailing newline.
  - id: files-with-vars
    criteria: c
    vars: {doc: notes}
    input_files: ["../files/{{ doc }}.md"]
    input: "About {{ doc }}."
  - id: files-with-env
    criteria: c
    input_files: ["${{ CORPUS_FILE }}"]
    input: From the environment.
  - id: files-absolute-via-env
    criteria: c
    input_files: ["${{ CORPUS_ROOT }}/files/code.py"]
    input: Absolute path.
  - id: files-absolute-missing
    criteria: c
    input_files: [/definitely/not/here/file.md]
    input: Absolute missing.
  - id: files-unicode-and-latin1
    criteria: c
    input_files: [../files/unicode.md, ../files/latin1.txt, ../files/bom.md]
    input: Encodings.
  - id: files-space-in-name
    criteria: c
    input_files: ["../files/spaced name.md"]
    input: Spaces.
"""

SUITE_INPUT_STRING = r"""description: suite input as a string
input: You are reviewing a pull request.
tests:
  - id: both-strings
    criteria: c
    input: Is this safe?
  - id: test-array
    criteria: c
    input:
      - role: system
        content: Test system.
      - role: user
        content: Test user.
  - id: skip-defaults
    criteria: c
    execution: {skip_defaults: true}
    input: Only mine.
  - id: skip-defaults-false
    criteria: c
    execution: {skip_defaults: false}
    input: Suite too.
  - id: no-own-input
    criteria: c
  - id: own-input-blank
    criteria: c
    input: "   "
  - id: test-with-input-files
    criteria: c
    input_files: [../../files/code.py]
    input: With a file.
"""

SUITE_INPUT_MESSAGES = r"""description: suite input as messages, with vars
input:
  - role: system
    content: "You help {{ customer }} with {{ product.name }}."
  - role: user
    content:
      - type: text
        value: Context follows.
      - type: file
        value: ../../files/notes.md
tests:
  - id: vars-reach-suite-input
    vars: {customer: Ada, product: {name: Widget}}
    criteria: c
    input: Where is my order?
  - id: missing-vars-in-suite-input
    criteria: c
    input: No vars here.
  - id: suite-plus-tool-turn
    vars: {customer: Bo, product: {name: Gadget}}
    criteria: c
    input:
      - role: assistant
        content: Looking it up.
      - role: tool
        content: '{"status": "shipped"}'
      - role: user
        content: And?
  - id: suite-skipped
    criteria: c
    execution: {skip_defaults: true}
    input: Alone.
"""

SUITE_INPUT_OBJECT = r"""description: suite input as one object
input: {role: system, content: Suite object message.}
tests:
  - id: object-suite
    criteria: c
    input: Hi.
  - id: object-suite-object-test
    criteria: c
    input: {topic: billing}
"""

SUITE_INPUT_FILES = r"""description: suite input_files default
input_files: [../../files/code.py, ../../files/crlf.txt]
tests:
  - id: string-input-gets-suite-files
    criteria: c
    input: Explain.
  - id: array-input-skipped
    criteria: c
    input:
      - role: user
        content: Explain.
  - id: array-input-skip-defaults
    criteria: c
    execution: {skip_defaults: true}
    input:
      - role: user
        content: Explain.
  - id: string-input-skip-defaults
    criteria: c
    execution: {skip_defaults: true}
    input: Explain without files.
  - id: own-files-win
    criteria: c
    input_files: [../../files/notes.md]
    input: Mine.
  - id: own-empty-files
    criteria: c
    input_files: []
    input: Empty own list.
"""

SUITE_INPUT_FILES_VARS = r"""description: suite input_files interpolated with each test's vars
input_files: ["../../files/{{ name }}"]
input: "Suite says {{ greeting }}"
tests:
  - id: vars-pick-code
    vars: {name: code.py, greeting: hi}
    criteria: c
    input: One.
  - id: vars-pick-notes
    vars: {name: notes.md, greeting: hello}
    criteria: c
    input: Two.
  - id: vars-missing
    criteria: c
    input: Three.
"""

SUITE_INPUT_FILES_EMPTY = r"""description: suite input_files empty list
input_files: []
tests:
  - id: without-own
    criteria: c
    input: Q
  - id: with-own
    criteria: c
    input_files: [../../files/notes.md]
    input: Q
  - id: skip-defaults-without-own
    criteria: c
    execution: {skip_defaults: true}
    input: Q
"""

SUITE_INPUT_FILES_STRING = r"""description: suite input_files as a plain string
input_files: ../../files/code.py
tests:
  - id: without-own
    criteria: c
    input: Q
  - id: skip-defaults
    criteria: c
    execution: {skip_defaults: true}
    input: Q
"""

SUITE_ASSERTIONS = r"""description: suite assertions appended
assertions:
  - Mentions the refund policy
  - type: contains
    value: refund
    weight: 2
tests:
  - id: criteria-and-suite-assertions
    criteria: Offers a refund.
    input: I want my money back.
  - id: own-assertions
    input: Q
    assertions: [Is polite]
  - id: skip-defaults-no-criteria
    execution: {skip_defaults: true}
    input: Q
  - id: expected-output-reference
    input: Q
    expected_output: The refund is on its way.
"""

ENV = r"""description: "${{ CORPUS_TXT }} env interpolation"
tests:
  - id: env-partial
    criteria: "criteria ${{ CORPUS_TXT }}"
    input: "Value [${{ CORPUS_TXT }}] [${{CORPUS_TXT}}] [${{   CORPUS_TXT   }}]"
  - id: env-missing
    criteria: c
    input: "Missing [${{ CORPUS_UNSET }}] stays empty."
  - id: env-empty-value
    criteria: c
    input: "Empty [${{ CORPUS_EMPTY }}]"
  - id: env-whole-missing
    criteria: c
    input: "${{ CORPUS_UNSET }}"
  - id: env-whole-empty
    criteria: c
    input: "${{ CORPUS_EMPTY }}"
  - id: env-whole-number
    criteria: c
    input: "${{ CORPUS_NUM }}"
  - id: env-whole-negative
    criteria: c
    input: "${{ CORPUS_NEG }}"
  - id: env-whole-decimal
    criteria: c
    input: "${{ CORPUS_DEC }}"
  - id: env-whole-leading-zero
    criteria: c
    input: "${{ CORPUS_LEADING_ZERO }}"
  - id: env-whole-true
    criteria: c
    input: "${{ CORPUS_TRUE }}"
  - id: env-whole-false
    criteria: c
    input: "${{ CORPUS_FALSE }}"
  - id: env-whole-title-true
    criteria: c
    input: "${{ CORPUS_TITLE_TRUE }}"
  - id: env-whole-string
    criteria: c
    input: "${{ CORPUS_TXT }}"
  - id: env-whole-spaces
    criteria: c
    input: "${{ CORPUS_SPACES }}"
  - id: env-whole-with-trailing-space
    criteria: c
    input: "${{ CORPUS_NUM }} "
  - id: env-whole-with-newline
    criteria: c
    input: "${{ CORPUS_NUM }}\n"
  - id: env-multiline
    criteria: c
    input: "Before\n${{ CORPUS_MULTILINE }}\nAfter"
  - id: env-number-in-content
    criteria: c
    input:
      - role: user
        content: "${{ CORPUS_NUM }}"
      - role: user
        content: After a numeric content.
  - id: env-number-in-text-segment
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: "${{ CORPUS_NUM }}"
          - type: text
            value: Text after.
  - id: env-true-in-criteria
    criteria: "${{ CORPUS_TRUE }}"
    input: Q
  - id: env-number-as-criteria
    criteria: "${{ CORPUS_NUM }}"
    input: Q
  - id: env-number-id
    criteria: c
    input: Q
  - id: "${{ CORPUS_NUM }}"
    criteria: c
    input: Numeric id after interpolation.
  - id: "id-${{ CORPUS_TXT }}"
    criteria: c
    input: Id built from the environment.
  - id: env-role
    criteria: c
    input:
      - role: "${{ CORPUS_ROLE }}"
        content: Role from env.
      - role: user
        content: Q
  - id: env-braces-not-reinterpolated
    vars: {name: Ada}
    criteria: c
    input: "Env gives ${{ CORPUS_BRACES }} literally?"
  - id: env-in-file-path
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: "${{ CORPUS_FILE }}"
  - id: env-bad-name
    criteria: c
    input: "Not a name: ${{ 1BAD }} ${{ A-B }} ${{}}"
  - id: env-in-expected-output
    input: Q
    expected_output: "Expected ${{ CORPUS_TXT }}"
  - id: env-dollar-single-brace
    criteria: c
    input: "Shell style ${CORPUS_TXT} and $CORPUS_TXT stay."
"""

VARS = r"""description: "{{ var }} interpolation from vars"
tests:
  - id: vars-inline-scalars
    vars: {name: Ada, n: 3, ok: true, none: null, pi: 3.14}
    criteria: "Greets {{ name }} {{n}} times"
    input: "Hello {{ name }}, n={{ n }}, ok={{ ok }}, none={{ none }}, pi={{pi}}"
  - id: vars-inline-objects
    vars: {obj: {k: v, list: [1, 2]}, list: [a, {b: c}], empty: {}, emptylist: []}
    criteria: c
    input: "obj {{ obj }} list {{ list }} empty {{ empty }} {{ emptylist }}"
  - id: vars-dotted
    vars: {user: {name: Ada, address: {city: Paris}}, list: [x, y]}
    criteria: c
    input: "{{ user.name }} lives in {{ user.address.city }}; {{ user.missing }}; {{ list.0 }}; {{ user.name.first }}"
  - id: vars-missing
    criteria: "{{ missing }} criteria"
    input: "{{ missing }} stays, {{ also.missing }} too"
  - id: vars-whole-value-messages
    vars:
      msgs:
        - role: system
          content: From vars.
        - role: user
          content: Hi from vars.
    criteria: c
    input: "{{ msgs }}"
  - id: vars-whole-value-string
    vars: {q: "Whole value question"}
    criteria: c
    input: "{{ q }}"
  - id: vars-whole-value-number
    vars: {n: 42}
    criteria: c
    input: "{{ n }}"
  - id: vars-whole-value-object
    vars: {o: {ticket: 1, text: help}}
    criteria: c
    input: "{{o}}"
  - id: vars-whole-value-missing
    criteria: c
    input: "{{ nothing }}"
  - id: vars-whole-value-trailing-newline
    vars: {msgs: [{role: user, content: listed}]}
    criteria: c
    input: "{{ msgs }}\n"
  - id: vars-in-content
    vars: {city: Lyon}
    criteria: c
    input:
      - role: user
        content: "Weather in {{ city }}?"
      - role: user
        content:
          - type: text
            value: "Also {{ city }}"
          - "string item {{ city }}"
  - id: vars-whole-value-content
    vars: {c: {a: 1}}
    criteria: c
    input:
      - role: user
        content: "{{ c }}"
  - id: vars-in-expected-output
    vars: {answer: Paris}
    criteria: c
    input: Q
    expected_output: "It is {{ answer }}."
  - id: vars-whole-value-expected-output
    vars: {exp: [{role: assistant, content: "From vars"}]}
    criteria: c
    input: Q
    expected_output: "{{ exp }}"
  - id: vars-in-file-value
    vars: {f: notes.md}
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: "../files/{{ f }}"
  - id: vars-not-a-mapping
    vars: [1, 2]
    criteria: c
    input: "{{ 0 }} {{ x }}"
  - id: vars-string-value
    vars: "not an object"
    criteria: c
    input: "{{ x }}"
  - id: vars-names
    vars: {_u: under, a1: digit, "with-dash": dash, "sp ace": space}
    criteria: c
    input: "{{ _u }} {{a1}} {{ with-dash }} {{ sp ace }} {{1x}}"
  - id: vars-recursive-text
    vars: {a: "{{ b }}", b: final}
    criteria: c
    input: "{{ a }}"
  - id: vars-unicode-and-quotes
    vars: {s: "caf\u00e9 \"quoted\" \u2028 line"}
    criteria: c
    input: "inline {{ s }}"
  - id: vars-criteria-only-var
    vars: {crit: {k: 1}}
    criteria: "{{ crit }}"
    input: Q
  - id: vars-in-role-not-interpolated
    vars: {r: user}
    criteria: c
    input:
      - role: "{{ r }}"
        content: Role from vars?
      - role: user
        content: Q
  - id: vars-with-env
    vars: {who: "${{ CORPUS_TXT }}"}
    criteria: c
    input: "Var from env: {{ who }}"
"""

CONTENT = r"""description: content arrays
tests:
  - id: string-items
    criteria: c
    input:
      - role: user
        content: [First string item., "  ", "", Second string item.]
  - id: text-objects
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: Text one.
          - type: text
            value: "   "
          - type: text
            value: ""
          - type: text
            value: Text two.
  - id: blank-texts-only
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: "  "
          - type: text
            value: "\n"
  - id: blank-texts-in-visible-message
    criteria: c
    input:
      - role: system
        content: Sys.
      - role: user
        content:
          - type: text
            value: Question?
          - type: text
            value: "   "
  - id: blank-text-leading-system
    criteria: c
    input:
      - role: system
        content:
          - type: text
            value: "   "
      - role: user
        content: U
  - id: blank-text-leading-system-with-assistant
    criteria: c
    input:
      - role: system
        content:
          - type: text
            value: "   "
      - role: user
        content: U
      - role: assistant
        content: A
  - id: non-string-text-values
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: 42
          - type: text
            value: {k: v}
          - type: text
          - type: text
            value: Real text.
  - id: unknown-types
    criteria: c
    input:
      - role: user
        content:
          - type: video
            value: clip.mp4
          - type: text
            value: Around the unknown.
          - type: tool_use
            name: search
          - {value: no type}
  - id: unknown-only
    criteria: c
    input:
      - role: system
        content:
          - type: audio
            value: a.mp3
      - role: user
        content: Q
  - id: images
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: Describe these.
          - type: image
            value: ../files/pixel.png
          - type: image
            value: ../files/diagram.svg
          - type: image
            value: ../files/photo.JPG
          - type: image
            value: ../files/photo.jpeg
          - type: image
            value: ../files/anim.gif
          - type: image
            value: ../files/shot.webp
          - type: image
            value: ../files/icon.bmp
  - id: image-only-message
    criteria: c
    input:
      - role: system
        content: Sys.
      - role: user
        content:
          - type: image
            value: ../files/pixel.png
  - id: image-missing
    criteria: c
    input:
      - role: user
        content:
          - type: image
            value: ../files/no-such.png
          - type: text
            value: Missing image.
  - id: image-bad-extension
    criteria: c
    input:
      - role: user
        content:
          - type: image
            value: ../files/not-an-image.txt
          - type: text
            value: Wrong extension.
  - id: image-in-expected
    criteria: c
    input: Q
    expected_output:
      - role: assistant
        content:
          - type: image
            value: ../files/pixel.png
  - id: mixed-items
    criteria: c
    input:
      - role: user
        content:
          - Plain string first.
          - type: file
            value: ../files/code.py
          - 17
          - null
          - [nested, list]
          - type: text
            value: Last.
  - id: non-object-items-only
    criteria: c
    input:
      - role: user
        content: [1, true, null]
      - role: user
        content: Q
  - id: file-value-not-string
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: 12
          - type: file
          - type: text
            value: After odd files.
  - id: text-with-extra-keys
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: Has extras.
            cache_control: {type: ephemeral}
  - id: type-case
    criteria: c
    input:
      - role: user
        content:
          - type: Text
            value: Capital T.
          - type: TEXT
            value: Upper.
          - type: text
            value: Lower.
  - id: system-array-then-user-array
    criteria: c
    input:
      - role: system
        content:
          - Rule one.
          - type: text
            value: Rule two.
      - role: user
        content:
          - type: text
            value: Q
"""

FILES_SUITE = r"""description: file references and path resolution
tests:
  - id: file-plain
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: Review.
          - type: file
            value: ../files/code.py
  - id: file-missing
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: Review.
          - type: file
            value: ../files/missing.py
  - id: file-missing-only
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: nowhere.md
  - id: file-blank-whitespace
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: Blank file.
          - type: file
            value: ../files/blank.md
  - id: file-blank-only-system
    criteria: c
    input:
      - role: system
        content:
          - type: file
            value: ../files/blank.md
      - role: user
        content: Q
  - id: file-zero-byte
    criteria: c
    input:
      - role: system
        content: Sys.
      - role: user
        content:
          - type: text
            value: Zero.
          - type: file
            value: ../files/empty.md
  - id: file-zero-byte-only
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../files/empty.md
  - id: file-crlf
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../files/crlf.txt
          - type: file
            value: ../files/lone-cr.txt
  - id: file-padded
    criteria: c
    input:
      - role: system
        content: S
      - role: user
        content:
          - type: file
            value: ../files/padded.md
  - id: file-leading-slash
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: /files/notes.md
  - id: file-leading-double-slash
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: //files/notes.md
  - id: file-leading-backslash
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: \files\notes.md
  - id: file-dot-slash
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ./shared/where.md
  - id: file-dot-dot
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../files/notes.md
  - id: file-dot-dot-escaping
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../../../outside.md
  - id: file-found-at-root
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: files/notes.md
  - id: file-nearest-wins
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: shared/where.md
  - id: file-root-only
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: root-only.md
  - id: file-absolute-existing
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: "${{ CORPUS_ROOT }}/files/code.py"
  - id: file-absolute-missing
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: /no/such/absolute/file.md
  - id: file-folder
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: A folder.
          - type: file
            value: ../files/subdir
  - id: file-unicode
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../files/unicode.md
  - id: file-latin1-bom-control
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../files/latin1.txt
          - type: file
            value: ../files/bom.md
          - type: file
            value: ../files/control.txt
  - id: file-binary
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../files/pixel.png
  - id: file-fence
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: "Look:\n```js\nx()\n```"
          - type: file
            value: ../files/fence.md
  - id: file-instructions-md
    criteria: c
    input:
      - role: system
        content:
          - type: file
            value: ../files/style.instructions.md
      - role: user
        content: Please help.
  - id: file-in-tool-turn
    criteria: c
    input:
      - role: user
        content: Get the order.
      - role: tool
        content:
          - type: file
            value: ../files/data.json
  - id: file-spaces-and-empty
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: "../files/spaced name.md"
          - type: file
            value: ""
          - type: file
            value: "   "
  - id: file-trailing-slash
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../files/notes.md/
  - id: file-dot-segments
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: ../files/./subdir/../notes.md
"""

ROLES = r"""description: roles and turn order
tests:
  - id: leading-system-run
    criteria: c
    input:
      - role: system
        content: First system.
      - role: system
        content: Second system.
      - role: user
        content: Q
  - id: leading-system-blank-between
    criteria: c
    input:
      - role: system
        content: First.
      - role: system
        content: "  "
      - role: system
        content: Third.
      - role: user
        content: Q
  - id: later-system
    criteria: c
    input:
      - role: user
        content: Q1
      - role: system
        content: Handoff note.
      - role: user
        content: Q2
  - id: later-system-blank
    criteria: c
    input:
      - role: user
        content: Q1
      - role: system
        content: "  "
      - role: user
        content: Q2
  - id: system-only
    criteria: c
    input:
      - role: system
        content: Only a system prompt.
  - id: two-systems-only
    criteria: c
    input:
      - role: system
        content: One.
      - role: system
        content: Two.
  - id: assistant-forces-markers
    criteria: c
    input:
      - role: user
        content: Q
      - role: assistant
        content: ""
  - id: tool-forces-markers
    criteria: c
    input:
      - role: tool
      - role: user
        content: Q
  - id: tool-turns
    criteria: c
    input:
      - role: system
        content: You can call tools.
      - role: user
        content: Find order 4711.
      - role: assistant
        content: Calling lookup.
        tool_calls: [{id: call_1, name: lookup, arguments: {id: 4711}}]
      - role: tool
        tool_call_id: call_1
        content: '{"status": "shipped"}'
      - role: assistant
        content: It shipped.
      - role: user
        content: When will it arrive?
  - id: tool-object-content
    criteria: c
    input:
      - role: user
        content: Q
      - role: tool
        content: {status: shipped, eta: "2024-06-01"}
  - id: assistant-first
    criteria: c
    input:
      - role: assistant
        content: Hello, how can I help?
      - role: user
        content: Refund please.
  - id: system-after-assistant
    criteria: c
    input:
      - role: system
        content: Sys.
      - role: assistant
        content: A.
      - role: system
        content: Late system.
  - id: blank-system-then-user
    criteria: c
    input:
      - role: system
        content: "   "
      - role: user
        content: Q
  - id: flat-two-invisible
    criteria: c
    input:
      - role: system
        content:
          - type: file
            value: ../files/empty.md
      - role: user
        content: Q
  - id: user-user-assistant-tool-system
    criteria: c
    input:
      - role: user
        content: U1
      - role: user
        content: U2
      - role: assistant
        content: A1
      - role: tool
        content: T1
      - role: system
        content: S1
  - id: many-turns
    criteria: c
    input:
      - {role: system, content: "Support agent."}
      - {role: user, content: "Hi"}
      - {role: assistant, content: "Hello"}
      - {role: user, content: "Order?"}
      - {role: assistant, content: "Which one?"}
      - {role: user, content: "4711"}
      - {role: tool, content: "shipped"}
      - {role: assistant, content: "Shipped."}
      - {role: user, content: "Thanks"}
"""

EXPECTED = r"""description: expected_output shapes (the grader's reference_answer)
tests:
  - id: expected-string
    criteria: c
    input: Q
    expected_output: "  Paris.  "
  - id: expected-object
    criteria: c
    input: Q
    expected_output: {answer: 42, unit: null}
  - id: expected-message
    criteria: c
    input: Q
    expected_output: {role: assistant, content: From a message.}
  - id: expected-messages
    criteria: c
    input: Q
    expected_output:
      - role: assistant
        content: First.
      - role: tool
        content: tool says
      - role: assistant
        content: Last wins.
  - id: expected-messages-last-not-assistant
    criteria: c
    input: Q
    expected_output:
      - role: assistant
        content: The assistant.
      - role: user
        content: A user at the end.
  - id: expected-array-not-messages
    criteria: c
    input: Q
    expected_output: [a, b, 3]
  - id: expected-array-objects-no-role
    criteria: c
    input: Q
    expected_output: [{k: 1}, {k: 2}]
  - id: expected-file-segment
    criteria: c
    input: Q
    expected_output:
      - role: assistant
        content:
          - type: text
            value: See file.
          - type: file
            value: ../files/notes.md
  - id: expected-missing-file
    criteria: c
    input: Q
    expected_output:
      - role: assistant
        content:
          - type: file
            value: ../files/not-there.md
  - id: expected-tool-calls-only
    criteria: c
    input: Q
    expected_output:
      - role: assistant
        tool_calls:
          - {id: c1, name: search, arguments: {q: refund}}
  - id: expected-content-array-strings
    criteria: c
    input: Q
    expected_output:
      - role: assistant
        content: [one, two]
  - id: expected-number
    criteria: c
    input: Q
    expected_output: 42
  - id: expected-empty-string
    criteria: c
    input: Q
    expected_output: ""
  - id: expected-empty-string-no-criteria
    input: Q
    expected_output: ""
  - id: expected-empty-array
    input: Q
    expected_output: []
  - id: expected-null
    criteria: c
    input: Q
    expected_output: null
  - id: expected-multiline
    criteria: |
      Multi-line criteria
      second line.
    input: Q
    expected_output: |
      Line 1
      Line 2
  - id: expected-braces
    criteria: "Criteria with {{ output }} and {{input}}"
    input: "Question with {{ expected_output }}"
    expected_output: "Answer {{ criteria }}"
  - id: expected-system-message
    criteria: c
    input: Q
    expected_output:
      - role: system
        content: A system reference.
  - id: expected-assistant-object-content
    criteria: c
    input: Q
    expected_output:
      - role: assistant
        content: {json: true, list: [1, 2]}
"""

SKIPS = r"""description: every kind of skipped test
tests:
  - id: ok-first
    criteria: c
    input: Q
  - criteria: no id
    input: Q
  - id: 123
    criteria: numeric id
    input: Q
  - id: null
    criteria: null id
    input: Q
  - id: true
    criteria: boolean id
    input: Q
  - id: [a, b]
    criteria: list id
    input: Q
  - id: ""
    criteria: empty id
    input: Q
  - id: no-input
    criteria: c
  - id: no-criteria
    input: Q
  - id: empty-criteria
    criteria: ""
    input: Q
  - id: empty-assertions
    input: Q
    assertions: []
  - id: empty-turns
    input: Q
    turns: []
  - id: empty-input-array
    criteria: c
    input: []
  - id: invalid-messages-only
    criteria: c
    input: [{role: developer, content: x}]
  - just a string entry
  - 42
  - null
  - [nested, list]
  - id: bad-grader-type
    input: Q
    criteria: c
    assertions:
      - name: g
        type: not-a-real-type
  - id: grader-prompt-file-missing
    input: Q
    criteria: c
    assertions:
      - name: g
        type: llm-grader
        prompt: ./missing-prompt.md
  - id: grader-command-file-missing
    input: Q
    criteria: c
    assertions:
      - name: g
        type: llm-grader
        prompt:
          command: [node, ./no-such-grader.js]
  - id: duplicate-id
    criteria: c
    input: First of two.
  - id: duplicate-id
    criteria: c
    input: Second of two.
  - id: ok-last
    criteria: c
    input: Q
"""

MERGE = r"""description: YAML merge keys, anchors and aliases
x-defaults: &defaults
  criteria: Shared criteria.
  input_files: [../files/notes.md]
x-system: &system
  role: system
  content: Shared system prompt.
x-more: &more
  expected_output: Shared reference.
tests:
  - <<: *defaults
    id: merged
    input: Q
  - <<: [*defaults, *more]
    id: merged-list
    input: Q
  - <<: *defaults
    id: merged-override
    criteria: Own criteria wins.
    input: Q
  - id: alias-message
    criteria: c
    input:
      - *system
      - role: user
        content: Q
  - id: merge-into-message
    criteria: c
    input:
      - <<: *system
        content: Overridden content.
      - role: user
        content: Q
  - &anchored
    id: anchored-test
    criteria: c
    input: Anchored.
  - <<: *anchored
    id: copy-of-anchored
"""

DEEP = r"""description: nested folder, path search order
tests:
  - id: nearest-folder-wins
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: shared/where.md
  - id: parent-folder
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: parent-only.md
  - id: root-fallback
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: root-only.md
  - id: root-files-folder
    criteria: c
    input_files: [files/code.py, ../../../files/notes.md]
    input: Both spellings.
  - id: missing-tries-every-root
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: nested/not-anywhere.md
  - id: cwd-only
    criteria: c
    input:
      - role: user
        content:
          - type: file
            value: cwd-only.md
"""

CRLF_SUITE = (
    "description: a CRLF eval file\r\ntests:\r\n  - id: crlf-suite\r\n    criteria: c\r\n    input: |\r\n"
    "      Line one\r\n      Line two\r\n  - id: crlf-folded\r\n    criteria: c\r\n    input: >\r\n"
    "      folded one\r\n      folded two\r\n  - id: crlf-plain-multiline\r\n    criteria: c\r\n"
    "    input: plain\r\n      continued\r\n"
)
# A double-quoted scalar folded over a CRLF line end.
CRLF_QUOTED_SUITE = 'tests:\r\n  - id: crlf-quoted\r\n    criteria: c\r\n    input: "a\r\n      b"\r\n'

BOM_SUITE = "\ufefftests:\n  - id: bom-mapping\n    criteria: c\n    input: A BOM before a mapping loads.\n"

EXTERNAL_MAIN = r"""description: tests from file:// entries and globs
input: Suite text for external rows.
tests:
  - file://cases/one.yaml
  - id: inline-between
    criteria: c
    input: Inline.
  - file://cases/rows.jsonl
  - file://cases/glob-*.yaml
  - file://cases/nomatch-*.yaml
  - file://cases/{glob-b,one}.yaml
  - file://cases/glob-?.yaml
  - file://cases/empty.yaml
"""

EXTERNAL_STRING_FILE = """description: tests is a path to a YAML case file
input: [{role: system, content: "Suite system for the case file."}]
tests: ./cases/one.yaml
"""

EXTERNAL_STRING_JSONL = """description: tests is a path to a JSONL case file
tests: cases/rows.jsonl
"""

EXTERNAL_STRING_FOLDER = """description: tests is a folder of case folders
input_files: [../../files/code.py]
tests: ./folder-cases
"""

EXTERNAL_MISSING = """description: tests path that does not exist
tests: ./cases/does-not-exist.yaml
"""

EXTERNAL_FILE_REF_MISSING = """description: file reference that does not exist
tests:
  - file://cases/not-here.yaml
  - id: after
    criteria: c
    input: Q
"""

EXTERNAL_NOT_ARRAY = """tests: ./cases/mapping.yaml
"""

EXTERNAL_NON_OBJECT = """tests: ./cases/non-object.yaml
"""

EXTERNAL_BOM = """tests: ./cases/bom-list.yaml
"""

CASE_ONE = r"""- id: ext-one
  vars: {who: Ada}
  criteria: c
  input: "External {{ who }}"
- id: ext-two
  criteria: c
  input:
    - role: user
      content:
        - type: file
          value: ../../files/notes.md
- id: ext-skipped
  input: No criteria.
"""

CASE_ROWS_JSONL = (
    '{"id":"row-1","criteria":"c","input":"Row one"}\n'
    '{"id":"row-2","vars":{"n":"Bo"},"criteria":"c","input":"Hi {{ n }}"}\n'
    "\n"
    '{"id":"row-3","assertions":["Is short"],"input":"assertions are enough here"}\n'
    '{"id":"row-4","criteria":"c","input":"${{ CORPUS_TXT }} from env"}\n'
)

GLOB_A = "- id: glob-a\n  criteria: c\n  input: From glob a.\n"
GLOB_B = "- id: glob-b\n  criteria: c\n  input: From glob b.\n"

JSONL_DATASET = (
    '{"id":"j-string","criteria":"Answers.","input":"What is 2+2?"}\n'
    '{"id":"j-messages","criteria":"c","input":[{"role":"system","content":"Be exact."},'
    '{"role":"user","content":"2+2?"}]}\n'
    '{"id":"j-assertions-only","assertions":[{"type":"contains","value":"4"}],"input":"only assertions"}\n'
    '{"id":"j-assert-only","assert":[{"type":"contains","value":"4"}],"input":"only assert"}\n'
    '{"id":"j-expected","expected_output":"4","input":"expected only"}\n'
    '{"id":"j-vars-not-applied","vars":{"n":"Ada"},"criteria":"c","input":"Hi {{ n }}"}\n'
    '{"id":"j-env","criteria":"c","input":"${{ CORPUS_TXT }} and ${{ CORPUS_UNSET }}"}\n'
    '{"id":"j-env-number","criteria":"c","input":"${{ CORPUS_NUM }}"}\n'
    '{"id":"j-files","criteria":"c","input_files":["../files/code.py"],"input":"Review."}\n'
    '{"id":"j-files-array","criteria":"c","input_files":["../files/code.py"],"input":[{"role":"user","content":"R"}]}\n'
    '{"id":"j-file-segment","criteria":"c","input":[{"role":"user","content":[{"type":"text","value":"See"},'
    '{"type":"file","value":"../files/notes.md"}]}]}\n'
    '{"id":"j-expected-outcome","expected_outcome":"old","input":"deprecated criteria"}\n'
    '{"criteria":"c","input":"no id"}\n'
    '{"id":7,"criteria":"c","input":"numeric id"}\n'
    "   \n"
    '{"id":"j-tool","criteria":"c","input":[{"role":"user","content":"Q"},{"role":"tool","content":"T"}]}\n'
    '{"id":"j-u2028","criteria":"c","input":"sep\\u2028here"}\n'
    '{"id":"j-object-input","criteria":"c","input":{"ticket":1}}\n'
)
JSONL_SIDECAR = "name: dataset-sidecar\ndescription: Sidecar for the dataset\nexecution:\n  target: default\n"

JSONL_NO_SIDECAR = '{"id":"lonely","criteria":"c","input":"No sidecar."}\n'
JSONL_BAD_LINE = '{"id":"a","criteria":"c","input":"Q"}\nnot json\n{"id":"b","criteria":"c","input":"Q"}\n'
JSONL_ARRAY_LINE = '{"id":"a","criteria":"c","input":"Q"}\n[1, 2]\n'
JSONL_SIDECAR_NOT_MAPPING = '{"id":"a","criteria":"c","input":"Q"}\n'
JSONL_CRLF = '{"id":"crlf-1","criteria":"c","input":"One"}\r\n{"id":"crlf-2","criteria":"c","input":"Two"}\r\n'
JSONL_EMPTY = ""

SKILLS = {
    "skill_name": "csv-helper",
    "evals": [
        {
            "id": 1,
            "prompt": "Summarise the overdue invoices in the CSV.",
            "expected_output": "Three invoices are overdue.",
            "files": ["../files/tabs.tsv"],
            "assertions": ["Names three invoices", "Mentions the total"],
        },
        {"id": 2, "prompt": "What does this skill do?"},
        {"id": "three", "prompt": "  ", "expected_output": "x"},
        {"id": 4, "prompt": "Line one\nLine two", "expected_output": "Two lines."},
        {"prompt": "No id given."},
        {"id": 6, "prompt": 42},
        {"id": 7, "prompt": "With empty assertions", "assertions": []},
        {"id": 8, "prompt": "Unicode caf\u00e9 \u2028 sep"},
    ],
}

ALIASES_4X = r"""description: 4.x tests under the deprecated evalcases key
evalcases:
  - id: alias-evalcases-string
    criteria: c
    input: Read through the old key.
  - id: alias-evalcases-messages
    criteria: c
    input:
      - role: system
        content: S
      - role: user
        content: U
"""

def anchors_across() -> str:
    """Anchors defined in one test and aliased by tests far after it (what a big file cut in slices must keep:
    formatting/evals/slices.py), merge keys, a redefined anchor, a whole test anchored and merged, `**bold**` text
    that only looks like an alias; 48 tests, so that it can be cut."""
    out = [
        "description: anchors across tests",
        "x-defaults: &defaults",
        "  criteria: Shared criteria.",
        "tests:",
        "  - id: defines",
        "    criteria: &crit First **criteria** text.",
        "    input: &conversation",
        "      - role: system",
        "        content: You are terse.",
        "      - role: user",
        "        content: What is 2 + 2?",
        "    expected_output: &reference Four.",
        "  - &whole",
        "    id: anchored-whole",
        "    criteria: Whole test anchored.",
        "    input: Whole?",
        "  - id: base-holder",
        "    criteria: c",
        "    input: Base.",
        "    metadata: &base",
        "      owner: team-a",
        "      tier: 2",
    ]
    for n in range(3, 48):
        kind = n % 8
        if n == 24:
            out += [f"  - id: redefines-{n}", "    criteria: &crit Redefined criteria.", f"    input: Q{n}"]
        elif kind == 0:
            out += [f"  - id: alias-{n}", "    criteria: *crit", "    input: *conversation"]
        elif kind == 1:
            out += [f"  - <<: *defaults", f"    id: merged-{n}", f"    input: Merged {n} **bold** & more"]
        elif kind == 2:
            out += [f"  - <<: *whole", f"    id: copy-{n}"]
        elif kind == 3:
            out += [f"  - id: reference-{n}", "    criteria: c", f"    input: Q{n}", "    expected_output: *reference"]
        elif kind == 4:
            out += [f"  - id: meta-{n}", "    criteria: c", f"    input: Q{n}", "    metadata:", "      <<: *base"]
        elif kind == 5:
            out += [f"  - id: flow-{n}", "    criteria: c", f"    input: [{{role: user, content: *reference}}]"]
        else:
            out += [f"  - id: plain-{n}", f"    criteria: ok {n}", f"    input: What is {n}?"]
    return "\n".join(out) + "\n"


ALIASES_EVAL_CASES = r"""eval_cases:
  - id: alias-eval-cases
    criteria: c
    input: Read through eval_cases.
tests:
  - id: tests-wins-or-not
    criteria: c
    input: Both keys present.
"""

SHOWN_ONLY = r"""name: shown-only
description: fields that change nothing the model receives
version: "1.2"
author: corpus
tags: [a, b]
metadata: {team: support, tags: [x]}
governance: {owner: qa}
evaluator: llm-grader
execution:
  target: default
  threshold: 0.8
  workers: 2
tests:
  - id: shown-only-fields
    criteria: c
    input: Q
    conversation_id: conv-1
    depends_on: [other]
    metadata: {priority: high}
    execution: {threshold: 0.5, target: default}
    workspace: {template: ./ws}
    rubrics: [Is polite]
    suite: ignored
  - id: conversation-mode
    mode: conversation
    vars: {n: 2}
    criteria: c
    window_size: 2
    aggregation: min
    on_turn_failure: stop
    input:
      - role: system
        content: Tutor for {{ n }} turns.
    turns:
      - input: "What is {{ n }}+{{ n }}?"
        expected_output: "4"
      - input: Double it.
        assertions: [Says 8]
  - id: criteria-and-assertions-and-expected
    criteria: Criteria text.
    input: Q
    expected_output: [{role: assistant, content: First}, {role: assistant, content: Last}]
    assertions:
      - Rubric one
      - type: regex
        value: "\\d+"
        weight: 0.5
"""

ENV_TESTS_PATH = """description: the tests path comes from the environment
tests: "${{ CORPUS_CASES }}"
"""

JSON_VALUES = r"""description: values as JSON.stringify writes them (object content, inline vars, reference answers)
tests:
  - id: json-float-one
    criteria: c
    vars: {v: 1.0}
    input:
      - role: user
        content: {value: 1.0, label: float-one}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 1.0}
  - id: json-float-trailing-dot
    criteria: c
    vars: {v: 5.}
    input:
      - role: user
        content: {value: 5., label: float-trailing-dot}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 5.}
  - id: json-float-leading-dot
    criteria: c
    vars: {v: .5}
    input:
      - role: user
        content: {value: .5, label: float-leading-dot}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: .5}
  - id: json-exp-lower
    criteria: c
    vars: {v: 1e3}
    input:
      - role: user
        content: {value: 1e3, label: exp-lower}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 1e3}
  - id: json-exp-upper
    criteria: c
    vars: {v: 1E3}
    input:
      - role: user
        content: {value: 1E3, label: exp-upper}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 1E3}
  - id: json-exp-neg
    criteria: c
    vars: {v: 1e-7}
    input:
      - role: user
        content: {value: 1e-7, label: exp-neg}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 1e-7}
  - id: json-exp-big
    criteria: c
    vars: {v: 1e21}
    input:
      - role: user
        content: {value: 1e21, label: exp-big}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 1e21}
  - id: json-exp-just-below
    criteria: c
    vars: {v: 1e20}
    input:
      - role: user
        content: {value: 1e20, label: exp-just-below}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 1e20}
  - id: json-big-float
    criteria: c
    vars: {v: 123456789012345678901.5}
    input:
      - role: user
        content: {value: 123456789012345678901.5, label: big-float}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 123456789012345678901.5}
  - id: json-plus-int
    criteria: c
    vars: {v: +1}
    input:
      - role: user
        content: {value: +1, label: plus-int}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: +1}
  - id: json-neg-zero-int
    criteria: c
    vars: {v: -0}
    input:
      - role: user
        content: {value: -0, label: neg-zero-int}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: -0}
  - id: json-neg-zero-float
    criteria: c
    vars: {v: -0.0}
    input:
      - role: user
        content: {value: -0.0, label: neg-zero-float}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: -0.0}
  - id: json-hex
    criteria: c
    vars: {v: 0x1F}
    input:
      - role: user
        content: {value: 0x1F, label: hex}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 0x1F}
  - id: json-octal-o
    criteria: c
    vars: {v: 0o17}
    input:
      - role: user
        content: {value: 0o17, label: octal-o}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 0o17}
  - id: json-leading-zero
    criteria: c
    vars: {v: 007}
    input:
      - role: user
        content: {value: 007, label: leading-zero}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 007}
  - id: json-binary-like
    criteria: c
    vars: {v: 0b101}
    input:
      - role: user
        content: {value: 0b101, label: binary-like}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 0b101}
  - id: json-underscore
    criteria: c
    vars: {v: 1_000}
    input:
      - role: user
        content: {value: 1_000, label: underscore}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 1_000}
  - id: json-inf
    criteria: c
    vars: {v: .inf}
    input:
      - role: user
        content: {value: .inf, label: inf}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: .inf}
  - id: json-neg-inf
    criteria: c
    vars: {v: -.inf}
    input:
      - role: user
        content: {value: -.inf, label: neg-inf}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: -.inf}
  - id: json-nan
    criteria: c
    vars: {v: .nan}
    input:
      - role: user
        content: {value: .nan, label: nan}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: .nan}
  - id: json-huge
    criteria: c
    vars: {v: 1.7976931348623157e309}
    input:
      - role: user
        content: {value: 1.7976931348623157e309, label: huge}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 1.7976931348623157e309}
  - id: json-max-safe-plus
    criteria: c
    vars: {v: 9007199254740993}
    input:
      - role: user
        content: {value: 9007199254740993, label: max-safe-plus}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 9007199254740993}
  - id: json-big-int
    criteria: c
    vars: {v: 12345678901234567890}
    input:
      - role: user
        content: {value: 12345678901234567890, label: big-int}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 12345678901234567890}
  - id: json-tiny
    criteria: c
    vars: {v: 5e-324}
    input:
      - role: user
        content: {value: 5e-324, label: tiny}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 5e-324}
  - id: json-third
    criteria: c
    vars: {v: 0.3333333333333333333}
    input:
      - role: user
        content: {value: 0.3333333333333333333, label: third}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 0.3333333333333333333}
  - id: json-point-one-sum
    criteria: c
    vars: {v: 0.30000000000000004}
    input:
      - role: user
        content: {value: 0.30000000000000004, label: point-one-sum}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 0.30000000000000004}
  - id: json-null-tilde
    criteria: c
    vars: {v: ~}
    input:
      - role: user
        content: {value: ~, label: null-tilde}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: ~}
  - id: json-null-title
    criteria: c
    vars: {v: Null}
    input:
      - role: user
        content: {value: Null, label: null-title}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: Null}
  - id: json-true-title
    criteria: c
    vars: {v: True}
    input:
      - role: user
        content: {value: True, label: true-title}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: True}
  - id: json-true-upper
    criteria: c
    vars: {v: TRUE}
    input:
      - role: user
        content: {value: TRUE, label: true-upper}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: TRUE}
  - id: json-yes
    criteria: c
    vars: {v: yes}
    input:
      - role: user
        content: {value: yes, label: yes}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: yes}
  - id: json-date
    criteria: c
    vars: {v: 2024-01-01}
    input:
      - role: user
        content: {value: 2024-01-01, label: date}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 2024-01-01}
  - id: json-time
    criteria: c
    vars: {v: 12:30:00}
    input:
      - role: user
        content: {value: 12:30:00, label: time}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 12:30:00}
  - id: json-colon-number
    criteria: c
    vars: {v: 1:20}
    input:
      - role: user
        content: {value: 1:20, label: colon-number}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: 1:20}
  - id: json-empty
    criteria: c
    vars: {v: ''}
    input:
      - role: user
        content: {value: '', label: empty}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: ''}
  - id: json-quoted-number
    criteria: c
    vars: {v: '42'}
    input:
      - role: user
        content: {value: '42', label: quoted-number}
      - role: user
        content: "inline {{ v }}"
    expected_output: {value: '42'}
  - id: json-key-order
    criteria: c
    input:
      - role: user
        content: {b: 1, "2": two, a: 2, "1": one, "01": zero-one, "-1": minus, "4294967295": big-index, "10": ten}
  - id: json-proto-key
    criteria: c
    input:
      - role: user
        content: {__proto__: {x: 1}, constructor: c, toString: t}
  - id: json-strings
    criteria: c
    input:
      - role: user
        content:
          del: "\x7f"
          ls: "\u2028"
          nul: "\0"
          bell: "\a"
          tab: "\t"
          quote: "\""
          back: "\\"
          slash: "/"
          surrogate: "\ud800"
          emoji: "\U0001F600"
          nel: "\N"
  - id: json-nested-empty
    criteria: c
    input:
      - role: user
        content: {a: [], b: {}, c: [[]], d: [{}], e: null, f: [null, true, 1.5]}
  - id: json-env-coerced-in-object
    criteria: c
    input:
      - role: user
        content:
          floatish: "${{ CORPUS_FLOATISH }}"
          negzero: "${{ CORPUS_NEG_ZERO }}"
          big: "${{ CORPUS_BIG }}"
          exp: "${{ CORPUS_EXP }}"
          plus: "${{ CORPUS_PLUS }}"
          t: "${{ CORPUS_TRUE }}"
          num: "${{ CORPUS_NUM }}"
  - id: json-env-coerced-inline-var
    vars: {n: "${{ CORPUS_FLOATISH }}", z: "${{ CORPUS_NEG_ZERO }}", b: "${{ CORPUS_BIG }}"}
    criteria: c
    input: "n={{ n }} z={{ z }} b={{ b }}"
  - id: json-env-floatish-criteria
    criteria: "${{ CORPUS_FLOATISH }}"
    input: Q
    expected_output: "${{ CORPUS_BIG }}"
  - id: json-whole-var-number-content
    vars: {n: 1.0, o: {x: 1e21, y: -0.0}}
    criteria: c
    input:
      - role: user
        content: "{{ o }}"
      - role: user
        content: "{{ n }}"
      - role: user
        content: "{{ o }} inline"
"""

REFUSED: dict[str, str | bytes] = {
    "evals/yaml-syntax.eval.yaml": "tests:\n  - id: a\n   criteria: c\n",
    "evals/duplicate-key.eval.yaml": "tests:\n  - id: a\n    criteria: c\n    criteria: d\n    input: Q\n",
    "evals/empty.eval.yaml": "",
    "evals/comment-only.eval.yaml": "# nothing here\n",
    "evals/top-level-list.eval.yaml": "- id: a\n  criteria: c\n  input: Q\n",
    "evals/top-level-string.eval.yaml": "just a string\n",
    "evals/no-tests.eval.yaml": "description: no tests here\n",
    "evals/tests-null.eval.yaml": "tests:\n",
    "evals/tests-number.eval.yaml": "tests: 5\n",
    "evals/tests-mapping.eval.yaml": "tests:\n  id: a\n  criteria: c\n  input: Q\n",
    "evals/evaluator-llm-judge.eval.yaml": "evaluator: llm_judge\ntests:\n  - id: a\n    criteria: c\n    input: Q\n",
    "evals/test-evaluator-llm-judge.eval.yaml": (
        "tests:\n  - id: a\n    criteria: c\n    input: Q\n  - id: b\n    criteria: c\n    input: Q\n"
        "    evaluator: llm_judge\n"
    ),
    "evals/evaluator-code-judge.eval.yaml": "evaluator: code_judge\ntests:\n  - id: a\n    criteria: c\n    input: Q\n",
    "evals/workspace-missing.eval.yaml": (
        "workspace: missing-ws.yaml\ntests:\n  - id: a\n    criteria: c\n    input: Q\n"
    ),
    "evals/workspace-static-path.eval.yaml": (
        "workspace:\n  static_path: /x\ntests:\n  - id: a\n    criteria: c\n    input: Q\n"
    ),
    "evals/workspace-pool.eval.yaml": "workspace:\n  pool: true\ntests:\n  - id: a\n    criteria: c\n    input: Q\n",
    "evals/bad-name.eval.yaml": "name: Not Kebab\ntests:\n  - id: a\n    criteria: c\n    input: Q\n",
    "evals/empty-description.eval.yaml": "description: ''\ntests:\n  - id: a\n    criteria: c\n    input: Q\n",
    "evals/external-not-array.eval.yaml": "tests: ./cases/mapping.yaml\n",
    "evals/external-non-object.eval.yaml": "tests: ./cases/non-object.yaml\n",
    "evals/external-bom-list.eval.yaml": "tests: ./cases/bom-list.yaml\n",
    "evals/external-bad-yaml.eval.yaml": "tests: ./cases/bad.yaml\n",
    "evals/unknown-alias.eval.yaml": "tests:\n  - *nothing\n",
    "evals/case-folder-list.eval.yaml": "tests: ./folder-list\n",
    "evals/case-folder-bom.eval.yaml": "tests: ./folder-bom\n",
    "evals/case-folder-empty-case.eval.yaml": "tests: ./folder-empty\n",
    "evals/glob-star-mixed.eval.yaml": "tests:\n  - file://globbed/*\n",
    "evals/glob-md-file.eval.yaml": "tests:\n  - file://globbed/notes.md\n",
    "evals/tests-points-at-md.eval.yaml": "tests: ./globbed/notes.md\n",
    "evals/preprocessor-missing.eval.yaml": (
        "preprocessors:\n  - type: xlsx\n    command: [node, convert.js]\n"
        "tests:\n  - id: a\n    criteria: c\n    input: Q\n"
    ),
    "evals/quoted-under-indented.eval.yaml": 'tests:\n  - id: a\n    criteria: c\n    input: "a\n  b"\n',
    "evals/crlf-quoted-under-indented.eval.yaml": 'tests:\r\n  - id: a\r\n    criteria: c\r\n    input: "a\r\n  b"\r\n',
    "evals/tab-indent.eval.yaml": "tests:\n\t- id: a\n",
    "evals/multi-document.eval.yaml": "tests:\n  - id: a\n    criteria: c\n    input: Q\n---\ntests: []\n",
    "evals/total-budget.eval.yaml": (
        "execution:\n  total_budget_usd: 5\ntests:\n  - id: a\n    criteria: c\n    input: Q\n"
    ),
    "evals/wrong-extension.eval.txt": "tests:\n  - id: a\n    criteria: c\n    input: Q\n",
    "evals/utf16.eval.yaml": "tests:\n  - id: a\n    criteria: c\n    input: Q\n".encode("utf-16"),
    "evals/jsonl-bad-line.jsonl": JSONL_BAD_LINE,
    "evals/jsonl-array-line.jsonl": JSONL_ARRAY_LINE,
    "evals/skills-no-evals.json": '{"skill_name": "x"}\n',
    "evals/skills-empty-evals.json": '{"evals": []}\n',
    "evals/skills-bad-json.json": '{"evals": [\n',
    "evals/skills-evals-not-array.json": '{"evals": {"id": 1}}\n',
    # a non-string expected_output makes the reference itself throw (TypeError in its grader prompt): recorded as
    # an oracle crash, there is no expected output
    "evals/skills-object-expected.json": '{"evals": [{"id": 1, "prompt": "P", "expected_output": {"k": 1}}]}\n',
    # the suite metadata is validated when `name` is a string, after the tests are read (their skips are printed)
    "evals/name-empty.eval.yaml": "name: ''\ntests:\n  - id: a\n    criteria: c\n    input: Q\n",
    "evals/metadata-types.eval.yaml": (
        "name: ok-name\ndescription: ''\nversion: 1\nauthor: null\ntags: [x, 2]\nlicense: true\n"
        "requires:\n  agentv: 4\ntests:\n  - id: a\n    criteria: c\n    input: Q\n"
    ),
    "evals/metadata-requires-list.eval.yaml": (
        "name: ok-name\nrequires: []\ntests:\n  - id: a\n    criteria: c\n    input: Q\n"
    ),
    "evals/bad-name-after-skip.eval.yaml": (
        "name: Bad\nexecution:\n  total_budget_usd: 1\ntests:\n  - id: skipped\n    input: Q\n"
        "  - id: a\n    criteria: c\n    input: Q\n"
    ),
    "evals/workspace-static.eval.yaml": "workspace:\n  static: true\ntests:\n  - id: a\n    criteria: c\n    input: Q\n",
    "evals/workspace-pool-static.eval.yaml": (
        "workspace:\n  static: true\n  pool: true\ntests:\n  - id: a\n    criteria: c\n    input: Q\n"
    ),
    "evals/external-no-extension.eval.yaml": "tests:\n  - file://cases/no-extension\n",
    "evals/jsonl-trailing-text.jsonl": '{"id": "a", "criteria": "c", "input": "Q"} and more\n',
    "evals/jsonl-indented-bad-line.jsonl": '{"id": "a", "criteria": "c", "input": "Q"}\n   {id: "b"}\n',
    "evals/jsonl-long-bad-line.jsonl": '{"id": "a", "criteria": "c", "input": nope, "expected_output": "x"}\n',
    "evals/skills-top-level-list.json": "[1, 2]\n",
    "evals/schema-only-0.15.eval.yaml": (
        "$schema: agentv-eval-v2\nevalcases:\n  - id: old\n    outcome: o\n    input_messages:\n"
        "      - role: user\n        content: Q\n"
    ),
}

REFUSED_CASES = {
    "evals/folder-list/one/case.yaml": "- id: x\n  criteria: c\n  input: Q\n",
    "evals/folder-bom/one/case.yaml": "\ufeffcriteria: c\ninput: BOM before a mapping in a case file.\n",
    "evals/folder-empty/one/case.yaml": "",
    "evals/globbed/a.yaml": "- id: g-a\n  criteria: c\n  input: From a.yaml.\n",
    "evals/globbed/notes.md": "Not a case file.\n",
    "evals/globbed/rows.jsonl": '{"id": "g-row", "criteria": "c", "input": "From rows.jsonl."}\n',
    "evals/cases/mapping.yaml": "id: x\ncriteria: c\n",
    "evals/cases/non-object.yaml": "- id: ok\n  criteria: c\n  input: Q\n- plain string\n",
    "evals/cases/bom-list.yaml": "\ufeff- id: a\n  criteria: c\n  input: Q\n",
    "evals/cases/bad.yaml": "- id: a\n   criteria: c\n",
    "evals/cases/no-extension": "- id: x\n  criteria: c\n  input: Q\n",
}

# Warnings in the reference's words: images not found, unreadable or of another type, empty paths (no warning),
# blank string assertions, Agent Skills evals without a prompt
WARNINGS_SUITE = """tests:
  - id: images
    criteria: c
    input:
      - role: user
        content:
          - {type: text, value: Look.}
          - {type: image, value: ../files/no-such.png}
          - {type: image, value: ../files/notes.md}
          - {type: image, value: ../files/folder.png}
          - {type: image, value: ""}
          - {type: file, value: ""}
    expected_output:
      - role: assistant
        content:
          - {type: image, value: ../files/folder.png}
          - {type: image, value: ../files/gone.png}
          - {type: file, value: ../files/subdir}
  - id: blank-assertions
    input: Q
    assertions: ["", "  ", "says hello"]
  - id: blank-suite-assertion
    criteria: c
    input: Q
"""
WARNINGS_SUITE = WARNINGS_SUITE.replace("tests:\n", "assertions: [\"\"]\ntests:\n", 1)
# Graders under their old names and places: which still make a test complete (`assert` does, `evaluators` and
# `execution.evaluators` do not), and how a removed grader type is named (`<unnamed>` without a name)
GRADERS_DEPRECATED = """assert: [suite-level]
tests:
  - id: test-assert
    input: Q
    assert: [x]
  - id: test-evaluators
    input: Q
    evaluators:
      - type: contains
        value: x
  - id: execution-evaluators
    input: Q
    execution:
      evaluators:
        - type: contains
          value: x
  - id: rubrics-only
    input: Q
    rubrics: [r1]
  - id: expected-outcome
    input: Q
    expected_outcome: eo
  - id: removed-types
    input: Q
    criteria: c
    assertions:
      - type: llm_judge
        name: j
      - type: code-judge
"""
GRADERS_UNKNOWN = """evaluator: foo_bar
tests:
  - id: a
    criteria: c
    input: Q
    evaluator: baz
  - id: b
    input: Q
    assertions:
      - type: nonsense
        value: x
"""
SKILLS_WARNINGS = {
    "skill_name": "warnings",
    "evals": [{"id": 1}, {"id": "named", "prompt": "  "}, {"prompt": ""}, 7, {"id": 2, "prompt": "Fine."}],
}


def write_suites(w: Writer) -> None:
    name = "suites"
    w.layout(name, "hand-written suites, one per feature; nested folders for path search order")
    w.files(name)
    w.file(name, "root-only.md", "Only at the root.\n")
    w.file(name, "shared/where.md", "root copy of where.md\n")
    w.file(name, "evals/shared/where.md", "evals/ copy of where.md\n")
    w.file(name, "evals/deep/shared/where.md", "evals/deep/ copy of where.md\n")
    w.file(name, "evals/deep/parent-only.md", "In evals/deep/ only.\n")
    w.file(name, "work/cwd-only.md", "Only in the working directory.\n")
    w.eval(name, "evals/input-shorthands.eval.yaml", SHORTHANDS)
    w.eval(name, "evals/input-files.eval.yaml", INPUT_FILES)
    w.eval(name, "evals/suite/input-string.eval.yaml", SUITE_INPUT_STRING)
    w.eval(name, "evals/suite/input-messages.eval.yaml", SUITE_INPUT_MESSAGES)
    w.eval(name, "evals/suite/input-object.eval.yaml", SUITE_INPUT_OBJECT)
    w.eval(name, "evals/suite/input-files.eval.yaml", SUITE_INPUT_FILES)
    w.eval(name, "evals/suite/input-files-vars.eval.yaml", SUITE_INPUT_FILES_VARS)
    w.eval(name, "evals/suite/input-files-empty.eval.yaml", SUITE_INPUT_FILES_EMPTY)
    w.eval(name, "evals/suite/input-files-string.eval.yaml", SUITE_INPUT_FILES_STRING)
    w.eval(name, "evals/suite/assertions.eval.yaml", SUITE_ASSERTIONS)
    w.eval(name, "evals/env.eval.yaml", ENV)
    w.eval(name, "evals/vars.eval.yaml", VARS)
    w.eval(name, "evals/content.eval.yaml", CONTENT)
    w.eval(name, "evals/files.eval.yaml", FILES_SUITE)
    w.eval(name, "evals/roles.eval.yaml", ROLES)
    w.eval(name, "evals/expected.eval.yaml", EXPECTED)
    w.eval(name, "evals/skips.eval.yaml", SKIPS)
    w.eval(name, "evals/merge.eval.yaml", MERGE)
    w.eval(name, "evals/aliases-evalcases.eval.yaml", ALIASES_4X)
    w.eval(name, "evals/aliases-eval-cases.eval.yaml", ALIASES_EVAL_CASES)
    w.eval(name, "evals/anchors-across.eval.yaml", anchors_across())
    w.eval(name, "evals/shown-only.eval.yaml", SHOWN_ONLY)
    w.eval(name, "evals/json-values.eval.yaml", JSON_VALUES)
    w.eval(name, "evals/external/tests-from-env.eval.yaml", ENV_TESTS_PATH)
    w.eval(name, "evals/deep/nested/search.eval.yaml", DEEP)
    w.eval(name, "evals/crlf.eval.yaml", CRLF_SUITE)
    w.eval(name, "evals/crlf-quoted.eval.yaml", CRLF_QUOTED_SUITE)
    w.eval(name, "evals/bom.eval.yaml", BOM_SUITE)
    w.eval(name, "evals/alt-extension.eval.yml", "tests:\n  - id: yml-extension\n    criteria: c\n    input: Q\n")
    w.eval(name, "evals/plain-name.yaml", "tests:\n  - id: not-discovered-by-default\n    criteria: c\n    input: Q\n")
    # external cases
    w.eval(name, "evals/external/file-refs.eval.yaml", EXTERNAL_MAIN)
    w.eval(name, "evals/external/tests-file.eval.yaml", EXTERNAL_STRING_FILE)
    w.eval(name, "evals/external/tests-jsonl.eval.yaml", EXTERNAL_STRING_JSONL)
    w.eval(name, "evals/external/tests-folder.eval.yaml", EXTERNAL_STRING_FOLDER)
    w.eval(name, "evals/external/tests-missing.eval.yaml", EXTERNAL_MISSING)
    w.eval(name, "evals/external/file-ref-missing.eval.yaml", EXTERNAL_FILE_REF_MISSING)
    w.file(name, "evals/external/cases/one.yaml", CASE_ONE)
    w.file(name, "evals/external/cases/rows.jsonl", CASE_ROWS_JSONL)
    w.file(name, "evals/external/cases/glob-a.yaml", GLOB_A)
    w.file(name, "evals/external/cases/glob-b.yaml", GLOB_B)
    w.file(name, "evals/external/cases/empty.yaml", "")
    w.file(name, "evals/external/folder-cases/alpha/case.yaml", "criteria: c\ninput: Case from folder alpha.\n")
    w.file(
        name,
        "evals/external/folder-cases/beta/case.yml",
        "id: beta-explicit-id\ncriteria: c\ninput:\n  - role: user\n    content: Beta.\n",
    )
    w.file(name, "evals/external/folder-cases/gamma/notes.md", "No case file here.\n")
    w.file(
        name,
        "evals/external/folder-cases/delta/case.yaml",
        "criteria: c\ninput: With a workspace folder.\n",
    )
    w.file(name, "evals/external/folder-cases/delta/workspace/README.md", "workspace template\n")
    w.file(name, "evals/external/folder-cases/epsilon/case.yaml", "criteria: c\n")
    # datasets
    w.eval(name, "datasets/dataset.jsonl", JSONL_DATASET)
    w.file(name, "datasets/dataset.yaml", JSONL_SIDECAR)
    w.eval(name, "datasets/lonely.jsonl", JSONL_NO_SIDECAR)
    w.eval(name, "datasets/crlf.jsonl", JSONL_CRLF)
    w.eval(name, "datasets/empty.jsonl", JSONL_EMPTY)
    w.eval(name, "datasets/sidecar-list.jsonl", JSONL_SIDECAR_NOT_MAPPING)
    w.file(name, "datasets/sidecar-list.yaml", "- not\n- a mapping\n")
    w.eval(name, "datasets/sidecar-bad-yaml.jsonl", JSONL_SIDECAR_NOT_MAPPING)
    w.file(name, "datasets/sidecar-bad-yaml.yaml", "name: [unclosed\n")
    w.eval(name, "datasets/sidecar-bad-name.jsonl", JSONL_SIDECAR_NOT_MAPPING)
    w.file(name, "datasets/sidecar-bad-name.yaml", "name: Bad Name\n")
    w.eval(
        name, "datasets/dataset.eval.yaml", "description: the same dataset through a suite\ntests: ./dataset.jsonl\n"
    )
    # Agent Skills
    w.eval(name, "skills/evals.json", json.dumps(SKILLS, indent=2, ensure_ascii=False) + "\n")
    w.eval(name, "skills/warnings/evals.json", json.dumps(SKILLS_WARNINGS, indent=2) + "\n")
    w.eval(name, "evals/warnings.eval.yaml", WARNINGS_SUITE)
    w.eval(name, "evals/graders-deprecated.eval.yaml", GRADERS_DEPRECATED)
    w.eval(name, "evals/graders-unknown.eval.yaml", GRADERS_UNKNOWN)
    w.file(name, "files/folder.png/inside.txt", "A folder named like an image.\n")
    # runs from another working directory: the working directory is a search root
    w.layouts[name]["runs"].append({"eval": "evals/deep/nested/search.eval.yaml", "cwd": "work", "root": "."})
    w.layouts[name]["runs"].append({"eval": "evals/files.eval.yaml", "cwd": "work", "root": "."})


def write_refused(w: Writer) -> None:
    name = "refused"
    w.layout(name, "files the reference refuses, one reason each")
    for rel, data in REFUSED.items():
        w.eval(name, rel, data)
    for rel, data in REFUSED_CASES.items():
        w.file(name, rel, data)


def write_dotenv(w: Writer) -> None:
    """.env files at several levels. The oracle does not read .env files: the recorder exports the variables the
    agentv command would load (eval folder up to the repo root, nearest wins, exported variables win)."""
    name = "dotenv"
    w.layout(name, ".env files at the root and in the eval folder (recorded with the variables exported)")
    w.file(name, ".env", "GREETING=hello from the root .env\nTEAM=payments\nSHARED=root\nCOUNT=3\n")
    w.file(name, "evals/support/.env", 'SHARED=nearest\n# a comment\nQUOTED="quoted value"\nEMPTY=\n')
    w.eval(
        name,
        "evals/support/triage.eval.yaml",
        r"""description: env from .env files
tests:
  - id: dotenv-values
    criteria: "Team ${{ TEAM }}"
    input: "${{ GREETING }} / shared=${{ SHARED }} / quoted=${{ QUOTED }} / empty=[${{ EMPTY }}]"
  - id: dotenv-count-coerced
    criteria: c
    input: "${{ COUNT }}"
  - id: dotenv-unset
    criteria: c
    input: "unset=[${{ NOT_IN_ANY_ENV }}]"
""",
    )


# ----------------------------------------------------------------------------------------------------------------
# edges/: the shapes where turnlens once disagreed with AgentV 4.42.4 (issue 18), each beside its neighbours.

_T = "tests:\n  - {id: a, criteria: c, input: hi}\n"
EDGE_WORKSPACES = {
    "repo-source": "workspace:\n  repos:\n    - {source: {type: git, url: x}}\n" + _T,
    "repo-source-null": "workspace:\n  repos:\n    - {source: null}\n" + _T,
    "repo-checkout": "workspace:\n  repos:\n    - {checkout: {ref: main}}\n" + _T,
    "repo-clone": "workspace:\n  repos:\n    - {clone: {depth: 1}}\n" + _T,
    "repo-all-three": "workspace:\n  repos:\n    - {checkout: 1, source: 1, clone: 1}\n" + _T,
    "repo-clone-and-commit": "workspace:\n  repos:\n    - {path: a, commit: x, base_commit: y, clone: 1}\n" + _T,
    "repo-commit-differs": "workspace:\n  repos:\n    - {path: ./r, commit: abc, base_commit: def}\n" + _T,
    "repo-commit-same": "workspace:\n  repos:\n    - {path: ./r, commit: abc, base_commit: abc}\n" + _T,
    "repo-commit-one-side": "workspace:\n  repos:\n    - {path: a, commit: x}\n    - {path: b, base_commit: y}\n" + _T,
    "repo-commit-not-strings": "workspace:\n  repos:\n    - {commit: 5, base_commit: 6}\n    - {commit: a, base_commit: 5}\n"
    + _T,
    "repo-commit-empty": 'workspace:\n  repos:\n    - {commit: "", base_commit: y}\n' + _T,
    "repo-second-entry": "workspace:\n  repos:\n    - {commit: x, base_commit: y}\n    - {source: 1}\n" + _T,
    "repo-not-object": "workspace:\n  repos:\n    - 5\n    - [source]\n    - {source: 1}\n" + _T,
    "repos-mapping": "workspace:\n  repos: {source: 1}\n" + _T,
    "pool-before-repos": "workspace:\n  pool: 1\n  repos:\n    - {source: 1}\n" + _T,
    "static-after-repos": "workspace:\n  repos:\n    - {source: 1}\n  static: 1\n" + _T,
    "empty-list": "workspace: []\n" + _T,
    "file-empty": "workspace: ../workspaces/empty.yaml\n" + _T,
    "file-scalar": "workspace: ../workspaces/scalar.yaml\n" + _T,
    "file-list": "workspace: ../workspaces/list.yaml\n" + _T,
    "file-removed-key": "workspace: ../workspaces/static-path.yaml\n" + _T,
    "file-source": "workspace: ../workspaces/source.yaml\n" + _T,
    "file-commit-differs": "workspace: ../workspaces/commits.yaml\n" + _T,
    "file-duplicate-key": "workspace: ../workspaces/duplicate.yaml\n" + _T,
    "file-good": "workspace: ../workspaces/good.yaml\n" + _T,
    "test-checkout": "tests:\n  - {id: a, criteria: c, input: hi, workspace: {repos: [{checkout: 1}]}}\n"
    "  - {id: b, criteria: c, input: hi, workspace: {static_path: x}}\n",
    "test-scalar": "tests:\n  - {id: a, criteria: c, input: hi, workspace: 5}\n",
    "test-file": "tests:\n  - {id: a, criteria: c, input: hi, workspace: ../workspaces/commits.yaml}\n",
    "test-file-scalar": "tests:\n  - {id: a, criteria: c, input: hi, workspace: ../workspaces/scalar.yaml}\n",
    "test-incomplete-first": "tests:\n  - {id: a, input: hi, workspace: {repos: [{source: 1}]}}\n",
    "test-skip-defaults": "tests:\n  - {id: a, criteria: c, input: hi}\n  - {id: b, criteria: c, input: hi, "
    "workspace: {repos: [{source: 1}]}, execution: {skip_defaults: true}}\n",
}


def open_suite(suite_input: str) -> str:
    test = {"id": "t1", "criteria": "c", "input": [{"role": "system", "content": "SYS"}, {"role": "assistant", "content": "A"},
                                                   {"role": "user", "content": "U"}]}  # fmt: skip
    return f"input: {suite_input}\ntests:\n  - {json.dumps(test)}\n"


def write_edges(w: Writer) -> None:
    """Shapes of issue 18: `file://` globs that match folders, integer-like keys in JSON sources, criteria falling
    back to expected_outcome, case folders with null ids, JSONL lines with JavaScript white space, empty
    `assertions:`, non-string JSONL criteria, evals.json ids and `${{ }}`, image parts and the grader's fallback
    question, value-less reference parts, workspaces AgentV refuses."""
    name = "edges"
    w.layout(name, "issue 18's shapes: globs over folders, JS key order and trim, fallbacks, workspaces")
    case = "- id: {id}\n  criteria: c\n  input: {input}\n"
    w.file(name, "evals/cases/a.yaml", case.format(id="glob-a", input="from a.yaml"))
    w.file(name, "evals/cases/b.yml", case.format(id="glob-b", input="from b.yml"))
    w.file(name, "evals/cases/sub/c.yaml", case.format(id="glob-c", input="from sub/c.yaml"))
    w.file(name, "evals/cases/folder.yaml/d.yaml", case.format(id="glob-d", input="inside a folder named .yaml"))
    w.file(name, "evals/cases/.hidden.yaml", case.format(id="glob-hidden", input="a dot file"))
    w.eval(name, "evals/glob-star.eval.yaml", "tests:\n  - file://cases/*\n")
    w.eval(name, "evals/glob-yaml.eval.yaml", "tests:\n  - file://cases/*.yaml\n  - file://cases/*.yml\n")
    w.eval(name, "evals/glob-globstar.eval.yaml", "tests:\n  - file://cases/**/*.yaml\n")
    w.eval(name, "evals/glob-folders-only.eval.yaml", "tests:\n  - file://cases/sub*\n  - file://cases/*.yaml/\n")

    int_keys = [
        {"id": "int-keys-content", "criteria": "c", "input": [{"role": "user", "content": [
            {"type": "text", "value": "hello"},
            {"type": "weird", "b": 1, "10": 2, "2": 3, "-1": 4, "01": 5, "4294967295": 6, "4294967294": 7}]}],
         "expected_output": [{"role": "assistant", "content": {"z": 1, "3": 2, "1": 3}}]},
        {"id": "int-keys-object-input", "criteria": "c", "input": {"z": 1, "3": {"y": 1, "0": 2}},
         "expected_output": {"b": 1, "7": 2}},
        {"id": "int-keys-escaped", "criteria": "c", "input": {"b": 1, "\\u0031": 2}},
    ]  # fmt: skip
    lines = [json.dumps(t, ensure_ascii=False) for t in int_keys]
    lines[2] = lines[2].replace("\\\\u0031", "\\u0031")
    w.eval(name, "evals/int-keys.jsonl", "\n".join(lines) + "\n")
    w.file(name, "evals/int-keys-cases.jsonl", "\n".join(lines) + "\n")
    w.eval(name, "evals/int-keys-external.eval.yaml", "tests: ./int-keys-cases.jsonl\n")

    w.eval(
        name,
        "evals/criteria-fallback.eval.yaml",
        """tests:
  - {id: empty, criteria: "", expected_outcome: EO1, input: hi}
  - {id: num, criteria: 5, expected_outcome: EO2, input: hi}
  - {id: list, criteria: [a], expected_outcome: EO3, input: hi}
  - {id: nul, criteria: null, expected_outcome: EO4, input: hi}
  - {id: both, criteria: C, expected_outcome: EO5, input: hi}
  - {id: eo-empty, criteria: "", expected_outcome: "", input: hi}
  - {id: eo-num, criteria: "", expected_outcome: 7, input: hi}
  - {id: ws, criteria: "  ", expected_outcome: EO8, input: hi}
  - {id: eo-num-only, expected_outcome: 7, input: hi}
  - {id: eo-empty-only, expected_outcome: "", input: hi}
  - {id: c-num-only, criteria: 5, input: hi}
  - {id: eo-list, criteria: "", expected_outcome: [x], input: hi}
  - {id: eo-ws, criteria: "", expected_outcome: "  ", input: hi}
  - {id: eo-num-exp, criteria: "", expected_outcome: 7, input: hi, expected_output: ans}
""",
    )
    folders = {
        "a-null": "id: null\n", "b-empty": 'id: ""\n', "c-num": "id: 5\n", "d-missing": "", "e-space": 'id: " "\n',
        "f-false": "id: false\n", "g-tilde": "id: ~\n", "h-list": "id: [x]\n",
    }  # fmt: skip
    for folder, id_line in folders.items():
        w.file(name, f"evals/case-folders/{folder}/case.yaml", id_line + "criteria: c\ninput: hi\n")
    w.eval(name, "evals/case-folders.eval.yaml", "tests: ./case-folders/\n")

    trimmed = [
        '\ufeff{"id":"bom","criteria":"c","input":"hi"}',
        '\u00a0{"id":"nbsp","criteria":"c","input":"hi"}\u00a0',
        '\u3000{"id":"ideographic-space","criteria":"c","input":"hi"}\u3000',
        '{"id":"line-separator","criteria":"c","input":"hi"}\u2028',
        '\u2029{"id":"paragraph-separator","criteria":"c","input":"hi"}',
        '\x0b{"id":"vertical-tab","criteria":"c","input":"hi"}\x0c',
        "\u00a0",
        "\u2028",
        '\t{"id":"tab","criteria":"c","input":"hi"}\r',
    ]
    w.eval(name, "evals/js-trim.jsonl", "\n".join(trimmed) + "\n")
    w.eval(name, "evals/js-trim-nel.jsonl", '{"id":"a","criteria":"c","input":"hi"}\n\u0085{"id":"nel"}\n')
    w.eval(name, "evals/js-trim-fs.jsonl", '{"id":"a","criteria":"c","input":"hi"}\n\x1c\n')
    w.file(name, "evals/js-trim-cases.jsonl", "\n".join(trimmed) + "\n")
    w.eval(name, "evals/js-trim-external.eval.yaml", "tests: ./js-trim-cases.jsonl\n")

    w.eval(
        name,
        "evals/empty-keys.eval.yaml",
        """tests:
  - id: assertions-null
    input: hi
    assertions:
  - id: assert-null
    input: hi
    assert:
  - id: assertions-null-with-criteria
    input: hi
    criteria: c
    assertions: null
  - id: assertions-empty-list
    input: hi
    assertions: []
  - id: evaluators-null
    input: hi
    execution: {evaluators: null}
""",
    )
    w.eval(
        name,
        "evals/empty-keys.jsonl",
        '{"id":"assert-null","input":"hi","assert":null}\n{"id":"assertions-null","input":"hi","assertions":null}\n',
    )
    w.eval(
        name,
        "evals/criteria-types.jsonl",
        "\n".join(
            [
                '{"id":"c-num","criteria":5,"input":"hi"}',
                '{"id":"c-obj","criteria":{"a":1},"input":"hi"}',
                '{"id":"c-list","criteria":["a"],"input":"hi"}',
                '{"id":"c-true","criteria":true,"input":"hi"}',
                '{"id":"c-empty-eo","criteria":"","expected_outcome":"EO","input":"hi"}',
                '{"id":"c-num-eo","criteria":5,"expected_outcome":"EO","input":"hi"}',
                '{"id":"eo-only","expected_outcome":"EO","input":"hi"}',
                '{"id":"c-num-exp","criteria":5,"expected_output":"x","input":"hi"}',
            ]
        )
        + "\n",
    )
    w.eval(
        name,
        "skills/evals.json",
        """{"skill_name": "${{ CORPUS_TXT }}", "evals": [
 {"id": null, "prompt": "hello ${{ CORPUS_TXT }}", "expected_output": "E ${{ CORPUS_TXT }}"},
 {"id": null, "prompt": ""},
 {"prompt": ""},
 {"id": 3, "prompt": ""},
 {"id": "${{ CORPUS_TXT }}", "prompt": "p", "assertions": ["a ${{ CORPUS_TXT }}"]},
 {"id": false, "prompt": "q"},
 {"id": {"a": 1}, "prompt": ""},
 {"id": [1, null, [2, 3]], "prompt": ""},
 {"id": 1.5, "prompt": "r"},
 {"prompt": "no id"}
]}
""",
    )
    w.file(name, "evals/pic.png", b"\\x89PNG\\r\\n\\x1a\\n")
    w.eval(
        name,
        "evals/image-fallback.eval.yaml",
        """tests:
  - id: img-only
    criteria: c
    input: [{role: user, content: [{type: image, value: pic.png}]}]
  - id: img-and-blank
    criteria: c
    input: [{role: user, content: [{type: image, value: pic.png}, {type: text, value: "  "}]}]
  - id: img-missing
    criteria: c
    input: [{role: user, content: [{type: image, value: missing.png}, {type: text, value: ""}]}]
  - id: img-url
    criteria: c
    input: [{role: user, content: [{type: image_url, value: "http://x/y.png"}]}]
  - id: img-text-value
    criteria: c
    input: [{role: user, content: [{type: image, value: "  some text  "}]}]
  - id: file-missing-and-other
    criteria: c
    input: [{role: user, content: [{type: file, value: missing.md}, {type: weird, value: wv}]}]
  - id: img-and-text
    criteria: c
    input: [{role: user, content: [{type: image, value: pic.png}, {type: text, value: "   "}, {type: other, value: o}]}]
""",
    )
    w.file(name, "evals/f.md", "FILE\n")
    w.eval(
        name,
        "evals/reference-values.eval.yaml",
        """tests:
  - id: text-without-values
    criteria: c
    input: hi
    expected_output:
      - role: assistant
        content: [{type: text, value: A}, {type: text}, {type: text, value: 5}, {type: text, value: null}, {type: text, value: ""}]
  - id: file-without-values
    criteria: c
    input: hi
    expected_output:
      - role: assistant
        content: [{type: file}, {type: file, value: 5}, {type: image}, {type: image, value: null}, {type: file, value: f.md}, {type: text, value: T}]
  - id: file-only-without-value
    criteria: c
    input: hi
    expected_output: [{role: assistant, content: [{type: file}]}]
  - id: object-content
    criteria: c
    input: hi
    expected_output: [{role: assistant, content: {type: file}}]
  - id: image-list
    criteria: c
    input: hi
    expected_output: [{role: assistant, content: [{type: image, value: [1]}, {type: image, value: pic.png}]}]
""",
    )
    # found by the differential tester (seeds 1819, 1820): a suite `input: ""` gives no message; a message with tool
    # calls keeps a content list whatever its items
    w.eval(name, "evals/suite-input-empty.eval.yaml", open_suite("\"\""))
    w.eval(name, "evals/suite-input-empty-env.eval.yaml", open_suite("\"${{ CORPUS_UNSET }}\""))
    w.eval(name, "evals/suite-input-blank.eval.yaml", open_suite("\"  \""))
    w.eval(
        name,
        "evals/tool-calls-content.eval.yaml",
        "tests:\n"
        + "".join(
            "  - " + json.dumps({"id": tid, "criteria": "c", "input": [{"role": role, **msg}, {"role": "user", "content": "U"}]})
            + "\n"
            for tid, role, msg in [
                ("calls-list-items", "assistant", {"content": [{"type": "text", "value": "AAA"}, ["x"]], "tool_calls": [{"id": "c1"}]}),
                ("calls-empty", "assistant", {"content": [{"type": "text", "value": "AAA"}, 5], "tool_calls": []}),
                ("calls-number-content", "assistant", {"content": 5, "tool_calls": [{"id": "c1"}]}),
                ("calls-null-content", "assistant", {"content": None, "tool_calls": [{"id": "c1"}]}),
                ("calls-only-number", "assistant", {"content": [5], "tool_calls": [{"id": "c1"}]}),
                ("calls-user", "user", {"content": [{"type": "text", "value": "AAA"}, 5], "tool_calls": [{"id": "c1"}]}),
                ("calls-string", "assistant", {"content": [{"type": "text", "value": "AAA"}, 5], "tool_calls": "x"}),
                ("calls-tool-role", "tool", {"content": [{"type": "text", "value": "AAA"}, 5], "tool_calls": [1]}),
                ("calls-none", "assistant", {"tool_calls": [{"id": "x"}]}),
                ("calls-false", "assistant", {"content": False, "tool_calls": [{"id": "x"}]}),
                ("calls-bogus-role", "bogus", {"content": False, "tool_calls": [{"id": "x"}]}),
            ]
        ),
    )  # fmt: skip
    w.eval(
        name,
        "evals/tool-calls-only.eval.yaml",
        "tests:\n"
        + "".join(
            "  - " + json.dumps({"id": tid, "criteria": "c", "input": value}) + "\n"
            for tid, value in [
                ("object-false", {"role": "assistant", "content": False, "tool_calls": [{"id": "c1"}]}),
                ("object-number", {"role": "assistant", "content": 5}),
                ("object-null", {"role": "user", "content": None, "tool_calls": [{"id": "c1"}]}),
                ("object-no-content", {"role": "user", "tool_calls": [{"id": "c1"}]}),
                ("object-empty-calls", {"role": "user", "content": False, "tool_calls": []}),
                ("list-false", [{"role": "assistant", "content": False, "tool_calls": [{"id": "c1"}]}]),
                ("list-then-user", [{"role": "assistant", "tool_calls": [{"id": "c1"}]}, {"role": "user", "content": "U"}]),
            ]
        )
        + "  - {id: suite-like, criteria: c, input: [{role: tool, tool_calls: [1]}, {role: user, content: U}]}\n",
    )  # fmt: skip
    w.file(name, "workspaces/empty.yaml", "")
    w.file(name, "workspaces/scalar.yaml", "hello\n")
    w.file(name, "workspaces/list.yaml", "- a\n- b\n")
    w.file(name, "workspaces/static-path.yaml", "static_path: x\n")
    w.file(name, "workspaces/source.yaml", "repos:\n  - source: {type: git}\n")
    w.file(name, "workspaces/commits.yaml", "repos:\n  - {commit: a, base_commit: b}\n")
    w.file(name, "workspaces/duplicate.yaml", "a: 1\na: 2\n")
    w.file(name, "workspaces/good.yaml", "repos:\n  - {path: ./r, commit: a, base_commit: a}\n")
    for key, text in EDGE_WORKSPACES.items():
        w.eval(name, f"evals/workspace/{key}.eval.yaml", text)


def write_monorepo(w: Writer) -> None:
    """A repository whose eval files sit two packages down; the same relative path exists at several levels."""
    name = "monorepo"
    w.layout(name, "repo root above packages/*/evals; same-named files at several levels")
    w.file(name, "docs/policy.md", "Root policy.\n")
    w.file(name, "packages/billing/docs/policy.md", "Billing package policy.\n")
    w.file(name, "packages/billing/evals/docs/policy.md", "Billing evals policy.\n")
    w.file(name, "packages/billing/src/invoice.py", "def total(lines):\n    return sum(l.amount for l in lines)\n")
    w.file(name, "packages/support/evals/prompts/system.md", "You are a calm support agent.\r\n")
    body = r"""description: billing package suite
input:
  - role: system
    content:
      - type: file
        value: docs/policy.md
tests:
  - id: policy-nearest
    criteria: c
    input: Which policy applies?
  - id: src-from-package
    criteria: c
    input_files: [src/invoice.py, packages/billing/src/invoice.py]
    input: Review the invoice code.
  - id: root-docs
    criteria: c
    execution: {skip_defaults: true}
    input:
      - role: user
        content:
          - type: file
            value: /docs/policy.md
          - type: file
            value: ../../../docs/policy.md
"""
    w.eval(name, "packages/billing/evals/billing.eval.yaml", body)
    w.eval(
        name,
        "packages/support/evals/support.eval.yaml",
        r"""description: support package suite
input:
  - role: system
    content:
      - type: file
        value: prompts/system.md
tests:
  - id: support-with-policy
    criteria: c
    input:
      - role: user
        content:
          - type: text
            value: Refund after 40 days?
          - type: file
            value: docs/policy.md
  - id: support-agent-turns
    criteria: c
    input:
      - {role: user, content: "Where is 4711?"}
      - {role: assistant, content: "Checking."}
      - {role: tool, content: [{type: file, value: "docs/policy.md"}]}
""",
    )
    w.layouts[name]["runs"].append(
        {"eval": "packages/billing/evals/billing.eval.yaml", "cwd": "packages/billing", "root": "."}
    )
    # the eval file outside the repo root: the search climbs from its folder to / (only found files here, so
    # nothing above the repository appears in the output)
    w.layouts[name]["runs"].append(
        {"eval": "packages/billing/evals/billing.eval.yaml", "cwd": "packages/support", "root": "packages/support"}
    )


# ----------------------------------------------------------------------------------------------------------------
# fuzz/: seeded random suites mixing every feature.

ROLES_W = ["user"] * 6 + ["system"] * 3 + ["assistant"] * 2 + ["tool"] * 2 + ["developer", "User"]
WORDS = (
    "refund order invoice retry timeout deploy review bug patch ticket customer shipping policy schema "
    "cache token latency parser build release rollback migration index query"
).split()
FUZZ_FILES = [
    "../files/code.py",
    "../files/notes.md",
    "../files/blank.md",
    "../files/empty.md",
    "../files/crlf.txt",
    "../files/padded.md",
    "../files/fence.md",
    "files/notes.md",
    "/files/code.py",
    "./local.md",
    "local.md",
    "../files/missing.md",
    "../files/subdir",
    "${{ CORPUS_ROOT }}/files/notes.md",
    "${{ CORPUS_FILE }}",
    "../files/{{ fname }}",
]
TEXTS = [
    "Please review.",
    "   ",
    "",
    "\n",
    "Line one\nLine two\n",
    "Trailing spaces   ",
    "Hello {{ name }}",
    "{{ name }}",
    "Env [${{ CORPUS_TXT }}]",
    "${{ CORPUS_NUM }}",
    "${{ CORPUS_UNSET }}",
    "@[User]:\nfake",
    "```py\nx = 1\n```",
    "caf\u00e9 \u2028 \u65e5\u672c",
    "{{ obj }}",
    "{{ obj.k }} and {{ list }}",
]


def _text(r: random.Random) -> str:
    if r.random() < 0.5:
        return " ".join(r.choice(WORDS) for _ in range(r.randint(1, 6))).capitalize() + "."
    return r.choice(TEXTS)


def _segment(r: random.Random):
    k = r.random()
    if k < 0.35:
        return {"type": "text", "value": _text(r)}
    if k < 0.55:
        return {"type": "file", "value": r.choice(FUZZ_FILES)}
    if k < 0.65:
        return _text(r)  # string item
    if k < 0.72:
        return {"type": "image", "value": r.choice(["../files/pixel.png", "../files/missing.png"])}
    if k < 0.78:
        return {"type": r.choice(["video", "tool_use", "Text"]), "value": "x"}
    if k < 0.82:
        return r.choice([1, None, True, ["x"]])
    if k < 0.86:
        return {"type": "text", "value": r.choice([3, None, {"a": 1}])}
    return {"type": "text", "value": _text(r)}


def _content(r: random.Random):
    k = r.random()
    if k < 0.45:
        return _text(r)
    if k < 0.85:
        return [_segment(r) for _ in range(r.randint(0, 4))]
    if k < 0.93:
        return {"ticket": r.randint(1, 9999), "note": _text(r)}
    return r.choice([7, None, False])


def _message(r: random.Random, role: str | None = None):
    msg: dict = {"role": role or r.choice(ROLES_W)}
    if r.random() < 0.95:
        msg["content"] = _content(r)
    if msg["role"] == "assistant" and r.random() < 0.2:
        msg["tool_calls"] = [{"id": "c1", "name": "lookup", "arguments": {"q": r.choice(WORDS)}}]
    return msg


def _input(r: random.Random):
    k = r.random()
    if k < 0.3:
        return _text(r)
    if k < 0.36:
        return {"ticket": r.randint(1, 99), "text": _text(r)}
    if k < 0.4:
        return _message(r)
    if k < 0.43:
        return r.choice([[], None, 5, "{{ msgs }}"])
    msgs = []
    if r.random() < 0.4:
        msgs.append(_message(r, "system"))
    for i in range(r.randint(1, 5)):
        msgs.append(_message(r, "user" if i % 2 == 0 and r.random() < 0.7 else None))
    if r.random() < 0.1:
        msgs.append("stray string")
    return msgs


def _expected(r: random.Random):
    k = r.random()
    if k < 0.3:
        return None
    if k < 0.55:
        return _text(r)
    if k < 0.65:
        return {"answer": r.choice(WORDS)}
    if k < 0.85:
        return [_message(r, "assistant") for _ in range(r.randint(1, 3))]
    if k < 0.92:
        return [{"role": "assistant", "content": [{"type": "file", "value": r.choice(FUZZ_FILES)}]}]
    return [{"role": "assistant", "tool_calls": [{"id": "t", "name": "search", "arguments": {}}]}]


def _fuzz_test(r: random.Random, n: int, suite_has_files: bool) -> dict:
    t: dict = {"id": f"fz-{n:04d}"}
    if r.random() < 0.02:
        t["id"] = r.choice([n, None, ""])
    if r.random() < 0.35:
        t["vars"] = {
            "name": r.choice(["Ada", "Bo", 3, True]),
            "fname": r.choice(["notes.md", "code.py", "missing.md"]),
            "obj": {"k": r.choice(WORDS)},
            "list": [1, "two"],
            "msgs": [{"role": "user", "content": _text(r)}],
        }
    if r.random() < 0.3 or suite_has_files:
        if r.random() < 0.6:
            t["input_files"] = [r.choice(FUZZ_FILES) for _ in range(r.randint(0, 3))]
        t["input"] = _text(r) if r.random() < 0.8 else _input(r)
    elif r.random() < 0.97:
        t["input"] = _input(r)
    k = r.random()
    if k < 0.7:
        t["criteria"] = _text(r)
    elif k < 0.8:
        t["assertions"] = [_text(r)]
    elif k < 0.85:
        t["criteria"] = ""
    exp = _expected(r)
    if exp is not None:
        t["expected_output"] = exp
    if r.random() < 0.12:
        t["execution"] = {"skip_defaults": True}
    return t


def write_fuzz(w: Writer) -> None:
    name = "fuzz"
    w.layout(name, "seeded random suites: roles, content kinds, files, suite defaults, vars, env")
    w.files(name)
    w.file(name, "evals/local.md", "A file next to the suites.\n")
    w.file(name, "local.md", "The root's local.md.\n")
    r = random.Random(SEED)
    n = 0
    for i in range(8):
        header: dict = {"description": f"fuzz suite {i}"}
        suite_has_files = False
        k = r.random()
        if k < 0.25:
            header["input"] = _text(r)
        elif k < 0.5:
            header["input"] = [_message(r, "system")] + ([_message(r, "user")] if r.random() < 0.5 else [])
        if r.random() < 0.3:
            header["input_files"] = [r.choice(FUZZ_FILES[:8])]
            suite_has_files = True
        lines = []
        for key, value in header.items():
            lines.append(f"{key}: {json.dumps(value)}\n")
        lines.append("tests:\n")
        for _ in range(50):
            n += 1
            lines.append("  - " + json.dumps(_fuzz_test(r, n, suite_has_files)) + "\n")
        w.eval(name, f"evals/fuzz-{i}.eval.yaml", "".join(lines))



# ----------------------------------------------------------------------------------------------------------------
# fuzzwide/: the differential tester's corpus. Thousands of seeded random tests reaching the shapes of FORMAT.md
# (a.2-a.9, b.1-b.9) in every source AgentV 4 reads — YAML suites, external case files through `file://` globs over
# folders, case folders, JSONL datasets, Agent Skills evals.json — and the edges of issue 18 mixed in: criteria that
# is empty or not a string beside expected_outcome, `assertions:`/`assert:` with no value, image parts and blank
# questions, reference parts without a value, integer-like object keys, JavaScript white space around JSONL lines,
# null and odd ids, test workspaces (a few suites end in a workspace refusal). Recorded like the rest of corpus4;
# tests/engine/test_golden_agentv4.py compares every field, warning, skip and refusal.

WIDE_SEED = 1818
WIDE_SUITES = 30
WIDE_TESTS = 80
WIDE_KEYS = ["b", "10", "2", "0", "01", "-1", "a", "4294967294", "4294967295", "1.5", " 3"]
WIDE_WS = ["", "", "", " ", "\t", "\u00a0", "\u3000", "\ufeff", "\u2028", "\u2029", "\u000b", "\u000c", "\u202f"]


def _int_keyed(r: random.Random) -> dict:
    keys = r.sample(WIDE_KEYS, r.randint(1, 5))
    return {k: (r.randint(0, 9) if r.random() < 0.7 else {"3": "x", "z": _text(r)}) for k in keys}


def _wide_segment(r: random.Random):
    k = r.random()
    if k < 0.12:
        return {"type": "image", "value": r.choice(["../files/pixel.png", "../files/photo.JPG", "../files/missing.png",
                                                     "  text  ", ""])}  # fmt: skip
    if k < 0.17:
        return {"type": r.choice(["image", "file"]), **({"value": r.choice([None, 5, ["x"]])} if r.random() < 0.6 else {})}
    if k < 0.22:
        return {"type": "text", "value": r.choice(["", "   ", "\n"])}
    if k < 0.27:
        return {"type": "image_url", "value": "http://x/" + r.choice(WORDS) + ".png"}
    if k < 0.32:
        return {"type": "weird", **_int_keyed(r)}
    return _segment(r)


def _wide_content(r: random.Random):
    k = r.random()
    if k < 0.15:
        return _int_keyed(r)
    if k < 0.55:
        return [_wide_segment(r) for _ in range(r.randint(0, 4))]
    return _content(r)


def _wide_input(r: random.Random):
    k = r.random()
    if k < 0.5:
        msgs = []
        if r.random() < 0.3:
            msgs.append({"role": "system", "content": _wide_content(r)})
        for i in range(r.randint(1, 4)):
            msgs.append({"role": "user" if i % 2 == 0 or r.random() < 0.5 else r.choice(ROLES_W),
                         "content": _wide_content(r)})  # fmt: skip
        return msgs
    if k < 0.55:
        return _int_keyed(r)
    return _input(r)


def _wide_expected(r: random.Random):
    k = r.random()
    if k < 0.2:
        return [{"role": "assistant", "content": [_wide_segment(r) for _ in range(r.randint(1, 4))]}]
    if k < 0.27:
        return _int_keyed(r)
    if k < 0.32:
        return [{"role": "assistant", "content": _int_keyed(r)}]
    return _expected(r)


def _wide_criteria(r: random.Random, t: dict) -> None:
    k = r.random()
    if k < 0.5:
        t["criteria"] = _text(r)
    elif k < 0.6:
        t["criteria"] = r.choice(["", "  ", 5, None, ["a"], {"x": 1}, True])
    if r.random() < 0.2:
        t["expected_outcome"] = r.choice([_text(r), "", "  ", 7, None, ["x"]])
    k = r.random()
    if k < 0.08:
        t[r.choice(["assertions", "assert"])] = None
    elif k < 0.12:
        t["assertions"] = []
    elif k < 0.2:
        t["assertions"] = [_text(r)]
    elif k < 0.23:
        t["execution"] = {"evaluators": r.choice([None, [_text(r)]])}


def _wide_test(r: random.Random, n: int, suite_has_files: bool) -> dict:
    t = _fuzz_test(r, n, suite_has_files)
    for key in ("criteria", "assertions"):
        t.pop(key, None)
    if r.random() < 0.6:
        t["input"] = _wide_input(r) if "input_files" not in t or r.random() < 0.2 else _text(r)
    _wide_criteria(r, t)
    if r.random() < 0.5:
        exp = _wide_expected(r)
        if exp is None:
            t.pop("expected_output", None)
        else:
            t["expected_output"] = exp
    if r.random() < 0.04:
        t["workspace"] = r.choice([{"repos": [{"path": "./r", "commit": "a", "base_commit": "a"}]}, 5, [],
                                   {"repos": [{"commit": 5, "base_commit": "x"}, "r"]}])  # fmt: skip
    if r.random() < 0.02:
        t["id"] = r.choice([None, "", 7, "fz dup"])
    return t


def _suite_header(r: random.Random) -> tuple[dict, bool]:
    header: dict = {"description": "wide fuzz suite"}
    has_files = False
    k = r.random()
    if k < 0.2:
        header["input"] = _text(r)
    elif k < 0.4:
        header["input"] = [{"role": "system", "content": _wide_content(r)}]
    if r.random() < 0.2:
        header["input_files"] = [r.choice(FUZZ_FILES[:8])]
        has_files = True
    k = r.random()
    if k < 0.15:
        header["assertions"] = [_text(r)]
    elif k < 0.2:
        header["assertions"] = None
    return header, has_files


def _jsonl_line(r: random.Random, n: int) -> str:
    t = _wide_test(r, n, False)
    t.pop("vars", None)
    t.pop("input_files", None)
    if r.random() < 0.1:
        t["assert"] = r.choice([None, [_text(r)]])
    text = json.dumps(t, ensure_ascii=False)
    if r.random() < 0.3:
        text = r.choice(WIDE_WS) + text + r.choice(WIDE_WS)
    return text


WIDE_REFUSING_WORKSPACES = [
    {"repos": [{"source": {"type": "git"}}]},
    {"repos": [{"checkout": {"ref": "main"}}]},
    {"repos": [{"path": "a", "clone": {"depth": 1}}]},
    {"repos": [{"path": "a", "commit": "x", "base_commit": "y"}]},
]


def write_fuzzwide(w: Writer, seed: int = WIDE_SEED, suites: int = WIDE_SUITES) -> None:
    name = "fuzzwide"
    w.layout(name, "the differential tester: thousands of random tests over every source AgentV 4 reads")
    w.files(name)
    w.file(name, "evals/local.md", "A file next to the suites.\n")
    w.file(name, "local.md", "The root's local.md.\n")
    r = random.Random(seed)
    n = 0
    for i in range(suites):
        header, has_files = _suite_header(r)
        tests = []
        for _ in range(WIDE_TESTS):
            n += 1
            tests.append(_wide_test(r, n, has_files))
        if i % 10 == 9:  # a test whose workspace AgentV refuses: the whole suite is refused
            tests[r.randrange(len(tests))]["workspace"] = WIDE_REFUSING_WORKSPACES[(i // 10) % 4]
        lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}\n" for key, value in header.items()]
        lines.append("tests:\n")
        lines += ["  - " + json.dumps(t, ensure_ascii=False) + "\n" for t in tests]
        w.eval(name, f"evals/wide-{i:02d}.eval.yaml", "".join(lines))
    for i in range(6):
        lines = []
        for _ in range(60):
            n += 1
            lines.append(_jsonl_line(r, n))
        w.eval(name, f"evals/wide-{i}.jsonl", "\n".join(lines) + "\n")
    for i in range(4):
        evals = []
        for _ in range(30):
            n += 1
            ev: dict = {}
            if r.random() < 0.9:
                ev["id"] = r.choice([f"sk-{n}", f"sk-{n}", n, None, "", 1.5, [1, None], {"a": 1}, True])
            ev["prompt"] = r.choice([_text(r), _text(r), "", "   ", 5, None, "hi ${{ CORPUS_TXT }}"])
            if r.random() < 0.5:
                ev["expected_output"] = r.choice([_text(r), "", "E ${{ CORPUS_NUM }}"])  # (a number crashes AgentV)
            if r.random() < 0.3:
                ev["assertions"] = [r.choice([_text(r), 4, ""]) for _ in range(r.randint(0, 3))]
            if r.random() < 0.2:
                ev["files"] = ["a.txt"]
            if r.random() < 0.2:
                ev.update(_int_keyed(r))
            evals.append(ev)
        w.eval(name, f"skills/s{i}/evals.json", json.dumps({"skill_name": f"s{i}", "evals": evals}, indent=1) + "\n")
    # external case files through globs over folders that hold sub-folders, and case folders with odd ids
    for i in range(3):
        for j in range(r.randint(2, 5)):
            tests = []
            for _ in range(r.randint(1, 6)):
                n += 1
                tests.append(_wide_test(r, n, False))
            text = "".join("- " + json.dumps(t, ensure_ascii=False) + "\n" for t in tests)
            sub = r.choice(["", "", "nested/", "deep/er/"])
            w.file(name, f"evals/globbed-{i}/{sub}part-{j}.yaml", text)
        w.file(name, f"evals/globbed-{i}/folder.yaml/inside.yaml", "- {id: never-read, criteria: c, input: hi}\n")
        pattern = r.choice(["*", "*.yaml", "**/*.yaml", "part-*", "{part-0,nested}*"])
        w.eval(name, f"evals/globbed-{i}.eval.yaml", f"tests:\n  - file://globbed-{i}/{pattern}\n")
        for j in range(r.randint(3, 7)):
            n += 1
            case = _wide_test(r, n, False)
            case.pop("vars", None)
            k = r.random()
            if k < 0.4:
                case.pop("id", None)
            elif k < 0.6:
                case["id"] = r.choice([None, "", 5, False])
            w.file(name, f"evals/folders-{i}/case-{j}/case.yaml", json.dumps(case, ensure_ascii=False) + "\n")
        if r.random() < 0.5:
            w.file(name, f"evals/folders-{i}/no-case-file/notes.md", "no case.yaml here\n")
        w.eval(name, f"evals/folders-{i}.eval.yaml", f"tests: ./folders-{i}/\n")


def write(out: Path) -> dict:
    for name in GENERATED:
        if (out / name).exists():
            shutil.rmtree(out / name)
    w = Writer(out)
    write_suites(w)
    write_fuzz(w)
    write_refused(w)
    write_dotenv(w)
    write_monorepo(w)
    write_edges(w)
    write_fuzzwide(w)
    manifest = {
        "generator": "tests/corpus4/generate.py",
        "env": CORPUS_ENV,
        "layouts": w.layouts,
    }
    (out / "layouts.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / ".gitattributes").write_text("* -text\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE), help="output folder (default: tests/corpus4)")
    args = ap.parse_args(argv)
    manifest = write(Path(args.out))
    n = sum(len(v["evals"]) for v in manifest["layouts"].values())
    print(f"wrote {len(manifest['layouts'])} generated layouts, {n} eval files under {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
