"""Convert the companion's notebooks to ``.ipynb`` files that open on Binder and Colab.

The notebooks live in ``notebooks/*.py`` (jupytext percent format). Binder and Colab open
``.ipynb`` files, so the deploy workflow runs this script and publishes the result on the
``launch`` branch, where the book's launch buttons point (``_config.yml``,
``book/_ext/fastmix_book.py``). Each converted notebook gets one extra cell, right after its
title, that installs fastmix at the published commit when it is not importable (Colab);
on Binder, whose image installs the package from ``binder/``, the cell does nothing.

Usage::

    python tools/launch_notebooks.py --out DIR --repo-url https://github.com/ORG/REPO --ref COMMIT

writes ``DIR/notebooks/<name>.ipynb`` for every notebook (no outputs: they run on launch).
Needs jupytext.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUP_TAG = "launch-setup"
EXTRAS = "fast,ml,data"

SETUP_SOURCE = """\
# Launch setup (added by tools/launch_notebooks.py): on a hosted service without fastmix,
# install it at the commit this notebook was published from. Does nothing where it is installed.
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("fastmix") is None:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", {requirement!r}])
    print("installed", {requirement!r})
"""


def requirement(repo_url: str, ref: str) -> str:
    """pip requirement for fastmix with the notebook extras at ``ref`` of ``repo_url``."""
    return f"fastmix[{EXTRAS}] @ git+{repo_url.rstrip('/')}.git@{ref}"


def convert(path: Path, repo_url: str, ref: str):
    """The notebook at ``path`` as an nbformat notebook with the setup cell inserted."""
    import jupytext
    from nbformat.v4 import new_code_cell

    nb = jupytext.read(str(path))
    cell = new_code_cell(SETUP_SOURCE.format(requirement=requirement(repo_url, ref)))
    cell.metadata["tags"] = [SETUP_TAG]
    position = 1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0
    nb.cells.insert(position, cell)
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    nb.metadata.pop("jupytext", None)  # a plain notebook on the launch branch, not a paired one
    return nb


def write_launch_notebooks(out: Path, repo_url: str, ref: str, notebooks_dir: Path | None = None) -> list[Path]:
    """Convert every ``notebooks/*.py`` notebook into ``out/notebooks/<name>.ipynb``."""
    import nbformat

    source_dir = notebooks_dir or ROOT / "notebooks"
    target_dir = out / "notebooks"
    target_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(source_dir.glob("*.py")):
        if path.name.startswith(("_", ".")):
            continue
        target = target_dir / f"{path.stem}.ipynb"
        nbformat.write(convert(path, repo_url, ref), str(target))
        written.append(target)
    if not written:
        raise SystemExit(f"no notebooks found in {source_dir}")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder that receives notebooks/<name>.ipynb")
    parser.add_argument("--repo-url", required=True, help="repository address, e.g. https://github.com/ORG/REPO")
    parser.add_argument("--ref", required=True, help="commit (or tag) the install cell pins")
    args = parser.parse_args(argv)
    for path in write_launch_notebooks(args.out, args.repo_url, args.ref):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
