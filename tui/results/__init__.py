"""The results view: AgentV results files, failures first, runs compared, drift against the eval file.

`tui.results.screen.ResultsScreen(paths, evals, repo_root)` is the entry point `tui.app.make_app` pushes.
"""
