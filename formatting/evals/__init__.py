"""Reading eval files: YAML 1.2, globs, config discovery, file references, each dialect's loader."""
