"""Sinusoidal: the original Transformer's additive table, its dot products, and
how accurately the two usual ways of writing its frequencies are computed."""

import math

import numpy as np
import pandas as pd
import streamlit as st
import torch

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import _

DMODEL_OPTIONS = list(range(2, 513, 2))
MAX_TABLE_CELLS = 2**17  # P x d_model numbers at most: 7 columns each stays in one CSV
MAX_SIMILARITY = 128  # positions 0 ... 127 at most in the PE_m . PE_n heatmap
PE_SCALE = 100  # the table heatmap sends 100·PE rounded to whole numbers (int8)
REFERENCE_DIGITS = rc.rotary.sinusoidal.REFERENCE_DIGITS
ROUNDING_EPS = 64  # errors up to this many machine epsilons count as rounding
DTYPES = {"float32": torch.float32, "float64": torch.float64}


@ui.table
def pe_table(positions: int, d_model: int, base: float, device: str) -> pd.DataFrame:
    """The table in long form: one row per (position p, dimension j)."""
    return rc.pe_table(positions, d_model, base, device=device)


@ui.table
def similarity_table(positions: int, d_model: int, base: float, device: str) -> pd.DataFrame:
    """PE_m . PE_n for every pair of positions 0 ... positions-1, in long form."""
    return rc.similarity_table(positions, d_model, base, device=device)


@ui.table
def dot_table(max_offset: int, d_model: int, base: float, device: str) -> pd.DataFrame:
    """PE_m . PE_n = sum_i cos((m - n) omega_i) for offsets -K ... K."""
    return rc.dot_table(max_offset, d_model, base, device=device)


@ui.table
def forms_table(dim: int, base: float) -> pd.DataFrame:
    """omega_i as a power and as an exponential against a 40-digit reference."""
    return rc.forms_table(dim, base)


@ui.table
def dot_summary(size: int, max_offset: int, d_model: int, base: float, device: str) -> dict:
    """What the text under the dot products quotes: the profile f(r) = PE_m · PE_n at
    r = 0 and 1, its smallest value and where, its largest |f(r) − f(−r)|, and the
    largest spread along a diagonal of the similarity heatmap."""
    dots = dot_table(max_offset, d_model, base, device)
    by_offset = dots["PE_m . PE_n"].to_numpy()  # (2K+1,), offsets −K … K
    centre, low = max_offset, int(by_offset.argmin())  # row of offset 0; of the smallest
    diagonals = similarity_table(size, d_model, base, device).groupby(
        "m - n [tokens]")["PE_m . PE_n"]
    return {"peak": float(by_offset[centre]), "next": float(by_offset[centre + 1]),
            "smallest": float(by_offset[low]),
            "offset": abs(int(dots["m - n [tokens]"].iloc[low])),
            "asymmetry": float(abs(by_offset - by_offset[::-1]).max()),  # f(r) against f(−r)
            "spread": float((diagonals.max() - diagonals.min()).max())}


@ui.table
def forms_summary(dim: int, base: float) -> dict:
    """What the metrics and text under the frequency forms quote: the largest relative
    error of each (dtype, form), how many errors are exactly 0 (of how many), whether
    every value is finite, and the smallest reference ωᵢ."""
    forms = forms_table(dim, base)
    values = forms[["pow form base^(-2i/d) [rad/token]",
                    "exp form exp(-(2i/d) ln base) [rad/token]"]].to_numpy()
    return {"largest": {(dname, form): float(block[column].max())
                        for dname, block in forms.groupby("dtype", sort=False)
                        for form, column in ERROR_COLUMNS.items()},
            "zeros": int((forms[list(ERROR_COLUMNS.values())] == 0).to_numpy().sum()),
            "errors": 2 * len(forms),
            "finite": bool(np.isfinite(values).all()),
            "smallest": float(forms["reference omega_i [rad/token]"].min())}


