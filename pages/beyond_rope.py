"""Beyond RoPE: ALiBi, NoPE, xPos, p-RoPE and the sinusoidal encoding on RoPE's axes."""


import streamlit as st

import ui
from rope_core.beyond import alternatives as alt
from ui.i18n import _
from views.beyond_rope import (
    ENCODINGS,
    at_training_length,
    attention_table,
    last_row_figure,
    look_back_note,
    map_figure,
    name,
    p_past_text,
    past_papers,
    sampling_note,
    score_figure,
    score_notes,
    score_table,
    slope_label,
)

TRAIN_OPTIONS = [64, 128, 256, 512, 1024, 2048, 4096, 8192]  # training length L [tokens]
REACH_OPTIONS = [2, 4, 8]  # the plot reaches r = reach * L
P_OPTIONS = [0.0, 0.25, 0.5, 0.75, 1.0]
SLOPE_EXPONENTS = list(range(1, 9))  # an 8-head ALiBi model: slopes 2^-1 ... 2^-8
START_OPTIONS = [0, 64, 512, 4096, 32768, 262144]  # first position of the attention window


s = ui.settings()
ui.intro(
    _("Beyond RoPE: ALiBi, NoPE, xPos, p-RoPE"),
    _("RoPE is one answer to “where is this token?”. Here are the others a student meets in "
      "papers and models, each drawn on RoPE's axes: the logit ℓ of a query at position m for a "
      "key at position n, against their distance r = m − n, and the softmax weights of one toy "
      "head. Every formula below is what the plots compute."))
ui.terms("alibi", "nope", "xpos", "p_rope", "sinusoidal", "l_train")

with st.expander(_("The six formulas"), expanded=True):
    # one Markdown element: each encoding's sentence and its formula
    st.markdown("\n\n".join((
        _("**RoPE** rotates q and k; pair i of the score turns with r:"),
        ui.display_formula(
            r"\ell_{mn} = \frac{(R_m q)^{\top}(R_n k)}{\sqrt{d}} = \frac{1}{\sqrt{d}}"
            r"\sum_{i=0}^{d/2-1}\big[(q_{a}k_{a}+q_{b}k_{b})\cos r\theta_i"
            r" + (q_{a}k_{b}-q_{b}k_{a})\sin r\theta_i\big]_i"),
        _("**p-RoPE** (Barbero et al. 2024) keeps RoPE's fastest pairs and leaves the "
          "slowest ones unrotated (p = 1 is RoPE, p = 0 is NoPE):"),
        # Translators: a LaTeX formula; translate only the words inside \text{…}.
        ui.display_formula(_(r"\theta_i^{(p)} = \begin{cases}\text{base}^{-2i/d}, & i < "
                             r"\lfloor p\,d/2\rfloor\\ 0\ \text{(unrotated)}, & "
                             r"\text{otherwise}\end{cases}")),
        _("**xPos** (Sun et al. 2022) rotates like RoPE and scales pair i of q by "
          "ζᵢ^(m/B) and of k by ζᵢ^(−n/B), so each pair's term [ … ]ᵢ of RoPE's sum "
          "decays with r:"),
        ui.display_formula(
            r"\ell_{mn} = \frac{1}{\sqrt{d}}\sum_{i=0}^{d/2-1}\zeta_i^{\,r/B}\,[\dots]_i,"
            r"\qquad \zeta_i = \frac{2i/d+\gamma}{1+\gamma},\quad \gamma = 0.4,\quad B = 512"),
        _("**ALiBi** (Press et al. 2022) adds a bias that falls linearly with distance, "
          "a slope per head (2⁻¹ … 2⁻⁸ for 8 heads; other head counts follow the "
          "reference code's rule, `rope_core.alibi_slopes`):"),
        ui.display_formula(r"\ell_{mn} = \frac{q^{\top}k}{\sqrt{d}} - s_h\,(m-n),\qquad "
                           r"s_h = 2^{-8h/H},\quad h = 1 \dots H,\quad H = 8"),
        _("**NoPE** (Haviv et al. 2022; Kazemnejad et al. 2023) adds nothing: for "
          "given q and k the logit does not depend on r:"),
        ui.display_formula(r"\ell_{mn} = \frac{q^{\top}k}{\sqrt{d}}"),
        _("A trained causal model still learns position: under the causal mask a token that "
          "stands out, such as the first, takes a share of each query's output that shrinks "
          "as more tokens come before (a run of identical tokens gives no such signal: every "
          "position then computes the same), so past the first layer q and k themselves can "
          "carry it."),
        _("**Sinusoidal** (Vaswani et al. 2017) adds a position vector to each token "
          "before the dot product (no projections here):"),
        ui.display_formula(r"\ell_{mn} = \frac{(q + PE_m)^{\top}(k + PE_n)}{\sqrt{d}},\qquad "
                           r"PE_{p} = \big(\sin p\,\omega_i,\ \cos p\,\omega_i\big)_{i},\quad "
                           r"\omega_i = \theta_i"))))

c1, c2, c3 = st.columns(3)
p = ui.select_slider(_("p-RoPE: fraction p of pairs rotated"), P_OPTIONS, 0.75, "beyond_p",
                     container=c1, fmt=lambda v: f"{v:g}")
exponent = ui.select_slider(_("ALiBi slope (one head of 8)"), SLOPE_EXPONENTS, 4,
                            "beyond_slope", container=c2, fmt=slope_label)
seed = ui.number(_("Random seed"), 0, 2**31 - 1, 0, "beyond_seed", container=c3)
slope = 2.0 ** -exponent
half = s.dim // 2


