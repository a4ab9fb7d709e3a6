"""The pure highlighting spans (formatting/prompts/highlight.py) and the sanitising of untrusted text (tui/render)."""

from __future__ import annotations

from rich.text import Text

from turnlens.formatting.prompts.highlight import code_spans, file_spans, prompt_spans
from turnlens.tui.render import highlighted, sanitize


def kinds(text: str, spans) -> list[tuple[str, str]]:
    return [(kind, text[start:end]) for start, end, kind in spans]


class TestPromptSpans:
    def test_markers_tags_attachments_and_sections(self):
        text = (
            "@[System]:\n<Attached: prompts/a.instructions.md>\nhi\n\n@[User]:\n"
            '<file: path="src/a.py">\n[[ ## question ## ]]'
        )
        found = kinds(text, prompt_spans(text))
        assert found == [
            ("marker:system", "@[System]:"),
            ("attached", "<Attached: prompts/a.instructions.md>"),
            ("marker:user", "@[User]:"),
            ("file-tag", '<file: path="src/a.py">'),
            ("section", "[[ ## question ## ]]"),
        ]

    def test_marker_must_be_alone_on_its_line(self):
        assert prompt_spans("say @[User]: hi") == []

    def test_embedded_file_is_lexed_by_its_extension(self):
        text = '<file path="a.py">\ndef f():\n    return 1\n</file>'
        found = kinds(text, prompt_spans(text))
        assert found[0] == ("file-tag", '<file path="a.py">')
        assert ("token:Token.Keyword", "def") in found
        assert found[-1] == ("file-tag", "</file>")

    def test_fenced_code_is_lexed_by_its_language(self):
        text = 'look:\n```json\n{"a": 1}\n```\nend'
        found = kinds(text, prompt_spans(text))
        assert found[0] == ("fence", "```json")
        assert ("token:Token.Name.Tag", '"a"') in found
        assert found[-1] == ("fence", "```")

    def test_unclosed_fence_is_plain_text(self):
        assert prompt_spans("```python\nx = 1") == []

    def test_spans_are_sorted_and_disjoint(self):
        text = (
            '@[User]:\n```python\nimport os\n```\n<file path="b.js">\nlet x = 1;\n</file>\n<Attached: x> [[ ## a ## ]]'
        )
        spans = prompt_spans(text)
        assert spans == sorted(spans)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))

    def test_unknown_language_has_no_code_spans(self):
        assert code_spans("whatever", language="no-such-language") == []

    def test_file_spans_by_extension(self):
        assert ("token:Token.Keyword", "def") in kinds("def f(): pass", file_spans("def f(): pass", "x.py"))


class TestUntrustedText:
    def test_control_characters_become_visible(self):
        assert sanitize("a\x1b[31mred\x1b[0m\x07\x7f\x9b\r") == "a␛[31mred␛[0m␇␡\\x9b␍"

    def test_newlines_and_tabs_pass(self):
        assert sanitize("a\n\tb") == "a\n\tb"

    def test_markup_stays_literal(self):
        text = highlighted("[bold]x[/bold] [@click=app.quit]q[/] @[User]:")
        assert text.plain == "[bold]x[/bold] [@click=app.quit]q[/] @[User]:"
        assert all("click" not in str(span.style) for span in text.spans)


