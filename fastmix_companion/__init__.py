"""The machinery that reproduces the papers and builds the book around the ``fastmix`` library.

``fastmix`` is what a practitioner installs and imports: the transforms, the mechanisms, the
accounting and the estimators. This package holds everything else the companion needs, and it
only ever imports the library, never the other way round (``tests/test_architecture.py``):

* :mod:`fastmix_companion.run`: the command line (``python -m fastmix_companion.run NAME``) that
  executes a notebook with new parameters or computes its paper-scale entry;
* :mod:`fastmix_companion.parameters`, :mod:`fastmix_companion.notebook_parameters`,
  :mod:`fastmix_companion.paper_scale` and :mod:`fastmix_companion.rerun_commands`: what each
  notebook's parameters admit, its paper-scale setting and the commands a page prints;
* :mod:`fastmix_companion.studies`: the computation behind each figure page, resumable cell by
  cell, and :mod:`fastmix_companion.experiments` with its cache
  (:mod:`fastmix_companion.grid_cache`), the grid runner the least-squares studies share;
* :mod:`fastmix_companion.store` and :mod:`fastmix_companion.provenance`: the results store in
  ``results/`` and the record of every run (parameters, seed, versions, commit, machine);
* :mod:`fastmix_companion.claims` and :mod:`fastmix_companion.pages`: the checks a page decides
  on its stored numbers and the helpers that render them.

It ships in the same distribution as the library so that an installed checkout runs the
notebooks from any folder, but it works only inside a checkout of the repository: it reads
``notebooks/`` and writes ``results/`` beside itself.
"""
