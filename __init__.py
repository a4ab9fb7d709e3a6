"""turnlens: a terminal transcript inspector for AgentV eval files and results.

Installed, the repository's folders live under this one name: `turnlens.formatting` (the engine, pure Python) and
`turnlens.tui` (the Textual app and the `turnlens` command). The bundled `sample_evals/` ships as package data.
Importing this package imports nothing else, so `import turnlens.formatting` stays free of the UI toolkit.
"""
