"""Checks of the GitHub Actions workflows in ``.github/workflows/``, offline and in a few seconds.

GitHub only reads these files after a push, so anything wrong with them would otherwise show up
as a failed (or silently skipped) publish. Four kinds of check:

1. Schema: every workflow validates against the GitHub workflow JSON schema vendored in
   ``check-jsonschema`` (``check-jsonschema --builtin-schema vendor.github-workflows FILE``),
   and deliberately broken workflows are rejected, so that check can fail.
2. Meaning the schema cannot see: actions pinned to a major version, jobs and steps that
   ``needs``/``steps`` expressions name exist, the deploy and launch-branch jobs run only on
   pushes to main with the permissions they need, the files and modules the workflows call
   exist, the container's Python satisfies ``requires-python``, and so on.
3. Behaviour: the paper-scale workflow's own scripts are run under bash: the plan step with a
   fake ``GITHUB_OUTPUT`` file (which notebooks the matrix gets), the run step with a stub
   interpreter.
4. Optional: ``actionlint``, when an ``actionlint`` executable is on PATH (skipped otherwise).

PyYAML reads YAML 1.1, where the key ``on`` is the boolean ``True``; :func:`load_workflow`
puts it back under ``"on"``.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
WORKFLOW_DIR = REPO / ".github" / "workflows"
WORKFLOW_FILES = sorted([*WORKFLOW_DIR.glob("*.yml"), *WORKFLOW_DIR.glob("*.yaml")])
CI_SCRIPT = ".ci/run"
MAIN_PUSH = ("github.event_name == 'push'", "github.ref == 'refs/heads/main'")

# Files that the workflows need although no `run:` line names them literally.
REQUIRED_FILES = ("pyproject.toml", CI_SCRIPT, "tools/launch_notebooks.py", "notebooks/paper_scale.json")
# Paths in `run:` scripts that the workflows create rather than read.
GENERATED_PREFIXES = (".venv/", "results/", "_build/")


# --------------------------------------------------------------------------- reading workflows


@functools.lru_cache(maxsize=None)
def load_workflow(name: str) -> dict[str, Any]:
    """The workflow ``.github/workflows/<name>`` as a dict, with ``on`` as a string key."""
    data = yaml.safe_load((WORKFLOW_DIR / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{name} is not a YAML mapping"
    if True in data:  # YAML 1.1 reads the key `on` as True
        data["on"] = data.pop(True)
    return data


def workflow_names() -> list[str]:
    return [path.name for path in WORKFLOW_FILES]


def triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    """``on:`` as {event: configuration or {}}, whichever of its three spellings is used."""
    on = workflow.get("on")
    if isinstance(on, str):
        return {on: {}}
    if isinstance(on, list):
        return {event: {} for event in on}
    return {event: (config or {}) for event, config in (on or {}).items()}


def steps_of(job: dict[str, Any]) -> list[dict[str, Any]]:
    return list(job.get("steps") or [])


def all_steps() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for name in workflow_names():
        for job_id, job in load_workflow(name)["jobs"].items():
            for step in steps_of(job):
                yield name, job_id, step


def run_scripts() -> Iterator[tuple[str, str, str]]:
    for name, job_id, step in all_steps():
        if "run" in step:
            yield name, job_id, str(step["run"])


def needs_of(job: dict[str, Any]) -> list[str]:
    needs = job.get("needs") or []
    return [needs] if isinstance(needs, str) else list(needs)


def strings_in(value: Any) -> Iterator[str]:
    """Every string (keys included) inside a parsed YAML value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def expressions_in(value: Any) -> list[str]:
    """The text of every ``${{ ... }}`` expression inside a parsed YAML value."""
    return [m.group(1) for text in strings_in(value) for m in re.finditer(r"\$\{\{(.*?)\}\}", text, re.S)]


def condition_text(condition: Any) -> str:
    """An ``if:`` condition without ``${{ }}``, single-spaced and with single quotes."""
    text = re.sub(r"\s+", " ", str(condition)).strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2].strip()
    return text.replace('"', "'")


