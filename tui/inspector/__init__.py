"""The inspector: eval files' cases, the prompts AgentV sends for each, live re-render as the files change.

`screen.InspectorScreen` is the entry point `tui.app` opens; the app, not this package, opens the results view
(the two views talk through tui/navigation.py's messages and never import each other: an import contract checks).

model.py       the view's state in plain Python (case shown, mode and profile, rows so far, filter, subtitle)
loader.py      the loads off the event loop (first load, rows for another profile, reloads); watcher.py the files
               followed; prerender.py the views built ahead around the case on screen
views.py       what is drawn for one case (title, rule line, panes' texts) and the bounded cache of them
authoring.py   a test as its author thinks of it: dialect, suite and interpolation, what grades it
grading.py     the grading screen (e); diff.py `turnlens diff` as a view (the changed tests, old and new fields)
"""
