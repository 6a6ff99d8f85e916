"""Step by step: rotate a vector you type, by hand, in three equivalent ways."""

import math

import streamlit as st

import rope_core as rc
import ui
from ui.i18n import N_, _, ngettext

DEFAULT_Q = "1, 2, 3, 4"
DEFAULT_M = 2
ARTICLE_TITLE = "RoPE 旋转位置编码详解与计算示例"  # the seed article with the d = 4 example
MAX_LEN = 16
MAX_ABS_ENTRY = 1e12
M_LIMIT = 10**6
# the layouts named in figure titles (Plotly shows no `code`); the link values stay
LAYOUT_NAMES = {"interleaved": N_("interleaved layout"), "half": N_("half layout")}
# the per-pair table's headers as shown on the page (the CSV keeps the English ones)
PAIR_HEADERS = {
    "base": N_("base"), "layout": N_("layout"), "d": "d", "m [tokens]": N_("m [tokens]"),
    "pair i": N_("pair i"), "coordinate a": N_("coordinate a"), "coordinate b": N_("coordinate b"),
    "theta_i [rad/token]": N_("theta_i [rad/token]"),
    "angle m*theta_i [rad]": N_("angle m*theta_i [rad]"),
    "angle mod 2pi [rad]": N_("angle mod 2pi [rad]"), "cos": "cos", "sin": "sin",
}


def parse_vector(text: str) -> tuple:
    """'1, 2, 3, 4' -> (1.0, 2.0, 3.0, 4.0); ValueError with a readable message."""
    body = text.strip().strip("[]()").strip()
    if not body:
        raise ValueError(_("q is empty: type 2 to {most} numbers separated by commas, "
                           "for example 1, 2, 3, 4.").format(most=MAX_LEN))
    pieces = body.split(",") if "," in body else body.split()
    values = []
    for n, piece in enumerate(pieces, start=1):
        piece = piece.strip()
        if not piece:
            raise ValueError(_("Entry {n} of q is empty (two commas in a row, or a comma at "
                               "the end?). Type numbers separated by commas, e.g. 1, 2, 3, "
                               "4.").format(n=n))
        try:
            value = float(piece)
        except ValueError:
            raise ValueError(_("Entry {n} of q, {entry}, is not a number. Type numbers "
                               "separated by commas, e.g. 1, 2, 3, 4.").format(
                                   n=n, entry=repr(piece))) from None
        if not math.isfinite(value):
            raise ValueError(_("Entry {n} of q is {entry}: every entry must be a finite "
                               "number (no NaN or infinity).").format(n=n, entry=repr(piece)))
        if abs(value) > MAX_ABS_ENTRY:
            raise ValueError(_("Entry {n} of q is {entry}: entries must be at most "
                               "{most} in absolute value.").format(
                                   n=n, entry=piece, most=f"{MAX_ABS_ENTRY:.0e}"))
        values.append(value)
    if len(values) > MAX_LEN:
        raise ValueError(_("q has {n} numbers; this page works through at most {most} by "
                           "hand.").format(n=len(values), most=MAX_LEN))
    if len(values) < 2 or len(values) % 2:
        raise ValueError(ngettext(
            "q has {n} number; RoPE rotates pairs of coordinates, so q needs an even count "
            "from 2 to {most}.",
            "q has {n} numbers; RoPE rotates pairs of coordinates, so q needs an even count "
            "from 2 to {most}.", len(values)).format(n=len(values), most=MAX_LEN))
    return tuple(values)


@ui.table
def steps(q: tuple, m: int, base: float, layout: str):
    """Every intermediate of R_m q (rope_core.step_tables): per coordinate, per pair, R_m."""
    return rc.step_tables(q, m, base, layout)


def num(v: float) -> str:
    """A number as LaTeX, 6 decimals."""
    return f"{v:.6f}".replace("-0.000000", "0.000000")


def column(values) -> str:
    return r"\begin{bmatrix}" + r" \\ ".join(num(v) for v in values) + r"\end{bmatrix}"


def sub(i: int) -> str:
    """2 -> '₂' (subscript digits for plain text)."""
    return str(i).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def row_vector(values) -> str:
    """(a, b, …) that may break after each comma on a narrow screen (\\left( would
    make it one unbreakable piece)."""
    return "(" + r",\ \allowbreak ".join(num(v) for v in values) + ")"


