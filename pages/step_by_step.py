"""Step by step: rotate a vector you type, by hand, in three equivalent ways."""

import math

import plotly.graph_objects as go
import streamlit as st
import torch

import rope_core as rc
import ui
from rope_core.rotation import pair_views

DEFAULT_Q = "1, 2, 3, 4"
DEFAULT_M = 2
MAX_LEN = 16
MAX_ABS_ENTRY = 1e12
M_LIMIT = 10**6


def parse_vector(text: str) -> tuple:
    """'1, 2, 3, 4' -> (1.0, 2.0, 3.0, 4.0); ValueError with a readable message."""
    body = text.strip().strip("[]()").strip()
    if not body:
        raise ValueError("q is empty: type 2 to 16 numbers separated by commas, "
                         "for example 1, 2, 3, 4.")
    pieces = body.split(",") if "," in body else body.split()
    values = []
    for n, piece in enumerate(pieces, start=1):
        piece = piece.strip()
        if not piece:
            raise ValueError(f"Entry {n} of q is empty (two commas in a row, or a comma at "
                             "the end?). Type numbers separated by commas, e.g. 1, 2, 3, 4.")
        try:
            value = float(piece)
        except ValueError:
            raise ValueError(f"Entry {n} of q, {piece!r}, is not a number. Type numbers "
                             "separated by commas, e.g. 1, 2, 3, 4.") from None
        if not math.isfinite(value):
            raise ValueError(f"Entry {n} of q is {piece!r}: every entry must be a finite "
                             "number (no NaN or infinity).")
        if abs(value) > MAX_ABS_ENTRY:
            raise ValueError(f"Entry {n} of q is {piece}: entries must be at most "
                             f"{MAX_ABS_ENTRY:.0e} in absolute value.")
        values.append(value)
    if len(values) > MAX_LEN:
        raise ValueError(f"q has {len(values)} numbers; this page works through at most "
                         f"{MAX_LEN} by hand.")
    if len(values) < 2 or len(values) % 2:
        raise ValueError(f"q has {len(values)} number{'s' if len(values) != 1 else ''}; RoPE "
                         "rotates pairs of coordinates, so q needs an even count from 2 to "
                         f"{MAX_LEN}.")
    return tuple(values)


