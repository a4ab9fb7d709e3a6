"""turnlens' engine: AgentV eval files and results in, plain data out. Never imports textual or rich.

The data flow, one subpackage per step:

    evals/    eval file -> EvalFile: YAML 1.2 with line numbers (yaml12), config discovery and file references
              (loader), guideline globs (globs)
    prompts/  EvalCase -> FormattedCase: question, guidelines, chatPrompt, evaluator prompt, and the explanation
              of the marker rule (engine); syntax spans for display (highlight)
    results/  AgentV results files -> records (reader), two runs paired (compare), drift against the eval file
    export/   `turnlens export`: eval files as JSONL (evals, with parallel for big files), results (results)

model.py holds the dataclasses every step shares; jsstr.py the JavaScript string semantics the reference uses.
Import what you need from its module; this package imports nothing, so each entry point pays only for its own.
"""
