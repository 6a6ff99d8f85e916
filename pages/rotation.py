"""Rotation: one 2-D pair of q and k turning as positions advance (a Plotly animation)."""


import streamlit as st

import rope_core as rc
import ui
from ui.i18n import N_, _
from views.rotation import (
    motion_note,
    parse_vector,
    rotation_figure,
    rotation_frames,
    too_fast_note,
    turn_note,
)

MAX_PAIR = ui.DIM_OPTIONS[-1] // 2 - 1  # 511: the last pair of the largest head dim
MAX_START = 2048  # start positions m0, n0
AUTO = "auto"  # positions per frame chosen so that the pair finishes one turn
STEP_OPTIONS = [AUTO] + [2**e for e in range(13)]  # 1 ... 4096 positions per frame
MAX_FRAMES = 120  # the work is 120 frames whatever the step: positions reach at most
# 2048 + 119 * 2^20 (auto's cap), far inside the 10^9 rope_core accepts
# Option label (what the radio shows, in the run's language, and the URL carries) -> short
# name in file names.
ADVANCE, SHIFT = N_("advance the query"), N_("shift both together")
MODES = {ADVANCE: "advance", SHIFT: "shift"}


s = ui.settings()
ui.intro(
    _("Rotation of one pair"),
    _("RoPE splits q and k into d/2 two-dimensional pairs and turns pair i of a vector at "
      "position m by the angle m·θᵢ. Here you watch **one pair**: the query's pair is turned by "
      "m·θᵢ, the key's by n·θᵢ, and their dot product is the contribution of this pair to the "
      "attention score."))
st.latex(r"q' = R(m\theta_i)\,q,\qquad k' = R(n\theta_i)\,k,\qquad "
         r"R(\alpha) = \begin{bmatrix}\cos\alpha & -\sin\alpha\\ "
         r"\sin\alpha & \cos\alpha\end{bmatrix}")
# Translators: a LaTeX formula; translate only the words inside \text{…}.
st.latex(_(r"q'\cdot k' = q^{\top}R\big((n-m)\theta_i\big)\,k = "
           r"\lVert q\rVert\,\lVert k\rVert\cos\!\big((n-m)\theta_i + \varphi_k - "
           r"\varphi_q\big),\qquad \varphi = \text{angle of the vector}"))
ui.terms("rope", "pair", "theta", "wavelength", "head_dim", "base")

c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
# shown in the run's language; the link carries the option itself (ui.controls.choice)
mode_label = ui.choice(_("Animation"), list(MODES), ADVANCE, "rot_mode",
                       container=c1, horizontal=False, fmt=_,
                       help=_("advance the query: k stays at n₀ while m = m₀, m₀+step, … "
                              "shift both together: m and n both move by the step."))
mode = MODES[mode_label]
pair_asked = ui.number(_("Pair index i"), 0, MAX_PAIR, 8, "rot_i", container=c2,
                       help=_("0 … d/2 − 1 = {last} for d = {dim}. Small i turns fast, large i "
                              "slowly.").format(last=s.dim // 2 - 1, dim=s.dim))
q_text = ui.text("q = (x, y)", "1, 0.3", "rot_q", container=c3, max_chars=60,
                 help=_("The query's two coordinates of pair i, e.g. 1, 0.3"))
k_text = ui.text("k = (x, y)", "0.6, 0.9", "rot_k", container=c4, max_chars=60,
                 help=_("The key's two coordinates of pair i, e.g. 0.6, 0.9"))
c5, c6, c7, c8 = st.columns(4)
m0 = ui.number(_("Query start position m₀"), 0, MAX_START, 0, "rot_m0", container=c5)
n0 = ui.number(_("Key position n₀"), 0, MAX_START, 10, "rot_n0", container=c6)
step_asked = ui.select_slider(
    _("Positions per frame [tokens]"), STEP_OPTIONS, AUTO, "rot_step", container=c7, fmt=str,
    help=_("`auto`: just enough positions per frame for the pair to finish one full turn within "
           "the frames (slow pairs, large i, need thousands). Or choose 1 … 4096."))
frames = ui.slider(_("Frames"), 10, MAX_FRAMES, 60, "rot_frames", container=c8)
# The frame the animation shows, for the keyboard: Plotly's Play button and slider are SVG,
# out of the Tab key's reach; this slider is not (ui.at_frame).
shown = ui.slider(_("Frame shown"), 0, frames - 1, 0, "rot_t", container=c8,
                  help=_("The frame the figure shows, for the keyboard: arrow keys step one "
                         "frame, Home and End go to the first and the last. ▶ Play animates "
                         "all frames and Pause stops; nothing moves until you press Play."))

pair = ui.pair_index(pair_asked, s.dim, _(
    "Pair i = {asked} does not exist for d = {dim} (pairs 0 … {last}): showing the last pair, "
    "i = {pair}."))
with ui.friendly_errors():
    q = parse_vector(q_text, "q")
    k = parse_vector(k_text, "k")
    theta_i = float(rc.theta(s.dim, s.base)[pair])
    step = rc.positions_per_frame(theta_i, frames) if step_asked == AUTO else int(step_asked)
    rotation_frames(q, k, pair, s.dim, s.base, mode, m0, n0, step, frames)

# ------------------------------------------------------------ animation ----
ui.show(ui.at_frame(rotation_figure(q, k, pair, s.dim, s.base, mode, m0, n0, step, frames),
                    shown),
        key="rot_animation",
        alt=_("Animation in two panels. Top: the pair's plane, with q' and k' as arrows "
              "from the origin and rings where their tips go in every frame. Below: the dot "
              "product q'·k' against the query position m, its value in the shown frame "
              "circled. It moves only after Play is pressed; the slider “Frame shown” "
              "above it steps through the frames with the keyboard."),
        table=_("frame table"))
# ------------------------------------------------------------ explain ----
settings = (q, k, pair, s.dim, s.base, mode, m0, n0, step, frames)
ui.explain(turn_note(*settings, auto=step_asked == AUTO))
ui.explain(
    _("Below the plane, the open black circle marks the current frame on the curve "
      "of q'·k' against the query position m."),
    motion_note(*settings))
too_fast = too_fast_note(s.dim, s.base, pair, step)
if too_fast:
    st.warning(too_fast, icon=":material/warning:")

ui.download(
    rotation_frames, q, k, pair, s.dim, s.base, mode, m0, n0, step, frames,
    filename=f"rotation_pair{pair}_dim{s.dim}_base{ui.slug(s.base)}_{mode}"
        f"_m{m0}_n{n0}_step{step}.csv",
    label=_("frame table"), key="rotation")
