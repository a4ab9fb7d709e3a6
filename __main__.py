"""`python -m turnlens …` is the `turnlens` command."""

from turnlens.tui.cli import main

if __name__ == "__main__":  # importing this module (pkgutil.walk_packages does) must not start the app
    main()
