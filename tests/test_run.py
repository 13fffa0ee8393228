"""Tests for fastmix_companion.run (the notebook runner)."""

import json
import re
from pathlib import Path

import pytest

from fastmix_companion import notebook_parameters, paper_scale, run
from fastmix_companion.run import (
    NotebookParameter,
    inspect_parameters,
    list_notebooks,
    output_stem,
    parse_value,
    resolve_notebook,
    validate_parameters,
)

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

TOY = """# %% [markdown]
# # Toy notebook: a title
#
# More text.

# %% tags=["parameters"]
n: int = 8  # vector length
eps: float = 1.0  # privacy level
label: str = "run"  # a label
flag: bool = False
grid = [1, 2]  # plain assignment

# %%
print(n, eps, label, flag, grid)
"""


@pytest.fixture
def toy_dir(tmp_path):
    folder = tmp_path / "nbs"
    folder.mkdir()
    (folder / "toy.py").write_text(TOY)
    (folder / "other.py").write_text("# %% [markdown]\n# # Other\n\n# %%\nx = 1\n")
    (folder / "_helper.py").write_text("x = 1\n")
    return folder


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("True", True),
        ("false", False),
        ("yes", True),
        ("None", None),
        ("null", None),
        ("1024", 1024),
        ("-3", -3),
        ("1_000", 1000),
        ("0.5", 0.5),
        ("1e-3", 1e-3),
        ("[1, 2.5]", [1, 2.5]),
        ("(0.1, 1)", (0.1, 1)),
        ("{'a': 1}", {"a": 1}),
        ("'007'", "007"),
        ("gaussian", "gaussian"),
        ("a b", "a b"),
        ("", ""),
    ],
)
def test_parse_value(text, expected):
    value = parse_value(text)
    assert value == expected and type(value) is type(expected)


def test_parse_value_special_floats():
    assert parse_value("inf") == float("inf")
    assert parse_value("nan") != parse_value("nan")


def test_resolve_by_name_filename_and_path(toy_dir, monkeypatch):
    monkeypatch.setenv(run.ENV_NOTEBOOKS_DIR, str(toy_dir))
    expected = (toy_dir / "toy.py").resolve()
    assert resolve_notebook("toy") == expected
    assert resolve_notebook("toy.py") == expected
    assert resolve_notebook(toy_dir / "toy.py") == expected
    assert resolve_notebook("toy", directory=toy_dir) == expected


def test_resolve_unknown_name_lists_available(toy_dir, monkeypatch):
    monkeypatch.setenv(run.ENV_NOTEBOOKS_DIR, str(toy_dir))
    with pytest.raises(FileNotFoundError, match=r"Available notebooks: other, toy"):
        resolve_notebook("figure99")


def test_default_notebooks_dir_is_the_repository_folder(monkeypatch):
    monkeypatch.delenv(run.ENV_NOTEBOOKS_DIR, raising=False)
    assert run.default_notebooks_dir() == NOTEBOOKS
    assert resolve_notebook("hello_fastmix") == (NOTEBOOKS / "hello_fastmix.py").resolve()


def test_list_notebooks_titles(toy_dir):
    assert list_notebooks(toy_dir) == [("other", "Other"), ("toy", "Toy notebook: a title")]


def test_inspect_parameters(toy_dir):
    spec = inspect_parameters(toy_dir / "toy.py")
    assert list(spec) == ["n", "eps", "label", "flag", "grid"]
    assert spec["n"] == NotebookParameter("n", "int", "8", "vector length")
    assert spec["label"].default_value == "run"
    assert spec["flag"].help == ""
    assert spec["grid"].type is None and spec["grid"].default_value == [1, 2]
    assert spec["eps"].describe() == "eps: float = 1.0  # privacy level"


def test_inspect_parameters_of_hello_fastmix():
    spec = inspect_parameters(NOTEBOOKS / "hello_fastmix.py")
    assert set(spec) == {"n", "seed"}
    assert spec["n"].default_value == 1024 and spec["seed"].type == "int"


def test_notebook_without_parameters_cell(toy_dir):
    with pytest.raises(ValueError, match="tagged 'parameters'"):
        inspect_parameters(toy_dir / "other.py")


def test_unknown_parameter_error_lists_valid_ones(toy_dir):
    spec = inspect_parameters(toy_dir / "toy.py")
    with pytest.raises(ValueError) as info:
        validate_parameters({"n": 4, "epsilon": 2.0}, spec, notebook="toy.py")
    message = str(info.value)
    assert "'epsilon'" in message and "toy.py" in message
    assert "n: int = 8  # vector length" in message
    assert "eps: float = 1.0  # privacy level" in message


def test_declared_types_are_checked_and_converted(toy_dir):
    spec = inspect_parameters(toy_dir / "toy.py")
    assert validate_parameters({"n": 16.0, "eps": 2, "label": 5, "flag": True}, spec) == {
        "n": 16,
        "eps": 2.0,
        "label": "5",
        "flag": True,
    }
    for bad in ({"n": 2.5}, {"n": "abc"}, {"n": True}, {"eps": "high"}, {"flag": 1}):
        with pytest.raises(ValueError, match="must be"):
            validate_parameters(bad, spec)
    assert validate_parameters({"grid": (1, 2, 3)}, spec) == {"grid": (1, 2, 3)}


