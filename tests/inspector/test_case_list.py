"""The case list drawn line by line: rows appended at the cost of what is added, only visible rows drawn, drawings
kept in a bounded cache, keys found without a scan, the highlight moved by keys and clicks."""

from __future__ import annotations

from textual.app import App, ComposeResult

from turnlens.tui.rows import CaseRow, FileEntry
from turnlens.tui.widgets.case_list import CaseList, CaseOptions


def rows(number: int, count: int, start: int = 0) -> tuple[CaseRow, ...]:
    return tuple(CaseRow(f"{number}:{n}", f"case-{n}", n % 2 == 0, "single", n % 3) for n in range(start, count))


class Host(App):
    def __init__(self) -> None:
        super().__init__()
        self.selected: list[str] = []

    def compose(self) -> ComposeResult:
        yield CaseList(id="cases")

    def on_case_list_case_selected(self, event: CaseList.CaseSelected) -> None:
        self.selected.append(event.key)


async def test_a_big_list_is_appended_to_and_draws_only_what_is_visible():
    app = Host()
    async with app.run_test(size=(40, 24)) as pilot:
        case_list = app.query_one(CaseList)
        options = case_list.options
        made = rows(0, 1000)
        case_list.set_entries([FileEntry("a.yaml", None, False, made, 0, "4.x")])
        await pilot.pause()
        assert app.selected == ["0:0"]
        first = options.items
        # 200,000 rows more, in steps as a load sends them: each step appends, the items list is the same one.
        total = rows(0, 201_000)
        for end in range(21_000, 201_001, 20_000):
            case_list.set_entries([FileEntry("a.yaml", None, False, total[:end], 0, "4.x")])
        await pilot.pause()
        assert options.items is first and options.option_count == 201_000
        assert options.virtual_size.height == 2 * 201_000
        assert len(options._drawn) <= options.RENDER_CACHE_ITEMS
        # Every line drawn so far is of a row near the top: nothing else was made.
        assert all(index < 30 for index, *_ in options._drawn.keys())
        assert options.index_of("0:150000") == 150_000
        options.focus()
        await pilot.press("end")
        await pilot.pause()
        assert app.selected[-1] == "0:200999"
        assert options.render_line(options.size.height - 2).text.strip() == "case-200999"
        await pilot.press("k", "home")
        assert app.selected[-2:] == ["0:200998", "0:0"]


async def test_headings_keys_filter_and_clicks():
    app = Host()
    async with app.run_test(size=(40, 24)) as pilot:
        case_list = app.query_one(CaseList)
        options = case_list.options
        case_list.set_entries(
            [
                FileEntry("a.yaml", None, False, rows(0, 3), 0, "4.x"),
                FileEntry("b.yaml", "line 2: bad", True, rows(1, 2), 1, "0.15"),
            ]
        )
        await pilot.pause()
        assert case_list.headings() == ["▪ a.yaml (3) 4.x", "▪ b.yaml (2) 0.15"]
        assert [options.render_line(y).text.strip() for y in range(7)] == [
            "▪ a.yaml (3) 4.x",
            "case-0",
            "MARK  single",
            "case-1",
            "FLAT  single  ⚠ 1",
            "case-2",
            "MARK  single  ⚠ 2",
        ]
        assert set(options.render_line(7).text) == {"─"}
        assert options.index_of("file:1") == 4 and options.index_of("1:1") == 6 and options.index_of("2:0") is None
        options.focus()
        await pilot.press("down", "down", "down")  # over the heading
        assert app.selected[-1] == "1:0"
        assert case_list.neighbour("1:1", 1) == "0:0"  # wraps round
        assert case_list.neighbour("0:0", -1) == "1:1"
        await pilot.click(CaseOptions, offset=(3, 4))  # the second case's id line (the border, the heading, a case)
        await pilot.pause()
        assert app.selected[-1] == "0:1"
        case_list.filter_input.value = "warn"
        await pilot.pause()
        assert case_list.visible_keys() == ["0:1", "0:2", "1:1"]
        assert case_list.headings() == ["▪ a.yaml (2 of 3) 4.x", "▪ b.yaml (1 of 2) 0.15"]
        assert str(options.border_subtitle).startswith("3 of 5")
        case_list.filter_input.value = "nothing-matches"
        await pilot.pause()
        assert case_list.visible_keys() == []
        assert options.render_line(0).text.strip() == "no case matches the filter"


async def test_home_and_moving_up_to_a_files_first_case_show_its_heading():
    """The heading above a file's first case scrolls into view with it: after End, Home shows the list's top, and
    moving up to the next file's first case shows that file's heading."""
    app = Host()
    async with app.run_test(size=(40, 24)) as pilot:
        case_list = app.query_one(CaseList)
        options = case_list.options
        case_list.set_entries(
            [FileEntry("a.yaml", None, False, rows(0, 30), 0, "4.x"), FileEntry("b.yaml", None, False, rows(1, 30), 1)]
        )
        await pilot.pause()
        options.focus()
        await pilot.press("end")
        assert app.selected[-1] == "1:29" and options.scroll_y > 0
        await pilot.press("home")
        assert app.selected[-1] == "0:0"
        assert options.scroll_y == 0 and options.render_line(0).text.strip() == "▪ a.yaml (30) 4.x"
        await pilot.press("end", *["up"] * 29)
        assert app.selected[-1] == "1:0"
        shown = [options.render_line(y).text.strip() for y in range(options.scrollable_content_region.height)]
        assert "▪ b.yaml (30)" in shown and shown.index("▪ b.yaml (30)") < shown.index("case-0")
