"""Issue 19 item 10: sentences an expert reader found wrong, checked where they stand.

The wrong wordings must be gone from every message (the extracted catalog is the app's
every visible sentence); the corrected facts are checked on the pages that show them.
Qwen2-VL's sections follow transformers' apply_multimodal_rotary_pos_emb: the cos/sin
table (half layout) is split into chunks of mrope_section * 2 = [16, 24, 24, 16, 24, 24]
and chunk j takes the position row j % 3 (time, height, width), so frequency pairs 0-15
carry time, 16-39 height, 40-63 width.
"""

import pathlib

from apptest_helpers import run_page

import rope_core as rc

POT = pathlib.Path(__file__).resolve().parents[1] / "locale" / "messages.pot"

WRONG = (
    "orders every position",  # cos is monotone over half a turn only: identifies
    "(or a larger d) pushes",  # the share of pairs with wavelength > L does not depend on d
    "positions never mix into",  # attention outputs carry position into the residual stream
    "says nothing about how far",  # causal NoPE models learn positions (Attention page)
    "Llama 3 Herd of Models",  # Llama 3.1's scaling is apply_scaling in llama-models
    "s·L tokens look familiar",
)


def test_wrong_wordings_are_gone():
    text = POT.read_text(encoding="utf-8")
    for phrase in WRONG:
        assert phrase not in text, phrase
    assert "apply_scaling" in rc.SCALINGS["llama3"].citation
    assert "llama-models" in rc.SCALINGS["llama3"].citation


def test_qwen2_vl_sections_name_their_pairs():
    at = run_page("real_models", {"rm_models": ["Qwen2-VL 7B"]})
    assert not at.error
    text = " ".join(m.value for m in at.markdown)
    assert rc.PRESETS["Qwen2-VL 7B"].mrope_section == (16, 24, 24)
    assert ("M-RoPE sections 16, 24, 24: pairs 0–15 (the fastest) carry time, 16–39 height, "
            "40–63 width") in text
