"""Checks of the GitHub Actions workflows in ``.github/workflows/``, offline.

GitHub reads these files only after a push, so a mistake in them would otherwise show up as a
failed, skipped or wrongly permitted run. Three layers:

1. Schema: every workflow validates against the GitHub workflow JSON schema that
   ``check-jsonschema`` ships (``--builtin-schema vendor.github-workflows``, no network).
2. ``actionlint`` (expressions, contexts, shell), when an ``actionlint`` executable is on PATH
   or named by the ``ACTIONLINT`` environment variable; skipped otherwise.
3. The project's own policies, one function each in ``POLICIES``: what CI runs and within which
   budget, who may write, what runs only on pushes to main, that untrusted input never reaches
   a script, that the paper-scale workflow is started by hand and keeps every notebook's
   results. Two of them run the paper-scale workflow's own scripts under bash.

Every check is shown to fail: ``MUTATIONS`` edits a copy of a workflow in ``tmp_path`` (one
textual change each) and the check in question must report it. A mutation whose text is no
longer in the workflow fails too, so the list follows the workflows.

PyYAML reads YAML 1.1, where the key ``on`` is the boolean ``True``; :func:`load_workflows`
puts it back under ``"on"``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
WORKFLOW_DIR = REPO / ".github" / "workflows"
CI_SCRIPT = ".ci/run"
#: The clauses of an ``if:`` that restricts a job to pushes to main.
MAIN_PUSH = ("github.event_name == 'push'", "github.ref == 'refs/heads/main'")
#: Jobs that may write, and what. Everything else reads only.
ALLOWED_WRITES = {("ci.yml", "deploy"): {"pages", "id-token"}, ("ci.yml", "launch-branch"): {"contents"}}
#: The most GitHub allows a hosted job, and the budget of one CI run of .ci/run.
GITHUB_MAX_MINUTES = 360
CI_BUDGET_MINUTES = 90
#: Paths in run scripts that the workflows create rather than read.
GENERATED_PREFIXES = (".venv/", "results/", "_build/")
PAPER_SCALE = "paper-scale.yml"

Workflows = dict[str, dict[str, Any]]


# --------------------------------------------------------------------------- reading workflows


def load_workflows(folder: Path = WORKFLOW_DIR) -> Workflows:
    """Every ``*.yml``/``*.yaml`` of ``folder`` as {file name: dict}, with ``on`` as a string key."""
    workflows = {}
    for path in sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")]):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert isinstance(data, dict), f"{path.name} is not a YAML mapping"
        if True in data:  # YAML 1.1 reads the key `on` as True
            data["on"] = data.pop(True)
        workflows[path.name] = data
    return workflows


def triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    """``on:`` as {event: configuration or {}}, whichever of its three spellings is used."""
    on = workflow.get("on")
    if isinstance(on, str):
        return {on: {}}
    if isinstance(on, list):
        return {event: {} for event in on}
    return {event: (config or {}) for event, config in (on or {}).items()}


def jobs_of(workflows: Workflows) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for name, workflow in workflows.items():
        for job_id, job in (workflow.get("jobs") or {}).items():
            yield name, job_id, job


def steps_of(job: dict[str, Any]) -> list[dict[str, Any]]:
    return list(job.get("steps") or [])


def needs_of(job: dict[str, Any]) -> list[str]:
    needs = job.get("needs") or []
    return [needs] if isinstance(needs, str) else list(needs)


def scripts_of(job: dict[str, Any]) -> str:
    return "\n".join(str(step["run"]) for step in steps_of(job) if "run" in step)


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


def index_of(job: dict[str, Any], *, uses: str | None = None, runs: str | None = None) -> int | None:
    """Position of the first step that uses action ``uses`` or whose script matches ``runs``."""
    for index, step in enumerate(steps_of(job)):
        if uses is not None and str(step.get("uses", "")).split("@")[0] == uses:
            return index
        if runs is not None and re.search(runs, str(step.get("run", "")), re.M):
            return index
    return None


def only_on_main_pushes(condition: Any) -> bool:
    """True when ``condition`` is a conjunction that includes both clauses of MAIN_PUSH."""
    text = re.sub(r"\s+", " ", str(condition or "")).strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2].strip()
    text = text.replace('"', "'")
    if not text or "||" in text or "!(" in text:
        return False
    clauses = {clause.strip().strip("()").strip() for clause in text.split("&&")}
    return all(clause in clauses for clause in MAIN_PUSH)


def runs_ci_script(job: dict[str, Any]) -> bool:
    return index_of(job, runs=rf"^\s*(bash\s+)?(\./)?{re.escape(CI_SCRIPT)}\s*$") is not None


def requires_python() -> SpecifierSet:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^requires-python\s*=\s*"([^"]+)"', text, re.M)
    assert match, "pyproject.toml has no requires-python"
    return SpecifierSet(match.group(1))


def registry_names(notebooks_dir: Path = REPO / "notebooks") -> list[str]:
    """The entries of notebooks/paper_scale.json (keys starting with ``_`` are comments)."""
    data = json.loads((notebooks_dir / "paper_scale.json").read_text(encoding="utf-8"))
    return [name for name in data if not name.startswith("_")]


# --------------------------------------------------------------------------- policies

POLICIES: dict[str, Callable[[Workflows], list[str]]] = {}


def policy(function: Callable[[Workflows], list[str]]) -> Callable[[Workflows], list[str]]:
    """Register a check: it takes the parsed workflows and returns its problems (none: it holds)."""
    POLICIES[function.__name__] = function
    return function


@policy
def actions_pinned_to_a_major_version(workflows: Workflows) -> list[str]:
    """Actions are pinned to a release tag such as @v4, never a branch; local actions exist."""
    problems = []
    for name, job_id, job in jobs_of(workflows):
        uses = [job["uses"]] if "uses" in job else []  # reusable workflows
        uses += [step["uses"] for step in steps_of(job) if "uses" in step]
        for ref in map(str, uses):
            if ref.startswith("./"):
                if not (REPO / ref).exists():
                    problems.append(f"{name}/{job_id}: local action {ref} does not exist")
            elif not re.fullmatch(r"[\w.-]+/[\w./-]+@v\d+", ref):
                problems.append(f"{name}/{job_id}: {ref} is not pinned to a tag like @v4")
    return problems


@policy
def references_name_existing_jobs_steps_and_inputs(workflows: Workflows) -> list[str]:
    """``needs``, ``needs.X``, ``steps.X`` and ``inputs.X`` name things that exist; no cycles."""
    problems = []
    for name, workflow in workflows.items():
        jobs = workflow.get("jobs") or {}
        on = triggers(workflow)
        declared = set((on.get("workflow_dispatch") or {}).get("inputs") or {})
        declared |= set((on.get("workflow_call") or {}).get("inputs") or {})
        for job_id, job in jobs.items():
            needs = needs_of(job)
            problems += [f"{name}/{job_id}: needs unknown job {n!r}" for n in needs if n not in jobs]
            step_ids = {step["id"] for step in steps_of(job) if "id" in step}
            for expression in expressions_in(job):
                # the needs context holds only the job's direct dependencies
                problems += [
                    f"{name}/{job_id}: needs.{other} is not in needs {needs}"
                    for other in re.findall(r"\bneeds\.([\w-]+)", expression)
                    if other not in needs
                ]
                problems += [
                    f"{name}/{job_id}: no step has the id {step_id!r}"
                    for step_id in re.findall(r"\bsteps\.([\w-]+)", expression)
                    if step_id not in step_ids
                ]
                problems += [
                    f"{name}/{job_id}: input {used!r} is not declared"
                    for used in re.findall(r"\b(?:inputs|github\.event\.inputs)\.([\w-]+)", expression)
                    if used not in declared
                ]

        def reaches(start: str, target: str, seen: frozenset[str], jobs: dict[str, Any] = jobs) -> bool:
            return any(
                n == target or (n not in seen and n in jobs and reaches(n, target, seen | {n}))
                for n in needs_of(jobs[start])
            )

        problems += [f"{name}/{job_id}: dependency cycle" for job_id in jobs if reaches(job_id, job_id, frozenset())]
    return problems


@policy
def untrusted_values_reach_scripts_through_env(workflows: Workflows) -> list[str]:
    """Inputs and event payloads are passed to ``run:`` scripts via ``env:``, never pasted in."""
    untrusted = re.compile(r"\b(inputs\.|github\.event\.|github\.head_ref)")
    return [
        f"{name}/{job_id}: ${{{{{expression}}}}} inside a run script"
        for name, job_id, job in jobs_of(workflows)
        for expression in expressions_in(scripts_of(job))
        if untrusted.search(expression)
    ]


@policy
def least_privilege(workflows: Workflows) -> list[str]:
    """Every workflow reads only by default; only the jobs of ALLOWED_WRITES write, and only that."""
    problems = []
    for name, workflow in workflows.items():
        if workflow.get("permissions") != {"contents": "read"}:
            problems.append(f"{name}: top-level permissions are {workflow.get('permissions')!r}, not contents: read")
    for name, job_id, job in jobs_of(workflows):
        permissions = job.get("permissions") or {}
        if isinstance(permissions, str):  # read-all / write-all
            problems.append(f"{name}/{job_id}: permissions {permissions!r}")
            continue
        writes = {scope for scope, level in permissions.items() if level == "write"}
        if not writes <= ALLOWED_WRITES.get((name, job_id), set()):
            problems.append(f"{name}/{job_id}: writes {sorted(writes)}")
    return problems


@policy
def timeouts_within_budget(workflows: Workflows) -> list[str]:
    """Every job has a timeout GitHub allows; the job running .ci/run fits CI's 90-minute budget."""
    problems = []
    for name, job_id, job in jobs_of(workflows):
        minutes = job.get("timeout-minutes")
        limit = CI_BUDGET_MINUTES if runs_ci_script(job) else GITHUB_MAX_MINUTES
        if not (isinstance(minutes, int) and 0 < minutes <= limit):
            problems.append(f"{name}/{job_id}: timeout-minutes {minutes!r} (at most {limit})")
    return problems


