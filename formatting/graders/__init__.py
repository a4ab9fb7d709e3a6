"""AgentV 4.42.4's graders: how a test's grader definitions are read (parse.py) and what each one sends
(prompts.py)."""
