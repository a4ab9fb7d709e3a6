"""JavaScript's String.prototype.trim() as formatting/jsstr.py reads it: its white space, not Python's."""

from __future__ import annotations

import itertools

from turnlens.formatting.jsstr import JS_WHITESPACE, js_blank, js_trim

# Python's str.isspace() and JavaScript's trim() disagree on these: neither list may be taken for the other.
NOT_JS_WHITESPACE = "\x1c\x1d\x1e\x1f\x85\u200b"


def test_js_whitespace_is_what_trim_removes():
    assert js_trim(JS_WHITESPACE + "a" + JS_WHITESPACE) == "a"
    for ch in NOT_JS_WHITESPACE:
        assert js_trim(ch) == ch and not js_blank(ch)
    assert "\ufeff".isspace() is False and js_blank("\ufeff")  # a BOM: JavaScript strips it, Python does not


def test_js_blank_is_trim_giving_nothing_on_every_short_text():
    alphabet = [" ", "\t", "\n", "\u3000", "\ufeff", "x", "\x85", "\u200b"]
    for n in range(5):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            assert js_blank(text) == (js_trim(text) == ""), repr(text)
