"""The inspector's view model without an app: loading steps, reloads, the subtitle, moving between cases and the
warnings navigation, mode and profile, the maximised pane, the editor target."""

from __future__ import annotations

from tui_helpers import CASES, FIXTURE_REPO, copy_fixture_repo

from turnlens.tui.inspector.loader import reload_files
from turnlens.tui.inspector.model import NO_CASE, InspectorModel
from turnlens.tui.loading import load_steps
from turnlens.tui.session import Session


def loaded_model(paths=(CASES,), repo_root=FIXTURE_REPO, **kwargs) -> InspectorModel:
    session = Session([str(p) for p in paths], repo_root=str(repo_root))
    model = InspectorModel(session, **kwargs)
    steps = load_steps([f.path for f in session.files], repo_root=session.repo_root, cwd=None, profile=model.profile)
    applied = model.apply_steps(list(steps))
    assert applied.complete and not applied.errors
    model.loaded = True
    return model


def key_of(model: InspectorModel, case_id: str) -> str:
    return next(key for key in model.session.case_keys() if model.session.case(key)[1].id == case_id)


def test_load_steps_fill_the_rows_and_the_subtitle():
    session = Session([str(CASES)], repo_root=str(FIXTURE_REPO))
    model = InspectorModel(session)
    assert model.subtitle() == "cases.yaml, 0 cases · loading…"
    steps = list(load_steps([str(CASES)], repo_root=session.repo_root, cwd=None, profile="agentv"))
    applied = model.apply_steps(steps)
    assert applied.replaced == (str(CASES),) and applied.complete
    assert not applied.current_replaced  # no case was shown yet
    model.loaded = True
    assert model.listed() == 7
    assert model.subtitle() == "cases.yaml, 7 cases"
    model.set_filtered(2, 7)
    assert model.subtitle() == "cases.yaml, 2 of 7 cases shown"
    model.set_filtered(7, 7)
    assert model.subtitle() == "cases.yaml, 7 cases"
    [entry] = model.file_entries()
    assert entry.rel == "cases.yaml" and len(entry.rows) == 7 and entry.dialect == "0.15"


def test_a_step_for_a_file_that_moved_is_dropped():
    model = loaded_model()
    steps = list(load_steps([str(CASES)], repo_root=model.session.repo_root, cwd=None, profile="agentv"))
    moved = [type(step)(**{**step.__dict__, "path": "/elsewhere.yaml"}) for step in steps]
    assert model.apply_steps(moved).replaced == ()


def test_the_current_case_is_redrawn_when_its_file_is_replaced():
    model = loaded_model()
    model.current = key_of(model, "several-turns")
    steps = list(load_steps([str(CASES)], repo_root=model.session.repo_root, cwd=None, profile="agentv"))
    assert model.apply_steps(steps).current_replaced


def test_steps_and_wrapping_round():
    model = loaded_model()
    keys = model.session.case_keys()
    model.current = keys[-1]
    assert model.step(keys, 1) == keys[0]
    assert model.step(keys, -1) == keys[-2]
    assert model.step([], 1) is None


def test_warnings_navigation_skips_the_skipped_case_and_says_when_it_wraps():
    model = loaded_model()
    jump = model.warning_jump(1)
    assert model.session.case(jump.key)[1].id == "missing-file" and jump.note == ""
    model.current = jump.key
    again = model.warning_jump(1)  # the only case with warnings: it stays, nothing to say
    assert again.key == jump.key and again.note == ""
    model.current = model.session.case_keys()[-1]
    wrapped = model.warning_jump(1)
    assert wrapped.key == jump.key and wrapped.note == "Wrapped around to the first case with warnings."


def test_no_case_with_warnings():
    model = loaded_model()
    model.has_warnings = lambda key: False  # type: ignore[method-assign]
    assert model.warning_jump(-1).key is None
    assert model.warning_jump(-1).note == "No case has warnings."


