"""The inspector's bounded caches (tui/cache.py): by entries and by weight, and the prerender that fills the view
cache around the case on screen without pushing out what is nearer to it."""

from __future__ import annotations

from pathlib import Path

from turnlens.tui.cache import BoundedCache
from turnlens.tui.inspector.views import CaseViews
from turnlens.tui.session import Session
from turnlens.tui.theme import generation


def test_the_least_recent_entries_go_first():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.set("a", 1)
    cache.set("b", 2)
    assert cache.get("a") == 1  # now the most recent
    cache.set("c", 3)
    assert "b" not in cache and "a" in cache and "c" in cache


def test_bounded_by_weight_never_dropping_the_new_entry():
    cache: BoundedCache[str, str] = BoundedCache(10, max_weight=10, weigh=len)
    cache.set("a", "xxxx")
    cache.set("b", "xxxx")
    assert cache.weight == 8
    cache.set("c", "xxxx")  # 12 > 10: the least recent goes
    assert "a" not in cache and cache.weight == 8
    cache.set("huge", "x" * 50)  # alone over the bound, it stays
    assert len(cache) == 1 and cache.get("huge") is not None and cache.weight == 50
    cache.set("huge", "xx")  # replaced, weighed again
    assert cache.weight == 2
    cache.discard_where(lambda key: key == "huge")
    assert cache.weight == 0 and len(cache) == 0


def test_kept_entries_are_not_dropped_for_a_new_one():
    cache: BoundedCache[str, str] = BoundedCache(10, max_weight=10, weigh=len)
    cache.set("old", "xxxx")
    cache.set("near", "xxxx")
    assert cache.set("far", "xxxx", keep={"near"})  # "old" makes room
    assert "old" not in cache
    assert not cache.set("farther", "xxxx", keep={"near", "far"})  # no room beside them: not added
    assert "farther" not in cache and "near" in cache and "far" in cache and cache.weight == 8


def _eval_file(folder: Path, cases: int, words: int) -> Path:
    (folder / ".git").mkdir(parents=True, exist_ok=True)
    text = "Some words to fill the question. " * words
    out = ["$schema: agentv-eval-v2", "evalcases:"]
    for n in range(cases):
        out += [f"  - id: case-{n}", "    outcome: answered", "    input_messages:"]
        out += [f"      - {{role: user, content: 'Question {n}. {text}'}}"]
    path = folder / "cases.yaml"
    path.write_text("\n".join(out) + "\n")
    return path


def test_views_are_bounded_by_the_characters_they_hold(tmp_path):
    session = Session([str(_eval_file(tmp_path, 12, 100))], repo_root=str(tmp_path))
    session.load_all()
    keys = session.case_keys()
    views = CaseViews(session, chars=30_000)
    one = views.get(keys[0], "lm", "agentv")
    assert one is not None and 5_000 < one.chars < 15_000
    for key in keys:
        views.get(key, "lm", "agentv")
    assert views.chars <= 30_000 and len(views) < len(keys)
    assert views.get(keys[-1], "lm", "agentv") is not None


def test_the_prerender_stops_when_the_views_around_the_case_on_screen_fill_the_cache(tmp_path):
    session = Session([str(_eval_file(tmp_path, 30, 100))], repo_root=str(tmp_path))
    session.load_all()
    keys = session.case_keys()
    views = CaseViews(session, chars=40_000)
    current = keys[15]
    views.get(current, "lm", "agentv")  # shown
    assert views.prerender(current, "lm", "agentv", {"question": 60}, lambda: False)
    cached = [key for key in keys if _cached(views, session, key)]
    # The case on screen and the nearest ones, next before previous, as many as fit.
    assert current in cached and keys[16] in cached and keys[14] in cached
    assert all(abs(keys.index(key) - 15) <= 3 for key in cached), cached
    assert views.chars <= 40_000


def _cached(views: CaseViews, session: Session, key: str) -> bool:
    found = session.case(key)
    assert found is not None
    loaded, case = found
    return (loaded.path, loaded.generation, case.index, "lm", "agentv", generation()) in views._views
