"""The Long-term decay page's figures (pages/decay.py) and the cached tables and sentences
that feed them: RoFormer's relative upper bound per base and head dim, and the actual
scores of aligned and random vectors against distance."""

import math

import pandas as pd

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import _, ngettext

LINEAR_POINTS = 2_000  # at most this many evenly spaced integer distances
R_COL, B_COL, RATIO_COL = "distance r [tokens]", "upper bound", "upper bound / bound(0)"


@ui.table
def bound_table(curves: tuple, max_distance: int, axis: str, device: str) -> pd.DataFrame:
    """Tidy table of the relative upper bound: a block of rows per (base, dim)."""
    return rc.bound_table(curves, max_distance, axis, device=device)


@ui.table
def score_table(dim: int, base: float, max_distance: int, axis: str, layout: str, trials: int,
                seed: int, device: str) -> pd.DataFrame:
    """q^T R_r k for q = k = all-ones, and mean/std over random Gaussian q, k."""
    return rc.score_table(dim, base, max_distance, axis, layout, trials, seed, device=device)


def half_sentence(block: pd.DataFrame, dim: int, subject: str) -> str:
    """Where a bound curve first falls under half of its start, bound(0) = (d/2 + 1)/2, and
    its average over the plotted samples, said of ``subject`` ("It", "The curve for …")."""
    before, at = rc.first_below(block[R_COL].to_numpy(), block[B_COL].to_numpy(),
                                (dim / 2 + 1) / 4)
    average = f"{block[B_COL].mean():.2f}"
    if at is None:
        return _("{subject} stays above half its starting height over the whole range shown "
                 "and averages {average} there.").format(subject=subject, average=average)
    if before is None or at - before <= 1:
        return ngettext(
            "{subject} falls below half its starting height at r = {at} token and averages "
            "{average} over the plotted distances.",
            "{subject} falls below half its starting height at r = {at} tokens and averages "
            "{average} over the plotted distances.", at).format(
                subject=subject, at=i18n.integer(at), average=average)
    return _("{subject} falls below half its starting height between the plotted samples "
             "r = {before} and r = {at} tokens, and averages {average} over the plotted "
             "distances.").format(subject=subject, before=i18n.integer(before),
                                  at=i18n.integer(at), average=average)


@ui.prose
def bound_summary(curves: tuple, max_distance: int, axis: str, device: str) -> dict:
    """What the text under the bound quotes, once per setting and language: the first
    curve's (the sidebar's base and d) first and last sample and its lowest value, and
    each curve's first distance under half of bound(0) and average, as sentences
    (``per_curve``, the sidebar's curve first)."""
    bound = bound_table(curves, max_distance, axis, device)
    base, dim = curves[0]  # the sidebar's curve
    main = bound[(bound["base"] == base) & (bound["dim"] == dim)]
    start, end = main.iloc[0], main.iloc[-1]
    per_curve = tuple(
        half_sentence(block, d, _("It") if k == 0 else _("The curve for {curve}").format(
            curve=curve_name(b, d)))
        for k, ((b, d), block) in enumerate(bound.groupby(["base", "dim"], sort=False)))
    return {"start": float(start[B_COL]), "r_start": int(start[R_COL]),
            "end": float(end[B_COL]), "r_end": int(end[R_COL]),
            "lowest": float(main[B_COL].min()), "per_curve": per_curve}


@ui.table
def score_summary(dim: int, base: float, max_distance: int, axis: str, layout: str,
                  trials: int, seed: int, device: str) -> dict:
    """What the text under the scores quotes, once per setting: the first and last distance
    and the all-ones score there, the average |mean| and the average std of the random
    scores, and how many distances there are."""
    scores = score_table(dim, base, max_distance, axis, layout, trials, seed, device)
    aligned = scores["score q=k=1"]
    return {"r0": scores[R_COL].iloc[0], "r1": scores[R_COL].iloc[-1],
            "first": aligned.iloc[0], "last": aligned.iloc[-1],
            "mean_abs": float(scores["mean random score"].abs().mean()),
            "std_avg": float(scores["std random score"].mean()), "count": len(scores)}


def x_title(axis: str) -> str:
    if axis == "log":
        return _("relative distance r [tokens] (log scale)")
    return _("relative distance r [tokens]")


def curve_name(base: float, dim: int) -> str:
    return _("base {base}, d = {dim}").format(base=ui.fmt_base(base), dim=dim)


def hover(label: str) -> str:
    """A hover text: the distance and the value of one curve."""
    return label.format(r="%{x:,}", value="%{y:.3f}")