def test_output_stem():
    assert output_stem("figure2", {}) == "figure2__defaults"
    assert output_stem("figure2", {"n": 64, "eps": 0.5}) == "figure2__n=64__eps=0.5"
    assert output_stem("fig", {"label": "a b/c", "grid": [1, 2]}) == "fig__label=a_b_c__grid=1_2"


def test_cli_list_and_help_notebook(capsys):
    assert run.main(["--list"]) == 0
    assert "hello_fastmix" in capsys.readouterr().out
    assert run.main(["hello_fastmix", "--help-notebook"]) == 0
    out = capsys.readouterr().out
    assert "n: int = 1024  # vector length" in out


def test_cli_reports_unknown_parameter(capsys, tmp_path):
    assert run.main(["hello_fastmix", "-p", "m", "3", "--output-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "Unknown parameter(s) 'm'" in err and "seed: int = 0" in err
    assert not any(tmp_path.iterdir())


def test_cli_reports_unknown_notebook(capsys):
    assert run.main(["no_such_notebook"]) == 2
    assert "Available notebooks" in capsys.readouterr().err


@pytest.mark.notebook
def test_run_hello_fastmix_with_changed_parameter(tmp_path, capsys):
    assert run.main(["hello_fastmix", "-p", "n", "128", "-p", "seed", "5", "--output-dir", str(tmp_path)]) == 0
    folder = tmp_path / "hello_fastmix"
    executed = folder / "hello_fastmix__n=128__seed=5.ipynb"
    assert executed.is_file()
    assert str(executed) in capsys.readouterr().out

    nb = json.loads(executed.read_text())
    injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert len(injected) == 1
    source = "".join(injected[0]["source"])
    assert "n = 128" in source and "seed = 5" in source
    assert nb["metadata"]["papermill"]["parameters"] == {"n": 128, "seed": 5}
    # the executed notebook ran with the new value and kept its figure
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert any("fastmix-provenance" in "".join(o.get("data", {}).get("text/html", "")) for o in outputs)

    params = json.loads((folder / "hello_fastmix__n=128__seed=5.parameters.json").read_text())
    assert params["overrides"] == {"n": 128, "seed": 5}
    assert params["effective"] == {"n": 128, "seed": 5}
    prov = json.loads((folder / "hello_fastmix__n=128__seed=5.provenance.json").read_text())
    assert prov["parameters"] == {"n": 128, "seed": 5} and prov["seed"] == 5
    assert prov["output_notebook"] == str(executed)
    # every figure of the executed notebook is also a file
    figures = sorted((folder / "hello_fastmix__n=128__seed=5.figures").glob("*.png"))
    assert figures and all(f.read_bytes().startswith(b"\x89PNG") for f in figures)


@pytest.mark.notebook
def test_run_notebook_failure_raises_papermill_error(tmp_path):
    import papermill

    folder = tmp_path / "nbs"
    folder.mkdir()
    (folder / "bad.py").write_text(
        '# %% tags=["parameters"]\nn: int = 1  # n\n\n# %%\nraise RuntimeError(f"boom {n}")\n'
    )
    with pytest.raises(papermill.PapermillExecutionError, match="boom 3"):
        run.run_notebook(folder / "bad.py", {"n": 3}, output_dir=tmp_path / "out")
    assert (tmp_path / "out" / "bad" / "bad__n=3.ipynb").is_file()


def test_ensure_kernel_registers_python3_when_missing(monkeypatch):
    from ipykernel import kernelspec as ipy_kernelspec
    from jupyter_client import kernelspec

    calls = []

    class NoKernels:
        def get_kernel_spec(self, name):
            raise kernelspec.NoSuchKernel(name)

    monkeypatch.setattr(kernelspec, "KernelSpecManager", NoKernels)
    monkeypatch.setattr(ipy_kernelspec, "install", lambda **kw: calls.append(kw))
    assert run.ensure_kernel("python3") == "python3"
    assert len(calls) == 1 and calls[0]["kernel_name"] == "python3"
    with pytest.raises(kernelspec.NoSuchKernel):
        run.ensure_kernel("some-other-kernel")


def test_ensure_kernel_keeps_registered_kernel():
    assert run.ensure_kernel("python3") == "python3"


def test_module_entry_point(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "fastmix_companion.run", "--list"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "hello_fastmix" in done.stdout


def test_short_names_resolve_to_the_unique_notebook_with_that_prefix(tmp_path):
    from fastmix_companion.run import resolve_notebook

    (tmp_path / "figure2_dp_ols.py").write_text("# %%\n")
    (tmp_path / "appendix_f_coherence.py").write_text("# %%\n")
    (tmp_path / "appendix_j_statistics.py").write_text("# %%\n")
    assert resolve_notebook("figure2", tmp_path).name == "figure2_dp_ols.py"
    with pytest.raises(FileNotFoundError, match="ambiguous"):
        resolve_notebook("appendix", tmp_path)
    with pytest.raises(FileNotFoundError, match="Available notebooks"):
        resolve_notebook("figure9", tmp_path)


# --------------------------------------------------------------------------- paper scale and commands

EXOTIC = """# %% [markdown]
# # Exotic parameters

# %% tags=["parameters"]
grid: str = "1.259"  # a str that papermill -p would turn into a float
flag: bool = True
k: int = 3
eps: float = 2.0
values: list = [0.5, 1.0]  # a list needs YAML
label: str = "it's two words"  # quoting
out: str = "values.json"

# %%
import json
json.dump({"grid": grid, "flag": flag, "k": k, "eps": eps, "values": values, "label": label}, open(out, "w"))
"""


def test_papermill_command_reproduces_every_value_exactly(tmp_path):
    """Run the generated shell command and read back what the notebook received."""
    import shutil
    import subprocess
    import sys

    bin_dir = Path(sys.executable).parent
    if not ((bin_dir / "papermill").exists() and (bin_dir / "jupytext").exists()) and not (
        shutil.which("papermill") and shutil.which("jupytext")
    ):
        pytest.skip("papermill and jupytext command-line tools are not installed")
    (tmp_path / "notebooks").mkdir()
    nb = tmp_path / "notebooks" / "exotic.py"
    nb.write_text(EXOTIC)
    command = run.papermill_command(nb, {"k": 7, "values": [3, 4.5]}, root=tmp_path)
    assert "-r grid 1.259" in command and "-p k 7" in command and "-y 'values: [3, 4.5]'" in command
    env = dict(**__import__("os").environ)
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '')}"
    run.ensure_kernel()
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "results" / "exotic.ipynb").is_file()
    got = json.loads((tmp_path / "notebooks" / "values.json").read_text())
    assert got == {"grid": "1.259", "flag": True, "k": 7, "eps": 2.0, "values": [3, 4.5], "label": "it's two words"}


