"""Release the companion: check it, build the book, archive the HTML and tag the version.

Usage (from the repository root, with the book dependencies installed; ``make release`` runs
the same with ``.venv/bin/python``)::

    .venv/bin/python tools/release.py               # check, build, archive, tag v<version>
    .venv/bin/python tools/release.py --preflight   # only the quick checks; build and tag nothing
    .venv/bin/python tools/release.py --dry-run     # everything but the tag (prints its command)
    .venv/bin/python tools/release.py --no-build    # reuse the book already in _build/html
    .venv/bin/python tools/release.py --no-tag      # archive only (e.g. again for a tagged release)

Steps, each of which stops the release when it fails:

0. preflight (:func:`preflight`): ``CHANGELOG.md`` has a dated ``## [<version>] - YYYY-MM-DD``
   section and nothing left under ``## [Unreleased]`` (changes listed there belong to no
   version yet: rename that heading to the new version's before releasing), the tag
   ``v<version>`` does not exist yet, and no tracked file has uncommitted changes;
1. every results-store entry matches its manifest (``fastmix_companion.store.verify_entries``:
   no file edited, truncated or forged), and every entry a page reads is complete and was computed
   by the released minor version (``fastmix_companion.store.stale_entries``; recompute with
   ``python -m fastmix_companion.run --paper-scale NAME``);
2. the release metadata agree (``tools/citation.py --check``: the version in
   ``fastmix/__init__.py``, ``CITATION.cff``, ``.zenodo.json``, a CHANGELOG section for it,
   the addresses in ``pyproject.toml``, the README's generated BibTeX);
3. the book builds from scratch with warnings as errors (``jupyter-book build . -W -n --keep-going``);
4. its links hold (``tools/check_links.py --sphinx``: internal links and anchors of the
   built HTML, Sphinx linkcheck; external links are listed, not fetched);
5. ``dist/fastmix-book-<version>.zip`` is written: the HTML under one top folder, with
   MathJax inside (it reads offline: unzip, open ``index.html``), plus ``CITATION.cff``,
   ``LICENSE``, ``CHANGELOG.md`` and ``RELEASE.json`` (version, commit, whether the work tree
   had uncommitted changes, the tools' versions). Entries are sorted and time-stamped with
   the commit's date, so the same built HTML gives the same bytes; a ``.sha256`` file
   sits beside the archive;
6. the commit is tagged: an annotated tag ``v<version>`` whose message is the version's
   CHANGELOG section (:func:`create_tag`, re-checking step 0 first). The tag is local;
   publish it with ``git push origin v<version>``.

The version is the package's (single source: ``fastmix.__version__``); to release a new one,
change it there, add its CHANGELOG section, and run ``python tools/citation.py`` to
regenerate the derived metadata.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import check_links  # tools/ is on the path when this runs as `python tools/release.py`
import citation

ROOT = Path(__file__).resolve().parents[1]
ARCHIVE_EXTRAS = ("CITATION.cff", "LICENSE", "CHANGELOG.md")
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold
TAG_PREFIX = citation.TAG_PREFIX  # release tags are v<version>
UNRELEASED = "Unreleased"


class ReleaseError(Exception):
    """The release cannot go ahead; ``problems`` lists every reason, each with its fix."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def package_version(root: Path = ROOT) -> str:
    """``__version__`` of ``fastmix/__init__.py``, read without importing the package."""
    version = citation.read_package_version(Path(root), "fastmix")
    if version is None:
        raise SystemExit(f"{Path(root) / 'fastmix' / '__init__.py'} has no __version__ = '...' line")
    return version


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout.strip()


def source_state(root: Path = ROOT) -> dict:
    """Commit, its date and whether tracked files differ from it (``None`` outside git)."""
    commit = _git(root, "rev-parse", "HEAD")
    timestamp = _git(root, "log", "-1", "--format=%ct")
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {
        "commit": commit,
        "commit_time": int(timestamp) if timestamp else None,
        "dirty": bool(status) if status is not None else None,
    }


def tag_name(version: str) -> str:
    """The release tag of ``version``: ``v0.2.0``."""
    return f"{TAG_PREFIX}{version}"


