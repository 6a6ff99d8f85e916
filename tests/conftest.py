"""Shared pytest configuration.

First, ``ast.parse`` one thread at a time on a Python with gh-106905 (see below).
Then the Hypothesis profile: property tests run 60 examples each and have no
per-example deadline (the first call into torch can be slow, and a deadline
would make the suite flaky on a busy 2-core machine). And the one fixture every
browser test module shares, ``browser`` (the rest of their shared pieces are in
tests/e2e_server.py). Fixtures that belong to one group of tests live in that
group's own files, but the Jupyter kernel of the tests that execute notebooks,
``kernel`` (tests/kernel_helpers.py), which two groups share.
"""

import pytest
from hypothesis import settings
from kernel_helpers import kernel  # noqa: F401 (a fixture: the notebooks' kernel)

from ui.hardening import serialize_ast_parse

# Before pytest parses the test modules (to rewrite their asserts) while a test's
# threads may parse too: CPython 3.11.7's gh-106905 (ui.hardening).
serialize_ast_parse()
settings.register_profile("rope_core", deadline=None, max_examples=60)
settings.load_profile("rope_core")


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, one per browser test module (tests/e2e_server.py's chromium)."""
    from e2e_server import chromium

    with chromium() as b:
        yield b
