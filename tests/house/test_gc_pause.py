"""formatting/gcpause.py: the collector's pauses are counted, the start's pause is begun once and ended once."""

from __future__ import annotations

import gc

from turnlens.formatting import gcpause


def test_the_start_pause_ends_once_and_leaves_other_pauses_alone():
    assert gc.isenabled()
    gcpause.pause_until_started()
    gcpause.pause_until_started()  # the CLI and the app both begin it: one pause
    assert not gc.isenabled()
    with gcpause.paused():
        gcpause.started()
        assert not gc.isenabled()  # the other pause still holds it
        gcpause.started()
    assert gc.isenabled()
    gcpause.started()  # ended already: nothing to do
    assert gc.isenabled()


def test_the_collector_stays_off_after_the_start_if_it_was_off():
    gc.disable()
    try:
        gcpause.pause_until_started()
        gcpause.started()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_app_collects_nothing_until_its_first_frame(tmp_path):
    from turnlens.tui.app import make_app

    path = tmp_path / "one.eval.yaml"
    path.write_text("tests:\n  - id: a\n    input: Hello?\n")
    app = make_app([str(path)], watch=False)
    during: list[bool] = []
    display = app._display

    def first_frame(screen, renderable):
        display(screen, renderable)
        if renderable is not None and not during:
            during.append(gc.isenabled())
            app.call_after_refresh(lambda: (during.append(gc.isenabled()), app.exit()))

    app._display = first_frame
    app.run(headless=True, size=(80, 24))
    assert during == [False, True]
    assert gc.isenabled()