def test_papermill_command_lists_every_parameter_at_its_default(toy_dir):
    command = run.papermill_command(toy_dir / "toy.py", root=toy_dir.parent)
    assert command.splitlines()[1] == "jupytext --to ipynb -o - nbs/toy.py \\"
    assert "--cwd nbs" in command
    for option in ("-p n 8", "-p eps 1.0", "-r label run", "-p flag False", "-y 'grid: [1, 2]'"):
        assert option in command
    with pytest.raises(ValueError, match="Unknown parameter"):
        run.papermill_command(toy_dir / "toy.py", {"nope": 1})


def test_fastmix_run_command():
    assert (
        run.fastmix_run_command("hello_fastmix", {"n": 64}) == "python -m fastmix_companion.run hello_fastmix -p n 64"
    )
    assert (
        run.fastmix_run_command("figure2", paper_scale=True)
        == "python -m fastmix_companion.run --paper-scale figure2_dp_ols"
    )


def test_paper_scale_registry_names_real_notebooks_and_parameters():
    registry = run.load_paper_scale()
    names = {name for name, _ in run.list_notebooks()}
    assert set(registry) <= names
    assert {"figure2_dp_ols", "figure3_runtime", "section3_fastmix", "appendix_i_airline"} <= set(registry)
    for name, entry in registry.items():
        assert entry.get("note"), f"{name}: say what the paper-scale setting is and roughly how long it takes"
        # raises for an unknown name or a value of the wrong type
        run.validate_parameters(entry["parameters"], run.inspect_parameters(name), notebook=name)


def test_paper_scale_parameters_and_cli_errors(capsys):
    assert run.paper_scale_parameters("figure2")["log2_n"] == 19
    with pytest.raises(KeyError, match="no paper-scale setting"):
        run.paper_scale_parameters("hello_fastmix")
    assert run.main(["--paper-scale", "hello_fastmix"]) == 2
    assert "no paper-scale setting" in capsys.readouterr().err


def test_export_figures(tmp_path):
    import base64

    png = b"\x89PNG\r\n\x1a\nfake"
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": "x"},
            {
                "cell_type": "code",
                "outputs": [
                    {
                        "output_type": "display_data",
                        "data": {"image/png": base64.b64encode(png).decode(), "text/plain": "fig"},
                    },
                    {"output_type": "stream", "text": "hello"},
                    {"output_type": "display_data", "data": {"image/svg+xml": ["<svg>", "</svg>"]}},
                ],
            },
        ]
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    written = run.export_figures(path, tmp_path / "figs")
    assert [p.name for p in written] == ["cell001_0.png", "cell001_1.svg"]
    assert written[0].read_bytes() == png and written[1].read_text() == "<svg></svg>"


def test_paper_scale_commands_quoted_in_notebooks_exist_in_the_registry():
    import re

    registry = run.load_paper_scale()
    quoted = set()
    for path in NOTEBOOKS.glob("*.py"):
        for name in re.findall(r"--paper-scale (\w+)", path.read_text(encoding="utf-8")):
            quoted.add(name)
            assert name == path.stem and name in registry, f"{path.name} quotes --paper-scale {name}"
    assert len(quoted) >= 5


# --------------------------------------------------------------------------- validation, progress, failures

ROOT = NOTEBOOKS.parent


