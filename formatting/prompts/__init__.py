"""From loaded messages to what the model and the grader receive: question, chatPrompt, the rule and why."""
