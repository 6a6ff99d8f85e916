"""Derivation: why a rotation, following RoFormer (§3.2 states RoPE, §3.4.1 derives
it), each step checked live."""


import streamlit as st

import rope_core as rc
import rope_core.teaching.lesson as lesson
import ui
from ui import i18n
from ui.i18n import N_, _

SEED = 7  # the q and k of every check (rope_core.toy_qk draws)
MAX_PAIR = 511
MAX_POSITION = 100_000
SIZE = 48  # positions of the identity heatmap
ARTICLE_001 = "一文通透位置编码:从标准位置编码到旋转位置编码RoPE"
# Translators: the title of an English article (a summary of the RoFormer paper).
ARTICLE_002 = N_("RoFormer: Enhanced Transformer with Rotary Position Embedding")
# The "check" column of lesson.derivation_checks (ASCII ids, kept in the CSV) -> the
# metric label shown, through _() (ψ, Θ, φ, θ, ᵀ and − in English too).
CHECK_LABELS = {
    # Translators: a check of the derivation (metric label): "a vs b" compares the measured a
    # with the expected b; s is the shift of both positions.
    "|f(q, m)| vs |q|": N_("|f(q, m)| vs |q|"),
    "|f(q, m)| |f(k, n)| vs |q| |k|": N_("|f(q, m)| |f(k, n)| vs |q| |k|"),
    "psi(m) from q vs psi(m) from k [rad]": N_("ψ(m) from q vs ψ(m) from k [rad]"),
    "Theta_f(q, m) - Theta_f(k, n) vs phi_q - phi_k + (m - n) theta [rad]":
        N_("Θ_f(q, m) − Θ_f(k, n) vs φ_q − φ_k + (m − n)θ [rad]"),
    "psi(m) - psi(m - 1) vs theta [rad]": N_("ψ(m) − ψ(m − 1) vs θ [rad]"),
    "psi(m) vs m theta [rad]": N_("ψ(m) vs mθ [rad]"),
    "Re[f(q, m) conj f(k, n)] vs |q| |k| cos(phi_q - phi_k + (m - n) theta)":
        N_("Re[f(q, m) f(k, n)*] vs |q| |k| cos(φ_q − φ_k + (m − n)θ)"),
    "Re[f(q, m) conj f(k, n)] vs the same at m + shift, n + shift":
        N_("Re[f(q, m) f(k, n)*] vs the same at (m + s, n + s)"),
    "(R_m q)^T (R_n k) vs q^T R_(n-m) k": N_("(R_m q)ᵀ (R_n k) vs qᵀ R_(n−m) k"),
    "(R_(m+shift) q)^T (R_(n+shift) k) vs q^T R_(n-m) k":
        N_("(R_(m+s) q)ᵀ (R_(n+s) k) vs qᵀ R_(n−m) k"),
    "max |R_m^T R_m - I|": N_("max |R_mᵀ R_m − I|"),
    "|R_m q| vs |q|": N_("|R_m q| vs |q|"),
}



@ui.table
def checks(dim: int, base: float, layout: str, pair: int, m: int, n: int, shift: int):
    """Every step of the derivation measured on RoPE (lesson.derivation_checks)."""
    return lesson.derivation_checks(dim, base, layout, pair, m, n, shift, SEED)


@ui.table
def signs(dim: int, base: float, pair: int, m: int, n: int):
    """The 2-D score against R((n - m) theta) and R((m - n) theta) (rope_core.teaching.lesson)."""
    return lesson.sign_check(dim, base, pair, m, n, SEED)


@ui.table
def sign_values(dim: int, base: float, pair: int, m: int, n: int) -> dict:
    """The three scores of :func:`signs` by form, read once per setting."""
    sign = signs(dim, base, pair, m, n)
    return dict(zip(sign["form"].tolist(), sign["value"].tolist()))


@ui.table
def identity_table(dim: int, base: float, layout: str, device: str):
    """<R_m q, R_n k> for every (m, n), next to q^T R_(n-m) k (rope_core.identity_table)."""
    return rc.identity_table(dim, base, layout, size=SIZE, seed=SEED, device=device)


@ui.figure
def identity_figure(dim: int, base: float, layout: str, device: str) -> ui.Frozen:
    """The score <R_m q, R_n k> at every (m, n) as a heatmap."""
    table = identity_table(dim, base, layout, device)
    z = table["<R_m q, R_n k>"].to_numpy().reshape(SIZE, SIZE)
    heatmap = dict(
        type="heatmap", z=ui.typed(z),
        x=list(range(SIZE)), y=list(range(SIZE)), colorscale=ui.colorscale("RdBu"), zmid=0,
        colorbar=dict(title=dict(text=_("score"))),
        hovertemplate=_("m={m}, n={n}<br>score={score}").format(
            m="%{y}", n="%{x}", score="%{z:.3f}") + "<extra></extra>")
    return ui.kept_figure(
        [heatmap], title=_("One q and one k at every pair of positions (d={dim}, "
                           "base={base})").format(dim=dim, base=ui.fmt_base(base)),
        x=_("key position n [tokens]"), y=_("query position m [tokens]"), height=480,
        xaxes=dict(constrain="domain"),  # ui.square, then the rows downwards
        yaxes=dict(scaleanchor="x", scaleratio=1, constrain="domain", autorange="reversed"))