@policy
def full_history_where_tags_or_pushes_are_needed(workflows: Workflows) -> list[str]:
    """Jobs that record provenance (.ci/run, fastmix_companion.run: the BibTeX names the release tag) or push a
    branch check out the whole history (``fetch-depth: 0``): a shallow clone has no tags and
    cannot be pushed."""
    problems = []
    for name, job_id, job in jobs_of(workflows):
        script = scripts_of(job)
        if runs_ci_script(job) or "-m fastmix_companion.run" in script or re.search(r"\bgit push\b", script):
            for step in steps_of(job):
                if str(step.get("uses", "")).startswith("actions/checkout@"):
                    depth = (step.get("with") or {}).get("fetch-depth")
                    if depth != 0:
                        problems.append(f"{name}/{job_id}: checkout with fetch-depth {depth!r}, not 0")
    return problems


@policy
def ci_runs_the_ci_script_in_debian_as_root(workflows: Workflows) -> list[str]:
    """ci.yml runs on pushes to main and on pull requests, and a job checks out and then runs
    exactly ``.ci/run`` (what the README's commands are checked against), in a Debian container
    as root (``.ci/run`` apt-gets Chromium for the browser tests)."""
    problems = []
    ci = workflows.get("ci.yml") or {}
    on = triggers(ci)
    if "main" not in (on.get("push") or {}).get("branches", []) or "pull_request" not in on:
        problems.append(f"ci.yml runs on {sorted(on)}, not on pushes to main and pull requests")
    jobs = [(job_id, job) for job_id, job in (ci.get("jobs") or {}).items() if runs_ci_script(job)]
    if not jobs:
        problems.append(f"no job of ci.yml runs {CI_SCRIPT} as a step of its own")
    for job_id, job in jobs:
        checkout, run = index_of(job, uses="actions/checkout"), index_of(job, runs=re.escape(CI_SCRIPT))
        if checkout is None or run is None or checkout > run:
            problems.append(f"ci.yml/{job_id}: {CI_SCRIPT} does not run after the checkout")
        container = job.get("container")
        image = container.get("image") if isinstance(container, dict) else container
        if not (image and re.search(r"-(bookworm|trixie)\b", str(image))):
            problems.append(f"ci.yml/{job_id}: container {image!r} is not a Debian image")
        if isinstance(container, dict) and "--user" in str(container.get("options", "")):
            problems.append(f"ci.yml/{job_id}: the container does not run as root")
    return problems