def test_mode_profile_and_the_maximised_pane():
    model = loaded_model()
    model.toggle_mode()
    model.toggle_profile()
    assert (model.mode, model.profile) == ("agent", "design")
    assert not model.set_mode("agent") and not model.set_mode(None) and not model.set_mode("bogus")
    assert model.set_mode("lm") and model.mode == "lm"
    assert model.allows("maximize_pane") and not model.allows("restore_pane")
    model.maximize("question")
    assert not model.allows("maximize_pane") and model.allows("restore_pane") and model.allows("copy")


def test_jump_choices_and_the_editor_target():
    model = loaded_model()
    choices = {label: summary for _key, label, summary in model.case_choices()}
    assert choices["missing-file"].startswith("flat · single · 1 warning")
    assert choices["no-outcome"].startswith("skipped: ")
    assert choices["[bold]markup[/bold] injection"].endswith(" (cases.yaml:65)")  # as written: the screen sanitises
    assert model.editor_target() is None  # no case shown, no file refused
    model.current = key_of(model, "several-turns")
    assert model.editor_target() == (str(CASES), 28)


def test_a_reload_keeps_the_selected_case_by_id(tmp_path):
    repo = copy_fixture_repo(tmp_path)
    cases = repo / "cases.yaml"
    model = loaded_model([cases], repo)
    model.current = key_of(model, "missing-file")
    cases.write_text(
        cases.read_text().replace(
            "evalcases:\n",
            "evalcases:\n  - id: brand-new\n    outcome: x\n    input_messages:\n"
            "      - role: user\n        content: hi\n\n",
        )
    )
    made = reload_files(model.session, [0], profile=model.profile, rescan=False)
    before = model.session.files[0].generation
    model.apply_reload(made.scan, made.files)
    assert model.session.files[0].generation == before + 1 and model.reloads == 1
    assert model.session.case(model.current)[1].id == "missing-file"
    assert model.listed() == 8


def test_a_rescan_finds_a_new_file(tmp_path):
    repo = copy_fixture_repo(tmp_path)
    model = loaded_model([repo], repo)
    (repo / "extra.yaml").write_text(
        "$schema: agentv-eval-v2\nevalcases:\n  - id: from-a-new-file\n    outcome: x\n"
        "    input_messages:\n      - role: user\n        content: hi\n"
    )
    made = reload_files(model.session, [], profile=model.profile, rescan=True)
    assert len(model.session.files) == 1  # the session is unchanged until the reload is applied
    model.apply_reload(made.scan, made.files)
    assert len(model.session.files) == 2
    assert "from-a-new-file" in {label for _key, label, _summary in model.case_choices()}


def test_what_grading_and_the_profile_diff_open():
    model = loaded_model()
    assert model.grading() == (None, NO_CASE) and model.profile_diff() == (None, NO_CASE)  # no case shown
    model.select(key_of(model, "several-turns"))
    (case, formatted), note = model.grading()
    assert case.id == "several-turns" and not formatted.labels.graders and note == ""
    (case, agentv, design, mode), note = model.profile_diff()
    assert case.id == "several-turns" and agentv is not design and mode == "lm"
    model.select(key_of(model, "no-outcome"))  # skipped
    assert model.grading() == (None, "A skipped case has no grader prompt.")
    assert model.profile_diff() == (None, "A skipped case has no chatPrompt to compare.")


def test_a_refused_files_line_is_said_once(tmp_path):
    """AgentV's words for a JSONL dataset's bad line start with "Line N:": the list's heading did not say it twice
    ("line 2: Line 2: Invalid JSON …"); a refusal worded without its line still gets one."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "data.jsonl").write_text('{"id": "a", "input": "q", "criteria": "c"}\n{"id": "b", "inp\n')
    (tmp_path / "suite.eval.yaml").write_text('tests:\n  - id: a\n    input: "open\n')
    paths = [str(tmp_path / "data.jsonl"), str(tmp_path / "suite.eval.yaml")]
    session = Session(paths, repo_root=str(tmp_path))
    model = InspectorModel(session)
    model.apply_steps(list(load_steps(paths, repo_root=session.repo_root, cwd=None, profile=model.profile)))
    errors = [entry.error for entry in model.file_entries()]
    assert errors[0] is not None and errors[0].startswith("Line 2: ") and "line 2: Line 2" not in errors[0]
    assert errors[1] is not None and errors[1].startswith("line "), errors[1]