@ui.table
def summary(dim: int, base: float, layout: str, pair: int, m: int, n: int, shift: int) -> dict:
    """What the page quotes from :func:`checks`, read once per setting: θᵢ, the largest
    difference, how many checks, and each step's (check, value, difference) rows."""
    frame = checks(dim, base, layout, pair, m, n, shift)
    steps: dict[int, list] = {}
    for at, check, value, difference in zip(frame["step"].tolist(), frame["check"].tolist(),
                                            frame["value"].tolist(),
                                            frame["difference"].tolist()):
        steps.setdefault(at, []).append((check, value, difference))
    return {"theta_i": float(frame["theta_i [rad/token]"].iloc[0]),
            "worst": float(frame["difference"].max()), "checks": len(frame),
            "steps": {at: tuple(rows) for at, rows in steps.items()}}


@ui.table
def identity_gap(dim: int, base: float, layout: str, device: str) -> float:
    """The largest |<R_m q, R_n k> − q^T R_(n−m) k| of :func:`identity_table`."""
    table = identity_table(dim, base, layout, device)
    return float((table["<R_m q, R_n k>"] - table["q^T R_(n-m) k"]).abs().max())


def show_checks(checked: dict, step: int) -> None:
    """The rows of one step as metrics: the measured value and its gap to the expected one."""
    row = ui.row()
    for check, value, difference in checked["steps"].get(step, ()):
        # check: the CSV's ASCII id; the difference in grey without an arrow (it is
        # no change over time)
        row.metric(_(CHECK_LABELS[check]), f"{value:.6g}",
                   delta=_("difference {value}").format(value=f"{difference:.1e}"),
                   delta_color="off", delta_arrow="off")


s = ui.settings()
st.title(_("Derivation: why a rotation"))
st.markdown(_(
    "RoFormer (Su et al.; §3.2 states RoPE, §3.4.1 derives it) asks for a way f to put a "
    "position into a query q and a key k such that their dot product only sees the "
    "*difference* of the positions, and finds that the simplest answer is a rotation. Each "
    "step below is checked on the app's own RoPE, for a random q and k, the position m of "
    "the query and n of the key you pick."))
ui.formulas(r"\langle f(q, m),\, f(k, n)\rangle = g(q, k, m - n)",
            r"f(q, 0) = q,\qquad f(k, 0) = k")

c1, c2, c3, c4 = st.columns(4)
pair_asked = ui.number(_("Pair index i"), 0, MAX_PAIR, 8, "der_i", container=c1,
                       help=_("0 … d/2 − 1 = {last}: the 2-D steps use θ = θᵢ.").format(
                           last=s.dim // 2 - 1))
m = ui.number(_("Query position m [tokens]"), 0, MAX_POSITION, 5, "der_m", container=c2)
n = ui.number(_("Key position n [tokens]"), 0, MAX_POSITION, 2, "der_n", container=c3)
shift = ui.number(_("Shift s of both [tokens]"), 0, MAX_POSITION, 100, "der_shift",
                  container=c4,
                  help=_("Checks that the score at (m + s, n + s) equals the one at (m, n)."))
pair = min(pair_asked, s.dim // 2 - 1)
if pair != pair_asked:
    st.info(_("Pair i = {asked} does not exist for d = {dim} (pairs 0 … {last}): using the "
              "last pair, i = {pair}.").format(asked=pair_asked, dim=s.dim,
                                               last=s.dim // 2 - 1, pair=pair),
            icon=":material/info:")
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

right = by_form["q^T R((n - m) theta) k"]
wrong = by_form["q^T R((m - n) theta) k"]
score = by_form["(R(m theta) q)^T (R(n theta) k)"]
numbers = dict(pair=pair, score=f"{score:.6f}", right=f"{right:.6f}", wrong=f"{wrong:.6f}")
if abs(score - wrong) < 1e-12:
    measured = _("Here, with pair {pair}: the score is {score}, qᵀR((n − m)θ)k = {right} and "
                 "qᵀR((m − n)θ)k = {wrong} (equal only because m = n or the sine term "
                 "vanishes here).").format(**numbers)
else:
    measured = _("Here, with pair {pair}: the score is {score}, qᵀR((n − m)θ)k = {right} and "
                 "qᵀR((m − n)θ)k = {wrong}.").format(**numbers)
# Translators: {measured} is the sentence "Here, with pair {pair}: …", translated on its own.
st.info(_(
    "**About the sign of the relative rotation in two of the articles.** In “{article_001}” "
    "(positional encoding from the standard one to RoPE), the 2-D matrix form writes the "
    "product of the two rotations as the matrix with −sin((m − n)θ) in its top right "
    "corner, that is R((m − n)θ). But R(mθ)ᵀR(nθ) = R((n − m)θ): its top right entry is "
    "+sin((m − n)θ), and only this one matches the article's own formula for g. In "
    "“{article_002}” (a summary of the paper, not the paper itself), the general case "
    "writes q R_m R_nᵀ kᵀ for row vectors; the transpose belongs on R_m (q R_mᵀ R_n kᵀ), "
    "since R_m R_nᵀ = R_(m−n); the result it states, q R_(n−m) kᵀ, is right. {measured}").format(
        article_001=ARTICLE_001, article_002=_(ARTICLE_002), measured=measured),
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
