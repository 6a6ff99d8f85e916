"""ui.constants: process constants computed once, in a background thread from the first run."""

import threading

from ui import constants


def test_a_constant_is_computed_once_under_concurrent_calls():
    calls = []
    started = threading.Event()

    @constants.constant
    def slow() -> list:
        calls.append(1)
        started.wait(1)
        return [42]

    results = []
    threads = [threading.Thread(target=lambda: results.append(slow())) for _ in range(4)]
    for t in threads:
        t.start()
    started.set()
    for t in threads:
        t.join()
    assert calls == [1]
    assert all(r is results[0] for r in results)  # one shared, read-only object
    assert f"{slow.__module__}.{slow.__qualname__}" in constants.names()


def test_warm_up_computes_every_constant_in_a_thread_that_is_not_a_daemon():
    seen = []
    original = threading.Thread.start

    def start(self):
        seen.append((self.name, self.daemon))
        original(self)

    threading.Thread.start = start
    try:
        # started from a daemon thread, as from a Streamlit script thread
        t = threading.Thread(target=constants.warm_up, daemon=True)
        t.start()
        t.join()
    finally:
        threading.Thread.start = original
    constants.warm_up(wait=True)
    assert set(constants.computed()) == set(constants.names())
    import gc

    assert gc.get_freeze_count() > 10_000  # start-up's objects out of the collector's passes
    assert all(not daemon for name, daemon in seen if name == constants.WARM_UP_THREAD)


def test_tiny_evaluation_is_every_curve_and_seed_in_0_1():
    from rope_core.beyond import tiny_model as tm

    curves = constants.tiny_curves()
    assert curves[:len(tm.ENCODINGS)] == tuple(("local", e, "none") for e in tm.ENCODINGS)
    evaluation = constants.tiny_evaluation()
    assert set(evaluation) <= set(curves) and set(tm.shipped_curves()) <= set(evaluation)
    seeds = len(tm.TRAINING["seeds"])
    for (task, _a, _m), c in evaluation.items():
        groups = len(tm.groups(task))
        assert c.seed_means.shape == (seeds, groups) and len(c.per_sequence) == groups
        assert ((c.low <= c.accuracy) & (c.accuracy <= c.high)).all()
        assert ((c.low >= 0) & (c.high <= 1)).all()
        assert (c.stored is None) == (task == "local")
        if c.stored is not None:
            assert (c.stored >= c.accuracy - 1e-12).all()  # a right answer is a stored value
    comparisons = constants.tiny_comparisons()
    assert ((comparisons["p_holm"] >= comparisons["p"]) & (comparisons["p_holm"] <= 1)).all()
