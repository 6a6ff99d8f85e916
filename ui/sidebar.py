"""The sidebar every page shares: presentation mode, RoPE base, head dim, pair
layout, device.

app.py draws it once per run, before the page; pages read the result with
:func:`settings`. Every control lives in the URL, so a link reproduces the view.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import rope_core as rc

from . import controls
from .formatting import fmt_base
from .i18n import N_, _, integer
from .legacy import in_legacy_pages_mode, leave_legacy_pages_mode

BASE_OPTIONS = [m * 10**e for e in range(1, 8) for m in (1, 2, 5)] + [10**8]  # 10 ... 10^8
# Presets of the sidebar: the value and the models that use it.
BASE_QUICK_PICKS = {10_000: N_("RoFormer, Llama 2"), 500_000: N_("Llama 3"),
                    1_000_000: N_("Qwen 2.5")}
DIM_OPTIONS = list(range(2, 1025, 2))
# (the sizes named: others of a family can differ, e.g. Gemma 2 and 3 27B use 128)
DIM_QUICK_PICKS = {64: N_("GPT-J rotary dims, Llama 3.2 1B"),
                   128: N_("Llama 2 7B, Llama 3.1 8B, Mistral 7B, Qwen3 8B"),
                   256: N_("Gemma 2 9B, Gemma 3 4B")}
DEFAULTS = {"base": 10_000, "dim": 128, "device": "auto", "layout": "interleaved",
            "present": False}
_SETTINGS_KEY = "_settings"


@dataclass(frozen=True)
class Settings:
    base: float
    dim: int
    device: str  # "cpu" or "cuda", already resolved
    layout: str
    present: bool = False  # presentation mode: large fonts, thick lines (ui.show, ui.page_style)


def _pick(key: str) -> None:
    """A preset was chosen: it becomes the setting (choosing the one already chosen
    deselects it, which leaves the setting as it is)."""
    value = st.session_state[f"pick_{key}"]
    if value is not None:
        st.session_state[key] = value


def _quick_picks(bar, key: str, label: str, picks: dict, current, fmt=str) -> None:
    # One segmented control (one message), not a button per preset with a container
    # around them (four): it shows the preset the setting is at, none when it is at
    # another value. Its state follows the setting, which is drawn above it.
    st.session_state[f"pick_{key}"] = current if current in picks else None
    bar.segmented_control(label, list(picks), format_func=fmt, key=f"pick_{key}",
                          on_change=_pick, args=(key,), label_visibility="collapsed",
                          width="stretch")


def _device(bar, has_cuda: bool) -> tuple[str, str]:
    """The compute device asked for (``?device=``) and the one used ("cpu" or "cuda").

    Only a server with a CUDA GPU offers the choice, in an "Advanced" expander. On one
    without it there is nothing to choose, and no control: a link's ``?device=`` is
    still checked by the rule for links, and asking for cuda says that the CPU computes.
    """
    label = _("Compute device")
    if has_cuda:
        with bar.expander(_("Advanced")):
            device = controls.choice(label, list(rc.DEVICES), DEFAULTS["device"], "device")
            resolved = "cpu" if device == "cpu" else "cuda"
            st.caption(_("Computing on {device}.").format(device=resolved))
        return device, resolved
    device = controls.undrawn_choice(label, rc.DEVICES, DEFAULTS["device"], "device")
    if device == "cuda":
        bar.warning(_("No CUDA GPU on this server: computing on the CPU."))
    return device, "cpu"


def sidebar_settings() -> Settings:
    """Draw the shared sidebar and return its settings."""
    import torch

    bar = st.sidebar
    bar.header(_("Settings"))
    present = controls.toggle(
        _("Presentation mode"), DEFAULTS["present"], "present", container=bar,
        help=_("For a projector: larger text, thicker lines, darker axes, taller plots."))
    base = controls.select_slider(
        _("RoPE base"), BASE_OPTIONS, DEFAULTS["base"], "base", container=bar,
        allowed=_("one of 10, 20, 50, 100, … 10⁸, written as a whole number (10000, not 1e4)"),
        help=_("θᵢ = base^(−2i/d). A larger base slows every pair but the first."))
    _quick_picks(bar, "base", _("Common bases"), BASE_QUICK_PICKS, base, fmt_base)
    if base in BASE_QUICK_PICKS:
        bar.caption(_("base = {value} = {power}: {models}").format(
            value=integer(base), power=fmt_base(base), models=_(BASE_QUICK_PICKS[base])))
    elif fmt_base(base) != f"{base:g}":  # 10⁴ and above: its power of ten too
        bar.caption(_("base = {value} = {power}").format(value=integer(base),
                                                         power=fmt_base(base)))
    # A slider in steps of 2, not a select slider over DIM_OPTIONS: the same values and
    # look, without 512 option labels formatted, hashed and sent with every change.
    dim = controls.slider(
        _("Head dim d"), DIM_OPTIONS[0], DIM_OPTIONS[-1], DEFAULTS["dim"], "dim", step=2,
        container=bar, help=_("Even, 2 to 1024: d/2 rotation pairs."))
    _quick_picks(bar, "dim", _("Common head dims"), DIM_QUICK_PICKS, dim)
    if dim in DIM_QUICK_PICKS:
        bar.caption(_("d = {dim}: {models}").format(dim=dim, models=_(DIM_QUICK_PICKS[dim])))
    layout = controls.choice(
        _("Pair layout"), list(rc.LAYOUTS), DEFAULTS["layout"], "layout", container=bar,
        segmented=True,
        help=_("Which two coordinates of q and k turn together as pair i. `interleaved`: "
               "(2i, 2i+1), as in RoFormer, Meta's Llama code, GPT-J and GLM. `half`: "
               "(i, i + d/2), as in GPT-NeoX and Hugging Face's Llama, Mistral, Qwen and "
               "Gemma. Each pair turns at the same θᵢ in both, so frequencies, wavelengths "
               "and the decay bound stay the same. A model converted from one layout to the "
               "other gives the same scores; the same random vectors, paired the other way, "
               "give other scores (page *Where RoPE sits*)."))
    bar.caption(_("pairs (2i, 2i+1)") if layout == "interleaved" else _("pairs (i, i + d/2)"))
    device, resolved = _device(bar, torch.cuda.is_available())
    for key, value in (("base", base), ("dim", dim), ("layout", layout), ("device", device)):
        controls.keep_in_link(key, str(value), str(DEFAULTS[key]))
    controls.keep_in_link("present", str(present).lower(), str(DEFAULTS["present"]).lower())
    return Settings(base=float(base), dim=int(dim), device=resolved, layout=layout,
                    present=bool(present))


def remember(settings_: Settings) -> None:
    """Store this run's settings for the page (app.py calls this)."""
    st.session_state[_SETTINGS_KEY] = settings_


def current() -> Settings | None:
    """This run's settings, or None outside a run of app.py (no legacy-mode guard)."""
    return st.session_state.get(_SETTINGS_KEY)


def settings() -> Settings:
    """The settings drawn by app.py this run. Every page calls this first."""
    if in_legacy_pages_mode() or _SETTINGS_KEY not in st.session_state:
        leave_legacy_pages_mode()
    return st.session_state[_SETTINGS_KEY]
