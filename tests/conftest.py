"""Shared pytest configuration.

First, ``ast.parse`` one thread at a time on a Python with gh-106905 (see below).
Then the Hypothesis profile: property tests run 60 examples each and have no
per-example deadline (the first call into torch can be slow, and a deadline
would make the suite flaky on a busy 2-core machine). And the one fixture every
browser test module shares, ``browser`` (the rest of their shared pieces are in
tests/e2e_server.py). Fixtures that belong to one group of tests live in that
group's own files, but the Jupyter kernel of the tests that execute notebooks,
``kernel`` (tests/kernel_helpers.py), which two groups share. Last, the order of the
test files: the longest first, so that ``-n 2 --dist loadfile --no-loadscope-reorder``
hands them out longest first and both workers finish together.
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


# Seconds of one worker per file, measured in a full run on the 2-core machine
# (docs/testing.md), for the files over 40 s. pytest-xdist hands files to the workers in
# the order collected (with --no-loadscope-reorder; by default it orders them by their
# number of tests, which sent the long browser scenarios, with few tests each, last and
# left one worker running them alone): longest first, the others after in their order.
SLOW_FILES = {
    "test_e2e_pages.py": 600, "test_e2e_links.py": 320, "test_links.py": 190,
    "test_e2e_browser.py": 170, "test_core_perlayer_probe.py": 150,
    "test_core_serving.py": 110, "test_notebooks_pages.py": 90, "test_e2e_layout.py": 90,
    "test_e2e_tour.py": 80, "test_page_tour.py": 55, "test_deploy_serve.py": 50,
    "test_page_context_extension.py": 45, "test_e2e_class.py": 43, "test_e2e_a11y.py": 41,
}


def pytest_collection_modifyitems(items):
    """The test files longest first (SLOW_FILES); each file's tests keep their order."""
    items.sort(key=lambda item: -SLOW_FILES.get(item.path.name, 0))
