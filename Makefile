# Shortcuts for the README's commands and for releases. Every target uses the virtual
# environment .venv/ that the README's commands create (make needs nothing else).
PYTHON ?= .venv/bin/python

.PHONY: help venv book test linkcheck citation release clean

help:
	@echo "make book       set up .venv and build the book (README: Build the book)"
	@echo "make test       set up .venv and run the tests (README: Run the tests)"
	@echo "make linkcheck  check the built book's links offline (external ones listed, not fetched)"
	@echo "make citation   regenerate .zenodo.json and the README's BibTeX from CITATION.cff"
	@echo "make release    check metadata, build the book from scratch, check links, zip it into dist/"
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

release: venv
	$(PYTHON) tools/release.py

clean:
	rm -rf _build dist