def as_plotly_writes(fig: ui.Frozen, axis: str) -> ui.Frozen:
    """A kept figure with its layout keys in the order a go.Figure writes them (the
    template first) and, on the log distance axis, a log x axis (its keys after the
    style's, where Plotly's update adds them): the JSON sent is the validated figure's,
    byte for byte."""
    layout = fig.spec["layout"]
    xaxis = dict(layout["xaxis"], **ui.LOG_AXIS) if axis == "log" else layout["xaxis"]
    return ui.Frozen(dict(fig.spec, layout={"template": layout["template"],
                                            **dict(layout, xaxis=xaxis)}))


def normalised(curves: tuple) -> bool:
    """Whether the bound is drawn over its value at r = 0: when the head dims differ
    (bound(0) = (d/2 + 1)/2 grows with d, and a d = 512 curve squashed a d = 32 one)."""
    return len({dim for _base, dim in curves}) > 1


@ui.figure
def bound_figure(curves: tuple, max_distance: int, axis: str, device: str) -> ui.Frozen:
    """One line per (base, dim), built as the sent form (ui.kept_figure; trace keys in
    the order Plotly writes them); each over its value at r = 0 when the head dims
    differ (:func:`normalised`), the bound itself in the hover."""
    bound = bound_table(curves, max_distance, axis, device)
    ratio = normalised(curves)
    label = (_("r={r} tokens<br>bound={bound}<br>bound/bound(0)={value}") if ratio else
             _("r={r} tokens<br>bound={value}"))
    traces = []
    for n, ((base, dim), block) in enumerate(bound.groupby(["base", "dim"], sort=False)):
        name = curve_name(base, dim)
        trace = dict(hovertemplate=label.format(r="%{x:,}", value="%{y:.3f}",
                                                bound="%{customdata:.3f}") +
                     "<extra>" + name + "</extra>",
                     line=dict(color=ui.COLORS[n % len(ui.COLORS)],
                               width=2.5 if n == 0 else 1.6),
                     mode="lines", name=name, x=block[R_COL].to_numpy(),
                     y=block[RATIO_COL if ratio else B_COL].to_numpy(), type="scatter")
        if ratio:
            trace["customdata"] = ui.typed(block[B_COL].to_numpy())
        traces.append(trace)
    fig = ui.kept_figure(traces, title=_("Relative upper bound (RoFormer fig. 2)"),
                         x=x_title(axis), height=440,
                         y=_("bound(r) / bound(0): each curve over its value at r = 0")
                         if ratio else _("relative upper bound"))
    return as_plotly_writes(fig, axis)


def normalised_note(curves: tuple) -> tuple[str, ...]:
    """The sentence under the bound when it is drawn over its value at r = 0."""
    if not normalised(curves):
        return ()
    return (_("The head dims differ, so the plot divides each curve by its value at r = 0, "
              "(d/2 + 1)/2, and every curve starts at 1 (the numbers above are the bound "
              "itself; the CSV has both)."),)


@ui.figure
def score_figure(dim: int, base: float, max_distance: int, axis: str, layout: str,
                 trials: int, seed: int, device: str) -> ui.Frozen:
    """The all-ones score and the random pairs' mean and band, built as the sent form."""
    scores = score_table(dim, base, max_distance, axis, layout, trials, seed, device)
    r = scores[R_COL].to_numpy()
    mean, std = scores["mean random score"].to_numpy(), scores["std random score"].to_numpy()
    band = ngettext("random q, k: mean ± 1 std ({n} pair)",
                    "random q, k: mean ± 1 std ({n} pairs)", trials).format(n=trials)
    traces = [
        dict(hoverinfo="skip", legendgroup="random", line=dict(width=0), mode="lines",
             showlegend=False, x=r, y=mean + std, type="scatter"),
        dict(fill="tonexty", fillcolor="rgba(214, 39, 40, 0.18)", hoverinfo="skip",
             legendgroup="random", line=dict(width=0), mode="lines", name=band, x=r,
             y=mean - std, type="scatter"),
        dict(hovertemplate=hover(_("r={r} tokens<br>mean={value}")) + "<extra></extra>",
             legendgroup="random", line=dict(color=ui.COLORS[1], width=1.6), mode="lines",
             name=_("random q, k: mean"), x=r, y=mean, type="scatter"),
        dict(hovertemplate=hover(_("r={r} tokens<br>score={value}")) + "<extra></extra>",
             line=dict(color=ui.COLORS[0], width=2.5), mode="lines",
             name=_("q = k = all ones"), x=r, y=scores["score q=k=1"].to_numpy(),
             type="scatter")]
    titles = {"interleaved": _("Actual score qᵀR_r k (base {base}, d = {dim}, interleaved)"),
              "half": _("Actual score qᵀR_r k (base {base}, d = {dim}, half)")}
    fig = ui.kept_figure(traces, title=titles[layout].format(base=ui.fmt_base(base), dim=dim),
                         x=x_title(axis), y=_("score qᵀR_r k"), height=440)
    return as_plotly_writes(fig, axis)


