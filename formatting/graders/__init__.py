"""What each AgentV 4.42.4 grader sends (prompts.py), above the prompts it builds on. How a test's grader definitions
are read is the loader's work: evals/agentv4_graders.py."""
