"""Shared pytest configuration.

Only the Hypothesis profile lives here: property tests run 60 examples each
and have no per-example deadline (the first call into torch can be slow, and a
deadline would make the suite flaky on a busy 2-core machine). Fixtures that
belong to one group of tests live in that group's own files.
"""

from hypothesis import settings

settings.register_profile("rope_core", deadline=None, max_examples=60)
settings.load_profile("rope_core")