@ui.table
def steps(q: tuple, m: int, base: float, layout: str, device: str):
    """Every intermediate of R_m q: per coordinate, per pair, and the dense matrix.

    Returns (table, pairs, matrix): one row per coordinate j; one row per pair i;
    R_m in long form.
    """
    d = len(q)
    theta = rc.theta(d, base, device=device)  # (d/2,)
    x = torch.tensor(q, dtype=torch.float64, device=device)  # (d,)
    angle = rc.angles([m], theta)[0]  # (d/2,)
    cos, sin = (t[0] for t in rc.cos_sin([m], theta))  # (d/2,) each
    perm = rc.layout_permutation(d, layout).to(device)  # interleaved slot -> coordinate
    pair_of = torch.empty(d, dtype=torch.int64, device=device)  # coordinate -> pair i
    pair_of[perm] = torch.arange(d, device=device) // 2

    # element-wise form: q * cos + rotate(q) * sin, rotate(q)_(a, b) = (-q_b, q_a)
    rotated_q = torch.empty_like(x)
    rot_a, rot_b = pair_views(rotated_q, layout)
    q_a, q_b = pair_views(x, layout)
    rot_a.copy_(-q_b)
    rot_b.copy_(q_a)
    cos_full, sin_full = cos[pair_of], sin[pair_of]  # (d,) each
    elementwise = x * cos_full + rotated_q * sin_full

    # dense form: the block-diagonal matrix times q
    R = rc.rotation_matrix(m, theta, layout=layout)  # (d, d)
    dense = R @ x

    # complex form: pair i as q_a + i q_b times e^(i m theta_i); the interleaved
    # reordering x[perm] puts pair i at (2i, 2i+1), which apply_rope_complex reads
    complex_form = torch.empty_like(x)
    complex_form[perm] = rc.apply_rope_complex(x[perm][None], [m], theta)[0]

    table = rc.to_frame({
        "j [coordinate]": torch.arange(d), "pair i": pair_of, "theta_i [rad/token]":
        theta[pair_of], "angle m*theta_i [rad]": angle[pair_of], "q_j [1]": x,
        "cos [1]": cos_full, "sin [1]": sin_full, "rotate(q)_j [1]": rotated_q,
        "elementwise [1]": elementwise, "dense R_m q [1]": dense,
        "complex form [1]": complex_form})
    a, b = pair_views(torch.arange(d), layout)
    pairs = rc.to_frame({"pair i": torch.arange(d // 2), "coordinate a": a, "coordinate b": b,
                         "theta_i [rad/token]": theta, "angle m*theta_i [rad]": angle,
                         "angle mod 2pi [rad]": torch.remainder(angle, 2 * math.pi),
                         "cos [1]": cos, "sin [1]": sin})
    matrix = rc.matrix_table(R, "row [coordinate]", "column [coordinate]", "R_m entry [1]")
    return table, pairs, matrix


def num(v: float) -> str:
    """A number as LaTeX, 6 decimals."""
    return f"{v:.6f}".replace("-0.000000", "0.000000")


def column(values) -> str:
    return r"\begin{bmatrix}" + r" \\ ".join(num(v) for v in values) + r"\end{bmatrix}"


def sub(i: int) -> str:
    """2 -> '₂' (subscript digits for plain text)."""
    return str(i).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def row_vector(values) -> str:
    return r"\left(" + r",\ ".join(num(v) for v in values) + r"\right)"


s = ui.settings()
st.title("Step by step")
st.markdown(
    "Type a short vector q and a position m, and follow RoPE by hand: compute the "
    "frequencies, turn each pair of coordinates, then check that the dense matrix, the "
    "element-wise formula used in code and the complex-number form all land on the same "
    "vector.")
c1, c2 = st.columns([2, 1])
text = ui.text("Vector q (2 to 16 numbers, comma separated, even count)", DEFAULT_Q,
                   "step_q", container=c1)
m = int(ui.number("Position m [tokens]", -M_LIMIT, M_LIMIT, DEFAULT_M, "step_m",
                      container=c2))

try:
    q = parse_vector(text)
except ValueError as err:
    ui.error(str(err))
    st.stop()
d = len(q)
st.caption(f"Here d = len(q) = {d}, **not** the sidebar's head dim ({s.dim}); the base "
           f"({ui.fmt_base(s.base)}) and the pair layout ({s.layout}) come from the "
           "sidebar.")
with ui.friendly_errors():
    table, pairs, matrix = steps(q, m, s.base, s.layout, s.device)

st.subheader("1. One frequency per pair, one angle per pair")
st.latex(r"\theta_i = \text{base}^{-2i/d},\quad i = 0,\dots,\tfrac{d}{2}-1"
         rf"\qquad (d = {d},\ \text{{base}} = {s.base:g},\ m = {m})")
pair_text = (r"(q_{2i},\,q_{2i+1})" if s.layout == "interleaved"
             else r"(q_{i},\,q_{i+d/2})")
st.markdown(f"The {s.layout} layout pairs coordinates as ${pair_text}$. Each pair gets its "
            "own frequency θᵢ and turns by the angle m·θᵢ.")
st.dataframe(pairs, hide_index=True, width="stretch")

st.subheader("2. Turn each pair by its 2×2 rotation")
for _, p in pairs.iterrows():
    i, a, b = int(p["pair i"]), int(p["coordinate a"]), int(p["coordinate b"])
    c, sn = p["cos [1]"], p["sin [1]"]
    qa, qb = table["q_j [1]"].iloc[a], table["q_j [1]"].iloc[b]
    out_a, out_b = table["dense R_m q [1]"].iloc[a], table["dense R_m q [1]"].iloc[b]
    with st.container():
        st.markdown(f"**Pair {i}**: coordinates ({a}, {b}), angle m·θ{sub(i)} = "
                    f"{m}·{p['theta_i [rad/token]']:.6g} = {p['angle m*theta_i [rad]']:.6g} rad")
        st.latex(rf"\begin{{bmatrix}} q'_{{{a}}} \\ q'_{{{b}}} \end{{bmatrix}} = "
                 rf"\begin{{bmatrix}} {num(c)} & {num(-sn)} \\ {num(sn)} & {num(c)} "
                 rf"\end{{bmatrix}} {column([qa, qb])} = {column([out_a, out_b])}")
st.markdown("Put back in place, the pairs give the rotated vector:")
st.latex(r"R_m\,q = " + row_vector(table["dense R_m q [1]"]))

st.subheader("3. The same thing as one matrix R_m")
size = d
z = matrix["R_m entry [1]"].to_numpy().reshape(size, size)
labels = [["" if v == 0 else f"{v:.3f}" for v in row] for row in z]
fig = go.Figure(go.Heatmap(z=z.tolist(), x=list(range(size)), y=list(range(size)), text=labels,
                           texttemplate="%{text}", textfont=dict(size=13 if d <= 8 else 10),
                           colorscale="RdBu", zmid=0, zmin=-1, zmax=1,
                           colorbar=dict(title="entry"), xgap=1, ygap=1,
                           hovertemplate="row %{y}, column %{x}<br>%{z:.6f}<extra></extra>"))
ui.style(fig, title=f"Dense R_m for m = {m} (d = {d}, base {ui.fmt_base(s.base)}, "
                        f"{s.layout}): blank cells are 0",
             x="column [coordinate]", y="row [coordinate]", height=380 + 20 * d)
ui.square(fig, dtick=1)
fig.update_yaxes(autorange="reversed")
fig.update_xaxes(dtick=1)
ui.show(fig, key="step_matrix_plot")
ui.explain(
    "Each pair owns a 2×2 block on its rows and columns"
    + (", so the blocks sit on the diagonal." if s.layout == "interleaved" else
       "; in the half layout pair i uses rows i and i + d/2, so the blocks are spread out.")
    + " Everything else is 0, which is why code never builds this matrix.")

st.subheader("4. Element-wise form (what the code runs)")
rotate_text = (r"(-q_1,\ q_0,\ -q_3,\ q_2,\ \dots)" if s.layout == "interleaved" else
               r"(-q_{d/2},\dots,-q_{d-1},\ q_0,\dots,q_{d/2-1})")
st.latex(r"R_m q = q \odot \cos(m\theta) + \operatorname{rotate}(q) \odot \sin(m\theta),"
         r"\qquad \operatorname{rotate}(q) = " + rotate_text)
st.latex(r"\cos = " + row_vector(table["cos [1]"]))
st.latex(r"\sin = " + row_vector(table["sin [1]"]))
st.latex(r"\operatorname{rotate}(q) = " + row_vector(table["rotate(q)_j [1]"]))
st.latex(r"q \odot \cos + \operatorname{rotate}(q) \odot \sin = "
         + row_vector(table["elementwise [1]"]))

st.subheader("5. Complex-number form")
st.latex(r"z_i = q_a + \mathrm{i}\,q_b,\qquad z'_i = z_i\, e^{\mathrm{i} m\theta_i} = "
         r"z_i\,(\cos m\theta_i + \mathrm{i}\sin m\theta_i)")
cplx = table["complex form [1]"]
for _, p in pairs.iterrows():
    i, a, b = int(p["pair i"]), int(p["coordinate a"]), int(p["coordinate b"])
    qa, qb = table["q_j [1]"].iloc[a], table["q_j [1]"].iloc[b]
    st.latex(rf"z'_{{{i}}} = ({num(qa)} {'+' if qb >= 0 else '-'} {num(abs(qb))}\,\mathrm{{i}})"
             rf"\,({num(p['cos [1]'])} {'+' if p['sin [1]'] >= 0 else '-'} "
             rf"{num(abs(p['sin [1]']))}\,\mathrm{{i}}) = {num(cplx.iloc[a])} "
             rf"{'+' if cplx.iloc[b] >= 0 else '-'} {num(abs(cplx.iloc[b]))}\,\mathrm{{i}}")
st.caption("The real part of z′ᵢ goes back to coordinate a, the imaginary part to b "
           + ("(LLaMA's torch.view_as_complex reads the interleaved layout this way)."
              if s.layout == "interleaved" else "(for the half layout: q_i + i·q_(i+d/2))."))

forms = table[["elementwise [1]", "dense R_m q [1]", "complex form [1]"]].to_numpy()
gap = float(max(abs(forms[:, u] - forms[:, v]).max() for u, v in ((0, 1), (0, 2), (1, 2))))
norm_q = math.sqrt(float((table["q_j [1]"] ** 2).sum()))
norm_out = math.sqrt(float((table["dense R_m q [1]"] ** 2).sum()))
k1, k2, k3 = st.columns(3)
k1.metric("Largest difference between the three forms", f"{gap:.1e}")
k2.metric("‖q‖", f"{norm_q:.6f}")
k3.metric("‖R_m q‖", f"{norm_out:.6f}")
ui.explain(
    ("The three forms agree exactly here" if gap == 0 else
     f"The three forms agree to {gap:.1e}, float64 rounding") +
    ": they are one computation written three ways. "
    f"The length is kept (‖q‖ = {norm_q:.6f}, ‖R_m q‖ = {norm_out:.6f}, "
    f"difference {abs(norm_q - norm_out):.1e}) because every block is a rotation.")

default_example = q == parse_vector(DEFAULT_Q) and m == DEFAULT_M and s.base == 10_000
article_check = (3 * math.cos(0.0002) - 4 * math.sin(0.0002),
                 3 * math.sin(0.0002) + 4 * math.cos(0.0002))
if default_example and s.layout == "interleaved":
    ours = table["dense R_m q [1]"]
    here = (f"This page gives q′ = ({ours.iloc[0]:.6f}, {ours.iloc[1]:.6f}, {ours.iloc[2]:.6f}, "
            f"{ours.iloc[3]:.6f}).")
else:
    here = ("Set q = 1, 2, 3, 4, m = 2, base 10⁴ and the interleaved layout to see the "
            "correct numbers.")
st.info(
    "**About the worked example in the seed article (d = 4, m = 2, q = [1, 2, 3, 4]).** "
    "It computes a frequency for each of the four coordinates instead of one per pair, so "
    "the second pair (q₂, q₃) is turned by 2·0.0001 = 0.0002 rad instead of 2·θ₁ = 2·0.01 = "
    "0.02 rad. Even for that angle its products are off: 3·cos 0.0002 − 4·sin 0.0002 = "
    f"{article_check[0]:.8f} and 3·sin 0.0002 + 4·cos 0.0002 = {article_check[1]:.8f}, not "
    "the 2.99999194 and 4.00000594 it prints. Its first pair, about (−2.2347, 0.0771), is "
    f"right. {here}", icon="ℹ️")

st.subheader("Tables")
tag = f"d{d}_m{m}_base{ui.slug(s.base)}_{s.layout}"
ui.download(steps, q, m, s.base, s.layout, s.device, part=0,
            filename=f"step_by_step_{tag}.csv", label="step table", key="step")
ui.download(steps, q, m, s.base, s.layout, s.device, part=2,
            filename=f"step_by_step_matrix_{tag}.csv", label="R_m table",
                     key="step_matrix")