@ui.figure
def pe_figure(positions: int, d_model: int, base: float, device: str) -> ui.Frozen:
    """Every row of the table: 100·PE as int8 (a quarter of float32's bytes)."""
    values = pe_table(positions, d_model, base, device)["PE value"].to_numpy()
    z = (PE_SCALE * values).round().astype("int8").reshape(positions, d_model)
    ticks = [-1, -0.5, 0, 0.5, 1]
    heatmap = dict(
        type="heatmap", z=ui.typed(z), x=list(range(d_model)), y=list(range(positions)),
        colorscale=ui.colorscale("RdBu"), zmin=-PE_SCALE, zmax=PE_SCALE,
        colorbar=dict(title=dict(text="PE"), tickvals=[PE_SCALE * t for t in ticks],
                      ticktext=[f"{t:g}" for t in ticks]),
        hovertemplate=_("position p={p}<br>dimension j={j}<br>100·PE={value}").format(
            p="%{y}", j="%{x}", value="%{z}") + "<extra></extra>")
    return ui.kept_figure(
        [heatmap], title=_("Sinusoidal table PE: {positions} positions × d_model = {d_model} "
                           "(base {base})").format(positions=i18n.integer(positions),
                                                   d_model=d_model, base=ui.fmt_base(base)),
        x=_("dimension j (even: sin, odd: cos)"), y=_("position p [tokens]"), height=560,
        yaxes=dict(autorange="reversed"))


@ui.figure
def similarity_figure(size: int, d_model: int, base: float, device: str) -> ui.Frozen:
    sim = similarity_table(size, d_model, base, device)
    heatmap = dict(
        type="heatmap", z=ui.typed(sim["PE_m . PE_n"].to_numpy().reshape(size, size)),
        x=list(range(size)), y=list(range(size)), colorscale=ui.colorscale("Viridis"),
        colorbar=dict(title=dict(text="PE_m·PE_n")),
        hovertemplate="m=%{y}, n=%{x}<br>PE_m·PE_n=%{z:.4f}<extra></extra>")
    return ui.kept_figure(
        [heatmap], title=_("PE_m · PE_n for positions 0 … {last}").format(last=size - 1),
        x=_("position n [tokens]"), y=_("position m [tokens]"), height=520,
        xaxes=dict(constrain="domain"),  # ui.square, then the rows downwards
        yaxes=dict(scaleanchor="x", scaleratio=1, constrain="domain", autorange="reversed"))


@ui.figure
def dot_figure(max_offset: int, d_model: int, base: float, device: str) -> ui.Frozen:
    dots = dot_table(max_offset, d_model, base, device)
    line = dict(
        type="scatter", x=dots["m - n [tokens]"].to_numpy(), y=dots["PE_m . PE_n"].to_numpy(),
        mode="lines+markers" if max_offset <= 64 else "lines",
        name="PE_m·PE_n", line=dict(color=ui.COLORS[0]), marker=dict(size=4),
        hovertemplate="m − n=%{x}<br>PE_m·PE_n=%{y:.4f}<extra></extra>")
    return ui.kept_figure(
        [line], title=_("PE_m · PE_n against the offset m − n (±{offset})").format(
            offset=i18n.integer(max_offset)),
        x=_("offset m − n [tokens]"), y="PE_m . PE_n", height=520,
        shapes=(ui.vline(0, "gray"),))


ERROR_COLUMNS = {"pow": "relative error pow", "exp": "relative error exp"}


@ui.figure
def forms_figure(dim: int, base: float) -> ui.Frozen:
    forms = forms_table(dim, base)
    dtypes = forms["dtype"].to_numpy()
    pairs = forms["pair i"].to_numpy()
    traces = []
    for dname in dict.fromkeys(dtypes):
        rows = dtypes == dname
        for form, column in ERROR_COLUMNS.items():
            err = forms[column].to_numpy()[rows]
            name = _("{form} form, {dtype}").format(form=form, dtype=dname)
            traces.append(dict(
                type="scatter", x=pairs[rows], y=np.where(err > 0, err, np.nan), name=name,
                mode="lines+markers",
                line=dict(color=ui.COLORS[0 if form == "pow" else 1],
                          dash="solid" if dname == "float32" else "dash"),
                marker=dict(size=4),
                hovertemplate=_("i={i}<br>relative error={error}").format(
                    i="%{x}", error="%{y:.2e}") + "<extra>" + name + "</extra>"))
    return ui.kept_figure(traces, title=_("Relative error of ωᵢ in each form (log scale)"),
                          x=_("pair index i"), y=_("|form − exact| / exact"), height=420,
                          yaxes=dict(type="log", exponentformat="power"))