@policy
def container_jobs_trust_their_checkout(workflows: Workflows) -> list[str]:
    """In a container the checkout belongs to another user; git refuses it (and provenance shows
    no commit) unless the job marks it safe right after checking out."""
    problems = []
    for name, job_id, job in jobs_of(workflows):
        checkout = index_of(job, uses="actions/checkout")
        if not job.get("container") or checkout is None:
            continue
        trust = index_of(job, runs=r'git config --global --add safe.directory "?\$\{?GITHUB_WORKSPACE')
        first_run = index_of(job, runs=r"\S")
        if trust is None or trust != first_run or trust < checkout:
            problems.append(f"{name}/{job_id}: no safe.directory step between the checkout and the scripts")
    return problems


@policy
def python_versions_satisfy_requires_python(workflows: Workflows) -> list[str]:
    """Containers and setup-python use a Python within ``requires-python`` (and say it as a string:
    unquoted, YAML reads 3.10 as 3.1)."""
    spec, problems, seen = requires_python(), [], 0
    for name, job_id, job in jobs_of(workflows):
        container = job.get("container")
        image = container.get("image") if isinstance(container, dict) else container
        versions = []
        if image:
            match = re.fullmatch(r"python:(\d+\.\d+)[\w.-]*", str(image))
            if not match:
                problems.append(f"{name}/{job_id}: container {image!r} is not a python:X.Y image")
                continue
            versions.append(match.group(1))
        for step in steps_of(job):
            if str(step.get("uses", "")).startswith("actions/setup-python@"):
                version = (step.get("with") or {}).get("python-version")
                if not isinstance(version, str):
                    problems.append(f"{name}/{job_id}: python-version {version!r} is not a quoted string")
                    continue
                versions.append(version)
        for version in versions:
            seen += 1
            if Version(version) not in spec:
                problems.append(f"{name}/{job_id}: Python {version} is outside requires-python {spec}")
    return problems if seen else [*problems, "no job names its Python"]