@ui.figure
def matrix_figure(q: tuple, m: int, base: float, layout: str):
    """The dense R_m as a heatmap with its entries written in the cells."""
    matrix = steps(q, m, base, layout)["matrix"]
    d = len(q)
    z = matrix["R_m entry"].to_numpy().reshape(d, d)
    labels = [["" if v == 0 else f"{v:.3f}" for v in row] for row in z]
    heatmap = dict(type="heatmap", z=ui.typed(z), x=list(range(d)), y=list(range(d)),
                   text=labels, texttemplate="%{text}", textfont=dict(size=13 if d <= 8 else 10),
                   colorscale=ui.colorscale("RdBu"), zmid=0, zmin=-1, zmax=1,
                   colorbar=dict(title=dict(text=_("entry"))), xgap=1, ygap=1,
                   hovertemplate=_("row {row}, column {column}<br>{value}").format(
                       row="%{y}", column="%{x}", value="%{z:.6f}") + "<extra></extra>")
    fig = ui.style(ui.sketch(),
                   title=_("Dense R_m for m = {m} (d = {d}, base {base}, {layout}): blank cells "
                           "are 0").format(m=m, d=d, base=ui.fmt_base(base),
                                           layout=_(LAYOUT_NAMES[layout])),
                   x=_("column"), y=_("row"), height=380 + 20 * d)
    ui.square(fig, dtick=1)
    ui.relayout(fig, xaxes=dict(dtick=1), yaxes=dict(autorange="reversed"))
    return ui.kept([heatmap], fig)


@ui.prose
def worked(q: tuple, m: int, base: float, layout: str) -> dict:
    """What sections 1, 2, 4 and 5 show from the step tables, once per setting and
    language: the per-pair table with its headers translated (the CSV keeps English ones),
    each pair's turn (a sentence and its 2×2 product, one Markdown for all pairs), the
    element-wise form and each pair's complex product (LaTeX lines), and the numbers
    quoted under them."""
    tables = steps(q, m, base, layout)
    table, pairs = tables["coordinates"], tables["pairs"]
    q_j, out, cplx = (table[c].to_numpy() for c in ("q_j", "dense R_m q", "complex form"))
    turns, products = [], []
    for i, a, b, theta, angle, c, sn in zip(
            pairs["pair i"].to_numpy(), pairs["coordinate a"].to_numpy(),
            pairs["coordinate b"].to_numpy(), pairs["theta_i [rad/token]"].to_numpy(),
            pairs["angle m*theta_i [rad]"].to_numpy(), pairs["cos"].to_numpy(),
            pairs["sin"].to_numpy()):
        i, a, b = int(i), int(a), int(b)
        turns.append(_("**Pair {i}**: coordinates ({a}, {b}), angle m·θ{index} = {m}·{theta} = "
                       "{angle} rad").format(i=i, a=a, b=b, index=sub(i), m=m,
                                             theta=f"{theta:.6g}", angle=f"{angle:.6g}"))
        turns.append("$$\n" + rf"\begin{{bmatrix}} q'_{{{a}}} \\ q'_{{{b}}} \end{{bmatrix}} = "
                     rf"\begin{{bmatrix}} {num(c)} & {num(-sn)} \\ {num(sn)} & {num(c)} "
                     rf"\end{{bmatrix}} {column([q_j[a], q_j[b]])} = "
                     rf"{column([out[a], out[b]])}" + "\n$$")
        products.append(
            rf"z'_{{{i}}} = ({num(q_j[a])} {'+' if q_j[b] >= 0 else '-'} {num(abs(q_j[b]))}\,\iota)"
            rf"\,({num(c)} {'+' if sn >= 0 else '-'} "
            rf"{num(abs(sn))}\,\iota) = {num(cplx[a])} "
            rf"{'+' if cplx[b] >= 0 else '-'} {num(abs(cplx[b]))}\,\iota")
    rotate_text = (r"(-q_1,\ q_0,\ -q_3,\ q_2,\ \dots)" if layout == "interleaved" else
                   r"(-q_{d/2},\dots,-q_{d-1},\ q_0,\dots,q_{d/2-1})")
    elementwise = (
        # Translators: a LaTeX formula with named fields, so its braces are doubled ({{ }}):
        # keep them and the fields; translate only the word inside \operatorname{{…}} (e.g.
        # as \text{{…}}).
        _(r"R_m q = q \odot \cos(m\theta) + \operatorname{{rotate}}(q) \odot "
          r"\sin(m\theta),\qquad \operatorname{{rotate}}(q) = {rotated}").format(
            rotated=rotate_text),
        r"\cos = " + row_vector(table["cos"]),
        r"\sin = " + row_vector(table["sin"]),
        # Translators: LaTeX, as above: translate only the word inside \operatorname{{…}}.
        _(r"\operatorname{{rotate}}(q) = {vector}").format(
            vector=row_vector(table["rotate(q)_j"])),
        # Translators: LaTeX, as above: translate only the word inside \operatorname{{…}}.
        _(r"q \odot \cos + \operatorname{{rotate}}(q) \odot \sin = {vector}").format(
            vector=row_vector(table["elementwise"])))
    summary = tables["summary"].iloc[0]
    return {"pairs": ui.arrow(pairs.rename(columns={c: _(h) for c, h in PAIR_HEADERS.items()})),
            "turns": "\n\n".join(turns), "elementwise": elementwise,
            "rotated": r"R_m\,q = " + row_vector(out), "out": tuple(out.tolist()),
            "complex": tuple(products),
            "gap": float(summary["largest difference between forms"]),
            "norm_q": float(summary["norm of q"]), "norm_out": float(summary["norm of R_m q"])}