s = ui.settings()
st.title(_("Sinusoidal position encoding"))
st.markdown(_(
    "Before RoPE, the Transformer *added* a fixed table PE to the token embeddings. Row p "
    "of the table is a vector of d_model numbers: pairs of sines and cosines of p·ωᵢ, with "
    "the same geometric frequencies that RoPE uses to rotate q and k."))
ui.formulas(
    r"PE_{p,\,2i} = \sin(p\,\omega_i),\qquad PE_{p,\,2i+1} = \cos(p\,\omega_i)",
    # Translators: LaTeX formulas; translate only the words inside \text{…}.
    _(r"\omega_i = \text{base}^{-2i/d_{\text{model}}},\quad i = 0,\dots,"
      r"\tfrac{d_{\text{model}}}{2}-1"),
    _(r"PE_m \cdot PE_n = \sum_{i=0}^{d_{\text{model}}/2-1} "
      r"\big(\sin m\omega_i \sin n\omega_i + \cos m\omega_i \cos n\omega_i\big)"
      r" = \sum_{i=0}^{d_{\text{model}}/2-1} \cos\big((m-n)\,\omega_i\big)"))

c1, c2 = st.columns(2)
positions = ui.slider(_("Positions P [tokens]"), 16, 4096, 512, "sin_positions", step=16,
                      container=c1, help=_("Rows 0 … P−1 of the table."))
d_model = ui.select_slider(_("Model width d_model"), DMODEL_OPTIONS, 128, "sin_dmodel",
                           container=c2, allowed=_("an even integer from 2 to 512"),
                           help=_("Its own setting: the sidebar's head dim is for RoPE."))
base_txt = ui.slug(s.base)
if positions * d_model > MAX_TABLE_CELLS:
    requested, positions = positions, MAX_TABLE_CELLS // d_model
    st.info(_("P × d_model is limited to {cells} numbers, so that the CSV of the full table "
              "stays quick to write: with d_model = {d_model} this page uses the first "
              "**{positions}** of the {requested} positions asked for.").format(
                cells=i18n.integer(MAX_TABLE_CELLS), d_model=d_model,
                positions=i18n.integer(positions), requested=i18n.integer(requested)),
            icon=":material/info:")

# ------------------------------------------------------------ (a) table ----
st.header(_("The table"))
with ui.friendly_errors():
    table = pe_table(positions, d_model, s.base, s.device)
ui.show(pe_figure(positions, d_model, s.base, s.device), key="sin_pe_heatmap",
        alt=_("Heatmap of the sinusoidal table: one row per position p, one column per dimension j "
              "(even: sin, odd: cos), values from −1 to 1; the first columns change fast from row "
              "to row, the last ones slowly."), table=_("sinusoidal table"))
st.caption(_("Every one of the {positions} positions is a row of the heatmap. The figure "
             "carries 100·PE rounded to a whole number (two decimals); the CSV holds all "
             "{positions} rows × {d_model} dimensions at full float64 precision.").format(
    positions=i18n.integer(positions), d_model=d_model))
longest = float(rc.wavelength(rc.theta(d_model, s.base))[-1])
ui.explain(_(
    "Each column pair (2i, 2i+1) is one frequency ωᵢ. On the left, pair 0 turns once every "
    "2π ≈ {two_pi} positions, so the stripes are narrow; towards the right the waves slow "
    "down until the last pair needs {longest} positions for one turn, which is {fraction} "
    "of a turn within these {positions} positions.").format(
        two_pi=f"{2 * math.pi:.2f}", longest=i18n.number(longest, "#,##0"),
        fraction=f"{positions / longest:.3g}", positions=i18n.integer(positions)),
    _("Read across a row, the fast columns tell neighbouring positions apart and the slow "
      "ones tell far-apart positions apart, like the digits of a clock."))