@policy
def called_files_and_extras_exist(workflows: Workflows) -> list[str]:
    """Repository paths and ``-m fastmix...`` modules named in run scripts exist, and so does
    every extra in ``pip install -e ".[extra]"``."""
    problems = []
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    for name, job_id, job in jobs_of(workflows):
        script = scripts_of(job)
        paths = {
            token
            for token in re.findall(r"(?<![\w$/{}.-])\.?[\w-]+(?:/[\w.-]+)+", script)
            if not token.startswith(GENERATED_PREFIXES)
        }
        paths |= {module.replace(".", "/") + ".py" for module in re.findall(r"-m\s+(fastmix\w*(?:\.\w+)*)", script)}
        problems += [
            f"{name}/{job_id}: {path} is not in the repository" for path in sorted(paths) if not (REPO / path).exists()
        ]
        for extras in re.findall(r"pip install[^\n]*?\.\[([\w,-]+)\]", script):
            problems += [
                f"{name}/{job_id}: no extra [{extra}] in pyproject.toml"
                for extra in extras.split(",")
                if not re.search(rf"^{re.escape(extra)}\s*=", pyproject, re.M)
            ]
    return problems


@policy
def tools_accept_the_options_passed(workflows: Workflows) -> list[str]:
    """``python tools/X.py --opt ...`` in a run script: ``tools/X.py --help`` lists every ``--opt``."""
    problems = []
    for name, job_id, job in jobs_of(workflows):
        for step in steps_of(job):
            command = " ".join(str(step.get("run", "")).split())  # folded (>-) scripts
            for tool, rest in re.findall(r"python\s+(tools/[\w-]+\.py)((?:\s+[^|;&\s]+)*)", command):
                if not (REPO / tool).is_file():
                    problems.append(f"{name}/{job_id}: {tool} does not exist")
                    continue
                proc = subprocess.run(
                    [sys.executable, tool, "--help"], cwd=REPO, capture_output=True, text=True, timeout=120
                )
                options = set(re.findall(r"(?<!\S)--[\w-]+", rest))
                problems += [
                    f"{name}/{job_id}: {tool} --help does not list {option}"
                    for option in sorted(options)
                    if proc.returncode != 0 or option not in proc.stdout
                ]
    return problems


@policy
def publishing_only_from_main_after_ci(workflows: Workflows) -> list[str]:
    """Jobs that write (Pages, the launch branch) wait for the job running .ci/run and run only on
    pushes to main; the Pages artifact is the built book, uploaded after .ci/run."""
    problems = []
    for name, job_id, job in jobs_of(workflows):
        permissions = job.get("permissions") or {}
        writes = isinstance(permissions, str) or "write" in permissions.values()
        if not writes:
            continue
        ci_jobs = [other for other, item in (workflows[name].get("jobs") or {}).items() if runs_ci_script(item)]
        if not ci_jobs or not set(ci_jobs) <= set(needs_of(job)):
            problems.append(f"{name}/{job_id}: writes without waiting for {ci_jobs or CI_SCRIPT}")
        if not only_on_main_pushes(job.get("if")):
            problems.append(f"{name}/{job_id}: writes on {job.get('if')!r}, not only on pushes to main")
    for name, job_id, job in jobs_of(workflows):
        upload = index_of(job, uses="actions/upload-pages-artifact")
        if upload is None:
            continue
        path = str((steps_of(job)[upload].get("with") or {}).get("path", "")).rstrip("/")
        if path != "_build/html":  # where `jupyter-book build .` writes
            problems.append(f"{name}/{job_id}: the Pages artifact is {path!r}, not _build/html")
        run = index_of(job, runs=re.escape(CI_SCRIPT))
        if run is None or run > upload:
            problems.append(f"{name}/{job_id}: the Pages artifact is uploaded before {CI_SCRIPT} built it")
    return problems


