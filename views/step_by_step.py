"""The Step by step page's figure (pages/step_by_step.py) and the cached tables and text
that feed it: a typed vector q read safely, every intermediate of R_m q as tables and
LaTeX, the dense R_m, and the sentences written from the three forms' numbers."""

import math

import rope_core as rc
import ui
from ui.i18n import N_, _, ngettext

MAX_LEN = 16
ARTICLE_Q, ARTICLE_M = (1.0, 2.0, 3.0, 4.0), 2  # the article's example (q = [1, 2, 3, 4], m = 2)
MAX_ABS_ENTRY = 1e12
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


def forms_note(gap: float, norm_q: float, norm_out: float) -> str:
    """The sentence under the three forms: how far apart they are and the kept length."""
    lengths = dict(norm_q=f"{norm_q:.6f}", norm_out=f"{norm_out:.6f}",
                   diff=f"{abs(norm_q - norm_out):.1e}")
    if gap == 0:
        return _("The three forms agree exactly here: they are one computation written three "
                 "ways. The length is kept (‖q‖ = {norm_q}, ‖R_m q‖ = {norm_out}, difference "
                 "{diff}) because every block is a rotation.").format(**lengths)
    return _("The three forms agree to {gap}, float64 rounding: they are one computation "
             "written three ways. The length is kept (‖q‖ = {norm_q}, ‖R_m q‖ = {norm_out}, "
             "difference {diff}) because every block is a rotation.").format(
                 gap=f"{gap:.1e}", **lengths)


def article_result(q: tuple, m: int, base: float, layout: str) -> str:
    """The last sentence of the note on the article's worked example: this page's q′ at the
    article's settings (q = 1, 2, 3, 4, m = 2, base 10⁴, interleaved), else how to set them."""
    if q == ARTICLE_Q and m == ARTICLE_M and base == 10_000 and layout == "interleaved":
        ours = worked(q, m, base, layout)["out"]
        return _("This page gives q′ = ({q0}, {q1}, {q2}, {q3}).").format(
            q0=f"{ours[0]:.6f}", q1=f"{ours[1]:.6f}", q2=f"{ours[2]:.6f}", q3=f"{ours[3]:.6f}")
    return _("Set q = 1, 2, 3, 4, m = 2, base 10⁴ and the `interleaved` layout to see the "
             "correct numbers.")