ui.download(pe_table, positions, d_model, s.base, s.device,
            filename=f"sinusoidal_pe_P{positions}_d{d_model}_base{base_txt}.csv",
            label=_("sinusoidal table"), key="sin_pe")

# ----------------------------------------------- (b), (c) dot products ----
st.header(_("Dot products of two rows"))
size = min(positions, MAX_SIMILARITY)
max_offset = positions - 1
with ui.friendly_errors():
    dot = dot_summary(size, max_offset, d_model, s.base, s.device)

left, right = st.columns(2)
with left:
    ui.show(similarity_figure(size, d_model, s.base, s.device), key="sin_similarity",
            alt=_("Heatmap: the dot product PE_m · PE_n of every pair of positions m (rows) and n "
                  "(columns); it is largest on the diagonal and depends on m − n only."),
            table=_("similarity table"))
with right:
    ui.show(dot_figure(max_offset, d_model, s.base, s.device), key="sin_dot_profile",
            alt=_("Line chart: the dot product PE_m · PE_n against the offset m − n; it is "
                  "symmetric about 0, where it is largest, and falls off with ripples."),
            table=_("dot-product profile"))

ui.explain(
    _("The dot product peaks at offset 0 with d_model/2 = {peak} (each pair adds cos 0 = 1) "
      "and falls to {next} at offset ±1; its smallest value, {smallest}, is at offsets "
      "±{offset}. It depends on m − n alone: along every diagonal of the heatmap it varies "
      "by at most {spread}. **It is symmetric in m − n** (largest |f(r) − f(−r)| = "
      "{asymmetry}): a position 5 tokens before looks exactly like one 5 tokens after, so "
      "these dot products alone cannot tell before from after.").format(
        peak=f"{dot['peak']:g}", next=f"{dot['next']:.2f}",
        smallest=f"{dot['smallest']:.2f}", offset=dot["offset"],
        spread=f"{dot['spread']:.1e}", asymmetry=f"{dot['asymmetry']:.1e}"),
    _("That is no advantage of RoPE by itself: with q = k its score "
      "Σᵢ|q₍ᵢ₎|²cos((n − m)θᵢ) is just as symmetric. Sine terms, which change sign with "
      "n − m, appear in qᵀR₍ₙ₋ₘ₎k only when q ≠ k (different W_q and W_k projections), and "
      "sinusoidal PE gets the same kind of terms through W_Q W_Kᵀ, which mixes the sin and "
      "cos columns of PE_m and PE_n."))
ui.download(similarity_table, size, d_model, s.base, s.device,
            filename=f"sinusoidal_similarity_P{size}_d{d_model}_base{base_txt}.csv",
            label=_("similarity table"), key="sin_similarity")
ui.download(dot_table, max_offset, d_model, s.base, s.device,
            filename=f"sinusoidal_dot_K{max_offset}_d{d_model}_base{base_txt}.csv",
            label=_("dot-product profile"), key="sin_dot")

# ------------------------------------------------- (d) frequency forms ----
st.header(_("base^(−2i/d) or exp(−(2i/d)·ln base)?"))
st.markdown(_(
    "Many implementations write the frequencies as an exponential (PyTorch's `div_term`), "
    "often with the claim that the power would overflow or underflow. Both are the same "
    "number, so here they are simply **measured**: each form computed entirely in float32 "
    "and in float64 for the sidebar's d = {dim} and base {base}, against a {digits}-digit "
    "decimal value of base^(−2i/d).").format(dim=s.dim, base=ui.fmt_base(s.base),
                                            digits=REFERENCE_DIGITS))
# Translators: a LaTeX formula; translate only the words inside \text{…}.
st.latex(_(r"\omega_i = \text{base}^{-2i/d} = "
           r"\exp\!\Big(-\tfrac{2i}{d}\,\ln\text{base}\Big)"))