@st.fragment
def score_section() -> None:
    st.header(_("Logit against distance"))
    d1, d2, d3 = st.columns(3)
    train = ui.select_slider(_("Training length L [tokens]"), TRAIN_OPTIONS, 512, "beyond_L",
                             container=d1, fmt=str)
    reach = ui.select_slider(_("Distances shown, up to (multiples of L)"), REACH_OPTIONS, 4,
                             "beyond_reach", container=d2, fmt=str)
    vectors = ui.choice(_("Vectors"), list(alt.VECTORS), "q = k", "beyond_vectors",
                        container=d3, fmt=_,
                        captions=[_("one Gaussian draw, used as both"),
                                  _("two independent Gaussian draws")])
    max_distance = train * reach
    with ui.friendly_errors():
        score_table(vectors, s.dim, s.base, max_distance, p, slope, seed, s.layout, s.device)
        facts = at_training_length(vectors, s.dim, s.base, train, max_distance, p, slope, seed,
                                   s.layout, s.device)
    ui.show(score_figure(vectors, s.dim, s.base, train, reach, p, slope, seed, s.layout,
                         s.device), key="beyond_score_plot",
            alt=_("Line chart: the logit of a query with an identical key against their distance r,"
                  " one line per position encoding (RoPE, p-RoPE, xPos, ALiBi, NoPE, sinusoidal); "
                  "the training length L is marked, the distances past it are shaded, and a diamond"
                  " marks each curve's value at r = L."), table=_("score table"))
    settings = (vectors, s.dim, s.base, train, reach, p, exponent, seed, s.layout, s.device)
    ui.bullets(score_notes(*settings))
    note = sampling_note(*settings)
    if note:
        st.caption(note)

    st.header(_("Past the training length L"))
    full = facts["kept_full_turn"]
    ui.bullets((
        _("**RoPE**: past L the slow pairs reach angles (m − n)·θᵢ never seen in training."),
        p_past_text(facts["kept"], half, full, train),
        _("**xPos**: the rotation is RoPE's, so under full attention the slow pairs meet the "
          "same unseen angles past L; the decay only makes far keys count less."),
        _("**ALiBi**: no angle can leave its range; the bias keeps growing linearly, so far "
          "keys fade further and a head acts like a window on recent tokens."),
        _("**NoPE**: no explicit positional term can leave its range, but the position a "
          "NoPE model learns from the causal mask does, and softmax shares its weight among "
          "more keys."),
        _("**Sinusoidal**: the vectors PEₘ for m > L were never added to a training input.")))
    with st.expander(_("What the papers measured past L")):
        ui.bullets(past_papers(train))
    ui.download(score_table, vectors, s.dim, s.base, max_distance, p, slope, seed, s.layout,
                s.device,
                filename=f"beyond_scores_dim{s.dim}_base{ui.slug(s.base)}_{s.layout}_"
                         f"max{max_distance}_p{ui.slug(p)}_slope{2**exponent}_"
                         f"{'qk-same' if vectors == 'q = k' else 'qk-random'}_seed{seed}.csv",
                label=_("score table"), key="beyond_scores")


@st.fragment
def attention_section() -> None:
    st.header(_("A toy head's attention map"))
    st.markdown(_(
        "One head over a causal window of tokens: each query m sees the keys n ≤ m, and "
        "softmax turns its logits into weights. The same random q and k go through every "
        "encoding."))
    e1, e2, e3 = st.columns([3, 2, 2])
    encoding = ui.choice(_("Encoding of the map"), list(ENCODINGS), "rope", "beyond_map",
                         container=e1, fmt=name)
    seq = ui.slider(_("Window length [tokens]"), 4, 128, 32, "beyond_seq", container=e2)
    start = ui.select_slider(_("Window starts at position"), START_OPTIONS, 0, "beyond_start",
                             container=e3, fmt=str)
    same = ui.toggle(_("Same q and k at every position"), True, "beyond_same")
    with ui.friendly_errors():
        attention_table(s.dim, s.base, seq, start, seed, same, p, slope, s.layout, s.device)
    left, right = st.columns(2)
    with left:
        ui.show(map_figure(encoding, s.dim, s.base, seq, start, seed, same, p, slope, s.layout,
                           s.device), key="beyond_map_plot",
                alt=_("Heatmap of the chosen encoding's softmax weights: every query position m "
                      "(rows) against every key position n (columns), log colour scale."),
                table=_("attention table"))
    with right:
        ui.show(last_row_figure(s.dim, s.base, seq, start, seed, same, p, slope, s.layout,
                                s.device), key="beyond_row_plot",
                alt=_("Line chart: how much weight the last query puts on the key r tokens back, "
                      "against r, one line per position encoding."), table=_("attention table"))
    st.markdown(look_back_note(s.dim, s.base, seq, start, seed, same, p, slope, s.layout,
                               s.device))
    ui.explain(
        _("With the same q and k everywhere, NoPE's weights are uniform (every logit is "
          "equal) and ALiBi's fall off geometrically, by a factor e^(−slope) per token back.")
        if same else
        _("With a different q and k at every position, every encoding's weights also follow "
          "the tokens' own vectors; NoPE's differ only through them."),
        _("Move the window's start: RoPE, p-RoPE, xPos, ALiBi and NoPE draw the same map "
          "wherever the window sits, since their logits depend on m − n only; the "
          "sinusoidal map changes, because its logits depend on the positions themselves."))
    ui.download(attention_table, s.dim, s.base, seq, start, seed, same, p, slope, s.layout,
                s.device,
                filename=f"beyond_attention_dim{s.dim}_base{ui.slug(s.base)}_{s.layout}_"
                         f"seq{seq}_start{start}_p{ui.slug(p)}_slope{2**exponent}_"
                         f"{'same' if same else 'random'}_seed{seed}.csv",
                label=_("attention table"), key="beyond_attention")


score_section()
attention_section()
