"""The dialects turnlens reads, each one module (agentv015.py, agentv4.py) listed in registry.py: how a file is
recognised, its loader, its formatting strategy, its labels and capabilities; and the two entry points that ask the
file's dialect, load.load_eval_file and format.format_case."""
