"""The shared sidebar and the rule for link values (ui.controls).

The rule: a link value is applied only when it is exactly one of the values
the control offers, written as the app writes it; anything else is ignored as
a whole, the control keeps its default, and one warning says so.
"""

import math

from apptest_helpers import csv_frame, no_exceptions, run_page, warnings


def test_defaults_render_without_exception():
    at = run_page()
    assert at.select_slider(key="base").value == 10_000
    assert at.slider(key="dim").value == 128
    assert at.segmented_control(key="layout").value == "interleaved"
    assert not at.first_warnings


def test_deep_link_applies_settings_on_another_page():
    at = run_page("frequencies", {"base": "500000", "dim": "64", "L": "8192"})
    name, df = csv_frame(at)
    assert name == "theta_dim64_base500000_L8192.csv"
    assert len(df) == 32  # d/2 pairs
    assert set(df["base"]) == {500000.0}


def test_malformed_link_warns_with_what_the_page_did():
    at = run_page(None, {"base": "abc", "dim": "-3"})
    assert len(at.first_warnings) == 2
    base_warning, dim_warning = at.first_warnings
    assert "base = “abc”" in base_warning and "keeps its default, 10000" in base_warning
    assert "dim = “-3”" in dim_warning and "keeps its default, 128" in dim_warning
    assert at.select_slider(key="base").value == 10_000
    assert at.slider(key="dim").value == 128


def test_odd_out_of_range_and_unknown_values_warn():
    at = run_page(None, {"dim": "5", "base": "3", "layout": "diagonal", "device": "tpu"})
    text = " ".join(at.first_warnings)
    for fragment in ("dim = “5”", "base = “3”", "layout = “diagonal”", "device = “tpu”"):
        assert fragment in text
    assert at.slider(key="dim").value == 128


def test_repeated_parameter_is_not_dropped_silently():
    # ?dim=64&dim=32: one setting, two values -> neither is applied, and it says so
    at = run_page(None, {"dim": ["64", "32"]})
    assert at.slider(key="dim").value == 128
    assert any("dim = “64”, “32”" in w and "one value" in w and "default, 128" in w
               for w in at.first_warnings), at.first_warnings


def test_page_key_malformed_warns():
    at = run_page("frequencies", {"L": "lots", "scaling": "magic"})
    text = " ".join(warnings(at))
    assert "L = “lots”" in text and "scaling = “magic”" in text


def test_quick_pick_sets_base_and_keeps_it_across_pages():
    at = run_page()
    assert at.segmented_control(key="pick_base").value == 10_000  # the default is a preset
    at.segmented_control(key="pick_base").set_value(500_000).run()
    no_exceptions(at)
    assert at.select_slider(key="base").value == 500_000
    assert at.segmented_control(key="pick_base").value == 500_000
    assert any("Llama 3" in c.value for c in at.sidebar.caption)
    at.switch_page("pages/frequencies.py").run()
    assert at.select_slider(key="base").value == 500_000
    _, df = csv_frame(at)
    # theta_1 = 500000^(-2/128), by hand
    assert math.isclose(df["theta_i [rad/token]"][1], 500000 ** (-2 / 128), rel_tol=1e-15)


def test_head_dim_quick_pick():
    at = run_page()
    at.segmented_control(key="pick_dim").set_value(256).run()
    no_exceptions(at)
    assert at.slider(key="dim").value == 256
    assert any(c.value == "d = 256: Gemma 2 9B, Gemma 3 4B" for c in at.sidebar.caption)


def test_presets_show_the_setting_and_none_off_a_preset():
    at = run_page(None, {"base": "20000", "dim": "96"})
    assert at.segmented_control(key="pick_base").value is None
    assert at.segmented_control(key="pick_dim").value is None
    assert not any(c.value.startswith("d = ") for c in at.sidebar.caption)
    # choosing the preset that is shown deselects it and leaves the setting alone
    at.slider(key="dim").set_value(128).run()
    assert at.segmented_control(key="pick_dim").value == 128
    at.segmented_control(key="pick_dim").set_value(None).run()
    no_exceptions(at)
    assert at.slider(key="dim").value == 128
    assert at.segmented_control(key="pick_dim").value == 128


def test_cuda_choice_without_gpu_falls_back_with_warning():
    import torch

    at = run_page(None, {"device": "cuda"})
    if not torch.cuda.is_available():
        assert any("No CUDA GPU" in w.value for w in at.sidebar.warning)
        assert not any(r.key == "device" for r in at.radio)  # nothing to choose
        assert not at.sidebar.expander  # no "Advanced" section for an empty choice


def test_without_gpu_there_is_no_device_control_and_links_still_follow_the_rule(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    at = run_page()
    assert not any(r.key == "device" for r in at.radio) and not at.sidebar.expander
    assert not at.sidebar.warning
    for asked in ("auto", "cpu"):  # a link from a server with a GPU: nothing to say
        at = run_page(None, {"device": asked})
        assert not at.first_warnings and not at.sidebar.warning
    at = run_page(None, {"device": "gpu"})
    assert any("device = “gpu”" in w and "keeps its default, auto" in w
               for w in at.first_warnings), at.first_warnings


def test_with_gpu_the_device_is_a_choice_under_advanced(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    at = run_page(None, {"device": "cpu"})  # computes on the CPU: no GPU needed here
    assert at.radio(key="device").value == "cpu"
    assert [e.label for e in at.sidebar.expander] == ["Advanced"]
    assert any(c.value == "Computing on cpu." for c in at.sidebar.caption)


def test_pair_layout_is_a_segmented_choice_bound_to_the_link():
    """The layout is one of two, always one chosen; the link sets it, a change holds
    across pages, and the caption says how the chosen layout pairs dimensions."""
    at = run_page(None, {"layout": "half"})
    assert at.segmented_control(key="layout").value == "half"
    assert any(c.value == "pairs (i, i + d/2)" for c in at.sidebar.caption)
    at.segmented_control(key="layout").set_value("interleaved").run()
    no_exceptions(at)
    assert any(c.value == "pairs (2i, 2i+1)" for c in at.sidebar.caption)
    at.switch_page("pages/step_by_step.py").run()
    assert at.segmented_control(key="layout").value == "interleaved"
