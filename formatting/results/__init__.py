"""Reading AgentV results files and runs, comparing runs, drift against the eval files."""
