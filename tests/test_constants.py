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
    assert len(curves) == len(tm.TASKS) * (len(tm.ENCODINGS) + len(tm.METHODS) - 1)
    evaluation = constants.tiny_evaluation()
    assert tuple(evaluation) == curves
    for (task, _e, _m), (bins, positions, rows, stored, student, wilson) in evaluation.items():
        seeds = len(tm.TRAINING["seeds"])
        assert bins.shape == (seeds, tm.EVAL["sequences"], len(tm.bin_edges(task)) - 1)
        assert positions.shape == (seeds, tm.eval_length())
        assert ((bins >= 0) & (bins <= 1)).all()
        assert list(rows.columns) == list(constants.TINY_COLUMNS)
        assert len(rows) == (seeds + 1) * bins.shape[2]
        assert ((rows["accuracy"] >= 0) & (rows["accuracy"] <= 1)).all()
        assert student.shape == wilson.shape == (bins.shape[2], 2)
        assert (stored is None) == (task == "local")
        if stored is not None:
            assert stored.shape == bins.shape and (stored >= bins - 1e-12).all()  # right: stored
