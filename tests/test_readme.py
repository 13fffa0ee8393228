"""README.md: its example runs, its commands are the ones CI runs and all go through .venv/,
and its table of the papers' figures is generated from the book's table of contents."""

import re
import shutil
from pathlib import Path

import pytest
import yaml

import paper_map  # tools/paper_map.py (tests/conftest.py puts tools/ on the path)

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"

#: Programs that live in the virtual environment and must be called as .venv/bin/<program>.
VENV_PROGRAMS = {"python", "python3", "pip", "pip3", "pytest", "jupyter-book", "jb", "jupytext", "papermill"}
#: The set-up step of the README's two commands: the one place where the system Python is used.
SETUP = "python3 -m venv .venv"


def _text(path: Path = README) -> str:
    return path.read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """Body of the section under ``heading`` (a full heading line), up to the next heading of
    the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    body = text.split(f"\n{heading}\n", 1)[1]
    return re.split(rf"\n#{{1,{level}}} ", body, maxsplit=1)[0]


def test_readme_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", _text(), flags=re.S)
    assert blocks, "README.md should contain a ```python example"
    import warnings

    for block in blocks:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an example that warns would teach the wrong thing
            exec(compile(block, str(README), "exec"), {})
    out = capsys.readouterr().out
    assert "Privacy ledger" in out and "TOTAL" in out


# --------------------------------------------------------------------------- the two commands


def _ci_commands() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.startswith(SETUP)]


def _bash_lines(text: str) -> list[str]:
    return [
        line
        for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)
        for line in block.splitlines()
        if line.strip()
    ]


def test_readme_commands_are_the_ones_ci_runs():
    book, tests = _ci_commands()
    assert "jupyter-book build" in book and "pytest" in tests
    text = _text()
    assert _bash_lines(_section(text, "### Build the book")) == [book]
    assert _bash_lines(_section(text, "### Run the tests")) == [tests]


def test_readme_states_how_long_the_commands_take():
    text = _text()
    for heading in ("### Build the book", "### Run the tests"):
        assert re.search(r"\babout \d+(-\d+)? minutes\b", _section(text, heading), flags=re.I), heading


def _commands(text: str) -> list[str]:
    """Every shell command of a Markdown text: lines of bash fences and inline code spans, split
    at ``&&`` and ``|``."""
    fenced = _bash_lines(text)
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    spans = re.findall(r"`([^`\n]+)`", prose)
    commands = []
    for item in fenced + spans:
        commands += [part.strip() for part in re.split(r"&&|\|", item) if part.strip()]
    return commands


@pytest.mark.parametrize("path", [README, CONTRIBUTING], ids=lambda p: p.name)
def test_every_command_goes_through_the_virtual_environment(path):
    offenders = []
    for command in _commands(_text(path)):
        first = command.split()[0]
        if first in VENV_PROGRAMS and not command.startswith(SETUP):
            offenders.append(command)
    assert not offenders, f"{path.name}: call these through .venv/bin/: {offenders}"


def test_the_command_check_catches_a_bare_python():
    assert [c.split()[0] for c in _commands("Run `python -m fastmix_companion.run --list`.")] == ["python"]
    assert _commands("```bash\npython3 -m venv .venv && pytest\n```") == [SETUP, "pytest"]


# --------------------------------------------------------------------------- layout


def _urls() -> dict:
    return paper_map.citation.read_pyproject(ROOT / "pyproject.toml")["urls"]


def test_readme_opens_with_the_rendered_book():
    head = "\n".join(_text().splitlines()[:5])
    assert _urls()["Documentation"] in head


def test_user_material_comes_first_and_maintainer_material_lives_in_contributing():
    text = _text()
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    order = [
        "Install, build the book, run the tests",
        "The papers' figures and tables in the book",
        "Re-running a figure with new parameters",
        "Using the package",
        "Cite this",
        "Contributing",
    ]
    assert [h for h in headings if h in order] == order
    assert headings.index("Contributing") == len(headings) - 2  # only the licence after it
    for maintainer in ("tools/release.py", "check_links.py", ".github/workflows", "benchmarks/"):
        assert maintainer not in text, f"{maintainer} belongs in CONTRIBUTING.md"
        assert maintainer in _text(CONTRIBUTING)
    contributing = _text(CONTRIBUTING)
    for heading in (
        "## Continuous integration",
        "## Adding a notebook",
        "## Computing and committing paper-scale results",
        "## Releasing a version",
    ):
        assert f"\n{heading}\n" in contributing


# --------------------------------------------------------------------------- the table of figures


def _table() -> str:
    text = _text()
    return text.split(paper_map.START, 1)[1].split(paper_map.END, 1)[0]


def test_figure_table_is_current():
    assert paper_map.render_readme(ROOT) == _text(), (
        "the README's table of figures is stale; run `.venv/bin/python tools/paper_map.py`"
    )
    assert paper_map.main(["--check"]) == 0


def test_every_notebook_of_the_book_is_in_the_table():
    """Read _toc.yml and the registry here, independently of the generator."""
    from fastmix_companion.run import resolve_notebook

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    notebooks = [
        c["file"].split("/", 1)[1]
        for part in toc["parts"]
        for c in part["chapters"]
        if c["file"].startswith("notebooks/")
    ]
    registry = set(paper_map.json.loads((ROOT / "notebooks" / "paper_scale.json").read_text())) - {"_comment"}
    table = _table()
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| Paper ")]
    docs = _urls()["Documentation"]
    assert len(rows) >= len(notebooks)
    for name in notebooks:
        row = next((r for r in rows if f"]({docs}notebooks/{name}.html)" in r), None)
        assert row is not None, f"{name} has no row in the README's table"
        assert f"`.venv/bin/python -m fastmix_companion.run {name}`" in row
        assert (f"`.venv/bin/python -m fastmix_companion.run --paper-scale {name}` (" in row) == (name in registry)
        assert resolve_notebook(name).stem == name
    assert registry <= set(notebooks)


@pytest.mark.parametrize(
    ("note", "expected"),
    [
        ("Both sweeps; About ten minutes of one core.", "about ten minutes on one core"),
        ("the paper's grid; about 10 minutes on one core.", "about 10 minutes on one core"),
        ("A few minutes on one core; hours at n = 2^22", "a few minutes on one core"),
        ("The whole figure; about a minute.", "about a minute"),
        ("No time is given here.", None),
    ],
)
def test_run_time_is_read_from_the_note(note, expected):
    assert paper_map.runtime(note) == expected


@pytest.fixture
def tmp_book(tmp_path):
    """The files tools/paper_map.py reads, copied."""
    for name in ("README.md", "_toc.yml", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks", ignore=shutil.ignore_patterns("*.ipynb"))
    (tmp_path / "book").mkdir()
    for page in (ROOT / "book").glob("*.md"):
        shutil.copy(page, tmp_path / "book" / page.name)
    return tmp_path


def test_copy_is_current(tmp_book):
    assert paper_map.main(["--check", "--root", str(tmp_book)]) == 0


def test_a_new_notebook_without_a_paper_item_is_refused(tmp_book, capsys):
    shutil.copy(tmp_book / "notebooks" / "hello_fastmix.py", tmp_book / "notebooks" / "figure9_new.py")
    toc = (tmp_book / "_toc.yml").read_text()
    (tmp_book / "_toc.yml").write_text(
        toc.replace(
            "      - file: notebooks/figure3_runtime\n",
            "      - file: notebooks/figure3_runtime\n      - file: notebooks/figure9_new\n",
        )
    )
    assert paper_map.main(["--check", "--root", str(tmp_book)]) == 2
    assert "PAPER_ITEMS has no entry for notebooks/figure9_new" in capsys.readouterr().err


def test_a_changed_title_or_note_makes_the_table_stale(tmp_book, capsys):
    registry = tmp_book / "notebooks" / "paper_scale.json"
    registry.write_text(registry.read_text().replace("about 4 hours on one core", "about 5 hours on one core"))
    assert paper_map.main(["--check", "--root", str(tmp_book)]) == 1
    assert "+| FastMix paper | Appendix I" in capsys.readouterr().err
    assert paper_map.main(["--root", str(tmp_book)]) == 0
    assert "(about 5 hours on one core)" in (tmp_book / "README.md").read_text()
    assert paper_map.main(["--check", "--root", str(tmp_book)]) == 0


def test_a_registry_note_without_a_time_is_refused(tmp_book, capsys):
    registry = tmp_book / "notebooks" / "paper_scale.json"
    data = paper_map.json.loads(registry.read_text())
    data["kernel_rates"]["note"] = "Both sweeps with the theory's M and lambda."
    registry.write_text(paper_map.json.dumps(data))
    assert paper_map.main(["--check", "--root", str(tmp_book)]) == 2
    assert "the note of kernel_rates states no run time" in capsys.readouterr().err


def test_the_first_example_is_the_front_door_with_declared_bounds():
    text = _text()
    first = re.findall(r"```python\n(.*?)```", text, flags=re.S)[0]
    assert "PrivateLinearRegression" in first and "BoundedTableEncoder" in first and "pipeline_privacy_record" in first
    assert text.index("## Start here") < text.index("## Install, build the book, run the tests")
    install = _section(text, "## Start here: private regression on your own table")
    assert '.venv/bin/python -m pip install "fastmix[ml] @ git+' in install
