# Shortcuts for the README's commands and for releases. Every target uses the virtual
# environment .venv/ that the README's commands create (make needs nothing else).
PYTHON ?= .venv/bin/python

.PHONY: help venv book test linkcheck citation tables paper-scale release release-check release-dry-run clean

help:
	@echo "make book       set up .venv and build the book (README: Build the book)"
	@echo "make test       set up .venv and run the tests (README: Run the tests)"
	@echo "make linkcheck  check the built book's links offline (external ones listed, not fetched)"
	@echo "make citation   regenerate .zenodo.json and the BibTeX of the README, book and provenance from CITATION.cff"
	@echo "make tables     regenerate the README's table of figures and re-run commands"
	@echo "make paper-scale  compute every missing, partial or out-of-date results-store entry (JOBS=2 for two at once)"
	@echo "make release-check    the release's quick checks only (CHANGELOG, tag, clean tree, store, metadata)"
	@echo "make release-dry-run  the whole release except the tag (prints the tag command)"
	@echo "make release    check, build the book from scratch, check links, zip it into dist/, tag v<version>"
	@echo "make clean      remove _build/ and dist/"

venv:
	python3 -m venv .venv && $(PYTHON) -m pip install -e ".[book,test]"

book:
	python3 -m venv .venv && $(PYTHON) -m pip install -e ".[book]" && .venv/bin/jupyter-book build . -W -n --keep-going

test:
	python3 -m venv .venv && $(PYTHON) -m pip install -e ".[test]" && $(PYTHON) -m pytest

linkcheck:
	$(PYTHON) tools/check_links.py --sphinx

citation:
	$(PYTHON) tools/citation.py

tables:
	$(PYTHON) tools/paper_map.py

JOBS ?= 1
paper-scale: venv
	$(PYTHON) tools/paper_scale_all.py --jobs $(JOBS)

release-check: venv
	$(PYTHON) tools/release.py --preflight

release-dry-run: venv
	$(PYTHON) tools/release.py --dry-run

release: venv
	$(PYTHON) tools/release.py

clean:
	rm -rf _build dist