with ui.friendly_errors():
    forms = forms_summary(s.dim, s.base)
stats = forms["largest"]
ui.show(forms_figure(s.dim, s.base), key="sin_forms",
        alt=_("Line chart, log scale: the relative error of ωᵢ computed as a power and as an "
              "exponential, in float32 and in float64, against the pair index i."),
        table=_("frequency-form table"))
st.caption(_("{zeros} of {total} errors are exactly 0 (e.g. i = 0, where both forms give 1) "
             "and cannot be drawn on a log axis; the CSV lists them.").format(
    zeros=forms["zeros"], total=forms["errors"]))

eps = {dname: torch.finfo(dtype).eps for dname, dtype in DTYPES.items()}
st.markdown(_("**Largest relative error of each form**"))
metrics = ui.row()
for (dname, form), worst in stats.items():
    metrics.metric(_("{form} form, {dtype}").format(form=form, dtype=dname), f"{worst:.2e}",
                   help=_("{ratio} × machine epsilon of {dtype} ({eps})").format(
                       ratio=f"{worst / eps[dname]:.2f}", dtype=dname, eps=f"{eps[dname]:.2e}"))

finite, smallest = forms["finite"], forms["smallest"]
worst_base, worst_dim = float(max(ui.BASE_OPTIONS)), max(ui.DIM_OPTIONS)
worst_omega = worst_base ** (-(worst_dim - 2) / worst_dim)
f32 = torch.finfo(torch.float32)
power_better = stats[("float32", "pow")] <= stats[("float32", "exp")]
rounding = all(worst <= ROUNDING_EPS * eps[dname] for (dname, _form), worst in stats.items())
why = stats[("float32", "exp")] >= 2 * stats[("float32", "pow")]
if not power_better:
    better = _("Here the exponential form is the more accurate one in float32.")
elif why:
    better = _("Here the power form is the more accurate one in float32 (the exponential "
               "multiplies the rounding error of ln(base)/d by 2i, so its error grows with i).")
else:
    better = _("Here the power form is the more accurate one in float32.")
ui.explain(
    _("In float32 the largest relative errors are {pow32} (power) and {exp32} (exponential), "
      "i.e. {pow32_eps} and {exp32_eps} machine epsilons; in float64 {pow64} and {exp64} "
      "({pow64_eps} and {exp64_eps} epsilons).").format(
        pow32=f"{stats[('float32', 'pow')]:.1e}", exp32=f"{stats[('float32', 'exp')]:.1e}",
        pow32_eps=f"{stats[('float32', 'pow')] / eps['float32']:.1f}",
        exp32_eps=f"{stats[('float32', 'exp')] / eps['float32']:.1f}",
        pow64=f"{stats[('float64', 'pow')]:.1e}", exp64=f"{stats[('float64', 'exp')]:.1e}",
        pow64_eps=f"{stats[('float64', 'pow')] / eps['float64']:.1f}",
        exp64_eps=f"{stats[('float64', 'exp')] / eps['float64']:.1f}"),
    _("Both are plain rounding error.") if rounding else
    _("Some exceed {n} epsilons, more than rounding alone.").format(n=ROUNDING_EPS),
    better,
    (_("Nothing overflows or underflows: every value is finite and the smallest is "
       "{smallest}.") if finite else
     _("**Some values are not finite**; the smallest reference value is {smallest}.")).format(
        smallest=f"{smallest:.2e}"),
    _("Even for base {base} and d = {dim}, the largest intermediate (the base itself, {base}) "
      "and the smallest frequency ({omega}) sit far inside float32's range {tiny} … {most}. "
      "Choose either form; the exponential is a habit, not a fix.").format(
        base=ui.fmt_base(worst_base), dim=worst_dim, omega=f"{worst_omega:.1e}",
        tiny=f"{f32.tiny:.1e}", most=f"{f32.max:.1e}"))
ui.download(forms_table, s.dim, s.base,
            filename=f"frequency_forms_d{s.dim}_base{base_txt}.csv",
            label=_("frequency-form table"), key="sin_forms")
