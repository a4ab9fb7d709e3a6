"""The turnlens Textual app and its one factory, `make_app`, used by the CLI, the tests and the benchmarks."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from textual import events, on
from textual.app import App, SystemCommand
from textual.command import CommandPalette
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Input  # (every first screen has a search box: imported before its first frame anyway)

from turnlens.formatting import gcpause
from turnlens.formatting.inputs import classify

from .navigation import OpenLatestResult, OpenTestOfResult
from .textual_compat import CrashReportWithoutLocals, StylesheetInParts, start_in_theme
from .theme import TURNLENS, highlight_texts, pane_title_text, use_theme

if TYPE_CHECKING:
    from .settings import Settings

SCREENSHOT_HELP = "Save an SVG screenshot of the screen in the working folder (else the temp folder)."
THEME = "turnlens"  # tui/theme.py: Textual's dark theme with the content's colours named
# app.tcss's rules after the line starting with this are for the screens other than the inspector's: when the
# inspector opens first, they are parsed once another screen opens (half the file's ~40 M instructions of parsing).
OTHER_SCREENS_CSS = "/* ==== the other screens"


class TurnlensApp(CrashReportWithoutLocals, StylesheetInParts):
    """The app; its crash report leaves out each frame's local variables (tui/textual_compat.py)."""

    CSS_PATH = "app.tcss"
    TITLE = "turnlens"

    def __init__(
        self,
        first_screen_factory: Callable[[], Screen[Any]],
        *,
        theme: str | None = None,
        settings: Settings | None = None,
        inspector_first: bool = False,
    ) -> None:
        """`inspector_first`: the first screen is the inspector (app.tcss is parsed in two parts: OTHER_SCREENS_CSS)."""
        super().__init__()
        if inspector_first:
            self.parse_css_in_parts(OTHER_SCREENS_CSS)
        self._css_variables_wanted = True
        self._first_screen_factory = first_screen_factory
        self.settings = settings  # choices remembered (None: nothing is remembered)
        self.register_theme(TURNLENS)
        self.unknown_theme = theme if theme is not None and self.get_theme(theme) is None else None
        start_in_theme(self, theme if theme is not None and self.unknown_theme is None else THEME)
        use_theme(self.current_theme)

    # Textual's __init__ makes the stylesheet with the variables of its default theme; start_in_theme gives it the
    # theme's before anything is parsed: until then there are none to make (the colour system and ours, ~5 ms).
    _css_variables_wanted = False

    def get_css_variables(self) -> dict[str, str]:
        if not self._css_variables_wanted:
            return {}
        variables = super().get_css_variables()
        variables.update(highlight_texts(variables))
        variables.update(pane_title_text(variables))
        return variables

    def run(self, *args: Any, **kwargs: Any) -> Any:
        gcpause.pause_until_started()  # the CLI began it before importing Textual
        try:
            return super().run(*args, **kwargs)
        finally:
            gcpause.started()  # if it ended before its first frame

    quitting = False  # q was pressed: what is still queued (a load's steps) is dropped, not applied

    async def action_quit(self) -> None:
        """Quit, the workers cancelled first: Textual cancels them once it has closed every screen, and a big load's
        thread, which stops at its next step once cancelled, shared the GIL with the closing until then."""
        self.quitting = True
        self.workers.cancel_all()
        self.exit()

    async def on_event(self, event: events.Event) -> None:
        """q quits as the key arrives, before any widget sees it: as a screen's binding it went to the focused widget
        and back up through its parents to the app, each step queued behind what the event loop had to do first (a
        layout, a frame: ~100 ms of CPU each, 0.4 s apiece with three busy loops on the core). The screens' tables
        still bind and list q (their footer, help and palette: an app binding for it took its place in the footer).
        Typed into a text box (a search, the palette), q is a letter. A key that opens a search box is run as it
        arrives too (the screen's TEXT_BOX_KEYS, actions.text_box_keys), so that what is typed after it goes into the
        box, as Textual sends a key to the widget focused when the key arrives."""
        if isinstance(event, events.Key) and not event.is_forwarded and not self._typing():
            if event.key == "q":
                await self.action_quit()
                return
            screen = self.screen
            action = cast("dict[str, str]", getattr(screen, "TEXT_BOX_KEYS", {})).get(event.key)
            if action is not None and screen.check_action(action, ()) is not False:
                await self.run_action(action, screen)
                return
        await super().on_event(event)

    def _typing(self) -> bool:
        return isinstance(self.focused, Input)

    def action_command_palette(self) -> None:
        """Textual's palette with a bounded box (tui/commands.BoundedPalette)."""
        from .commands import BoundedPalette

        # (is_open takes an App[object] and reads only its screen; App is invariant in its return type)
        if self.use_command_palette and not CommandPalette.is_open(cast("App[object]", self)):
            self.push_screen(BoundedPalette(id="--command-palette"))

    def on_mount(self) -> None:
        # Once the app's start is over: Textual mounts the app inside a batch update, and a frame drawn in one is
        # not written to the terminal (the first screen's first frame was drawn for nothing, and drawn again later).
        self.call_later(self._open_first_screen)

    def _open_first_screen(self) -> None:
        self.push_screen(self._first_screen_factory())
        self.call_after_refresh(gcpause.started)
        if self.unknown_theme is not None:
            names = ", ".join(sorted(self.available_themes))
            self.notify(f"No theme {self.unknown_theme!r}; the themes: {names}", severity="warning", markup=False)
        if self.settings is not None:
            self.theme_changed_signal.subscribe(self, self._remember_theme)

    def _remember_theme(self, theme: Theme) -> None:
        assert self.settings is not None  # (subscribed only with settings)
        problem = self.settings.remember(theme=theme.name)
        if problem is not None:
            self.notify(f"The theme is not remembered: {problem}", severity="warning", markup=False)

    @on(OpenTestOfResult)
    def _open_test_of_result(self, message: OpenTestOfResult) -> None:
        from .inspector.screen import InspectorScreen

        screen = message.over_results(InspectorScreen)(message.session, mode=message.mode, watch=False)
        self.push_screen(screen)
        message.opened(screen)

    @on(OpenLatestResult)
    def _open_latest_result(self, message: OpenLatestResult) -> None:
        from .results import results_screen

        screen = results_screen([message.argument], repo_root=message.repo_root, watch=False)
        if hasattr(screen, "over_inspector"):
            screen.over_inspector = True  # esc goes back to the case
        self.push_screen(screen)
        opener = getattr(screen, "open_when_indexed", None)
        if opener is not None:
            opener(message.index)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        from .inspector.screen import InspectorScreen

        if isinstance(screen, InspectorScreen) or hasattr(screen, "palette_commands"):
            return  # the screen's own provider lists them, after its actions (tui/commands.py)
        yield from self.system_commands(screen)

    def system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's commands, with a Screenshot that saves where it can and says where (Textual's saves to
        ~/Downloads, and fails without one)."""
        for command in super().get_system_commands(screen):
            if command.title == "Screenshot":
                command = SystemCommand("Screenshot", SCREENSHOT_HELP, self.save_screenshot_here)
            yield command

    def save_screenshot_here(self) -> str | None:
        """Save an SVG of the screen in the working folder, or the temp folder when that cannot be written; say
        where (or why not). The path saved, None when neither could be written."""
        svg = self.export_screenshot()
        name = f"turnlens-{datetime.now():%Y%m%d-%H%M%S}.svg"
        problem = None
        for folder in (os.getcwd(), tempfile.gettempdir()):
            path = os.path.join(folder, name)
            try:
                with open(path, "x", encoding="utf-8") as out:
                    out.write(svg)
            except OSError as error:
                problem = error
                continue
            self.notify(f"Saved the screenshot to {path}", title="Screenshot", markup=False)
            return path
        self.notify(f"Could not save the screenshot: {problem}", title="Screenshot", severity="error", markup=False)
        return None


def make_app(
    paths: Sequence[str | os.PathLike[str]] = (),
    *,
    repo_root: str | None = None,
    mode: str | None = None,  # None: each case in the mode AgentV would use for it
    profile: str = "agentv",
    evals: str | None = None,
    watch: bool = True,
    dialect: str = "auto",
    threshold: float | None = None,
    delta: float | None = None,
    targets: tuple[str, str] | None = None,
    theme: str | None = None,
    settings: Settings | None = None,
) -> App[None]:
    """The app for eval files/folders (inspector) or AgentV results files (results view)."""
    path_list = [os.fspath(p) for p in paths]
    cwd = None
    if not path_list:
        from .session import default_sample_dir

        # The bundled samples are written relative to the project root, whatever the working directory is.
        samples = default_sample_dir()
        path_list = [str(samples)]
        cwd = str(samples.parent)
        repo_root = repo_root or cwd
    results = classify(path_list).results  # (the same decision as `turnlens export`)
    if results and len(results) == len(path_list):
        return TurnlensApp(
            lambda: _results_screen(
                path_list,
                repo_root=repo_root,
                evals=evals,
                mode=mode,
                profile=profile,
                watch=watch,
                threshold=threshold,
                delta=delta,
                targets=targets,
                remembered=settings.threshold if settings is not None else None,
            ),
            theme=theme,
            settings=settings,
        )
    # Eval files and results files named together: the eval files open, and a note says how to open the others
    # (a results file read as an eval file would only show a YAML error).
    notes = [_results_note(p, [q for q in path_list if q not in results]) for p in results]
    path_list = [p for p in path_list if p not in results]

    def inspector() -> Screen[None]:
        from .inspector.screen import InspectorScreen
        from .session import Session  # the eval engine: not imported for results (their first frame is timed)

        session = Session(path_list, repo_root=repo_root, cwd=cwd, dialect=dialect)
        session.notes = notes
        return InspectorScreen(session, mode=mode, profile=profile, watch=watch)

    return TurnlensApp(inspector, theme=theme, settings=settings, inspector_first=True)


def _results_note(path: str, eval_paths: Sequence[str]) -> str:
    # only a file or a folder can be an eval path (`turnlens a.jsonl FIFO` suggested `--evals FIFO`)
    eval_paths = [p for p in eval_paths if os.path.isfile(p) or os.path.isdir(p)]
    evals = f" --evals {eval_paths[0]}" if len(eval_paths) == 1 else ""
    what = "holds AgentV results files" if os.path.isdir(path) else "is an AgentV results file, not an eval file"
    return f"{path} {what}: open it with `turnlens {path}{evals}`"


def _results_screen(
    paths: Sequence[str],
    *,
    repo_root: str | None,
    evals: str | None,
    mode: str | None,
    profile: str,
    watch: bool = True,
    threshold: float | None = None,
    delta: float | None = None,
    targets: tuple[str, str] | None = None,
    remembered: float | None = None,
) -> Screen[None]:
    from .results import results_screen

    return results_screen(
        paths,
        repo_root=repo_root,
        evals=evals,
        watch=watch,
        threshold=threshold,
        delta=delta,
        targets=targets,
        remembered=remembered,
    )