def only_on_main_pushes(condition: Any) -> bool:
    """True when ``condition`` is a conjunction that includes both clauses of MAIN_PUSH."""
    text = condition_text(condition)
    if not text or "||" in text or "!(" in text:
        return False
    clauses = {clause.strip().strip("()").strip() for clause in text.split("&&")}
    return all(clause in clauses for clause in MAIN_PUSH)


def job(workflow: str, job_id: str) -> dict[str, Any]:
    jobs = load_workflow(workflow)["jobs"]
    assert job_id in jobs, f"{workflow} has no job {job_id!r} (jobs: {sorted(jobs)})"
    return jobs[job_id]


def step_using(job_: dict[str, Any], action: str) -> tuple[int, dict[str, Any]]:
    for index, step in enumerate(steps_of(job_)):
        if str(step.get("uses", "")).split("@")[0] == action:
            return index, step
    raise AssertionError(f"no step uses {action}")


def step_running(job_: dict[str, Any], pattern: str) -> tuple[int, dict[str, Any]]:
    for index, step in enumerate(steps_of(job_)):
        if re.search(pattern, str(step.get("run", "")), re.M):
            return index, step
    raise AssertionError(f"no step runs {pattern!r}")


def major_version(uses: str) -> int:
    match = re.search(r"@v(\d+)$", uses)
    assert match, f"{uses} is not pinned to a major version"
    return int(match.group(1))


def requires_python() -> SpecifierSet:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python 3.10
        match = re.search(r'^requires-python\s*=\s*"([^"]+)"', text, re.M)
        assert match, "pyproject.toml has no requires-python"
        return SpecifierSet(match.group(1))
    return SpecifierSet(tomllib.loads(text)["project"]["requires-python"])


# --------------------------------------------------------------------------- 1. schema


