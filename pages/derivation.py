"""Derivation: why a rotation, following RoFormer (§3.2 states RoPE, §3.4.1 derives
it), each step checked live."""


import streamlit as st

import ui
from ui import i18n
from ui.i18n import N_, _
from views.derivation import (
    SEED,
    checks,
    identity_figure,
    identity_gap,
    identity_table,
    show_checks,
    sign_note,
    sign_values,
    summary,
)

MAX_PAIR = 511
MAX_POSITION = 100_000
ARTICLE_001 = "一文通透位置编码:从标准位置编码到旋转位置编码RoPE"
# Translators: the title of an English article (a summary of the RoFormer paper).
ARTICLE_002 = N_("RoFormer: Enhanced Transformer with Rotary Position Embedding")


s = ui.settings()
ui.intro(
    _("Derivation: why a rotation"),
    _("RoFormer (Su et al.; §3.2 states RoPE, §3.4.1 derives it) asks for a way f to put a "
      "position into a query q and a key k such that their dot product only sees the "
      "*difference* of the positions, and finds that the simplest answer is a rotation. Each "
      "step below is checked on the app's own RoPE, for a random q and k, the position m of "
      "the query and n of the key you pick."))
ui.formulas(r"\langle f(q, m),\, f(k, n)\rangle = g(q, k, m - n)",
            r"f(q, 0) = q,\qquad f(k, 0) = k")
ui.terms("position", "score", "pair", "theta", "rotation_matrix")