@policy
def paper_scale_is_manual_and_keeps_every_notebooks_results(workflows: Workflows) -> list[str]:
    """Paper-scale runs take hours: started by hand only, one matrix job per notebook (from the
    plan job's output) that does not cancel the others, each uploading its results always,
    under a name of its own (upload-artifact v4 cannot add to an artifact)."""
    problems = []
    workflow = workflows.get(PAPER_SCALE) or {}
    if set(triggers(workflow)) != {"workflow_dispatch"}:
        problems.append(f"{PAPER_SCALE} runs on {sorted(triggers(workflow))}, not only by hand")
    jobs = workflow.get("jobs") or {}
    for job_id, job in jobs.items():
        script = scripts_of(job)
        if "--paper-scale" not in script:
            continue
        strategy = job.get("strategy") or {}
        matrix = str((strategy.get("matrix") or {}).get("notebook", ""))
        if not re.fullmatch(
            r"\$\{\{\s*fromJSON\(\s*needs\.[\w-]+\.outputs\.notebooks\s*\)\s*\}\}", matrix.strip(), re.I
        ):
            problems.append(f"{job_id}: matrix.notebook is {matrix!r}, not the plan job's output")
        if strategy.get("fail-fast") is not False:
            problems.append(f"{job_id}: fail-fast is {strategy.get('fail-fast')!r}; one failure would cancel the rest")
        output_dir = re.search(r"--output-dir\s+(\S+)", script)
        upload = index_of(job, uses="actions/upload-artifact")
        if upload is None or output_dir is None:
            problems.append(f"{job_id}: no --output-dir or no upload-artifact step")
            continue
        step = steps_of(job)[upload]
        if re.sub(r"\s", "", str(step.get("if", ""))).strip("${}") != "always()":
            problems.append(f"{job_id}: results are uploaded on {step.get('if')!r}, not always()")
        options = step.get("with") or {}
        if str(options.get("path", "")).rstrip("/") != output_dir.group(1).rstrip("/"):
            problems.append(f"{job_id}: uploads {options.get('path')!r}, not the --output-dir {output_dir.group(1)}")
        artifact = str(options.get("name", ""))
        problems += [
            f"{job_id}: artifact name {artifact!r} lacks {part}"
            for part in ("matrix.notebook", "github.run_id", "github.run_attempt")
            if part not in artifact
        ]
    return problems


# ---- the paper-scale workflow's scripts, run under bash -eo pipefail as GitHub runs them


def read_github_output(path: Path) -> dict[str, str]:
    """The outputs a step wrote to $GITHUB_OUTPUT, in both the ``key=value`` and ``key<<EOF`` forms."""
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
            key, text = line.split("=", 1)
            outputs[key] = text
    return outputs


def step_script(workflows: Workflows, pattern: str) -> str | None:
    """The first run script of the paper-scale workflow that matches ``pattern``."""
    for _, _, job in jobs_of({PAPER_SCALE: workflows.get(PAPER_SCALE) or {}}):
        index = index_of(job, runs=pattern)
        if index is not None:
            return str(steps_of(job)[index]["run"])
    return None