_SECTION = re.compile(r"^## \[([^\]]+)\](.*)$", re.MULTILINE)


def changelog_sections(text: str) -> dict[str, tuple[str, str]]:
    """``{label: (rest of the heading line, body)}`` for every ``## [label]`` section."""
    matches = list(_SECTION.finditer(text))
    sections = {}
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        body = text[match.end() : end]
        body = re.split(r"^\[[^\]]+\]:\s", body, maxsplit=1, flags=re.MULTILINE)[0]  # link definitions
        sections[match.group(1)] = (match.group(2).strip(), body.strip("\n"))
    return sections


def _has_entries(body: str) -> bool:
    """True when a section lists something: any line that is not blank or a ``###`` heading."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in body.splitlines())


def changelog_problems(text: str | None, version: str) -> list[str]:
    """Why ``CHANGELOG.md`` does not (yet) describe a release of ``version``; empty when it does."""
    if text is None:
        return ["CHANGELOG.md: not found"]
    sections = changelog_sections(text)
    problems = []

    def rename(to: str) -> str:
        return (
            f"rename the `## [{UNRELEASED}]` heading to `## [{to}] - YYYY-MM-DD` (the date of "
            f"`date-released` in CITATION.cff) and open a new, empty `## [{UNRELEASED}]` section above it"
        )

    if version not in sections:
        problems.append(f"CHANGELOG.md: no section for version {version}; {rename(version)}")
    else:
        date = sections[version][0].lstrip("-\u2013 ").strip()
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
            state = f"still {UNRELEASED!r}" if UNRELEASED.lower() in date.lower() else "no YYYY-MM-DD"
            problems.append(
                f"CHANGELOG.md: the section of version {version} is not dated ({state}); "
                f"write `## [{version}] - YYYY-MM-DD`"
            )
        elif not _has_entries(sections[version][1]):
            problems.append(f"CHANGELOG.md: the section of version {version} lists no changes")
    if version in sections and UNRELEASED in sections and _has_entries(sections[UNRELEASED][1]):
        problems.append(
            f"CHANGELOG.md: changes are listed under `## [{UNRELEASED}]`, so they belong to no version "
            f"yet and a release of {version} would carry them unannounced; set the next version in "
            f"fastmix/__init__.py and CITATION.cff, then {rename('<next version>')}"
        )
    return problems


def tag_problems(root: Path, version: str) -> list[str]:
    """Why ``root`` cannot be tagged ``v<version>``: not a checkout, tag taken, or a dirty tree."""
    if _git(root, "rev-parse", "HEAD") is None:
        return [f"{root}: not a git checkout with a commit to tag"]
    problems = []
    tag = tag_name(version)
    existing = _git(root, "rev-parse", "-q", "--verify", f"refs/tags/{tag}^{{commit}}")
    if existing:
        problems.append(
            f"the tag {tag} already exists (commit {existing[:12]}); a released version is never moved: "
            f"bump the version in fastmix/__init__.py for a new release"
        )
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    if status:
        changed = [line[2:].strip() for line in status.splitlines()]  # "XY path" (first line stripped)
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        problems.append(f"tracked files have uncommitted changes ({shown}); commit or restore them first")
    return problems


def preflight(root: Path, version: str, *, tag: bool = True) -> list[str]:
    """The quick checks before anything is built: the CHANGELOG and, when tagging, the tag and tree."""
    text = citation._read_text(Path(root) / "CHANGELOG.md")
    return changelog_problems(text, version) + (tag_problems(Path(root), version) if tag else [])


def create_tag(root: Path, version: str, *, dry_run: bool = False) -> list[str]:
    """Tag the checked-out commit of ``root`` as release ``v<version>`` (an annotated tag).

    The checks of :func:`preflight` run again first and raise :class:`ReleaseError` when one
    fails, so nothing is tagged. The tag's message is ``fastmix <version>`` followed by the
    version's CHANGELOG section. With ``dry_run`` the command is returned but not run.

    Returns the ``git tag`` command (without the message, which goes in on standard input).
    """
    root = Path(root)
    problems = preflight(root, version)
    if problems:
        raise ReleaseError(problems)
    section = changelog_sections((root / "CHANGELOG.md").read_text(encoding="utf-8"))[version][1]
    message = f"fastmix {version}\n\n{section}\n"
    command = ["git", "-C", str(root), "tag", "--annotate", "--cleanup=whitespace", "--file=-", tag_name(version)]
    if dry_run:
        return command
    done = subprocess.run(command, input=message, capture_output=True, text=True)
    if done.returncode != 0:
        raise ReleaseError([f"git tag failed: {done.stderr.strip() or done.stdout.strip()}"])
    return command


def _zip_time(epoch: int | None) -> tuple:
    if not epoch:
        return _ZIP_EPOCH
    return max(time.gmtime(epoch)[:6], _ZIP_EPOCH)


def make_archive(
    html_dir: Path,
    out: Path,
    *,
    version: str,
    extras: dict[str, Path] | None = None,
    info: dict | None = None,
    epoch: int | None = None,
) -> Path:
    """Zip ``html_dir`` into ``out`` under the folder ``fastmix-book-<version>/``.

    ``extras`` maps archive names to files added beside the HTML; ``info`` is written as
    ``RELEASE.json``. Entries are sorted and all carry the time ``epoch`` (or 1980-01-01),
    so equal inputs give byte-identical archives.
    """
    html_dir = Path(html_dir)
    if not (html_dir / "index.html").is_file():
        raise SystemExit(f"no built book at {html_dir} (index.html missing)")
    top = f"fastmix-book-{version}"
    stamp = _zip_time(epoch)
    out.parent.mkdir(parents=True, exist_ok=True)
    files = sorted(p for p in html_dir.rglob("*") if p.is_file() and p.name != ".buildinfo")
    tmp = out.with_suffix(out.suffix + ".part")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:

        def add(name: str, data: bytes) -> None:
            entry = zipfile.ZipInfo(f"{top}/{name}", date_time=stamp)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data)

        for path in files:
            add(path.relative_to(html_dir).as_posix(), path.read_bytes())
        for name, path in sorted((extras or {}).items()):
            add(name, Path(path).read_bytes())
        if info is not None:
            add("RELEASE.json", (json.dumps(info, indent=2, sort_keys=True) + "\n").encode())
    tmp.replace(out)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    out.with_name(out.name + ".sha256").write_text(f"{digest}  {out.name}\n", encoding="utf-8")
    return out


def _tool_versions() -> dict:
    from importlib import metadata

    versions = {"python": sys.version.split()[0]}
    for dist in ("jupyter-book", "sphinx", "myst-nb", "sphinx-book-theme", "django-static-mathjax", "numpy", "scipy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return versions


def stale_store_entries(root: Path = ROOT, results: Path | None = None) -> list[tuple[str, str]]:
    """``(name, reason)`` for each store entry that does not match its manifest (or has none), and each
    notebook with a paper-scale study whose store entry is missing, partial, or computed by an older
    minor version than the one being released."""
    sys.path.insert(0, str(root))
    try:
        from fastmix_companion.store import stale_entries, verify_entries
        from fastmix_companion.studies import STUDIES
    finally:
        sys.path.pop(0)
    folder = results if results is not None else root / "results"
    tampered = [(name, f"fails its integrity check: {message}") for name, message in verify_entries(root=folder)]
    return tampered + stale_entries(sorted(STUDIES), root=folder, current_version=package_version(root))


def _step(title: str) -> None:
    print(f"\n== {title}", flush=True)


def _report(problems: list[str]) -> None:
    for problem in problems:
        print(f"  - {problem}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="reuse the book in _build/html instead of rebuilding")
    parser.add_argument("--dist", type=Path, default=None, help="output folder (default dist/)")
    parser.add_argument(
        "--preflight",
        action="store_true",
        help="run the quick checks (CHANGELOG, tag, clean tree, results store, metadata) and stop",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="do everything except creating the tag; print the tag command instead"
    )
    parser.add_argument(
        "--no-tag",
        action="store_true",
        help="build and archive without tagging (e.g. to rebuild the archive of a tagged release)",
    )
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="release from a work tree with uncommitted changes (recorded in RELEASE.json); implies --no-tag",
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    dist = args.dist if args.dist is not None else root / "dist"
    tagging = not (args.no_tag or args.allow_dirty)

    version = package_version(root)
    state = source_state(root)
    print(f"fastmix {version} at commit {state['commit'] or '(not a git checkout)'}")

    _step(f"0/6 preflight: CHANGELOG section{', tag ' + tag_name(version) + ' and a clean tree' if tagging else ''}")
    problems = preflight(root, version, tag=tagging)
    if not tagging and state["dirty"] and not args.allow_dirty:
        problems.append(
            "tracked files have uncommitted changes; commit them, or pass --allow-dirty "
            "(the archive then records dirty: true, and nothing is tagged)"
        )
    if problems:
        _report(problems)
        print(f"error: {version} cannot be released as it stands; nothing was built or tagged", file=sys.stderr)
        return 1
    print(
        "  the CHANGELOG describes this version"
        + (f"; {tag_name(version)} is free and the tree is clean" if tagging else "")
    )

    _step("1/6 results store (results/<notebook>/)")
    stale = stale_store_entries(root)
    if stale:
        for name, reason in stale:
            print(f"  {name}: {reason}", file=sys.stderr)
        print(
            "error: the results store is not up to date for this version, or does not match its manifests; "
            "recompute the entries above with .venv/bin/python -m fastmix_companion.run --paper-scale NAME (add "
            "--restart for an entry computed by an older version or one that fails its integrity check)",
            file=sys.stderr,
        )
        return 1
    print("  every entry is complete and current")

    _step("2/6 release metadata (tools/citation.py --check)")
    status = citation.main(["--check", "--root", str(root)])
    if status != 0:
        print(
            "error: release metadata disagree; see above (regenerate with: .venv/bin/python tools/citation.py)",
            file=sys.stderr,
        )
        return status
    if args.preflight:
        print(f"\npreflight passed: {version} can be released (nothing was built or tagged)")
        return 0

    html = root / "_build" / "html"
    if args.no_build:
        _step("3/6 book: reusing _build/html (--no-build)")
    else:
        _step("3/6 book: clean build with warnings as errors")
        shutil.rmtree(root / "_build", ignore_errors=True)
        command = [check_links.jupyter_book_executable(), "build", str(root), "-W", "-n", "--keep-going"]
        if subprocess.run(command, cwd=root).returncode != 0:
            print("error: the book did not build", file=sys.stderr)
            return 1

    _step("4/6 links (tools/check_links.py --sphinx)")
    status = check_links.main(["--html", str(html), "--sphinx"])
    if status != 0:
        print("error: broken links; see above", file=sys.stderr)
        return status

    _step("5/6 archive")
    info = {
        "name": "fastmix",
        "version": version,
        **state,
        "built_with": _tool_versions(),
        "contents": "The fastmix companion book as static HTML; open index.html (no network needed).",
    }
    out = make_archive(
        html,
        dist / f"fastmix-book-{version}.zip",
        version=version,
        extras={name: root / name for name in ARCHIVE_EXTRAS if (root / name).is_file()},
        info=info,
        epoch=state["commit_time"],
    )
    size = out.stat().st_size / 2**20
    print(f"wrote {out.relative_to(root) if out.is_relative_to(root) else out} ({size:.1f} MiB) and its .sha256")

    if not tagging:
        _step("6/6 tag: skipped (--no-tag or --allow-dirty)")
        return 0
    _step(f"6/6 tag {tag_name(version)}")
    try:
        command = create_tag(root, version, dry_run=args.dry_run)
    except ReleaseError as exc:
        _report(exc.problems)
        print("error: the archive is written but the commit is not tagged", file=sys.stderr)
        return 1
    if args.dry_run:
        print(f"  dry run, not tagged; the tag would be made with: {' '.join(command)}")
    else:
        print(f"  tagged {tag_name(version)}; publish it with: git push origin {tag_name(version)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
