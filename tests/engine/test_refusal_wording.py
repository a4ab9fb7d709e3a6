"""A file that cannot be read at all is refused with Node's words for the error, as AgentV 4.42.4 prints it
(after ours). Recorded from the oracle (Node.js 20), in an empty folder /tmp/p4:

    node agentv-4.42.4-oracle.cjs evals/missing.eval.yaml .
    -> {"load_error":"ENOENT: no such file or directory, open '/tmp/p4/evals/missing.eval.yaml'"}
    node agentv-4.42.4-oracle.cjs evals/dir.eval.yaml .        (a folder named like an eval file)
    -> {"load_error":"EISDIR: illegal operation on a directory, read"}

The other refusals are compared with their recordings by tests/engine/test_golden_agentv4.py."""

from __future__ import annotations

from turnlens.formatting.dialects.load import load_eval_file


def test_a_missing_file(tmp_path):
    ev = load_eval_file("evals/missing.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path))
    expected = f"ENOENT: no such file or directory, open '{tmp_path}/evals/missing.eval.yaml'"
    assert ev.error is not None and ev.error.message == f"file not found ({expected})"


def test_a_folder_named_like_an_eval_file(tmp_path):
    (tmp_path / "evals" / "dir.eval.yaml").mkdir(parents=True)
    ev = load_eval_file("evals/dir.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path))
    assert ev.error is not None
    assert ev.error.message == "is a folder, not an eval file (EISDIR: illegal operation on a directory, read)"