def check_jsonschema(*files: Path) -> tuple[int, dict[str, Any]]:
    """Run check-jsonschema with its vendored GitHub workflow schema (no network) on ``files``."""
    command = [
        sys.executable, "-m", "check_jsonschema",
        "--builtin-schema", "vendor.github-workflows", "--output-format", "json",
        *map(str, files),
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(
            f"check-jsonschema did not produce a report (exit {proc.returncode}); is it installed "
            f"(the [test] extra)?\n{proc.stdout}\n{proc.stderr}"
        )
    return proc.returncode, report


def rejected_files(report: dict[str, Any]) -> set[str]:
    return {Path(e["filename"]).name for e in [*report.get("errors", []), *report.get("parse_errors", [])]}


def test_the_workflows_exist():
    assert {"ci.yml", "paper-scale.yml"} <= set(workflow_names())


def test_every_workflow_matches_the_github_workflow_schema():
    code, report = check_jsonschema(*WORKFLOW_FILES)
    problems = [
        f"{Path(e['filename']).name}: {e.get('path', '')}: {e.get('message', '')}"
        for e in [*report.get("errors", []), *report.get("parse_errors", [])]
    ]
    assert code == 0 and not problems, "\n".join(problems) or f"check-jsonschema exited {code}"


MINIMAL = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hello\n"
BROKEN = {
    "job-without-runs-on": MINIMAL.replace("    runs-on: ubuntu-latest\n", ""),
    "unknown-event": MINIMAL.replace("on: push", "on: [pusj]"),
    "misspelled-runs-on": MINIMAL.replace("runs-on:", "runs_on:"),
    "step-with-uses-and-run": MINIMAL.replace("      - run: echo hello\n", "      - uses: actions/checkout@v4\n        run: echo hello\n"),
    "bad-permission-value": MINIMAL.replace("jobs:", "permissions:\n  pages: writ\njobs:"),
    "tab-indented": MINIMAL.replace("    steps:", "\tsteps:"),
}


def _ci_without_runs_on() -> str:
    """The real ci.yml with `runs-on` removed from its first job."""
    data = json.loads(json.dumps(load_workflow("ci.yml")))  # deep copy
    first = next(iter(data["jobs"].values()))
    first.pop("runs-on", None)
    return yaml.safe_dump(data, sort_keys=False)  # writes the key as 'on', quoted


@pytest.fixture(scope="module")
def broken_report(tmp_path_factory) -> tuple[set[str], set[str]]:
    """One check-jsonschema run over the broken samples and a valid control: (names, rejected)."""
    folder = tmp_path_factory.mktemp("workflows")
    samples = {**BROKEN, "ci-without-runs-on": _ci_without_runs_on(), "valid-control": MINIMAL}
    for name, text in samples.items():
        (folder / f"{name}.yml").write_text(text, encoding="utf-8")
    _, report = check_jsonschema(*sorted(folder.glob("*.yml")))
    return set(samples), rejected_files(report)


@pytest.mark.parametrize("sample", [*BROKEN, "ci-without-runs-on"])
def test_the_schema_check_rejects_a_broken_workflow(broken_report, sample):
    names, rejected = broken_report
    assert f"{sample}.yml" in rejected, f"check-jsonschema accepted the broken workflow {sample!r}"


def test_the_schema_check_accepts_a_minimal_valid_workflow(broken_report):
    _, rejected = broken_report
    assert "valid-control.yml" not in rejected


# --------------------------------------------------------------------------- 2. meaning


def test_every_action_is_pinned_to_a_major_version_tag():
    offenders = []
    for name in workflow_names():
        for job_id, job_ in load_workflow(name)["jobs"].items():
            uses = [job_["uses"]] if "uses" in job_ else []  # reusable workflows
            uses += [step["uses"] for step in steps_of(job_) if "uses" in step]
            for ref in map(str, uses):
                if ref.startswith("./"):
                    if not (REPO / ref).exists():
                        offenders.append(f"{name}/{job_id}: local action {ref} does not exist")
                elif not re.fullmatch(r"[\w.-]+/[\w./-]+@v\d+", ref):
                    offenders.append(f"{name}/{job_id}: {ref} is not pinned to a tag like @v4")
    assert not offenders, "\n".join(offenders)


def test_needs_and_steps_references_name_existing_jobs_and_steps():
    problems = []
    for name in workflow_names():
        jobs = load_workflow(name)["jobs"]
        for job_id, job_ in jobs.items():
            needs = needs_of(job_)
            problems += [f"{name}/{job_id}: needs unknown job {n!r}" for n in needs if n not in jobs]
            step_ids = {step["id"] for step in steps_of(job_) if "id" in step}
            for expression in expressions_in(job_):
                # the needs context holds only the job's direct dependencies
                for other in re.findall(r"\bneeds\.([\w-]+)", expression):
                    if other not in needs:
                        problems.append(f"{name}/{job_id}: ${{{{{expression}}}}} uses needs.{other}, not in needs {needs}")
                for step_id in re.findall(r"\bsteps\.([\w-]+)", expression):
                    if step_id not in step_ids:
                        problems.append(f"{name}/{job_id}: ${{{{{expression}}}}} uses steps.{step_id}, no step has that id")
        # and no job waits for itself, directly or not
        def reaches(start: str, target: str, seen: frozenset = frozenset()) -> bool:
            return any(n == target or (n not in seen and n in jobs and reaches(n, target, seen | {n}))
                       for n in needs_of(jobs[start]))
        problems += [f"{name}/{job_id}: dependency cycle" for job_id in jobs if reaches(job_id, job_id)]
    assert not problems, "\n".join(problems)


def test_inputs_references_name_declared_inputs():
    problems = []
    for name in workflow_names():
        workflow = load_workflow(name)
        declared = set((triggers(workflow).get("workflow_dispatch") or {}).get("inputs") or {})
        declared |= set((triggers(workflow).get("workflow_call") or {}).get("inputs") or {})
        for expression in expressions_in(workflow["jobs"]):
            for used in re.findall(r"\b(?:inputs|github\.event\.inputs)\.([\w-]+)", expression):
                if used not in declared:
                    problems.append(f"{name}: input {used!r} is used but not declared")
    assert not problems, "\n".join(problems)


def test_run_scripts_do_not_paste_untrusted_values():
    """Inputs and event payloads reach scripts through `env:`, never as ${{ }} in the script."""
    untrusted = re.compile(r"\b(inputs\.|github\.event\.|github\.head_ref)")
    offenders = [
        f"{name}/{job_id}: ${{{{{expression}}}}}"
        for name, job_id, script in run_scripts()
        for expression in expressions_in(script)
        if untrusted.search(expression)
    ]
    assert not offenders, "\n".join(offenders)


def test_permissions_are_read_only_unless_a_job_needs_more():
    allowed_writes = {("ci.yml", "deploy"): {"pages", "id-token"}, ("ci.yml", "launch-branch"): {"contents"}}
    problems = []
    for name in workflow_names():
        workflow = load_workflow(name)
        if workflow.get("permissions") != {"contents": "read"}:
            problems.append(f"{name}: top-level permissions are {workflow.get('permissions')!r}, not contents: read")
        for job_id, job_ in workflow["jobs"].items():
            permissions = job_.get("permissions") or {}
            if isinstance(permissions, str):  # read-all / write-all
                problems.append(f"{name}/{job_id}: permissions {permissions!r}")
                continue
            writes = {scope for scope, level in permissions.items() if level == "write"}
            if not writes <= allowed_writes.get((name, job_id), set()):
                problems.append(f"{name}/{job_id}: writes {sorted(writes)}")
    assert not problems, "\n".join(problems)


def test_every_job_has_a_timeout_github_allows():
    for name in workflow_names():
        for job_id, job_ in load_workflow(name)["jobs"].items():
            minutes = job_.get("timeout-minutes")
            assert isinstance(minutes, int) and 0 < minutes <= 360, f"{name}/{job_id}: timeout-minutes {minutes!r}"


def test_the_python_of_every_job_satisfies_requires_python():
    spec = requires_python()
    seen = []
    for name in workflow_names():
        for job_id, job_ in load_workflow(name)["jobs"].items():
            container = job_.get("container")
            image = container.get("image") if isinstance(container, dict) else container
            if image:
                match = re.fullmatch(r"python:(\d+\.\d+)[\w.-]*", str(image))
                assert match, f"{name}/{job_id}: container {image!r} is not a python:X.Y image"
                seen.append((f"{name}/{job_id}", match.group(1)))
            for step in steps_of(job_):
                if str(step.get("uses", "")).startswith("actions/setup-python@"):
                    version = (step.get("with") or {}).get("python-version")
                    # unquoted, YAML reads 3.10 as the float 3.1
                    assert isinstance(version, str), f"{name}/{job_id}: quote python-version ({version!r})"
                    seen.append((f"{name}/{job_id}", version))
    assert seen
    for where, version in seen:
        assert Version(version) in spec, f"{where}: Python {version} is outside requires-python {spec}"


def _referenced_paths() -> set[str]:
    """Repository paths named in `run:` scripts (`.ci/run`, `tools/x.py`, `-m fastmix.run`, ...)."""
    found = set(REQUIRED_FILES)
    for _, _, script in run_scripts():
        for token in re.findall(r"(?<![\w$/{}.-])\.?[\w-]+(?:/[\w.-]+)+", script):
            if not token.startswith(GENERATED_PREFIXES):
                found.add(token)
        for module in re.findall(r"-m\s+(fastmix(?:\.\w+)*)", script):
            found.add(module.replace(".", "/") + ".py")
    return found


@pytest.mark.parametrize("path", sorted(_referenced_paths()))
def test_files_the_workflows_call_exist(path):
    assert (REPO / path).exists(), f"the workflows use {path}, which is not in the repository"


def test_the_local_paths_found_include_the_scripts_the_jobs_run():
    assert {CI_SCRIPT, "tools/launch_notebooks.py", "fastmix/run.py"} <= _referenced_paths()


def test_pip_extras_the_workflows_install_exist():
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    for _, _, script in run_scripts():
        for extras in re.findall(r"pip install[^\n]*?\.\[([\w,-]+)\]", script):
            for extra in extras.split(","):
                assert re.search(rf"^{re.escape(extra)}\s*=", text, re.M), f"no extra [{extra}] in pyproject.toml"


# ---- ci.yml


def test_ci_runs_on_pushes_to_main_pull_requests_and_by_hand():
    on = triggers(load_workflow("ci.yml"))
    assert "main" in (on.get("push") or {}).get("branches", [])
    assert "pull_request" in on and "workflow_dispatch" in on


def test_ci_script_exists_and_is_executable():
    script = REPO / CI_SCRIPT
    assert script.is_file(), f"{CI_SCRIPT} is missing"
    assert script.stat().st_mode & stat.S_IXUSR and os.access(script, os.X_OK), f"{CI_SCRIPT} is not executable"
    assert script.read_text(encoding="utf-8").startswith("#!"), f"{CI_SCRIPT} has no #! line"


def test_ci_job_checks_out_then_runs_the_ci_script():
    ci = job("ci.yml", "ci")
    checkout, _ = step_using(ci, "actions/checkout")
    run, _ = step_running(ci, rf"^\s*(bash\s+)?(\./)?{re.escape(CI_SCRIPT)}\s*$")
    assert checkout < run


def test_ci_job_runs_in_a_debian_container_as_root():
    """`.ci/run` apt-gets chromium, so the job needs Debian and root, not the runner's Ubuntu user."""
    ci = job("ci.yml", "ci")
    container = ci.get("container")
    image = container.get("image") if isinstance(container, dict) else container
    assert image and re.search(r"-(bookworm|trixie)\b", str(image)), f"ci container {image!r} is not Debian"
    options = str(container.get("options", "")) if isinstance(container, dict) else ""
    assert "--user" not in options
    assert 0 < ci["timeout-minutes"] <= 90  # the project's CI budget for .ci/run


def test_ci_job_keeps_the_built_book_as_the_pages_artifact():
    ci = job("ci.yml", "ci")
    run, _ = step_running(ci, re.escape(CI_SCRIPT))
    upload, step = step_using(ci, "actions/upload-pages-artifact")
    assert upload > run
    assert str((step.get("with") or {}).get("path", "")).rstrip("/") == "_build/html"
    assert "jupyter-book build ." in (REPO / CI_SCRIPT).read_text(encoding="utf-8")  # builds into _build/html


def test_deploy_job_publishes_pages_only_for_pushes_to_main():
    deploy = job("ci.yml", "deploy")
    assert "ci" in needs_of(deploy)
    assert only_on_main_pushes(deploy.get("if")), f"deploy runs on: {deploy.get('if')!r}"
    permissions = deploy.get("permissions") or {}
    assert permissions.get("pages") == "write" and permissions.get("id-token") == "write"
    environment = deploy.get("environment") or {}
    assert environment.get("name") == "github-pages"
    assert re.fullmatch(r"\$\{\{\s*steps\.deployment\.outputs\.page_url\s*\}\}", str(environment.get("url", "")))
    _, step = step_using(deploy, "actions/deploy-pages")
    assert step.get("id") == "deployment"
    # upload-pages-artifact v3+ makes artifacts that only deploy-pages v4+ can read
    _, upload = step_using(job("ci.yml", "ci"), "actions/upload-pages-artifact")
    if major_version(upload["uses"]) >= 3:
        assert major_version(step["uses"]) >= 4


def test_the_main_push_condition_helper():
    assert only_on_main_pushes("github.event_name == 'push' && github.ref == 'refs/heads/main'")
    assert only_on_main_pushes('${{ github.ref == "refs/heads/main" && github.event_name == "push" }}')
    assert not only_on_main_pushes("github.event_name == 'push'")
    assert not only_on_main_pushes("github.event_name == 'push' && github.ref == 'refs/heads/main' || always()")
    assert not only_on_main_pushes(None)


def test_launch_branch_job_pushes_the_converted_notebooks_for_main_only():
    launch = job("ci.yml", "launch-branch")
    assert "ci" in needs_of(launch)
    assert only_on_main_pushes(launch.get("if")), f"launch-branch runs on: {launch.get('if')!r}"
    assert (launch.get("permissions") or {}).get("contents") == "write"
    checkout, step = step_using(launch, "actions/checkout")
    assert (step.get("with") or {}).get("fetch-depth") == 0  # a shallow clone cannot be pushed as a branch
    step_using(launch, "actions/setup-python")
    convert, step = step_running(launch, r"tools/launch_notebooks\.py")
    command = str(step["run"])
    for option in ("--out .", "--repo-url", "--ref"):
        assert option in command
    assert "github.server_url" in command and "github.repository" in command and "github.sha" in command
    push, step = step_running(launch, r"git push")
    script = str(step["run"])
    assert checkout < convert < push
    assert "github-actions[bot]" in script
    assert re.search(r"git (checkout|switch) (-B|-C) launch\b", script)
    # notebooks/*.ipynb are gitignored on main
    assert re.search(r"git add (-f|--force) notebooks/\*\.ipynb", script)
    assert re.search(r"git push (--force|-f) origin launch\b", script)


def test_launch_notebooks_tool_takes_the_options_the_workflow_passes():
    tool = REPO / "tools" / "launch_notebooks.py"
    proc = subprocess.run([sys.executable, str(tool), "--help"], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    for option in ("--out", "--repo-url", "--ref"):
        assert option in proc.stdout


# ---- paper-scale.yml


PAPER_SCALE = "paper-scale.yml"
# ${{ fromJSON(needs.plan.outputs.notebooks) }}, however spaced (function names are case-insensitive)
MATRIX_FROM_PLAN = re.compile(r"\$\{\{\s*fromJSON\(\s*needs\.plan\.outputs\.notebooks\s*\)\s*\}\}", re.I)


def plan_step() -> tuple[int, dict[str, Any]]:
    """The plan job's step that writes the notebook list to $GITHUB_OUTPUT."""
    return step_running(job(PAPER_SCALE, "plan"), r"GITHUB_OUTPUT")


def run_step() -> tuple[int, dict[str, Any]]:
    """The run job's step that executes one notebook."""
    return step_running(job(PAPER_SCALE, "run"), r"--paper-scale")


def registry_names() -> list[str]:
    """The notebooks of notebooks/paper_scale.json, as `fastmix.run --paper-scale` reads them."""
    from fastmix.run import load_paper_scale

    return list(load_paper_scale(REPO / "notebooks"))


def test_paper_scale_runs_only_by_hand_with_its_inputs():
    on = triggers(load_workflow(PAPER_SCALE))
    assert set(on) == {"workflow_dispatch"}
    inputs = on["workflow_dispatch"].get("inputs") or {}
    assert inputs["notebooks"].get("default") == "all" and inputs["notebooks"].get("type") == "string"
    assert inputs["seed"].get("default") == "0" and inputs["seed"].get("type") == "string"


def test_paper_scale_runs_a_matrix_over_the_plan_jobs_output():
    """One job per notebook, so that no job has to fit several hours-long notebooks in six hours."""
    jobs = load_workflow(PAPER_SCALE)["jobs"]
    assert set(jobs) == {"plan", "run"}
    run = jobs["run"]
    assert needs_of(run) == ["plan"]
    strategy = run.get("strategy") or {}
    matrix = strategy.get("matrix") or {}
    assert set(matrix) == {"notebook"}, f"the matrix should only vary the notebook: {matrix!r}"
    assert MATRIX_FROM_PLAN.fullmatch(str(matrix["notebook"]).strip()), f"matrix.notebook is {matrix['notebook']!r}"
    # a failed or timed-out notebook must not cancel the others
    assert strategy.get("fail-fast") is False, f"fail-fast is {strategy.get('fail-fast')!r}"
    # the plan job's output is the one its step writes
    _, step = plan_step()
    assert step.get("id"), "the plan step needs an id for the job output"
    output = str((jobs["plan"].get("outputs") or {}).get("notebooks", ""))
    assert re.fullmatch(rf"\$\{{\{{\s*steps\.{re.escape(step['id'])}\.outputs\.notebooks\s*\}}\}}", output), output


def test_paper_scale_plan_job_is_quick_and_needs_only_the_standard_library():
    plan = job(PAPER_SCALE, "plan")
    assert plan.get("runs-on") == "ubuntu-latest" and "container" not in plan
    assert 0 < plan["timeout-minutes"] <= 15
    assert "strategy" not in plan
    checkout, _ = step_using(plan, "actions/checkout")
    setup, setup_step = step_using(plan, "actions/setup-python")
    assert (setup_step.get("with") or {}).get("python-version") == "3.11"
    index, step = plan_step()
    assert checkout < setup < index
    script = str(step["run"])
    assert "notebooks/paper_scale.json" in script
    # importing fastmix needs numpy and scipy, which this job does not install
    if re.search(r"\b(import fastmix|from fastmix\b)", script):
        install, _ = step_running(plan, r"pip install -e")
        assert install < index
    assert "inputs.notebooks" in str(step.get("env") or {})


def test_paper_scale_run_job_installs_then_runs_its_notebook_with_fastmix_run():
    run = job(PAPER_SCALE, "run")
    assert run["timeout-minutes"] == 360  # per notebook now, the longest GitHub allows
    assert run.get("container") == "python:3.11-bookworm"
    checkout, _ = step_using(run, "actions/checkout")
    trust, _ = step_running(run, r"git config --global --add safe.directory \"?\$GITHUB_WORKSPACE")
    install, _ = step_running(run, r"pip install -e \"?\.\[book\]")
    index, step = run_step()
    assert checkout < trust < install < index
    script = str(step["run"])
    assert '-m fastmix.run --paper-scale "$NOTEBOOK"' in script and "--output-dir results/paper-scale" in script
    env = step.get("env") or {}
    assert re.fullmatch(r"\$\{\{\s*matrix\.notebook\s*\}\}", str(env.get("NOTEBOOK", "")))
    assert re.fullmatch(r"\$\{\{\s*inputs\.seed\s*\}\}", str(env.get("SEED", "")))


def test_paper_scale_uploads_every_notebooks_results_always():
    run = job(PAPER_SCALE, "run")
    index, _ = run_step()
    upload, step = step_using(run, "actions/upload-artifact")
    assert upload > index
    assert condition_text(step.get("if")) == "always()", "upload even when the notebook failed or timed out"
    options = step.get("with") or {}
    assert str(options.get("path", "")).rstrip("/") == "results/paper-scale"  # = the --output-dir
    # upload-artifact v4 cannot add to an artifact, so each matrix job needs a name of its own
    name = str(options.get("name", ""))
    for part in ("matrix.notebook", "github.run_id", "github.run_attempt"):
        assert part in name, f"artifact name {name!r} lacks {part}"
    assert name.startswith("paper-scale-")
    assert options.get("retention-days") == 90
    assert major_version(step["uses"]) >= 4


def test_paper_scale_registry_names_fit_a_matrix_and_artifact_names():
    names = registry_names()
    assert 0 < len(names) <= 256  # GitHub's limit on the jobs of one matrix
    for name in names:
        # artifact names may not contain " : < > | * ? \ / and the like
        assert re.fullmatch(r"[\w.-]+", name), f"{name!r} cannot be part of an artifact name"


def test_paper_scale_registry_notebooks_take_a_seed():
    """`-p seed SEED` is passed to every notebook of the registry, so each must declare `seed`."""
    names = registry_names()
    assert names
    for name in names:
        source = (REPO / "notebooks" / f"{name}.py").read_text(encoding="utf-8")
        cell = source.split('# %% tags=["parameters"]', 1)[-1].split("# %%", 1)[0]
        assert re.search(r"^seed\s*(:[^=]*)?=", cell, re.M), f"{name} has no seed parameter"


# --------------------------------------------------------------------------- 3. behaviour


def bash_or_skip() -> str:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    return bash


def read_github_output(path: Path) -> dict[str, str]:
    """The outputs a step wrote to $GITHUB_OUTPUT, in both the `key=value` and `key<<EOF` forms."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines() if path.exists() else [])
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            value = []
            for item in lines:
                if item == delimiter:
                    break
                value.append(item)
            outputs[key] = "\n".join(value)
        elif "=" in line:
            key, value = line.split("=", 1)
            outputs[key] = value
    return outputs


def run_plan(tmp_path: Path, notebooks: str) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """The plan step's own script under bash -eo pipefail (as GitHub runs it), on the real registry."""
    bash = bash_or_skip()
    # actions/setup-python puts `python` on PATH; here it is the interpreter running the tests
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    script = tmp_path / "plan.sh"
    script.write_text(str(plan_step()[1]["run"]), encoding="utf-8")
    output = tmp_path / "github_output"
    output.touch()
    env = {
        **os.environ, "NOTEBOOKS": notebooks, "GITHUB_OUTPUT": str(output),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    proc = subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
    )
    return proc, read_github_output(output)


def test_the_github_output_reader(tmp_path):
    path = tmp_path / "github_output"
    assert read_github_output(path) == {}
    path.write_text('a=["x", "y"]\nb<<EOF\none\ntwo=2\nEOF\nc=\n', encoding="utf-8")
    assert read_github_output(path) == {"a": '["x", "y"]', "b": "one\ntwo=2", "c": ""}


PLAN_CASES = {
    "all": ("all", lambda names: names),
    "empty-means-all": ("  ", lambda names: names),
    "comma-list-in-given-order": (lambda names: f" {names[2]} , {names[0]} ", lambda names: [names[2], names[0]]),
    "spaces-and-a-repeat": (lambda names: f"{names[1]} {names[0]},{names[1]}", lambda names: [names[1], names[0]]),
    "one-name": (lambda names: names[-1], lambda names: [names[-1]]),
}


@pytest.mark.parametrize("case", list(PLAN_CASES))
def test_paper_scale_plan_resolves_the_notebooks_input(tmp_path, case):
    names = registry_names()
    assert len(names) >= 3 and not any(name.startswith("_") for name in names)
    given, expected = PLAN_CASES[case]
    notebooks = given(names) if callable(given) else given
    proc, outputs = run_plan(tmp_path, notebooks)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert set(outputs) == {"notebooks"}, outputs
    # exactly what fromJSON() turns into the matrix: a JSON list of registry names
    assert json.loads(outputs["notebooks"]) == expected(names)


@pytest.mark.parametrize("notebooks", ["no_such_notebook", "{0},no_such_notebook", "all,{0}", "_comment"])
def test_paper_scale_plan_rejects_names_not_in_the_registry(tmp_path, notebooks):
    names = registry_names()
    notebooks = notebooks.format(names[0])
    proc, outputs = run_plan(tmp_path, notebooks)
    assert proc.returncode != 0, f"the plan accepted {notebooks!r}: {outputs}"
    assert "notebooks" not in outputs  # so no matrix job starts
    bad = [name for name in notebooks.split(",") if name not in names]
    message = proc.stdout + proc.stderr
    assert "::error::" in proc.stdout and all(name in message for name in bad), message
    assert names[-1] in message  # the message lists the notebooks that do exist


STUB_PYTHON = """#!/usr/bin/env bash
# Stands in for .venv/bin/python: logs its arguments, fails for the notebook "broken".
printf '%s\\n' "$*" >> "$CALLS"
case " $* " in *" broken "*) exit 3;; esac
exit 0
"""


@pytest.mark.parametrize(
    ("notebook", "seed", "fails"),
    [("alpha", "7", False), ("alpha", "", False), ("broken", "0", True)],
    ids=["with-seed", "no-seed", "failing-notebook"],
)
def test_paper_scale_run_step_runs_one_notebook(tmp_path, notebook, seed, fails):
    """The run step's own script under bash -eo pipefail, with a stub Python."""
    bash = bash_or_skip()
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(STUB_PYTHON, encoding="utf-8")
    python.chmod(0o755)
    script = tmp_path / "step.sh"
    script.write_text(str(run_step()[1]["run"]), encoding="utf-8")
    calls = tmp_path / "calls.log"
    env = {**os.environ, "NOTEBOOK": notebook, "SEED": seed, "CALLS": str(calls)}

    proc = subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )

    seed_part = f" -p seed {seed}" if seed else ""
    assert calls.read_text().splitlines() == [
        f"-m fastmix.run --paper-scale {notebook}{seed_part} --output-dir results/paper-scale"
    ], proc.stdout + proc.stderr
    assert (proc.returncode != 0) == fails, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- 4. actionlint


def test_actionlint_if_installed():
    """actionlint checks expressions, contexts and shell scripts more deeply than the schema."""
    exe = os.environ.get("ACTIONLINT") or shutil.which("actionlint")
    if not exe:
        pytest.skip("actionlint is not installed (optional; set ACTIONLINT or put it on PATH)")
    proc = subprocess.run(
        [exe, "-no-color", *map(str, WORKFLOW_FILES)], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