def _cli(*args, cwd=None):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "fastmix_companion.run", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("figure1", "-p", "eps_min", "-1"), "parameter eps_min = -1.0: must be a number > 0"),
        (
            ("section3", "-p", "log2_n", "10"),
            "parameter log2_k2_max = 12: must be an integer in [log2_k2_min (= 5), log2_n (= 10)]",
        ),
        (("figure2", "-p", "ihm_sketch", "sparse"), "parameter ihm_sketch = 'sparse': must be one of 'gram', 'dense'"),
        (("hello_fastmix", "-p", "n", "1000"), "parameter n = 1000: must be a power of two >= 2"),
        (("hello_fastmix", "-p", "n", "many"), "parameter n = 'many': must be an integer"),
        (("hello_fastmix", "-p", "m", "3"), "Unknown parameter(s) 'm' for hello_fastmix.py; valid: n: int = 1024"),
        (("--paper-scale", "figure3", "-p", "shapes", "19x32,30x4"), "item 30x4 is not a shape <log2 n>x<d>"),
    ],
)
def test_cli_refuses_a_bad_value_in_one_line(tmp_path, args, expected):
    done = _cli(*args, "--output-dir", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert expected in lines[0]
    assert done.stdout == ""
    assert not (tmp_path / "out").exists()  # nothing started, nothing written


def test_cli_refusal_does_not_start_papermill(monkeypatch, capsys, tmp_path):
    import papermill

    def refuse(*args, **kwargs):
        raise AssertionError("papermill.execute_notebook was called")

    monkeypatch.setattr(papermill, "execute_notebook", refuse)
    assert run.main(["figure1", "-p", "eps_min", "-1", "--output-dir", str(tmp_path)]) == 2
    assert "eps_min" in capsys.readouterr().err
    assert run.main(["--paper-scale", "section3", "-p", "log2_n", "10", "--output-dir", str(tmp_path)]) == 2
    assert "log2_k2_max = 18" in capsys.readouterr().err  # the paper-scale setting's
    assert not any(tmp_path.iterdir())


def test_run_notebook_refuses_before_the_kernel(tmp_path):
    from fastmix_companion.parameters import ParameterError

    with pytest.raises(ParameterError, match=re.escape("eps_max = 0.001: must be a number > eps_min")):
        run.run_notebook("figure1", {"eps_max": 0.001}, output_dir=tmp_path)
    assert not any(tmp_path.iterdir())


def test_help_notebook_shows_defaults_and_what_each_parameter_admits(capsys):
    assert run.main(["section3", "--help-notebook"]) == 0
    out = capsys.readouterr().out
    assert "log2_n: int = 13  # the k2 sweep uses 2**log2_n rows" in out
    assert "admits: an integer in [1, 24]" in out
    assert "admits: an integer in [log2_k2_min, log2_n]" in out
    assert "admits: a number in (0, 1)" in out
    assert run.main(["hello_fastmix", "--help-notebook"]) == 0
    assert "admits: a power of two >= 2" in capsys.readouterr().out


def test_help_says_where_outputs_and_data_go(capsys):
    with pytest.raises(SystemExit):
        run.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Everything a run writes goes under --output-dir" in out
    assert "$FASTMIX_DATA" in out and "--verbose" in out


SECTION3_SMALL = [
    "-p",
    "log2_n",
    "10",
    "-p",
    "log2_k2_max",
    "7",
    "-p",
    "d",
    "8",
    "-p",
    "n_draws",
    "2",
    "-p",
    "tiny_log2_n",
    "5",
    "-p",
    "tiny_d",
    "3",
    "-p",
    "tiny_k2",
    "16",
    "-p",
    "n_gamma",
    "2",
]


def test_paper_scale_run_reports_cells_done_of_planned_and_resumes(tmp_path):
    done = _cli("--paper-scale", "section3", *SECTION3_SMALL, "--output-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    entry = tmp_path / "section3_fastmix"
    assert f"results store entry: {entry}" in out
    planned = int(re.search(r"^(\d+) cells in this run, 0 already stored$", out, re.M).group(1))
    marks = re.findall(r"\[(\d+)/(\d+) cells, (\d+)%", out)
    assert [int(d) for d, _, _ in marks] == list(range(1, planned + 1))
    assert {int(t) for _, t, _ in marks} == {planned}
    assert "left at this rate" in out and "sweep: synthetic_sphere|k2=32" in out
    assert f"complete: {entry}" in out and str(entry / "sweep.csv") in out
    again = _cli("--paper-scale", "section3", *SECTION3_SMALL, "--output-dir", str(tmp_path))
    assert again.returncode == 0, again.stderr
    assert f"{planned} cells in this run, {planned} already stored" in again.stdout
    assert "0 cells computed" in again.stdout


def test_plan_of_a_study_lists_its_cells():
    from fastmix_companion.studies import study_parameters

    params = study_parameters("appendix_f_coherence", {"log2_ns": "6"})
    plan = paper_scale.plan_cells("appendix_f_coherence", params)
    assert ("coherence", "n=2^6|k=16") in plan and ("coherence", "n=2^6|k=32") in plan
    assert {t for t, _ in plan} == {"coherence", "reference"}


FAILING = """# %% tags=["parameters"]
n: int = 1  # n

# %%
print("first cell ran", n)
detail = "second " + "line"

# %%
raise RuntimeError(f"boom {n}\\n{detail}")
"""


@pytest.mark.notebook
def test_cli_failure_names_the_cell_and_the_partial_notebook(tmp_path):
    nb = tmp_path / "bad.py"
    nb.write_text(FAILING)
    out = tmp_path / "out"
    done = _cli(str(nb), "-p", "n", "3", "--output-dir", str(out), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    partial = out / "bad" / "bad__n=3.ipynb"
    assert partial.is_file()
    err = done.stderr
    assert "error: bad failed in cell 4 of the executed notebook (In [" in err
    assert "RuntimeError: boom 3" in err and "second line" not in err
    assert 'the cell begins: raise RuntimeError(f"boom {n}' in err
    assert f"partial executed notebook (cells up to the failure, with the traceback): {partial}" in err
    assert "Traceback" not in err and "Cell In[" not in err
    assert "first cell ran 3" in done.stdout  # the cells' output was streamed
    verbose = _cli(str(nb), "-p", "n", "3", "--output-dir", str(out), "--verbose", "--no-progress", cwd=tmp_path)
    assert verbose.returncode == 1
    assert "second line" in verbose.stderr and "Traceback" in verbose.stderr


@pytest.mark.notebook
def test_study_notebook_streams_its_cells_and_writes_only_under_output_dir(tmp_path):
    """Figure 2's smoke run: grid cells streamed; nothing (no data or results cache) lands in the repository."""
    watched = [ROOT / "notebooks", ROOT / "data", ROOT / "results" / "figure2_dp_ols"]

    def snapshot():  # the files there (new files, not edits of existing ones: those are the sources)
        return {
            p
            for folder in watched
            if folder.exists()
            for p in folder.rglob("*")
            if "__pycache__" not in p.parts and ".ipynb_checkpoints" not in p.parts
        }

    before = snapshot()
    out = tmp_path / "out"
    done = _cli(
        "figure2",
        "-p",
        "datasets",
        "synthetic_sphere",
        "-p",
        "log2_n",
        "10",
        "-p",
        "k2_ratios",
        "4,16",
        "-p",
        "epsilons",
        "1.259,10.0",
        "-p",
        "trials",
        "2",
        "--output-dir",
        str(out),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "runs: synthetic_sphere|FastIHS" in done.stderr  # the study's cells, streamed from the kernel
    assert "Executing" in done.stderr  # papermill's cell progress bar
    folder = out / "figure2_dp_ols"
    executed = sorted(folder.glob("*.ipynb"))
    assert len(executed) == 1 and f"{executed[0]}  (executed notebook)" in done.stdout
    assert "figure(s) in" in done.stdout
    assert snapshot() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_parameters_cell_read_as_text_matches_jupytext(toy_dir):
    for path in [*sorted(NOTEBOOKS.glob("*.py")), toy_dir / "toy.py"]:
        fast = notebook_parameters._percent_parameters_source(path)
        assert fast is not None, path.name
        assert fast == notebook_parameters._parameters_cell_source(notebook_parameters._read_notebook(path)), path.name
    assert notebook_parameters._percent_parameters_source(toy_dir / "other.py") is None


def test_refusal_starts_no_kernel():
    """A refused value ends the command before papermill executes anything or a kernel starts."""
    import subprocess
    import sys

    code = (
        "import sys, papermill\n"
        "def boom(*a, **k): raise SystemExit('papermill.execute_notebook was called')\n"
        "papermill.execute_notebook = boom\n"
        "from fastmix_companion import run\nrc = run.main(['figure1', '-p', 'eps_min', '-1'])\n"
        "print(rc, [m for m in ('ipykernel', 'matplotlib') if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.stdout.strip() == "2 []", done.stdout + done.stderr


def test_parameters_are_read_as_papermill_reads_them(toy_dir):
    """inspect_parameters agrees with papermill's own inspection, default text and help included."""
    import nbformat
    from papermill.translators import PythonTranslator

    for path in sorted(NOTEBOOKS.glob("*.py")):
        source = notebook_parameters._percent_parameters_source(path)
        theirs = PythonTranslator.inspect(nbformat.v4.new_code_cell(source))
        ours = run.inspect_parameters(path)
        assert list(ours) == [p.name for p in theirs], path.name
        assert [o.default for o in ours.values()] == [p.default.strip() for p in theirs], path.name


def test_a_line_papermill_cannot_read_is_an_error_not_a_lost_parameter(tmp_path):
    nb = tmp_path / "bad.py"
    nb.write_text('# %% tags=["parameters"]\nn: int = 4  # rows, n = 2**k\nseed: int = 0  # seed\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"papermill cannot read line 1 of the parameters cell, 'n: int = 4"):
        run.inspect_parameters(nb)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("figure1", "--restart"), "--restart only applies with --paper-scale"),
        (("figure1", "--output-dir", "{file}"), "is a file, not a folder"),
        (("figure1", "--output-dir", "{file}/sub"), "cannot be created: {file} is a file"),
        (("--paper-scale", "figure1", "--output-dir", "{file}"), "is a file, not a folder"),
        (
            ("figure1", "--kernel", "no-such-kernel", "--output-dir", "{dir}"),
            "--kernel no-such-kernel: no Jupyter kernel of that name is installed",
        ),
        (("figure1", "-p", "eps_min", "nan", "--output-dir", "{dir}"), "parameter eps_min = nan: must be a number > 0"),
        (("figure1", "-p", "eps_max", "inf", "--output-dir", "{dir}"), "must be a finite number"),
        (("figure1", "-p", "n_eps", "3.5", "--output-dir", "{dir}"), "parameter n_eps = 3.5: must be an integer"),
        (("figure2", "-p", "use_paper_ratios", "maybe", "--output-dir", "{dir}"), "must be true or false"),
        (("figure2", "-p", "epsilons", ",", "--output-dir", "{dir}"), "must be a comma-separated list of numbers"),
        (("README.md",), "No notebook 'README.md'"),
    ],
)
def test_cli_refuses_options_that_cannot_work_in_one_line(tmp_path, args, expected):
    """Each class of bad option or value: exit 2, one line naming it, nothing started or written."""
    afile = tmp_path / "a-file"
    afile.write_text("not a folder")
    folder = tmp_path / "out"
    fill = {"file": str(afile), "dir": str(folder)}
    done = _cli(*(a.format(**fill) for a in args))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert expected.format(**fill) in lines[0]
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert not folder.exists() and afile.read_text() == "not a folder"


def test_cli_refuses_an_unwritable_output_dir(tmp_path):
    import os

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        done = _cli("figure1", "--output-dir", str(locked / "out"))
        assert done.returncode == 2 and "is not writable" in done.stderr
    finally:
        locked.chmod(0o700)


# --------------------------------------------------------------------------- values starting with '-', cost, memory


@pytest.mark.parametrize(
    ("value", "shown"),
    [("-1", "-1.0: must be a number > 0"), ("-inf", "-inf: must be a finite number > 0"), ("-1e3", "-1000.0")],
)
def test_cli_takes_a_value_starting_with_a_minus_as_a_value(tmp_path, value, shown):
    done = _cli("figure1", "-p", "eps_min", value, "--output-dir", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: parameter eps_min = {shown}"), done.stderr
    assert "usage:" not in done.stderr and done.stdout == ""
    assert not (tmp_path / "out").exists()


def test_split_parameter_args_takes_two_words_after_p_whatever_they_start_with():
    from fastmix_companion.cli_checks import split_parameter_args

    parser = run._build_parser()
    argv = ["figure1", "-p", "eps_min", "-inf", "--output-dir", "-p", "--parameter", "x", "-1e3", "--yes"]
    rest, pairs = split_parameter_args(argv, parser)
    assert pairs == [("eps_min", "-inf"), ("x", "-1e3")]
    assert rest == ["figure1", "--output-dir", "-p", "--yes"]  # the value of --output-dir is not a -p
    assert split_parameter_args(["--param", "a", "-b"], parser) == ([], [("a", "-b")])  # argparse's abbreviation
    assert split_parameter_args(["x", "--", "-p", "a", "b"], parser) == (["x", "--", "-p", "a", "b"], [])
    # a missing value is left to argparse, which names it
    assert split_parameter_args(["-p", "eps_min", "--verbose"], parser) == (["-p", "eps_min", "--verbose"], [])
    assert split_parameter_args(["figure1", "-p", "eps_min"], parser) == (["figure1", "-p", "eps_min"], [])
    with pytest.raises(SystemExit):
        run.main(["figure1", "-p", "eps_min", "--verbose"])


FAKE_STUDY_NOTEBOOK = """# %% [markdown]
# # A fake study's notebook

# %% tags=["parameters"]
n: int = 8  # rows
seed: int = 0  # seed

# %%
print(n, seed)
"""


@pytest.fixture
def fake_study(tmp_path, monkeypatch):
    """A study module ``fakestudy`` (no real study is touched) with a notebook in a temporary folder."""
    import sys
    import types

    import papermill

    from fastmix_companion import studies

    folder = tmp_path / "nbs"
    folder.mkdir()
    (folder / "fakestudy.py").write_text(FAKE_STUDY_NOTEBOOK)
    module = types.ModuleType("fastmix_companion.studies._fake_cli_study")
    module.NOTEBOOK = "fakestudy"
    module.DEFAULTS = {"n": 8, "seed": 0}
    module.PARAMETERS = {}
    module.calls = []
    module.run = lambda params, store=None, log=print: module.calls.append(dict(params)) or {}
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(studies.STUDIES, "fakestudy", "_fake_cli_study")
    monkeypatch.setenv(run.ENV_NOTEBOOKS_DIR, str(folder))
    monkeypatch.setattr(run, "paper_scale_parameters", lambda path: {})
    started = []
    monkeypatch.setattr(run, "run_paper_scale", lambda path, spec, overrides, **kw: started.append(overrides) or 0)

    def no_kernel(*args, **kwargs):
        raise AssertionError("papermill.execute_notebook was called")

    monkeypatch.setattr(papermill, "execute_notebook", no_kernel)
    module.started = started
    return module


def test_a_run_needing_more_memory_than_available_is_refused_in_one_line(fake_study, monkeypatch, capsys, tmp_path):
    from fastmix_companion import cli_checks

    seen = []

    def cost_model(params):
        seen.append(params)
        return cli_checks.RunCost(memory_bytes=params["n"] * 2**30, note="an n GiB matrix")

    fake_study.cost_model = cost_model
    monkeypatch.setattr(cli_checks, "available_memory", lambda: 12 * 2**30)
    for args in (["fakestudy"], ["--paper-scale", "fakestudy"]):
        assert run.main([*args, "-p", "n", "16", "--yes", "--output-dir", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [
            "error: fakestudy at these parameters needs about 16.0 GiB of memory (an n GiB matrix), more than the "
            "12.0 GiB available; lower its sizes (--help-notebook lists them) or free memory"
        ]
    assert seen[-1] == {"n": 16, "seed": 0}  # the study's parameters: its DEFAULTS updated by -p
    assert not fake_study.started and not (tmp_path / "out").exists()
    assert run.main(["--paper-scale", "fakestudy", "-p", "n", "4", "--output-dir", str(tmp_path / "out")]) == 0
    assert fake_study.started == [{"n": 4}] and capsys.readouterr().err == ""


def test_a_run_estimated_over_an_hour_needs_yes(fake_study, capsys, tmp_path):
    from fastmix_companion import cli_checks

    fake_study.cost_model = lambda params: {"seconds": params["n"] * 900.0}  # a mapping works too
    out = str(tmp_path / "out")
    assert run.main(["--paper-scale", "fakestudy", "-p", "n", "12", "--output-dir", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: fakestudy at these parameters is estimated to take about 3.0 h; add --yes to start it anyway"
    ]
    assert not fake_study.started
    assert run.main(["--paper-scale", "fakestudy", "-p", "n", "12", "--yes", "--output-dir", out]) == 0
    assert (
        capsys.readouterr().err.strip()
        == "note: fakestudy at these parameters is estimated to take about 3.0 h; starting it (--yes)"
    )
    assert fake_study.started == [{"n": 12}]
    assert run.main(["--paper-scale", "fakestudy", "-p", "n", "4", "--output-dir", out]) == 0  # one hour: no question
    assert capsys.readouterr().err == "" and cli_checks.LONG_RUN_SECONDS == 3600


def test_a_study_without_a_cost_model_or_with_a_broken_one_is_not_stopped(fake_study, capsys, tmp_path):
    out = str(tmp_path / "out")
    assert run.main(["--paper-scale", "fakestudy", "-p", "n", "99", "--output-dir", out]) == 0
    assert capsys.readouterr().err == ""
    fake_study.cost_model = lambda params: 1 / 0
    assert run.main(["--paper-scale", "fakestudy", "--output-dir", out]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("warning: the cost model of fakestudy failed (ZeroDivisionError")
    assert len(fake_study.started) == 2


def test_a_memory_error_in_a_study_run_in_process_ends_in_one_line(fake_study, monkeypatch, capsys, tmp_path):
    def runs_out(params, store=None, log=print):
        raise MemoryError("Unable to allocate 64.0 GiB for an array with shape (2**33,) and data type float64")

    fake_study.run = runs_out
    monkeypatch.setattr(run, "run_paper_scale", paper_scale.run_paper_scale)  # the real one, computing in process
    args = ["--paper-scale", "fakestudy", "--no-progress", "--output-dir", str(tmp_path / "out")]
    assert run.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: fakestudy ran out of memory (MemoryError: Unable to allocate 64.0 GiB for an array with shape "
        "(2**33,) and data type float64); lower its sizes or free memory, then run the same command: the cells "
        "stored so far are kept"
    ]
    fake_study.run = lambda params, store=None, log=print: (_ for _ in ()).throw(MemoryError())
    assert run.main(args) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: fakestudy ran out of memory (MemoryError); lower its sizes or free memory, then run the same "
        "command: the cells stored so far are kept"
    ]


def test_a_memory_error_in_the_kernel_ends_in_one_line(monkeypatch, capsys, tmp_path):
    import papermill

    def kernel_runs_out(*args, **kwargs):
        raise papermill.PapermillExecutionError(
            cell_index=4,
            exec_count=3,
            source="X = np.empty((2**40, 8))",
            ename="MemoryError",
            evalue="Unable to allocate 64.0 TiB for an array with shape (1099511627776, 8) and data type float64",
            traceback=["Traceback (most recent call last)", "MemoryError: Unable to allocate 64.0 TiB"],
        )

    monkeypatch.setattr(papermill, "execute_notebook", kernel_runs_out)
    assert run.main(["hello_fastmix", "--no-progress", "--output-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    partial = tmp_path / "hello_fastmix" / "hello_fastmix__defaults.ipynb"
    assert err == [
        "error: hello_fastmix ran out of memory in cell 5 of the executed notebook (In [3]) (MemoryError: Unable "
        "to allocate 64.0 TiB for an array with shape (1099511627776, 8) and data type float64); lower its sizes "
        f"or free memory; partial executed notebook: {partial}"
    ]


OUT_OF_MEMORY = """# %% tags=["parameters"]
log2_bytes: int = 62  # size of the array to allocate

# %%
import numpy as np

x = np.empty(2**log2_bytes, dtype=np.uint8)
"""


@pytest.mark.notebook
def test_a_kernel_that_runs_out_of_memory_ends_the_command_in_one_line(tmp_path):
    nb = tmp_path / "greedy.py"
    nb.write_text(OUT_OF_MEMORY)
    done = _cli(str(nb), "--no-progress", "--output-dir", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    # what the command writes (the kernel may log a line of its own as it starts)
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith("[IPKernelApp]")]
    assert len(lines) == 1 and lines[0].startswith("error: greedy ran out of memory in cell 2"), done.stderr
    assert "(MemoryError: Unable to allocate 4.00 EiB" in lines[0] and "partial executed notebook: " in lines[0]


def _image_output(payload: bytes, **metadata) -> dict:
    import base64

    return {
        "output_type": "display_data",
        "metadata": metadata,
        "data": {"image/png": base64.b64encode(payload).decode()},
    }


def test_exported_figures_are_named_after_the_figure_they_hold(tmp_path):
    """Caption label first (figure2.png), then the figure's name, then the glue key; cell index last."""

    def cell(outputs, **metadata):
        return {"cell_type": "code", "metadata": metadata, "outputs": outputs}

    nb = {
        "cells": [
            cell(
                [_image_output(b"a")], mystnb={"figure": {"caption": "**Figure 2.** {glue:md}`x`", "name": "fig2-risk"}}
            ),
            cell(
                [_image_output(b"b"), _image_output(b"c")],
                mystnb={"figure": {"caption": "**Figure F.1 (smoke scale).** text", "name": "appf-smoke"}},
            ),
            cell([_image_output(b"d")], mystnb={"figure": {"caption": "A plot without a label", "name": "spectrum"}}),
            cell([_image_output(b"e", scrapbook={"name": "glued-figure", "mime_prefix": ""})]),
            cell([_image_output(b"f")]),
            cell([_image_output(b"g")], mystnb={"figure": {"caption": "**Figure 2.** again"}}),
        ]
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    written = run.export_figures(path, tmp_path / "figs")
    assert [p.name for p in written] == [
        "figure2.png",
        "figureF-1-smoke-scale.png",
        "figureF-1-smoke-scale-2.png",
        "spectrum.png",
        "glued-figure.png",
        "cell004_0.png",
        "figure2-2.png",
    ]
    assert [p.read_bytes() for p in written] == [b"a", b"b", b"c", b"d", b"e", b"f", b"g"]


@pytest.mark.notebook
def test_the_command_prints_no_kernel_transport_warning_and_names_figures(tmp_path):
    """``python -m fastmix_companion.run`` output has no "[IPKernelApp] WARNING ... without encryption" line,
    and the figures it lists are named after the figures (hello_fastmix has Figure H.1)."""
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "fastmix_companion.run",
            "hello_fastmix",
            "-p",
            "n",
            "64",
            "--output-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "without encryption" not in done.stderr and "IPKernelApp" not in done.stderr, done.stderr
    assert "without encryption" not in done.stdout
    assert "figureH-1.png" in done.stdout, done.stdout
    assert (tmp_path / "hello_fastmix" / "hello_fastmix__n=64.figures" / "figureH-1.png").is_file()


@pytest.mark.notebook
def test_the_warning_check_sees_the_warning_of_a_plain_tcp_kernel(tmp_path):
    """Control: a kernel started the default way (TCP, no keys) does print the warning the test above looks for,
    so its absence there is the transport configuration's doing."""
    import subprocess
    import sys

    script = (
        "import nbformat, papermill\n"
        "from traitlets.config import Config\n"
        "nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1 + 1')])\n"
        "papermill.execute_notebook(nb, 'out.ipynb', kernel_name='python3', progress_bar=False, config=Config())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "without encryption" in done.stderr, done.stderr


def test_kernel_transport_config_keeps_the_kernel_off_plain_tcp():
    config = run.kernel_transport_config("python3")
    manager = config.get("KernelManager", {})
    assert manager.get("transport_encryption") == "auto" or manager.get("transport") == "ipc", config


def test_two_concurrent_paper_scale_sittings_end_with_the_table_of_one(tmp_path):
    """Two command-line runs of one entry at the same time store every cell once: the union, no duplicates."""
    import subprocess
    import sys

    import pandas as pd

    def command(out):
        return [
            sys.executable,
            "-m",
            "fastmix_companion.run",
            "--paper-scale",
            "figure1_noise_scale",
            "-p",
            "n_eps",
            "13",
            "--output-dir",
            str(out),
        ]

    one, two = tmp_path / "one", tmp_path / "two"
    done = subprocess.run(command(one), cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    runs = [subprocess.Popen(command(two), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
    runs.append(subprocess.Popen(command(two), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for proc in runs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    for table in ("curves", "c2_used"):
        a = pd.read_csv(one / "figure1_noise_scale" / f"{table}.csv").sort_values(["cell"]).reset_index(drop=True)
        b = pd.read_csv(two / "figure1_noise_scale" / f"{table}.csv").sort_values(["cell"]).reset_index(drop=True)
        assert not b.duplicated().any(), f"{table}: a cell stored twice"
        pd.testing.assert_frame_equal(
            a.sort_values(list(a.columns)).reset_index(drop=True), b.sort_values(list(b.columns)).reset_index(drop=True)
        )
    from fastmix_companion.store import ResultsStore

    assert ResultsStore("figure1_noise_scale", two).load() is not None  # the manifest agrees with the files
