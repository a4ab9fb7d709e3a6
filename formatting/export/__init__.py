"""`turnlens export`: eval files and results files out as JSONL, TOON or Markdown."""