def run_bash(script: str, folder: Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    path = folder / "step.sh"
    path.write_text(script, encoding="utf-8")
    return subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", str(path)],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def plan_outcome(workflows: Workflows, notebooks: str) -> tuple[int, dict[str, str], str]:
    """Run the plan step (the one writing $GITHUB_OUTPUT) on the real registry: (exit, outputs, log)."""
    script = step_script(workflows, r"GITHUB_OUTPUT")
    assert script is not None, "no step of the paper-scale workflow writes $GITHUB_OUTPUT"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "bin").mkdir()
        (folder / "bin" / "python").symlink_to(sys.executable)  # what actions/setup-python provides
        output = folder / "github_output"
        output.touch()
        proc = run_bash(
            script,
            folder,
            REPO,
            {
                "NOTEBOOKS": notebooks,
                "GITHUB_OUTPUT": str(output),
                "PATH": f"{folder / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            },
        )
        return proc.returncode, read_github_output(output), proc.stdout + proc.stderr


@policy
def paper_scale_plan_resolves_and_checks_the_notebooks_input(workflows: Workflows) -> list[str]:
    """The plan step turns the ``notebooks`` input into the JSON list the matrix reads ("all" or
    empty: the whole registry; names separated by commas or spaces, in order, once each) and
    fails, writing no output, on a name that is not in the registry."""
    names = registry_names()
    if len(names) < 3:
        return [f"the registry has {len(names)} entries; these cases need three"]
    cases = {
        "all": names,
        "  ": names,
        f" {names[2]} , {names[0]} ": [names[2], names[0]],
        f"{names[1]} {names[0]},{names[1]}": [names[1], names[0]],
    }
    problems = []
    for given, expected in cases.items():
        code, outputs, log = plan_outcome(workflows, given)
        if code != 0 or set(outputs) != {"notebooks"} or json.loads(outputs["notebooks"]) != expected:
            problems.append(f"plan on {given!r}: exit {code}, outputs {outputs}, expected {expected}\n{log}")
    for given in ("no_such_notebook", f"{names[0]},no_such_notebook", "_comment"):
        code, outputs, log = plan_outcome(workflows, given)
        if code == 0 or "notebooks" in outputs or "::error::" not in log or names[-1] not in log:
            problems.append(f"plan accepted {given!r} or did not list the registry: exit {code}, {outputs}\n{log}")
    return problems


STUB_PYTHON = """#!/usr/bin/env bash
# Stands in for .venv/bin/python: logs its arguments, fails for the notebook "broken".
printf '%s\\n' "$*" >> "$CALLS"
case " $* " in *" broken "*) exit 3;; esac
exit 0
"""


@policy
def paper_scale_run_step_runs_its_notebook_and_fails_with_it(workflows: Workflows) -> list[str]:
    """The run step calls ``.venv/bin/python -m fastmix_companion.run --paper-scale NAME [-p seed S]
    --output-dir DIR`` once, and its exit status follows the notebook's."""
    script = step_script(workflows, r"--paper-scale")
    if script is None:
        return ["no step of the paper-scale workflow runs --paper-scale"]
    problems = []
    for notebook, seed, fails in [("alpha", "7", False), ("alpha", "", False), ("broken", "0", True)]:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            python = folder / ".venv" / "bin" / "python"
            python.parent.mkdir(parents=True)
            python.write_text(STUB_PYTHON, encoding="utf-8")
            python.chmod(0o755)
            calls = folder / "calls.log"
            proc = run_bash(script, folder, folder, {"NOTEBOOK": notebook, "SEED": seed, "CALLS": str(calls)})
            seed_part = f" -p seed {seed}" if seed else ""
            expected = [
                f"-m fastmix_companion.run --paper-scale {notebook}{seed_part} --output-dir results/paper-scale"
            ]
            called = calls.read_text().splitlines() if calls.exists() else []
            if called != expected:
                problems.append(f"{notebook!r}, seed {seed!r}: called {called}, expected {expected}")
            if (proc.returncode != 0) != fails:
                problems.append(
                    f"{notebook!r}: exit {proc.returncode} although the notebook {'failed' if fails else 'passed'}"
                )
    return problems


# --------------------------------------------------------------------------- mutations


@dataclass(frozen=True)
class Mutation:
    """Replace the first ``old`` by ``new`` in a copy of ``workflow``; ``check`` must object."""

    check: str
    id: str
    workflow: str
    old: str
    new: str


CI, PS = "ci.yml", PAPER_SCALE
MAIN_ONLY = "if: github.event_name == 'push' && github.ref == 'refs/heads/main'"
TRUST = '      - name: Trust the checkout\n        run: git config --global --add safe.directory "$GITHUB_WORKSPACE"\n'
# fmt: off
MUTATION_TABLE: dict[str, list[tuple[str, str, str, str]]] = {
    "schema": [
        ("job-without-runs-on", CI, "    runs-on: ubuntu-latest\n", ""),
        ("misspelled-runs-on", CI, "    runs-on: ubuntu-latest\n", "    runs_on: ubuntu-latest\n"),
        ("unknown-event", PS, "  workflow_dispatch:\n", "  workflow_dispatched:\n"),
        ("bad-permission-value", CI, "      pages: write\n", "      pages: writ\n"),
    ],
    "actionlint": [
        ("misspelled-context", CI, "steps.deployment.outputs.page_url", "steps.deployment.output.page_url"),
    ],
    "actions_pinned_to_a_major_version": [
        ("branch-ref", CI, "actions/checkout@v4", "actions/checkout@main"),
    ],
    "references_name_existing_jobs_steps_and_inputs": [
        ("unknown-job", CI, "needs: ci\n", "needs: build\n"),
        ("unknown-step", PS, "steps.plan.outputs", "steps.planner.outputs"),
        ("undeclared-input", PS, "${{ inputs.seed }}", "${{ inputs.sede }}"),
    ],
    "untrusted_values_reach_scripts_through_env": [
        ("input-pasted-into-script", PS, 'if [ -n "$SEED" ]', 'if [ -n "${{ inputs.seed }}" ]'),
    ],
    "least_privilege": [
        ("top-level-write", PS, "permissions:\n  contents: read\n", "permissions:\n  contents: write\n"),
        ("extra-job-write", CI, "      contents: write\n", "      contents: write\n      actions: write\n"),
    ],
    "timeouts_within_budget": [
        ("ci-over-budget", CI, "timeout-minutes: 90", "timeout-minutes: 120"),
        ("missing-timeout", PS, "    timeout-minutes: 5\n", ""),
    ],
    "full_history_where_tags_or_pushes_are_needed": [
        ("shallow-ci-checkout", CI, "fetch-depth: 0  # tags", "fetch-depth: 1  # tags"),
        ("shallow-paper-scale-checkout", PS, "fetch-depth: 0", "fetch-depth: 1"),
    ],
    "ci_runs_the_ci_script_in_debian_as_root": [
        ("ci-not-calling-ci-run", CI, "run: .ci/run\n", "run: make test\n"),
        ("ci-not-debian", CI, "container: python:3.11-bookworm", "container: python:3.11-alpine"),
        ("ci-not-on-pull-requests", CI, "  pull_request:\n", ""),
    ],
    "container_jobs_trust_their_checkout": [
        ("untrusted-checkout", PS, TRUST, ""),
    ],
    "python_versions_satisfy_requires_python": [
        ("container-too-old", PS, "container: python:3.11-bookworm", "container: python:3.9-bookworm"),
        ("unquoted-version", CI, 'python-version: "3.11"', "python-version: 3.10"),
    ],
    "called_files_and_extras_exist": [
        ("missing-tool", CI, "tools/launch_notebooks.py", "tools/launch_notebook.py"),
        ("missing-extra", PS, '".[book]"', '".[books]"'),
    ],
    "tools_accept_the_options_passed": [
        ("unknown-option", CI, "--repo-url", "--repository-url"),
    ],
    "publishing_only_from_main_after_ci": [
        ("deploy-on-any-push", CI, MAIN_ONLY, "if: github.event_name == 'push'"),
        ("deploy-always", CI, MAIN_ONLY, MAIN_ONLY + " || always()"),
        ("wrong-pages-artifact", CI, "path: _build/html", "path: _build"),
    ],
    "paper_scale_is_manual_and_keeps_every_notebooks_results": [
        ("runs-on-push", PS, "on:\n  workflow_dispatch:\n", "on:\n  push:\n  workflow_dispatch:\n"),
        ("fail-fast", PS, "fail-fast: false", "fail-fast: true"),
        ("upload-only-on-success", PS, "        if: always()\n", ""),
        ("artifact-name-reused-on-retry", PS, "-${{ github.run_attempt }}", ""),
    ],
    "paper_scale_plan_resolves_and_checks_the_notebooks_input": [
        ("plan-accepts-unknown", PS, "unknown = [name for name in requested if name not in registry]", "unknown = []"),
        ("plan-keeps-repeats", PS, "selection = list(dict.fromkeys(requested))", "selection = requested"),
    ],
    "paper_scale_run_step_runs_its_notebook_and_fails_with_it": [
        ("seed-dropped", PS, ' "${seed_args[@]}"', ""),
        ("failure-swallowed", PS, "--output-dir results/paper-scale\n", "--output-dir results/paper-scale || true\n"),
    ],
}
# fmt: on
MUTATIONS = [Mutation(check, *row) for check, rows in MUTATION_TABLE.items() for row in rows]


def mutated_copy(tmp_path: Path, mutation: Mutation) -> Path:
    """A copy of ``.github/workflows`` in which ``mutation`` is applied; returns the folder."""
    folder = tmp_path / "workflows"
    shutil.copytree(WORKFLOW_DIR, folder)
    path = folder / mutation.workflow
    text = path.read_text(encoding="utf-8")
    assert mutation.old in text, (
        f"{mutation.id}: {mutation.old!r} is no longer in {mutation.workflow}; update MUTATIONS"
    )
    path.write_text(text.replace(mutation.old, mutation.new, 1), encoding="utf-8")
    return folder


def mutations_for(check: str) -> list[Any]:
    return [pytest.param(m, id=m.id) for m in MUTATIONS if m.check == check]


def policy_mutations() -> list[Any]:
    return [pytest.param(m, id=f"{m.check}-{m.id}") for m in MUTATIONS if m.check in POLICIES]


# --------------------------------------------------------------------------- 1. schema


def check_jsonschema(folder: Path) -> tuple[int, list[str]]:
    """check-jsonschema with its vendored GitHub workflow schema (no network) on ``folder``."""
    files = sorted(map(str, [*folder.glob("*.yml"), *folder.glob("*.yaml")]))
    command = [
        sys.executable,
        "-m",
        "check_jsonschema",
        "--builtin-schema",
        "vendor.github-workflows",
        "--output-format",
        "json",
        *files,
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(
            f"check-jsonschema gave no report (exit {proc.returncode}); is the [test] extra installed?\n"
            f"{proc.stdout}\n{proc.stderr}"
        )
    errors = [*report.get("errors", []), *report.get("parse_errors", [])]
    return proc.returncode, [f"{Path(e['filename']).name}: {e.get('path', '')}: {e.get('message', '')}" for e in errors]


def test_the_workflows_exist():
    assert {"ci.yml", PAPER_SCALE} <= set(load_workflows())


def test_every_workflow_matches_the_github_workflow_schema():
    code, problems = check_jsonschema(WORKFLOW_DIR)
    assert code == 0 and not problems, "\n".join(problems) or f"check-jsonschema exited {code}"


@pytest.mark.parametrize("mutation", mutations_for("schema"))
def test_the_schema_rejects_a_broken_workflow(tmp_path, mutation):
    code, problems = check_jsonschema(mutated_copy(tmp_path, mutation))
    assert code != 0 and any(p.startswith(f"{mutation.workflow}:") for p in problems), problems


# --------------------------------------------------------------------------- 2. actionlint


def actionlint(folder: Path) -> subprocess.CompletedProcess:
    exe = os.environ.get("ACTIONLINT") or shutil.which("actionlint")
    if not exe:
        pytest.skip("actionlint is not installed (optional: put it on PATH or set ACTIONLINT)")
    files = sorted(map(str, [*folder.glob("*.yml"), *folder.glob("*.yaml")]))
    return subprocess.run([exe, "-no-color", *files], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_actionlint_if_installed():
    proc = actionlint(WORKFLOW_DIR)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("mutation", mutations_for("actionlint"))
def test_actionlint_rejects_a_broken_workflow(tmp_path, mutation):
    proc = actionlint(mutated_copy(tmp_path, mutation))
    assert proc.returncode != 0 and mutation.workflow in proc.stdout + proc.stderr, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- 3. policies


@pytest.mark.parametrize("check", list(POLICIES))
def test_policy_holds(check):
    problems = POLICIES[check](load_workflows())
    assert not problems, f"{check}: {POLICIES[check].__doc__}\n" + "\n".join(problems)


@pytest.mark.parametrize("mutation", policy_mutations())
def test_policy_detects_a_violation(tmp_path, mutation):
    workflows = load_workflows(mutated_copy(tmp_path, mutation))
    assert POLICIES[mutation.check](workflows), f"{mutation.check} missed the mutation {mutation.id}"


def test_every_check_has_a_mutation_it_detects():
    checked = {m.check for m in MUTATIONS}
    assert checked == {"schema", "actionlint", *POLICIES}, sorted(checked ^ {"schema", "actionlint", *POLICIES})
    assert len({m.id for m in MUTATIONS}) == len(MUTATIONS)


def test_the_main_push_condition():
    assert only_on_main_pushes('${{ github.ref == "refs/heads/main" && github.event_name == "push" }}')
    assert not only_on_main_pushes("github.event_name == 'push' && !(github.ref == 'refs/heads/main')")
    assert not only_on_main_pushes(None)


def test_the_github_output_reader(tmp_path):
    path = tmp_path / "github_output"
    assert read_github_output(path) == {}
    path.write_text('a=["x", "y"]\nb<<EOF\none\ntwo=2\nEOF\nc=\n', encoding="utf-8")
    assert read_github_output(path) == {"a": '["x", "y"]', "b": "one\ntwo=2", "c": ""}


# --------------------------------------------------------------------------- files the workflows rely on


def ci_script_problems(path: Path) -> list[str]:
    if not path.is_file():
        return [f"{path} is missing"]
    problems = []
    if not (path.stat().st_mode & stat.S_IXUSR and os.access(path, os.X_OK)):
        problems.append(f"{path} is not executable")
    if not path.read_text(encoding="utf-8").startswith("#!"):
        problems.append(f"{path} has no #! line")
    if "jupyter-book build ." not in path.read_text(encoding="utf-8"):
        problems.append(f"{path} does not build the book into _build/html (the Pages artifact)")
    return problems


def test_the_ci_script_is_an_executable_that_builds_the_book(tmp_path):
    assert not ci_script_problems(REPO / CI_SCRIPT)
    copy = tmp_path / "run"
    shutil.copy(REPO / CI_SCRIPT, copy)
    copy.chmod(0o644)
    assert ci_script_problems(copy) == [f"{copy} is not executable"]
    copy.write_text("set -e\n.venv/bin/python -m pytest\n", encoding="utf-8")
    copy.chmod(0o755)
    assert len(ci_script_problems(copy)) == 2


def registry_problems(notebooks_dir: Path) -> list[str]:
    """The paper-scale registry fits the workflow: names usable in artifact names, at most 256 of
    them (a matrix's limit), and each notebook declares the ``seed`` the run step passes."""
    names = registry_names(notebooks_dir)
    problems = [] if 0 < len(names) <= 256 else [f"{len(names)} entries do not fit one matrix"]
    for name in names:
        if not re.fullmatch(r"[\w.-]+", name):
            problems.append(f"{name!r} cannot be part of an artifact name")
        path = notebooks_dir / f"{name}.py"
        source = path.read_text(encoding="utf-8") if path.is_file() else ""
        found = re.split(r'(?m)^# %%.*tags=\[[^\]]*"parameters"[^\]]*\].*$', source, maxsplit=1)
        cell = found[-1].split("# %%", 1)[0] if len(found) == 2 else ""
        if not re.search(r"^seed\s*(:[^=]*)?=", cell, re.M):
            problems.append(f"{name} has no seed parameter")
    return problems


def test_the_registry_fits_the_paper_scale_workflow(tmp_path):
    assert not registry_problems(REPO / "notebooks")
    names = registry_names()
    registry = json.loads((REPO / "notebooks" / "paper_scale.json").read_text(encoding="utf-8"))
    registry["bad/name"] = registry[names[0]]
    (tmp_path / "paper_scale.json").write_text(json.dumps(registry), encoding="utf-8")
    for name in names[1:]:
        shutil.copy(REPO / "notebooks" / f"{name}.py", tmp_path)
    source = (REPO / "notebooks" / f"{names[0]}.py").read_text(encoding="utf-8")
    (tmp_path / f"{names[0]}.py").write_text(re.sub(r"(?m)^seed\b", "root_seed", source), encoding="utf-8")
    assert sorted(registry_problems(tmp_path)) == sorted(
        [
            "'bad/name' cannot be part of an artifact name",
            "bad/name has no seed parameter",
            f"{names[0]} has no seed parameter",
        ]
    )
