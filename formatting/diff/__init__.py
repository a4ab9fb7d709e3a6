"""`turnlens diff`: what a change to the eval files (or to a file they use) does to every test's prompts."""
