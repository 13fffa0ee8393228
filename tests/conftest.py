"""Shared pytest configuration: markers used by the notebook and runner tests."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "notebook: executes a notebook through papermill (select with -m notebook, skip with -m 'not notebook')",
    )