class TestTextLayout:
    def rows(self, text: str, width: int, hang: int = 0) -> list[str]:
        from turnlens.tui.widgets.textlayout import StyledText

        styled = StyledText(Text(text))
        return [" " * indent + styled.plain[a:b] for a, b, indent in styled.rows(width, hang)]

    def test_short_lines_pass(self):
        assert self.rows("ab\n\ncd", 10) == ["ab", "", "cd"]

    def test_word_wrap(self):
        assert self.rows("the quick brown fox", 10) == ["the quick ", "brown fox"]

    def test_long_word_is_folded(self):
        assert self.rows("abcdefghijkl xy", 5) == ["abcde", "fghij", "kl xy"]

    def test_a_long_path_is_folded_after_a_separator(self):
        assert self.rows('<file path="fixtures/code/billing_service.py">', 30) == [
            '<file path="fixtures/code/',
            'billing_service.py">',
        ]

    def test_a_lone_symbol_stays_with_the_long_word_it_introduces(self):
        assert self.rows("⎘ prompts/python.instructions.md (10 lines)", 30) == [
            "⎘ prompts/python.instructions.",
            "md (10 lines)",
        ]
        assert self.rows("Please review billing_service.py", 30) == ["Please review ", "billing_service.py"]

    def test_wide_characters_count_two_cells(self):
        assert self.rows("日本語のテキスト", 6) == ["日本語", "のテキ", "スト"]

    def test_continuation_rows_keep_the_indentation(self):
        assert self.rows("  file embedded: as src/calc.py", 16) == ["  file embedded: ", "  as src/calc.py"]

    def test_hanging_indent(self):
        assert self.rows("~ aaa bbb ccc ddd", 10, hang=2) == ["~ aaa bbb ", "  ccc ddd"]

    def test_tabs_are_expanded(self):
        assert self.rows("a\tb", 20) == ["a   b"]

    def test_segments_carry_overlapping_styles(self):
        from rich.style import Style

        from turnlens.tui.widgets.textlayout import StyledText

        text = Text("hello world", style="italic")
        text.stylize("bold", 0, 5)
        text.stylize("red", 3, 8)
        styled = StyledText(text)
        segments = styled.segments(0, 11)
        assert "".join(s.text for s in segments) == "hello world"
        assert segments[0].style == Style(italic=True, bold=True)
        assert segments[1].style == Style(italic=True, bold=True, color="red")
        assert segments[2].style == Style(italic=True, color="red")


class TestChatDiff:
    def test_a_missing_chat_prompt_is_not_diffed_line_by_line(self):
        from turnlens.formatting.model import ChatMessage, Rendered
        from turnlens.tui.render import diff_chat_texts

        flat = Rendered("q", "", None)
        design = Rendered("q", "", [ChatMessage("user", "q")])
        diff = diff_chat_texts(flat, design, "agentv", "design")
        assert diff.differences == 1
        assert diff.left.plain.startswith("  No chatPrompt")
        assert all(line.startswith("+ ") for line in diff.right.plain.split("\n"))
        assert len(diff.left_to_right) == len(diff.left.plain.split("\n"))

    def test_the_two_sides_are_aligned_line_by_line(self):
        from turnlens.formatting.model import ChatMessage, Rendered
        from turnlens.tui.render import diff_chat_texts

        left = Rendered("q", "", [ChatMessage("system", "a\n\nb"), ChatMessage("user", "q")])
        right = Rendered("q", "", [ChatMessage("system", "a\nextra 1\nextra 2\nb"), ChatMessage("user", "q")])
        diff = diff_chat_texts(left, right, "agentv", "design")
        left_lines, right_lines = diff.left.plain.split("\n"), diff.right.plain.split("\n")
        assert len(left_lines) == len(right_lines)
        # Matching lines sit on the same row on both sides.
        for n, line in enumerate(left_lines):
            if line.strip() in ("b", "q", "user  message 2"):
                assert right_lines[n] == line
        assert diff.left_to_right == list(range(len(left_lines)))

    def test_a_blank_line_only_one_side_has_gets_no_sign(self):
        from turnlens.formatting.model import ChatMessage, Rendered
        from turnlens.tui.render import diff_chat_texts

        left = Rendered("q", "", [ChatMessage("user", "a\n\nb")])
        right = Rendered("q", "", [ChatMessage("user", "a\nb")])
        diff = diff_chat_texts(left, right, "agentv", "design")
        assert "-" not in diff.left.plain


def test_code_whose_lexer_is_not_made_yet_can_be_left_plain_then_coloured():
    """The inspector's first frame does not wait for Pygments: within cold_lexers_skipped a lexer not looked for
    yet is not made (the code stays plain) but noted; make_lexers makes it, and the same text is then coloured."""
    from turnlens.formatting.prompts import highlight as hl

    text = "Run:\n```Haskell\nmain = print (1 + 2)\n```\n"  # a language no other test asks for
    with hl.cold_lexers_skipped() as skipped:
        plain = hl.prompt_spans(text)
    assert skipped == {("Haskell", None)}
    assert not [s for s in plain if s[2].startswith("token:")]
    hl.make_lexers(skipped)
    with hl.cold_lexers_skipped() as skipped_again:
        coloured = hl.prompt_spans(text)
    assert not skipped_again and [s for s in coloured if s[2].startswith("token:")]
