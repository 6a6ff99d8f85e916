"""The Sinusoidal page's figures (pages/sinusoidal.py) and the cached tables, metrics and
sentences that feed them: the additive table PE, the dot products of its rows, and how
accurately the power and the exponential form of the frequencies are computed."""

import numpy as np
import pandas as pd
import torch

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import _

PE_SCALE = 100  # the table heatmap sends 100·PE rounded to whole numbers (int8)
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


def forms_metrics(dim: int, base: float) -> list[tuple[str, str, str]]:
    """The largest relative error of each form and dtype (:func:`forms_summary`) as
    metrics: (label, value, help in machine epsilons)."""
    eps = {dname: torch.finfo(dtype).eps for dname, dtype in DTYPES.items()}
    return [(_("{form} form, {dtype}").format(form=form, dtype=dname), f"{worst:.2e}",
             _("{ratio} × machine epsilon of {dtype} ({eps})").format(
                 ratio=f"{worst / eps[dname]:.2f}", dtype=dname, eps=f"{eps[dname]:.2e}"))
            for (dname, form), worst in forms_summary(dim, base)["largest"].items()]


def forms_notes(dim: int, base: float) -> tuple[str, ...]:
    """The sentences under the frequency forms (:func:`forms_summary`): each form's largest
    error in machine epsilons, whether that is rounding, which form is the more accurate in
    float32 and why, whether every value is finite, and float32's range against the
    largest base and head dim the sidebar offers."""
    forms = forms_summary(dim, base)
    stats = forms["largest"]
    eps = {dname: torch.finfo(dtype).eps for dname, dtype in DTYPES.items()}
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
                   "multiplies the rounding error of ln(base)/d by 2i, so its error grows with "
                   "i).")
    else:
        better = _("Here the power form is the more accurate one in float32.")
    return (
        _("In float32 the largest relative errors are {pow32} (power) and {exp32} "
          "(exponential), i.e. {pow32_eps} and {exp32_eps} machine epsilons; in float64 {pow64} "
          "and {exp64} ({pow64_eps} and {exp64_eps} epsilons).").format(
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
        _("Even for base {base} and d = {dim}, the largest intermediate (the base itself, "
          "{base}) and the smallest frequency ({omega}) sit far inside float32's range "
          "{tiny} … {most}. Choose either form; the exponential is a habit, not a fix.").format(
            base=ui.fmt_base(worst_base), dim=worst_dim, omega=f"{worst_omega:.1e}",
            tiny=f"{f32.tiny:.1e}", most=f"{f32.max:.1e}"))
