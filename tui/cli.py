def main() -> None:  # placeholder until the CLI lands
    raise SystemExit("turnlens: not built yet")