c1, c2, c3, c4 = st.columns(4)
pair_asked = ui.number(_("Pair index i"), 0, MAX_PAIR, 8, "der_i", container=c1,
                       help=_("0 … d/2 − 1 = {last}: the 2-D steps use θ = θᵢ.").format(
                           last=s.dim // 2 - 1))
m = ui.number(_("Query position m [tokens]"), 0, MAX_POSITION, 5, "der_m", container=c2)
n = ui.number(_("Key position n [tokens]"), 0, MAX_POSITION, 2, "der_n", container=c3)
shift = ui.number(_("Shift s of both [tokens]"), 0, MAX_POSITION, 100, "der_shift",
                  container=c4,
                  help=_("Checks that the score at (m + s, n + s) equals the one at (m, n)."))
pair = ui.pair_index(pair_asked, s.dim, _(
    "Pair i = {asked} does not exist for d = {dim} (pairs 0 … {last}): using the last pair, "
    "i = {pair}."))
with ui.friendly_errors():
    checked = summary(s.dim, s.base, s.layout, pair, m, n, shift)
    by_form = sign_values(s.dim, s.base, pair, m, n)
st.caption(_("θ = θ{pair} = base^(−2·{pair}/d) = {theta} rad/token (d = {dim}, base {base}); "
             "q and k: random, seed {seed}.").format(
    pair=pair, theta=f"{checked['theta_i']:.6g}", dim=s.dim, base=ui.fmt_base(s.base), seed=SEED))

st.header(_("1. Two dimensions as complex numbers"))
st.markdown(_("Read a 2-D vector (x, y) as the complex number x + ιy, with ι = √−1 (i stays "
              "the pair index). The dot product is the real part of one number times the "
              "conjugate of the other:"))
st.latex(r"\langle q, k\rangle = \operatorname{Re}\big[q\,k^{*}\big]")
st.markdown(_("Suppose f(q, m) f(k, n)* equals a complex g(q, k, m − n), and write every "
              "number by its length and angle:"))
ui.formulas(r"q = \lVert q\rVert\, e^{\iota\varphi_q}",
            r"f(q, m) = R_f(q, m)\, e^{\iota\,\Theta_f(q, m)}",
            r"g(q, k, m-n) = R_g(q, k, m-n)\, e^{\iota\,\Theta_g(q, k, m-n)}")
st.markdown(_("Lengths multiply and angles subtract, so the equation splits in two:"))
ui.formulas(r"R_f(q, m)\, R_f(k, n) = R_g(q, k, m-n)",
            r"\Theta_f(q, m) - \Theta_f(k, n) = \Theta_g(q, k, m-n)")

st.header(_("2. The length does not change"))
st.markdown(_("Put n = m, then use f(q, 0) = q:"))
ui.formulas(r"R_f(q, m)\,R_f(k, m) = R_g(q, k, 0)",
            r"= R_f(q, 0)\,R_f(k, 0) = \lVert q\rVert\,\lVert k\rVert")
st.markdown(_("The simplest solution keeps every length: R_f(q, m) = ‖q‖."))
show_checks(checked, 1)

st.header(_("3. The angle moves by a function of m alone"))
st.markdown(_("Put n = m in the angle equation:"))
st.latex(r"\Theta_f(q, m) - \Theta_f(k, m) = \Theta_g(q, k, 0) = \varphi_q - \varphi_k")
st.markdown(_("so Θ_f(q, m) − φ_q = Θ_f(k, m) − φ_k is the same for every vector; call it "
              "ψ(m):"))
st.latex(r"\Theta_f(q, m) = \varphi_q + \psi(m)")
show_checks(checked, 2)

st.header(_("4. ψ grows by the same step θ: ψ(m) = mθ"))
st.markdown(_("Put n = m − 1:"))
st.latex(r"\psi(m) - \psi(m-1) = \Theta_g(q, k, 1) + \varphi_k - \varphi_q")
st.markdown(_("The right side does not depend on m: call it θ. With ψ(0) = 0 (from "
              "f(q, 0) = q) the angle grows by θ per token, ψ(m) = mθ, and"))
ui.formulas(r"f(q, m) = \lVert q\rVert\, e^{\iota(\varphi_q + m\theta)} = q\, e^{\iota m\theta}",
            r"f(q, m) = \begin{bmatrix}\cos m\theta & -\sin m\theta\\"
            r"\sin m\theta & \cos m\theta\end{bmatrix} q")
st.markdown(_("Multiplying by e^(ιmθ) *is* turning the vector by the angle mθ. Angles are "
              "compared modulo 2π."))
show_checks(checked, 3)

st.header(_("5. The score sees m − n only"))
ui.formulas(r"\operatorname{Re}\big[q e^{\iota m\theta}\,(k e^{\iota n\theta})^{*}\big]"
            r" = \operatorname{Re}\big[q k^{*} e^{\iota (m-n)\theta}\big]",
            r"= \lVert q\rVert \lVert k\rVert \cos\!\big(\varphi_q - \varphi_k + (m-n)\theta\big)")
show_checks(checked, 4)

st.header(_("6. d dimensions: one rotation per pair"))
st.markdown(_("Cut the head vector into d/2 pairs and turn pair i with its own θᵢ. The dot "
              "product is a sum over pairs, so each pair keeps the property, and together:"))
ui.formulas(r"R_m = \begin{bmatrix}R(m\theta_0) & & \\ & \ddots & \\"
            r" & & R(m\theta_{d/2-1})\end{bmatrix}",
            # Translators: a LaTeX formula; translate only the words inside \text{…}.
            _(r"\theta_i = \text{base}^{-2i/d},\quad i = 0, \dots, \tfrac{d}{2} - 1"),
            r"(R_m q)^{\top}(R_n k) = q^{\top} R_m^{\top} R_n\, k = q^{\top} R_{n-m}\, k")
st.caption(_("The RoFormer paper counts pairs from 1: its θᵢ = 10000^(−2(i−1)/d), "
             "i = 1 … d/2, is this page's θ₍ᵢ₋₁₎. Same frequencies, index shifted by one."))
show_checks(checked, 5)
st.markdown(_("R_m is orthogonal (each block is), so it keeps every length:"))
st.latex(r"R_m^{\top} R_m = I,\qquad \lVert R_m q\rVert = \lVert q\rVert")
show_checks(checked, 6)
ui.explain(_(
    "All {checks} checks hold: the largest difference is {worst}, float64 rounding for "
    "positions up to {furthest}. The score at (m, n) = ({m}, {n}) equals the one at "
    "({m_shifted}, {n_shifted}), because both pairs are {apart} apart.").format(
        checks=checked["checks"], worst=f"{checked['worst']:.1e}",
        furthest=i18n.integer(max(m, n) + shift), m=m, n=n, m_shifted=m + shift,
        n_shifted=n + shift, apart=m - n))

with st.expander(_("About the sign of the relative rotation in two articles")):
    # Translators: {measured} is the sentence "Here, with pair {pair}: …", translated on its own.
    st.info(_(
        "In “{article_001}” (positional encoding from the standard one to RoPE), the 2-D "
        "matrix form writes the product of the two rotations as the matrix with −sin((m − n)θ) "
        "in its top right corner, that is R((m − n)θ). But R(mθ)ᵀR(nθ) = R((n − m)θ): its top "
        "right entry is +sin((m − n)θ), and only this one matches the article's own formula "
        "for g. In “{article_002}” (a summary of the paper, not the paper itself), the general "
        "case writes q R_m R_nᵀ kᵀ for row vectors; the transpose belongs on R_m "
        "(q R_mᵀ R_n kᵀ), since R_m R_nᵀ = R_(m−n); the result it states, q R_(n−m) kᵀ, is "
        "right. {measured}").format(article_001=ARTICLE_001, article_002=_(ARTICLE_002),
                                    measured=sign_note(by_form, pair)),
        icon=":material/info:")
ui.download(checks, s.dim, s.base, s.layout, pair, m, n, shift,
            filename=f"derivation_checks_dim{s.dim}_base{ui.slug(s.base)}_{s.layout}_i{pair}"
                     f"_m{m}_n{n}_s{shift}.csv", label=_("check table"), key="der")

st.header(_("The whole picture: every (m, n) at once"))
with ui.friendly_errors():
    gap = identity_gap(s.dim, s.base, s.layout, s.device)
ui.show(identity_figure(s.dim, s.base, s.layout, s.device), key="derivation_heatmap",
        alt=_("Heatmap: the score of one rotated query at position m (rows) with one rotated key at"
              " position n (columns); each diagonal, where n − m is constant, has a single colour, "
              "because the score depends on n − m only."), table=_("score table"))
ui.explain(_(
    "**Every diagonal has one colour**: the score depends on n − m alone. The table lists "
    "both sides of the identity; their largest difference here is {gap}.").format(
        gap=f"{gap:.1e}"))
ui.download(identity_table, s.dim, s.base, s.layout, s.device,
            filename=f"identity_dim{s.dim}_base{ui.slug(s.base)}_{s.layout}.csv",
            label=_("score table"), key="der_identity")