def bound_notes(curves: tuple, max_distance: int, axis: str,
                device: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """The sentences under the bound: the sidebar's curve (the first of ``curves``) from its
    first to its last sample and its first distance under half of bound(0) and average;
    the same for each other curve, one sentence each (a list); then, apart, where the bound
    levels off (rope_core.bound_plateau, past the longest wavelength)."""
    base, dim = curves[0]
    summary = bound_summary(curves, max_distance, axis, device)
    plateau = rc.bound_plateau(dim)
    longest = float(rc.wavelength(rc.theta(dim, base))[-1])
    return (
        _("**The bound first decays, then levels off.** For base {base} and d = {dim} it is "
          "{start} at r = {r_start} and {end} at r = {r_end}, never below {lowest} in "
          "between.").format(
            base=ui.fmt_base(base), dim=dim, start=f"{summary['start']:.2f}",
            r_start=i18n.integer(summary["r_start"]), end=f"{summary['end']:.2f}",
            r_end=i18n.integer(summary["r_end"]), lowest=f"{summary['lowest']:.2f}"),
        summary["per_curve"][0]), summary["per_curve"][1:], (
        _("It does not keep decaying: once r is well past the longest wavelength ({longest} "
          "tokens here) the phases rθₗ are effectively random mod 2π, so each |S_j| grows only "
          "like √j (a random walk of j unit steps) instead of shrinking, and the bound scatters "
          "around (1/(d/2))·Σⱼ √(πj)/2 ≈ {plateau} instead of going to 0 (try the largest "
          "distance 10⁶ on the log axis).").format(
            longest=i18n.integer(round(longest)), plateau=f"{plateau:.2f}"))


def score_notes(dim: int, base: float, max_distance: int, axis: str, layout: str, trials: int,
                seed: int, device: str) -> tuple[str, str]:
    """The sentences under the scores (:func:`score_summary`): the all-ones score at the
    first and last distance, and the random pairs' mean and spread."""
    quoted = score_summary(dim, base, max_distance, axis, layout, trials, seed, device)
    mean_abs, std_avg = quoted["mean_abs"], quoted["std_avg"]
    if trials > 1:
        random_text = _(
            "**Random vectors do not:** over {trials} Gaussian pairs the mean score is about 0 at "
            "every distance (average |mean| {mean_abs}, while a mean of {trials} draws scatters "
            "by about √(d/{trials}) = {scatter}), and the spread stays near √d = {sqrt_d} "
            "(average std {std}) however far apart the tokens are.").format(
            trials=trials, mean_abs=f"{mean_abs:.2f}",
            scatter=f"{math.sqrt(dim / trials):.2f}", sqrt_d=f"{math.sqrt(dim):.2f}",
            std=f"{std_avg:.2f}")
    else:
        random_text = _(
            "**Random vectors do not:** a single Gaussian pair has no spread to measure (std 0); "
            "its score wanders up and down with average size {mean_abs}, on the scale of "
            "√d = {sqrt_d}, at near and far distances alike. Add pairs to see the band.").format(
            mean_abs=f"{mean_abs:.2f}", sqrt_d=f"{math.sqrt(dim):.2f}")
    return (_("**Aligned vectors decay too:** q = k = all ones scores {first} at r = {r_first} "
              "and {last} at r = {r_last}.").format(
                first=f"{quoted['first']:.1f}", r_first=i18n.integer(round(quoted["r0"])),
                last=f"{quoted['last']:.2f}", r_last=i18n.integer(round(quoted["r1"]))),
            random_text)


def sampling_note(dim: int, base: float, max_distance: int, axis: str, layout: str,
                  trials: int, seed: int, device: str) -> str:
    """The caption under a linear axis sampled more sparsely than every token: the step
    between samples and how many distances there are."""
    quoted = score_summary(dim, base, max_distance, axis, layout, trials, seed, device)
    step = max_distance / (LINEAR_POINTS - 1)
    return ngettext(
        "Sampled every ≈{step} token ({count} distances): the fastest pair turns once every "
        "2π ≈ 6.3 tokens, so the ripples between samples are not drawn. Use the log axis to "
        "see short distances in detail.",
        "Sampled every ≈{step} tokens ({count} distances): the fastest pair turns once every "
        "2π ≈ 6.3 tokens, so the ripples between samples are not drawn. Use the log axis to "
        "see short distances in detail.", round(step)).format(
        step=i18n.integer(round(step)), count=i18n.integer(quoted["count"]))
