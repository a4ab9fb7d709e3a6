"""Building the views around the case on screen ahead of a switch, in a worker thread of the host (the screen), once
switching rests a moment (a held key is not slowed): the likely next switches are then a redraw. Reports each pass
that finished by message (`Prerenderer.Finished`)."""

from __future__ import annotations

from collections.abc import Callable

from textual.dom import DOMNode
from textual.message import Message
from textual.timer import Timer
from textual.worker import get_current_worker

from .loader import in_background
from .views import CaseViews

PRERENDER_DELAY = 0.3  # seconds after the first load
PRERENDER_AFTER_SWITCH = 0.15  # seconds of rest after a switch before prerendering around the new case

# What the pass needs, asked for when it starts: (the case on screen, the mode of a case, profile, the panes' widths).
Where = Callable[[], tuple[str | None, Callable[[str], str], str, dict[str, int]]]


class Prerenderer:
    class Finished(Message):
        """The views around the case on screen were built ahead."""

    def __init__(self, host: DOMNode, views: CaseViews, where: Where) -> None:
        self._host = host
        self._views = views
        self._where = where
        self._timer: Timer | None = None

    def soon(self, delay: float = PRERENDER_AFTER_SWITCH) -> None:
        """Start a pass after `delay`, unless asked again meanwhile (then the delay starts again)."""
        if self._timer is not None:
            self._timer.stop()
        self._timer = self._host.set_timer(delay, self.start)

    def start(self) -> None:
        """Start a pass now, from the case on screen and the panes' widths of now (one pass at a time)."""
        current, mode, profile, widths = self._where()
        views = self._views

        def prerender() -> None:
            worker = get_current_worker()

            def work() -> None:
                if views.prerender(current, mode, profile, widths, lambda: worker.is_cancelled):
                    self._host.post_message(self.Finished())

            in_background(work)  # a view can take a while to build: q does not wait for it

        self._host.run_worker(prerender, thread=True, group="prerender", exclusive=True)