@ui.table
def article_second_pair() -> tuple[float, float]:
    """The article's second pair (3, 4) turned by its angle 2·0.0001 rad instead of
    2·θ₁ (the same on every run: computed once)."""
    x, y = rc.pair_trajectory((3.0, 4.0), (1.0, 0.0), 1e-4, [2], [0])["q_rot"][0]
    return float(x), float(y)


s = ui.settings()
st.title(_("Step by step"))
st.markdown(_(
    "Type a short vector q and a position m, and follow RoPE by hand: compute the "
    "frequencies, turn each pair of coordinates, then check that the dense matrix, the "
    "element-wise formula used in code and the complex-number form all land on the same "
    "vector."))
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
lengths = dict(norm_q=f"{norm_q:.6f}", norm_out=f"{norm_out:.6f}",
               diff=f"{abs(norm_q - norm_out):.1e}")
ui.explain(
    _("The three forms agree exactly here: they are one computation written three ways. "
      "The length is kept (‖q‖ = {norm_q}, ‖R_m q‖ = {norm_out}, difference {diff}) because "
      "every block is a rotation.").format(**lengths)
    if gap == 0 else
    _("The three forms agree to {gap}, float64 rounding: they are one computation written "
      "three ways. The length is kept (‖q‖ = {norm_q}, ‖R_m q‖ = {norm_out}, difference "
      "{diff}) because every block is a rotation.").format(gap=f"{gap:.1e}", **lengths))

default_example = q == parse_vector(DEFAULT_Q) and m == DEFAULT_M and s.base == 10_000
article_pair = article_second_pair()
if default_example and s.layout == "interleaved":
    ours = shown["out"]
    here = _("This page gives q′ = ({q0}, {q1}, {q2}, {q3}).").format(
        q0=f"{ours[0]:.6f}", q1=f"{ours[1]:.6f}", q2=f"{ours[2]:.6f}", q3=f"{ours[3]:.6f}")
else:
    here = _("Set q = 1, 2, 3, 4, m = 2, base 10⁴ and the `interleaved` layout to see the "
             "correct numbers.")
st.info(_(
    "**About the worked example in the article “{title}” (RoPE rotary position "
    "encoding explained, with a worked example; d = 4, m = 2, q = [1, 2, 3, 4]).** "
    "It computes a frequency for each of the four coordinates instead of one per pair, so "
    "the second pair (q₂, q₃) is turned by 2·0.0001 = 0.0002 rad instead of 2·θ₁ = 2·0.01 = "
    "0.02 rad. Even for that angle its products are off: 3·cos 0.0002 − 4·sin 0.0002 = "
    "{first} and 3·sin 0.0002 + 4·cos 0.0002 = {second}, not the 2.99999194 and 4.00000594 "
    "it prints. Of its first pair, (−2.2347, 0.0771), only the first number is correct: it "
    "multiplies cos 2 and sin 2 rounded to −0.4161 and 0.9093, and 1·0.9093 + 2·(−0.4161) = "
    "0.0771 is that rounding's artefact. With cos 2 = −0.416147 and sin 2 = 0.909297 the "
    "pair is 1·cos 2 − 2·sin 2 = −2.234742 and 1·sin 2 + 2·cos 2 = 0.077004. {result}").format(
        title=ARTICLE_TITLE, first=f"{article_pair[0]:.8f}",
        second=f"{article_pair[1]:.8f}", result=here), icon=":material/info:")

st.header(_("Tables"))
tag = f"d{d}_m{m}_base{ui.slug(s.base)}_{s.layout}"
ui.download(steps, q, m, s.base, s.layout, part="coordinates",
            filename=f"step_by_step_{tag}.csv", label=_("step table"), key="step")
ui.download(steps, q, m, s.base, s.layout, part="matrix",
            filename=f"step_by_step_matrix_{tag}.csv", label=_("R_m table"),
            key="step_matrix")
