"""Release metadata: CITATION.cff is valid and the files generated from it are in sync.

``tools/citation.py`` generates ``.zenodo.json``, the README's "Cite this" BibTeX, the same
BibTeX in the book's "How to cite it" section and the companion's fields in
``fastmix_companion/provenance.py`` from ``CITATION.cff``; these tests call its functions directly (and its
command line once) and
check the results independently where that is cheap: the CFF schema through check-jsonschema,
the addresses against ``pyproject.toml`` parsed here, the version against the imported package.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import citation  # tools/citation.py (tests/conftest.py puts tools/ on the path)

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "citation.py"
ARXIV_IDS = {"arXiv:2605.30600", "arXiv:2507.17544"}


def _read_pyproject_urls() -> dict:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            return citation._toml_table_regex(text, "project.urls")
    return tomllib.loads(text)["project"]["urls"]


@pytest.fixture(scope="module")
def cff():
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def zenodo():
    return json.loads((ROOT / ".zenodo.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def readme_bibtex():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split(citation.README_START, 1)[1].split(citation.README_END, 1)[0]
    match = re.search(r"```bibtex\n(.*?)```", block, flags=re.S)
    assert match, "the cite-this block of README.md should hold a ```bibtex fence"
    return match.group(1)


@pytest.fixture
def tmp_repo(tmp_path):
    """A copy of exactly the files tools/citation.py reads and writes."""
    for name in ("CITATION.cff", "pyproject.toml", "CHANGELOG.md", "README.md", ".zenodo.json"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "fastmix").mkdir()
    shutil.copy(ROOT / "fastmix" / "__init__.py", tmp_path / "fastmix" / "__init__.py")
    (tmp_path / "fastmix_companion").mkdir()
    shutil.copy(ROOT / "fastmix_companion" / "provenance.py", tmp_path / "fastmix_companion" / "provenance.py")
    (tmp_path / "book").mkdir()
    shutil.copy(ROOT / "book" / "references.bib", tmp_path / "book" / "references.bib")
    shutil.copy(ROOT / "book" / "intro.md", tmp_path / "book" / "intro.md")
    return tmp_path


def _snapshot(root: Path) -> dict:
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not found in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


# --------------------------------------------------------------------------------------------
# CITATION.cff against the CFF 1.2.0 schema (vendored in check-jsonschema, offline)
# --------------------------------------------------------------------------------------------


def _check_cff(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.citation-file-format",
            "--default-filetype",
            "yaml",
            str(path),
        ],
        capture_output=True,
        text=True,
    )


def test_citation_cff_matches_the_cff_schema():
    result = _check_cff(ROOT / "CITATION.cff")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("breakage", ["no authors", "version as a list", "bad date"])
def test_schema_check_rejects_a_broken_copy(tmp_path, cff, breakage):
    broken = dict(cff)
    if breakage == "no authors":
        del broken["authors"]
    elif breakage == "version as a list":
        broken["version"] = [cff["version"]]
    else:
        broken["date-released"] = "30/11/2026"
    path = tmp_path / "CITATION.cff"
    path.write_text(yaml.safe_dump(broken, sort_keys=False, allow_unicode=True), encoding="utf-8")
    result = _check_cff(path)
    assert result.returncode == 1, f"schema check accepted a CITATION.cff with {breakage}"
    assert "Schema validation errors" in result.stdout, result.stdout + result.stderr


def test_schema_check_accepts_an_unbroken_rewritten_copy(tmp_path, cff):
    """Control for the test above: rewriting through PyYAML alone breaks nothing."""
    path = tmp_path / "CITATION.cff"
    path.write_text(yaml.safe_dump(cff, sort_keys=False, allow_unicode=True), encoding="utf-8")
    result = _check_cff(path)
    assert result.returncode == 0, result.stdout + result.stderr


# --------------------------------------------------------------------------------------------
# Single sources: addresses from pyproject.toml, version from fastmix/__init__.py
# --------------------------------------------------------------------------------------------


def test_addresses_come_from_pyproject(cff, zenodo, readme_bibtex):
    urls = _read_pyproject_urls()
    assert cff["repository-code"] == urls["Repository"]
    assert cff["url"] == urls["Documentation"]
    identifiers = {r["identifier"] for r in zenodo["related_identifiers"]}
    assert f"{urls['Repository']}/tree/v{cff['version']}" in identifiers
    assert urls["Documentation"] in identifiers
    assert f"url     = {{{urls['Repository']}}}" in readme_bibtex
    assert urls["Documentation"] in readme_bibtex


def test_versions_agree(cff, zenodo, readme_bibtex):
    import fastmix

    init = (ROOT / "fastmix" / "__init__.py").read_text(encoding="utf-8")
    regex_version = re.search(r'^__version__ = "([^"]+)"$', init, flags=re.M).group(1)
    assert fastmix.__version__ == regex_version
    assert isinstance(cff["version"], str)
    assert cff["version"] == regex_version == zenodo["version"]
    assert f"version = {{{regex_version}}}" in readme_bibtex
    released = citation.date_released(cff)
    assert zenodo["publication_date"] == released
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(regex_version)}\] - {released}$", changelog, flags=re.M)
    assert re.search(r"^## \[Unreleased\]$", changelog, flags=re.M)


# --------------------------------------------------------------------------------------------
# Generated files are up to date
# --------------------------------------------------------------------------------------------


def test_sources_are_consistent():
    assert citation.validate(citation.load_sources(ROOT)) == []


def test_generated_files_are_in_sync():
    stale = citation.stale_outputs(citation.load_sources(ROOT))
    assert not stale, "generated citation files are stale; run `python tools/citation.py`:\n" + "\n".join(
        stale.values()
    )


def test_zenodo_json_has_required_metadata(cff, zenodo):
    for key in (
        "title",
        "description",
        "upload_type",
        "version",
        "publication_date",
        "creators",
        "license",
        "keywords",
        "related_identifiers",
    ):
        assert zenodo.get(key), f".zenodo.json lacks {key}"
    assert zenodo["upload_type"] == "software"
    assert zenodo["license"].lower() == cff["license"].lower() == "bsd-3-clause"
    assert [c["name"] for c in zenodo["creators"]] == [a["name"] for a in cff["authors"]]
    assert zenodo["keywords"] == cff["keywords"]
    papers = {r["identifier"]: r for r in zenodo["related_identifiers"] if r["scheme"] == "arxiv"}
    assert set(papers) == ARXIV_IDS
    assert all(r["relation"] == "isSupplementTo" for r in papers.values())


def test_zenodo_json_is_written_in_the_canonical_form():
    text = (ROOT / ".zenodo.json").read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


def test_command_line_check_passes():
    result = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


# --------------------------------------------------------------------------------------------
# The README's BibTeX
# --------------------------------------------------------------------------------------------


def _parse_bibtex(text: str) -> list[tuple[str, str, dict]]:
    """A small structural parser: ``[(type, key, {field: value})]``; fails on bad nesting."""
    entries: list[tuple[str, str, dict]] = []
    pos = 0
    header = re.compile(r"\s*@(\w+)\{([^,\s{}]+),")
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return entries
        match = header.match(text, pos)
        assert match, f"expected an entry at {text[pos : pos + 40]!r}"
        body_start = pos = match.end()
        depth = 1
        while depth:
            assert pos < len(text), f"entry {match.group(2)} is not closed"
            depth += {"{": 1, "}": -1}.get(text[pos], 0)
            pos += 1
        body = text[body_start : pos - 1]
        fields, i = {}, 0
        field = re.compile(r"\s*(\w+)\s*=\s*\{")
        while body[i:].strip():
            fm = field.match(body, i)
            assert fm, f"bad field in {match.group(2)} at {body[i : i + 40]!r}"
            i, depth, start = fm.end(), 1, fm.end()
            while depth:
                assert i < len(body), f"unbalanced braces in {match.group(2)}.{fm.group(1)}"
                depth += {"{": 1, "}": -1}.get(body[i], 0)
                i += 1
            fields[fm.group(1).lower()] = body[start : i - 1]
            rest = re.match(r"\s*,?", body[i:])
            assert rest is not None  # the pattern matches the empty string at worst
            i += rest.end()
        entries.append((match.group(1).lower(), match.group(2), fields))


def test_readme_bibtex_is_well_formed(readme_bibtex):
    entries = _parse_bibtex(readme_bibtex)
    keys = [key for _, key, _ in entries]
    assert keys == ["lev2026fastmix", "lee2025optimal", "fastmix_companion"]
    assert len(set(keys)) == len(keys)
    for _, key, fields in entries:
        for name in ("title", "author", "year"):
            assert fields.get(name), f"{key} lacks {name}"
        assert re.fullmatch(r"\d{4}", fields["year"])
    arxiv = {fields["eprint"] for _, _, fields in entries if "eprint" in fields}
    assert {f"arXiv:{e}" for e in arxiv} == ARXIV_IDS
    software = entries[-1]
    assert software[0] == "software"
    assert software[2]["author"] == "{The fastmix companion authors}"


def test_readme_bibtex_formats_with_pybtex(readme_bibtex):
    """A real BibTeX reader parses the block and the classic `plain` style formats it."""
    pybtex_database = pytest.importorskip("pybtex.database")
    from pybtex.plugin import find_plugin

    data = pybtex_database.parse_string(readme_bibtex, "bibtex")
    assert list(data.entries) == ["lev2026fastmix", "lee2025optimal", "fastmix_companion"]
    style = find_plugin("pybtex.style.formatting", "plain")()
    texts = [e.text.render_as("text") for e in style.format_bibliography(data)]
    assert any("arXiv:2605.30600" in s for s in texts)
    assert any(s.startswith("The fastmix companion authors. fastmix:") for s in texts)


def _book_bibtex() -> str:
    text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    block = text.split(citation.BOOK_START, 1)[1].split(citation.BOOK_END, 1)[0]
    match = re.fullmatch(r"\n\n```bibtex\n(.*)```\n\n", block, flags=re.S)
    assert match, "the cite-this block of book/intro.md should hold one ```bibtex fence"
    return match.group(1)


def test_book_cites_with_the_readme_entries(readme_bibtex):
    book = _book_bibtex()
    assert book == readme_bibtex
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    section = intro.split("\n## How to cite it\n", 1)[1].split("\n## ", 1)[0]
    assert citation.BOOK_START in section and citation.BOOK_END in section


def test_provenance_module_carries_the_companion_fields(cff, readme_bibtex):
    from fastmix_companion import provenance

    fields = provenance.COMPANION_CITATION
    software = _parse_bibtex(readme_bibtex)[-1]
    assert software[1] == fields["key"] == "fastmix_companion"
    for name in ("author", "title", "year", "url", "license"):
        assert fields[name] == software[2][name], name
    assert fields["documentation"] == cff["url"]
    assert "version" not in fields  # the run's own version is added at run time
    import release  # tools/release.py: the tags it creates are the ones the provenance looks for

    assert provenance.TAG_PREFIX == citation.TAG_PREFIX == release.TAG_PREFIX == "v"


def test_readme_section_is_renamed():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "\n## Cite this\n" in text and "\n## Citing\n" not in text
    section = text.split("\n## Cite this\n", 1)[1].split("\n## ", 1)[0]
    assert citation.README_START in section and citation.README_END in section


@pytest.mark.parametrize(
    ("ref", "key"),
    [
        (
            {
                "authors": [{"family-names": "Lev"}],
                "year": 2026,
                "title": "The Fast Mixing Mechanism for Differential Privacy",
            },
            "lev2026fast",
        ),
        (
            {
                "authors": [{"family-names": "Rényi", "name-particle": "de"}],
                "year": 1961,
                "title": "On measures of entropy",
            },
            "renyi1961measures",
        ),
        ({"authors": [{"name": "The R Core Team"}], "year": 2024, "title": "R: a language"}, "thercoreteam2024r"),
    ],
)
def test_citation_keys(ref, key):
    assert citation.citation_key(ref) == key


def test_readme_keys_are_the_books_keys():
    """A paper has one key everywhere: the README's entries reuse book/references.bib's keys."""
    book_keys = citation.book_bib_keys(ROOT)
    assert book_keys["2605.30600"] == "lev2026fastmix" and book_keys["2507.17544"] == "lee2025optimal"
    ref = {
        "authors": [{"family-names": "Lev"}],
        "year": 2026,
        "title": "The Fast Mixing Mechanism",
        "identifiers": [{"type": "other", "value": "arXiv:2605.30600"}],
    }
    assert citation.citation_key(ref, book_keys) == "lev2026fastmix"
    assert citation.citation_key(ref) == "lev2026fast"


def test_title_protection_and_escaping():
    assert citation.bib_title("FastMix & the SRHT: 50% Gaussian") == (r"{FastMix} \& the {SRHT}: 50\% {Gaussian}")


# --------------------------------------------------------------------------------------------
# Mutations in a temporary copy: the tool notices, reports and (only when asked) rewrites
# --------------------------------------------------------------------------------------------


# The version and release date the repository carries now, and a later version to bump to.
_CFF = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
CUR, CUR_DATE = str(_CFF["version"]), str(_CFF["date-released"])
_major, _minor, _ = (int(x) for x in CUR.split("."))
NEXT = f"{_major}.{_minor + 1}.0"


def test_copy_of_the_repository_is_in_sync(tmp_repo, capsys):
    assert citation.main(["--check", "--root", str(tmp_repo)]) == 0


def test_version_changed_only_in_citation_cff_is_a_mismatch(tmp_repo, capsys):
    _edit(tmp_repo / "CITATION.cff", f'version: "{CUR}"', f'version: "{NEXT}"')
    before = _snapshot(tmp_repo)
    problems = citation.validate(citation.load_sources(tmp_repo))
    assert any("__version__" in p for p in problems)
    assert any("CHANGELOG.md" in p and NEXT in p for p in problems)
    assert citation.main(["--check", "--root", str(tmp_repo)]) == 2
    assert NEXT in capsys.readouterr().err
    assert citation.main(["--root", str(tmp_repo)]) == 2  # inconsistent sources: writes nothing
    assert _snapshot(tmp_repo) == before


def test_consistent_version_bump_makes_outputs_stale(tmp_repo, capsys):
    _edit(tmp_repo / "CITATION.cff", f'version: "{CUR}"', f'version: "{NEXT}"')
    _edit(tmp_repo / "CITATION.cff", f'date-released: "{CUR_DATE}"', 'date-released: "2027-01-15"')
    _edit(tmp_repo / "fastmix" / "__init__.py", f'"{CUR}"', f'"{NEXT}"')
    _edit(tmp_repo / "CHANGELOG.md", "## [Unreleased]\n", f"## [Unreleased]\n\n## [{NEXT}] - 2027-01-15\n")
    before = _snapshot(tmp_repo)

    stale = citation.stale_outputs(citation.load_sources(tmp_repo))
    assert set(stale) == {".zenodo.json", "README.md", "book/intro.md", "fastmix_companion/provenance.py"}
    assert f'+  "version": "{NEXT}",' in stale[".zenodo.json"]
    assert f"+  version = {{{NEXT}}}," in stale["book/intro.md"]
    assert '+    "year": "2027",' in stale["fastmix_companion/provenance.py"]
    assert citation.main(["--check", "--root", str(tmp_repo)]) == 1
    err = capsys.readouterr().err
    assert ".zenodo.json is stale" in err and "README.md is stale" in err
    assert "book/intro.md is stale" in err and "fastmix_companion/provenance.py is stale" in err
    assert "python tools/citation.py" in err
    assert _snapshot(tmp_repo) == before  # --check writes nothing

    assert citation.main(["--root", str(tmp_repo)]) == 0
    assert citation.main(["--check", "--root", str(tmp_repo)]) == 0
    regenerated = json.loads((tmp_repo / ".zenodo.json").read_text(encoding="utf-8"))
    assert regenerated["version"] == NEXT
    assert regenerated["publication_date"] == "2027-01-15"
    assert any(r["identifier"].endswith(f"/tree/v{NEXT}") for r in regenerated["related_identifiers"])
    readme = (tmp_repo / "README.md").read_text(encoding="utf-8")
    assert f"version = {{{NEXT}}}" in readme and "year    = {2027}" in readme
    # Only the marker block changed.
    original = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.split(citation.README_START)[0] == original.split(citation.README_START)[0]
    assert readme.split(citation.README_END)[1] == original.split(citation.README_END)[1]
    book = (tmp_repo / "book" / "intro.md").read_text(encoding="utf-8")
    assert f"version = {{{NEXT}}}" in book
    original = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    assert book.split(citation.BOOK_START)[0] == original.split(citation.BOOK_START)[0]
    assert book.split(citation.BOOK_END)[1] == original.split(citation.BOOK_END)[1]


def test_changelog_date_must_match_release_date(tmp_repo):
    other = "2000-01-01" if CUR_DATE != "2000-01-01" else "2000-01-02"
    _edit(tmp_repo / "CHANGELOG.md", f"## [{CUR}] - {CUR_DATE}", f"## [{CUR}] - {other}")
    problems = citation.validate(citation.load_sources(tmp_repo))
    assert any(f"dated '{other}'" in p for p in problems)


def test_address_mismatch_with_pyproject_is_reported(tmp_repo):
    _edit(
        tmp_repo / "pyproject.toml",
        'Repository = "https://github.com/fastmix-companion/fastmix"',
        'Repository = "https://github.com/someone-else/fastmix"',
    )
    problems = citation.validate(citation.load_sources(tmp_repo))
    assert any("repository-code" in p and "single source" in p for p in problems)


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        ("README.md", citation.README_END),
        ("book/intro.md", citation.BOOK_START),
        ("fastmix_companion/provenance.py", citation.PROVENANCE_END),
    ],
)
def test_missing_markers_are_reported(tmp_repo, name, marker):
    _edit(tmp_repo / name, marker, "")
    problems = citation.validate(citation.load_sources(tmp_repo))
    assert any(p.startswith(f"{name}: needs exactly one pair of marker lines") for p in problems)
    assert citation.main(["--root", str(tmp_repo)]) == 2


def test_hand_edit_inside_the_book_block_is_stale_and_regenerated(tmp_repo):
    _edit(tmp_repo / "book" / "intro.md", f"version = {{{CUR}}}", "version = {0.0.9}")
    assert set(citation.stale_outputs(citation.load_sources(tmp_repo))) == {"book/intro.md"}
    assert citation.main(["--root", str(tmp_repo)]) == 0
    assert (tmp_repo / "book" / "intro.md").read_text(encoding="utf-8") == (ROOT / "book" / "intro.md").read_text(
        encoding="utf-8"
    )


def test_pyproject_regex_fallback_matches_tomllib():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert citation._toml_table_regex(text, "project.urls") == _read_pyproject_urls()
    assert citation._toml_table_regex(text, "project")["name"] == "fastmix"
