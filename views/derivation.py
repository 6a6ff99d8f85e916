"""The Derivation page's figure (pages/derivation.py) and the cached tables, metrics and
sentences that feed it: every step of RoFormer's derivation measured on the app's RoPE,
the sign of the relative rotation, and the score of one q and k at every (m, n)."""

import rope_core as rc
import rope_core.teaching.lesson as lesson
import ui
from ui.i18n import N_, _

SEED = 7  # the q and k of every check (rope_core.toy_qk draws)
SIZE = 48  # positions of the identity heatmap
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


def sign_note(by_form: dict, pair: int) -> str:
    """The sentence "Here, with pair i: …" of the note on the articles' sign: the score
    and the two relative rotations (:func:`sign_values`), which coincide only when m = n
    or the sine term vanishes."""
    right = by_form["q^T R((n - m) theta) k"]
    wrong = by_form["q^T R((m - n) theta) k"]
    score = by_form["(R(m theta) q)^T (R(n theta) k)"]
    numbers = dict(pair=pair, score=f"{score:.6f}", right=f"{right:.6f}", wrong=f"{wrong:.6f}")
    if abs(score - wrong) < 1e-12:
        return _("Here, with pair {pair}: the score is {score}, qᵀR((n − m)θ)k = {right} and "
                 "qᵀR((m − n)θ)k = {wrong} (equal only because m = n or the sine term "
                 "vanishes here).").format(**numbers)
    return _("Here, with pair {pair}: the score is {score}, qᵀR((n − m)θ)k = {right} and "
             "qᵀR((m − n)θ)k = {wrong}.").format(**numbers)
