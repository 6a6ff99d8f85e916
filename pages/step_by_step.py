"""Step by step: rotate a vector you type, by hand, in three equivalent ways."""


import streamlit as st

import ui
from ui.i18n import _
from views.step_by_step import (
    MAX_LEN,
    article_result,
    article_second_pair,
    forms_note,
    matrix_figure,
    parse_vector,
    steps,
    worked,
)

DEFAULT_Q = "1, 2, 3, 4"
DEFAULT_M = 2
ARTICLE_TITLE = "RoPE 旋转位置编码详解与计算示例"  # the seed article with the d = 4 example
M_LIMIT = 10**6


s = ui.settings()
ui.intro(
    _("Step by step"),
    _("Type a short vector q and a position m, and follow RoPE by hand: compute the "
      "frequencies, turn each pair of coordinates, then check that the dense matrix, the "
      "element-wise formula used in code and the complex-number form all land on the same "
      "vector."))
ui.terms("pair", "layout", "theta", "rotation_matrix")
c1, c2 = st.columns([2, 1])
text = ui.text(_("Vector q ({low} to {high} numbers, comma separated, even count)").format(
    low=2, high=MAX_LEN), DEFAULT_Q, "step_q", container=c1)
m = int(ui.number(_("Position m [tokens]"), -M_LIMIT, M_LIMIT, DEFAULT_M, "step_m",
                  container=c2))

try:
    q = parse_vector(text)
except ValueError as err:
    ui.error(str(err))
    st.stop()
d = len(q)
st.caption(_("Here d = len(q) = {d}, **not** the sidebar's head dim ({dim}); the base ({base}) "
             "and the pair layout (`{layout}`) come from the sidebar.").format(
                 d=d, dim=s.dim, base=ui.fmt_base(s.base), layout=s.layout))
with ui.friendly_errors():
    shown = worked(q, m, s.base, s.layout)

st.header(_("1. One frequency per pair, one angle per pair"))
# Translators: a LaTeX formula with named fields, so its braces are doubled ({{ }}): keep
# them and the fields; translate only the word inside \text{{…}}.
st.latex(_(r"\theta_i = \text{{base}}^{{-2i/d}},\quad i = 0,\dots,\tfrac{{d}}{{2}}-1"
           r"\qquad (d = {d},\ \text{{base}} = {base_value},\ m = {m})").format(
    d=d, base_value=f"{s.base:.0f}", m=m))
pair_text = (r"(q_{2i},\,q_{2i+1})" if s.layout == "interleaved"
             else r"(q_{i},\,q_{i+d/2})")
st.markdown(_("The `{layout}` layout pairs coordinates as ${pairs}$. Each pair gets its own "
              "frequency θᵢ and turns by the angle m·θᵢ.").format(layout=s.layout,
                                                                  pairs=pair_text))
# the headers in the run's language, on a copy for display (the CSV keeps English)
st.dataframe(shown["pairs"], hide_index=True, width="stretch")

st.header(_("2. Turn each pair by its 2×2 rotation"))
st.markdown(shown["turns"])
st.markdown(_("Put back in place, the pairs give the rotated vector:"))
st.latex(shown["rotated"])

st.header(_("3. The same thing as one matrix R_m"))
ui.show(matrix_figure(q, m, s.base, s.layout), key="step_matrix_plot",
        alt=_("Heatmap of the dense rotation matrix R_m with its entries written in the cells: 2 × "
              "2 rotation blocks along the diagonal (or, in the half layout, spread over the "
              "matrix), every other entry 0."), table=_("R_m table"))
ui.explain(
    _("Each pair owns a 2×2 block on its rows and columns, so the blocks sit on the diagonal. "
      "Everything else is 0, which is why code never builds this matrix.")
    if s.layout == "interleaved" else
    _("Each pair owns a 2×2 block on its rows and columns; in the half layout pair i uses "
      "rows i and i + d/2, so the blocks are spread out. Everything else is 0, which is why "
      "code never builds this matrix."))

st.header(_("4. Element-wise form (what the code runs)"))
ui.formulas(*shown["elementwise"])

st.header(_("5. Complex-number form"))
st.latex(r"z_i = q_a + \iota\,q_b,\qquad z'_i = z_i\, e^{\iota m\theta_i} = "
         r"z_i\,(\cos m\theta_i + \iota\sin m\theta_i),\qquad \iota = \sqrt{-1}")
st.caption(_("ι (iota) is the imaginary unit √−1; i stays the pair index."))
ui.formulas(*shown["complex"])
st.caption(
    _("The real part of z′ᵢ goes back to coordinate a, the imaginary part to b (LLaMA's "
      "`torch.view_as_complex` reads the interleaved layout this way).")
    if s.layout == "interleaved" else
    _("The real part of z′ᵢ goes back to coordinate a, the imaginary part to b (for the half "
      "layout: q_i + ι·q_(i+d/2))."))

gap, norm_q, norm_out = shown["gap"], shown["norm_q"], shown["norm_out"]
norms = ui.row()
norms.metric(_("Largest difference between the three forms"), f"{gap:.1e}")
norms.metric("‖q‖", f"{norm_q:.6f}")
norms.metric("‖R_m q‖", f"{norm_out:.6f}")
ui.explain(forms_note(gap, norm_q, norm_out))

article_pair = article_second_pair()
with st.expander(_("A worked example in an article, corrected (d = 4, m = 2, "
                  "q = [1, 2, 3, 4])")):
    st.info(_(
        "The article “{title}” (RoPE rotary position encoding explained, with a worked "
        "example) takes d = 4, m = 2 and q = [1, 2, 3, 4]. It computes a frequency for each of "
        "the four coordinates instead of one per pair, so the second pair (q₂, q₃) is turned "
        "by 2·0.0001 = 0.0002 rad instead of 2·θ₁ = 2·0.01 = 0.02 rad. Even for that angle "
        "its products are off: 3·cos 0.0002 − 4·sin 0.0002 = {first} and 3·sin 0.0002 + "
        "4·cos 0.0002 = {second}, not the 2.99999194 and 4.00000594 it prints. Of its first "
        "pair, (−2.2347, 0.0771), only the first number is correct: it multiplies cos 2 and "
        "sin 2 rounded to −0.4161 and 0.9093, and 1·0.9093 + 2·(−0.4161) = 0.0771 is that "
        "rounding's artefact. With cos 2 = −0.416147 and sin 2 = 0.909297 the pair is "
        "1·cos 2 − 2·sin 2 = −2.234742 and 1·sin 2 + 2·cos 2 = 0.077004. {result}").format(
            title=ARTICLE_TITLE, first=f"{article_pair[0]:.8f}",
            second=f"{article_pair[1]:.8f}",
            result=article_result(q, m, s.base, s.layout)), icon=":material/info:")

st.header(_("Tables"))
tag = f"d{d}_m{m}_base{ui.slug(s.base)}_{s.layout}"
ui.download(steps, q, m, s.base, s.layout, part="coordinates",
            filename=f"step_by_step_{tag}.csv", label=_("step table"), key="step")
ui.download(steps, q, m, s.base, s.layout, part="matrix",
            filename=f"step_by_step_matrix_{tag}.csv", label=_("R_m table"),
            key="step_matrix")
