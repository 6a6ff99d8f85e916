"""The Trained tiny models page's figures (pages/trained_models.py), the tables behind its
CSVs, and the sentences it writes from the stored evaluation. The numbers come from
rope_core.beyond.tiny_results: each curve's accuracy per seed and group, the range of its
seeds' accuracies (rope_core.beyond.intervals.seed_interval), and the paired comparisons
across seeds, Holm-corrected within each family (the main comparisons; the loss criterion's
sensitivity run apart), printed with Bonferroni's simultaneous interval of their family;
every comparative sentence here quotes one of those comparisons."""


import numpy as np
import pandas as pd

import rope_core as rc
import ui
from rope_core.beyond import paired
from rope_core.beyond import tiny_model as tm
from rope_core.beyond import tiny_results as tr
from rope_core.beyond.alternatives import alibi_slopes
from rope_core.models import presets
from ui import constants, i18n
from ui.i18n import N_, _, ngettext

L_TRAIN = tm.TRAINING["length"]
FACTOR = tm.EVAL["factor"]
LONGEST = tm.eval_length()
SEEDS = tuple(tm.TRAINING["seeds"])
MODEL = tm.TRAINING["model"]
SPEC = tm.TRAINING["tasks"]
RECALL = tm.EVAL["recall"]
MAP_LENGTHS = (16, 32, 64)  # attention-map examples (a heatmap per head: small)
# Translators: names of position encodings in a legend and a choice.
ENCODING_NAMES = {"nope": N_("NoPE"), "sinusoidal": N_("sinusoidal"), "rope": N_("RoPE"),
                  "alibi": N_("ALiBi ×32"), "p_rope": N_("p-RoPE"), "hybrid": N_("hybrid 1:1"),
                  "irope": N_("iRoPE-like")}
# Translators: the control arms (a legend): one setting of a main arm changed.
CONTROL_NAMES = {"alibi_8_heads": N_("ALiBi as Press et al. configure it (8 heads)"),
                 "alibi_unscaled": N_("ALiBi, 2 heads, slopes unscaled"),
                 "rope_base5": N_("RoPE, base 5"),
                 "irope_chunk4": N_("iRoPE-like, chunks of 4")}
# Translators: how a model is run past its training length (legend entries).
METHOD_NAMES = {"none": N_("as trained"),
                "window": N_("with a sliding window of L_train keys"),
                "linear": N_("+ position interpolation"), "ntk": N_("+ NTK-aware"),
                "yarn": N_("+ YaRN (transformers' ramp)"),
                "yarn_no_factor": N_("+ YaRN without its attention factor"),
                "pi_slow_pairs": N_("+ interpolation of the slow pairs only"),
                "held": N_("with its signal held at PE[L_train − 1]"),
                "at_criterion": N_("stopped at the loss criterion")}
# Translators: the two tasks (a choice, and "{task} task" in titles).
TASK_NAMES = {"local": N_("Local"), "recall": N_("Recall")}
# Translators: the two tasks within a sentence ("iRoPE-like on the local task").
TASK_WORDS = {"local": N_("local"), "recall": N_("recall")}
# Translators: what the recall accuracy is measured against (a choice).
MEASURE_NAMES = {"distance": N_("distance from the store"), "depth": N_("depth of the store")}
MEASURES = {"local": ("position",), "recall": ("distance", "depth")}
PALETTE = [*ui.COLORS, "#000000"]  # seven encodings: the app's six colours and black
STYLE = {e: (PALETTE[i], "solid") for i, e in enumerate(tm.ENCODINGS)}
STYLE["p_rope"] = (PALETTE[tm.ENCODINGS.index("p_rope")], "dot")
METHOD_STYLE = {"none": (PALETTE[2], "solid"), "window": (PALETTE[1], "dash"),
                "linear": (PALETTE[0], "dash"), "ntk": (PALETTE[3], "dash"),
                "yarn": (PALETTE[4], "dash"), "yarn_no_factor": (PALETTE[4], "dot"),
                "pi_slow_pairs": (PALETTE[5], "dashdot")}
METHOD_SYMBOL = {"linear": "circle-open", "yarn_no_factor": "diamond",
                 "pi_slow_pairs": "triangle-up"}
# the curves of the controls figure: each control beside the main arm it changes (on
# recall, the base-5 RoPE model also with YaRN, beside RoPE with YaRN)
CONTROL_CURVES = {"local": (("alibi", "none"), ("alibi_8_heads", "none"),
                            ("alibi_unscaled", "none"), ("nope", "none"), ("irope", "none"),
                            ("irope_chunk4", "none")),
                  "recall": (("rope", "none"), ("rope_base5", "none"), ("rope", "yarn"),
                             ("rope_base5", "yarn"))}
CONTROL_STYLE = {("alibi", "none"): (PALETTE[3], "solid"),
                 ("alibi_8_heads", "none"): (PALETTE[3], "dash"),
                 ("alibi_unscaled", "none"): (PALETTE[3], "dot"),
                 ("nope", "none"): (PALETTE[0], "solid"), ("irope", "none"): (PALETTE[6], "solid"),
                 ("irope_chunk4", "none"): (PALETTE[6], "dash"),
                 ("rope", "none"): (PALETTE[2], "solid"),
                 ("rope_base5", "none"): (PALETTE[2], "dash"),
                 ("rope", "yarn"): (PALETTE[4], "solid"),
                 ("rope_base5", "yarn"): (PALETTE[4], "dash")}


# YaRN with the paper's ramp (linear in turns: rope_core.models.scaling.yarn_paper_ramp)
# and its attention factor, s = EVAL["factor"], on the shipped RoPE models and their stored
# evaluation sequences: the mean accuracy over seeds in the compared groups (local
# positions 96-127, recall distance 96-121). Measured by the issue 44 review and
# recomputed by tests/test_page_trained_models.py::test_yarn_with_the_papers_ramp.
YARN_PAPER_RAMP = {"local": 0.0657, "recall": 0.6233}


def yarn_beta_fast() -> float:
    """β_fast of rope_core's YaRN (the default of rope_core.models.scaling.yarn_ramp)."""
    import inspect

    from rope_core.models import scaling

    return float(inspect.signature(scaling.yarn_ramp).parameters["beta_fast"].default)


def pct(value: float, pattern: str = "0.#") -> str:
    """A share as a percentage in the run's number format: 0.934 -> "93.4%" (a chance
    level with "0.##": 1/16 -> "6.25%")."""
    return i18n.number(100 * value, pattern) + "%"


def points(value: float) -> str:
    """A difference of shares in percentage points, signed: 0.123 -> "+12.3"."""
    text = i18n.number(abs(100 * value), "0.#")
    return ("+" if value > 0 else "−" if value < 0 and text != "0" else "") + text


def p_text(p: float) -> str:
    """A p-value of at least 0.001 as the page writes it: 2 or 3 decimals."""
    return i18n.number(p, "0.00#")


def curve_label(arm: str, method: str = "none") -> str:
    """A curve's name for people: the arm (an encoding or a control), then the method."""
    arm_name = _(ENCODING_NAMES[arm]) if arm in ENCODING_NAMES else _(CONTROL_NAMES[arm])
    if method == "none":
        return arm_name
    return _("{arm} {method}").format(arm=arm_name, method=_(METHOD_NAMES[method]))


# --- the groups a figure draws ----------------------------------------------------------------

def group_indices(task: str, measure: str) -> list[int]:
    """The groups of a task along a measure: local, every position bin; recall, the
    in-distribution cell then the cells of that slice (distance or depth)."""
    groups = tm.groups(task)
    if task == "local":
        return list(range(len(groups)))
    return [i for i, g in enumerate(groups) if g["kind"] in ("train", measure)]


def group_x(task: str, measure: str) -> np.ndarray:
    """Where each group sits on the x axis: the middle of its span (tokens)."""
    groups = tm.groups(task)
    return np.array([(groups[i]["span"][0] + groups[i]["span"][1] - 1) / 2
                     for i in group_indices(task, measure)], dtype=np.float64)


def group_names(task: str, measure: str) -> list[str]:
    """Each group as the hover names it: positions a–b, or the recall cell."""
    groups = tm.groups(task)
    out = []
    for i in group_indices(task, measure):
        g = groups[i]
        if g["kind"] == "position":
            out.append(_("positions {range}").format(range=g["position"].replace("-", "–")))
        elif g["kind"] == "train":
            out.append(_("as in training (store at depth {depth}, queries {distance} "
                         "tokens after it)").format(depth=g["depth"].replace("-", "–"),
                                                    distance=g["distance"].replace("-", "–")))
        else:
            out.append(_("store at depth {depth}, queries {distance} tokens after it").format(
                depth=g["depth"].replace("-", "–"), distance=g["distance"].replace("-", "–")))
    return out


def trained_edge(task: str, measure: str) -> float:
    """Where training's range ends on the x axis: L_train (positions), the farthest
    query training shows after the store (distance), or its deepest store (depth)."""
    if measure == "distance":
        return RECALL["near"] - 0.5
    if measure == "depth":
        return RECALL["shallow"] - 0.5
    return L_TRAIN - 0.5


# --- tables (the CSVs) ------------------------------------------------------------------------

@ui.table
def accuracy_table() -> pd.DataFrame:
    """Every curve and group, seeds pooled, with the range of the seeds' accuracies."""
    return tr.aggregate_table(constants.tiny_evaluation())


@ui.table
def seed_accuracy_table() -> pd.DataFrame:
    """Every curve, seed and group: answers, right answers, accuracy."""
    return tr.seed_table(constants.tiny_evaluation(), constants.tiny_stored()["seeds"])


@ui.table
def comparisons_table() -> pd.DataFrame:
    """Every paired comparison, with its family; Holm-corrected within each family."""
    return constants.tiny_comparisons()


@ui.table
def arms_table() -> pd.DataFrame:
    """What each arm's model is, layer by layer."""
    return tr.arms_table()


@ui.table
def training_table() -> pd.DataFrame:
    """What each model's training did (tiny/weights/models.json): one row per task, arm
    and seed."""
    record = constants.tiny_record()
    rows = []
    for key in ("models", "controls"):
        for task, by_arm in record[key].items():
            for arm, by_seed in by_arm.items():
                for seed, info in by_seed.items():
                    rows.append({"task": task, "arm": arm, "stage": "train", "seed": int(seed),
                                 "steps": info["steps"],
                                 "criterion step": info["criterion_step"] or np.nan,
                                 "held-out loss [nats]": info["check_loss"],
                                 "held-out accuracy": info["check_accuracy"],
                                 "held-out loss at the criterion [nats]":
                                     info.get("criterion_check_loss", np.nan),
                                 "length [tokens]": L_TRAIN,
                                 "train CPU [s]": info["train_cpu_seconds"]})
    df = pd.DataFrame(rows)
    df["criterion step"] = df["criterion step"].astype("Int64")
    return df


# --- the numbers the sentences quote -------------------------------------------------------------

def value(task: str, arm: str, method: str, label: str) -> tuple[float, float, float]:
    """A curve's accuracy in a group (by label) and the range of its seeds' accuracies
    (rope_core.beyond.intervals.seed_interval)."""
    c = constants.tiny_evaluation()[task, arm, method]
    g = tm.group_labels(task).index(label)
    return float(c.accuracy[g]), float(c.low[g]), float(c.high[g])


def with_interval(task: str, arm: str, method: str, label: str) -> str:
    """"93.4% (seeds: 90.1%–95.8%)": an accuracy and the range of its seeds' accuracies."""
    acc, low, high = value(task, arm, method, label)
    return _("{acc} (seeds: {low}–{high})").format(acc=pct(acc), low=pct(low), high=pct(high))


def comparison(task: str, label: str, a: tuple[str, str], b: tuple[str, str]) -> dict:
    """The paired comparison of curve a against b in a group, as a - b (the table may
    hold it as b - a: then negated): difference, ci_low, ci_high (its own 95% interval),
    ci_low_family, ci_high_family (Bonferroni's simultaneous interval of its family), p,
    p_holm."""
    df = comparisons_table()
    names = tr.curve_name(*a), tr.curve_name(*b)
    for (x, y), sign in ((names, 1.0), (names[::-1], -1.0)):
        hit = df[(df["task"] == task) & (df["group"] == label) & (df["a"] == x) & (df["b"] == y)]
        if len(hit):
            row = hit.iloc[0]
            low, high = sign * row["ci_low"], sign * row["ci_high"]
            f_low, f_high = sign * row["ci_low_family"], sign * row["ci_high_family"]
            return {"difference": sign * float(row["difference"]), "ci_low": min(low, high),
                    "ci_high": max(low, high), "ci_low_family": min(f_low, f_high),
                    "ci_high_family": max(f_low, f_high), "p": float(row["p"]),
                    "p_holm": float(row["p_holm"])}
    raise KeyError((task, label, a, b))


def resolved(test: dict) -> bool:
    return test["p_holm"] < paired.ALPHA


def quoted(test: dict) -> str:
    """A comparison as the sentences quote it: "+12.3 points, simultaneous CI −2.1 to
    +26.7, corrected p = 0.004": the interval is Bonferroni's over the comparison's family
    (all hold together at 95%), the p Holm's; Holm's p alone says resolved or not (it may
    resolve a difference whose simultaneous interval touches 0, never the reverse)."""
    values = dict(diff=points(test["difference"]), low=points(test["ci_low_family"]),
                  high=points(test["ci_high_family"]))
    if test["p_holm"] < 0.001:
        return _("{diff} points, simultaneous CI {low} to {high}, corrected p < {p}").format(
            p=i18n.number(0.001, "0.###"), **values)
    return _("{diff} points, simultaneous CI {low} to {high}, corrected p = {p}").format(
        p=p_text(test["p_holm"]), **values)


def family_rows(family: str = tr.FAMILIES[0]) -> pd.DataFrame:
    """The comparisons of one family (rope_core.beyond.tiny_results.FAMILIES)."""
    df = comparisons_table()
    return df[df["family"] == family]


def family_size(family: str = tr.FAMILIES[0]) -> int:
    return len(family_rows(family))


@ui.prose
def ranking(task: str, label: str) -> str:
    """The main arms in a group from highest to lowest; a bracket holds arms that no
    corrected paired test tells apart, ">" stands between brackets every pair across which
    is resolved, "≳" where only some are (rope_core.beyond.paired.ranked_groups)."""
    arms = list(tm.ENCODINGS)
    means = [value(task, e, "none", label)[0] for e in arms]
    apart = np.zeros((len(arms), len(arms)), dtype=bool)
    for i, a in enumerate(arms):
        for j, b in enumerate(arms):
            if i != j:
                apart[i, j] = resolved(comparison(task, label, (a, "none"), (b, "none")))
    groups, gaps = paired.ranked_groups(means, apart)
    out = ""
    for g, group in enumerate(groups):
        if g:
            out += " > " if gaps[g - 1] else " ≳ "
        items = _(", ").join(_("{model} {acc}").format(model=_(ENCODING_NAMES[arms[i]]),
                                                       acc=pct(means[i])) for i in group)
        out += _("[{items}]").format(items=items) if len(group) > 1 else items
    return out


# --- figures ----------------------------------------------------------------------------------

def curve_traces(task: str, measure: str, curves: list[tuple[str, str]],
                 styles: list[tuple[str, str]], symbols: list[str] | None = None) -> list[dict]:
    """One trace per curve: a marker per group with the range of its seeds' accuracies
    (rope_core.beyond.intervals.seed_interval) as an error bar, a line
    only between the groups past training's range (none from the in-distribution group:
    nothing is measured between), each curve shifted a little along the log axis so that
    the bars do not hide one another."""
    results = constants.tiny_evaluation()
    index = group_indices(task, measure)
    x, names = group_x(task, measure), group_names(task, measure)
    gap = [0, None, *range(1, len(index))]  # the first group, a break, the rest

    def spread(values) -> np.ndarray:
        return np.array([np.nan if b is None else values[b] for b in gap], dtype=np.float64)
    hover = _("{group}<br>accuracy {acc}<br>seeds' range: {low} … {high}").format(
        group="%{customdata[0]}", acc="%{y:.3f}", low="%{customdata[1]:.3f}",
        high="%{customdata[2]:.3f}")
    traces = []
    for j, ((arm, method), (color, dash)) in enumerate(zip(curves, styles)):
        c = results[task, arm, method]
        mean, low, high = (np.asarray(v)[index] for v in (c.accuracy, c.low, c.high))
        shift = 1.025 ** (j - (len(curves) - 1) / 2)
        custom = [[names[b], float(low[b]), float(high[b])] if b is not None
                  else [None, None, None] for b in gap]
        name = curve_label(arm, method)
        traces.append(dict(type="scatter", x=ui.typed(spread(x) * shift),
                           y=ui.typed(spread(mean)), name=name, mode="lines+markers",
                           connectgaps=False, line=dict(color=color, dash=dash, width=2),
                           marker=dict(size=7, symbol=symbols[j] if symbols else "circle"),
                           error_y=dict(type="data", symmetric=False,
                                        array=ui.typed(spread(high - mean)),
                                        arrayminus=ui.typed(spread(mean - low)),
                                        color=color, thickness=1.2, width=3),
                           customdata=custom,
                           hovertemplate=hover + "<extra>" + name + "</extra>"))
    return traces


def chance_lines(task: str) -> tuple[tuple, tuple]:
    """Dotted lines at each chance level of the task (rope_core tiny_model.chance),
    labelled 1/n at the right edge: ``(shapes, annotations)``."""
    levels = [tm.chance(task)] + ([tm.chance(task, "stored")] if task == "recall" else [])
    shapes = tuple(ui.hline(level, "gray") for level in levels)
    notes = tuple(dict(text=f"1/{round(1 / level)}", x=1, xref="x domain", xanchor="right",
                       y=level, yref="y", yanchor="bottom", showarrow=False,
                       font=dict(color="#555555", size=12)) for level in levels)
    return shapes, notes


AXIS_TITLES = {"position": N_("position of the answer [tokens] (log scale)"),
               "distance": N_("query's distance from the store's last token [tokens] (log "
                              "scale)"),
               "depth": N_("depth of the store: its first token's position [tokens] (log "
                           "scale)")}


def groups_layout(task: str, measure: str) -> tuple[dict, tuple, tuple]:
    """Log x axis ticked at each group's start; dotted lines where training's range ends
    and at each chance level."""
    groups = tm.groups(task)
    ticks = [groups[i]["span"][0] for i in group_indices(task, measure)]
    ticks = [t for k, t in enumerate(ticks) if k == 0 or t != ticks[k - 1]]
    ends = [groups[i]["span"][1] - 1 for i in group_indices(task, measure)]
    layout = dict(xaxis=dict(type="log", tickvals=ticks, ticktext=[str(n) for n in ticks],
                             range=[np.log10(ticks[0] * 0.8), np.log10(max(ends) * 1.1)]),
                  yaxis=dict(range=[0, 1.04]))
    chance, notes = chance_lines(task)
    return layout, (ui.vline(trained_edge(task, measure), "black"), *chance), notes


def figure_title(task: str, measure: str, what: str) -> str:
    if task == "local":
        return _("{task} task: {what}, per position bin (trained at L_train = {train} "
                 "tokens)").format(task=_(TASK_NAMES[task]), what=what, train=L_TRAIN)
    return _("{task} task: {what}, by {measure}").format(task=_(TASK_NAMES[task]), what=what,
                                                        measure=_(MEASURE_NAMES[measure]))


def curves_figure(task: str, measure: str, curves, styles, symbols, what: str) -> ui.Frozen:
    layout, shapes, notes = groups_layout(task, measure)
    return ui.kept_figure(curve_traces(task, measure, list(curves), list(styles), symbols),
                          layout=layout, shapes=shapes, annotations=notes,
                          title=figure_title(task, measure, what),
                          x=_(AXIS_TITLES[measure]), y=_("accuracy"), height=480)


@ui.figure
def encodings_figure(task: str, measure: str) -> ui.Frozen:
    """The seven main arms (mean over seeds, the seeds' range)."""
    return curves_figure(task, measure, [(e, "none") for e in tm.ENCODINGS],
                         [STYLE[e] for e in tm.ENCODINGS], None,
                         _("{n} seeds per encoding").format(n=len(SEEDS)))


@ui.figure
def methods_figure(task: str, measure: str) -> ui.Frozen:
    """The RoPE models run past L_train in every way."""
    methods = ("none", *tm.ROPE_METHODS)
    return curves_figure(task, measure, [("rope", m) for m in methods],
                         [METHOD_STYLE[m] for m in methods],
                         [METHOD_SYMBOL.get(m, "circle") for m in methods],
                         _("the RoPE models run past L_train"))


@ui.figure
def controls_figure(task: str, measure: str) -> ui.Frozen:
    """Each control beside the main arm it changes."""
    curves = CONTROL_CURVES[task]
    return curves_figure(task, measure, curves, [CONTROL_STYLE[c] for c in curves], None,
                         _("the controls beside the arms they change"))


@ui.figure
def forest_figure(task: str, measure: str) -> ui.Frozen:
    """Every paired comparison of the main family of the task in the measure's compared
    group: the difference a − b in points with Bonferroni's simultaneous interval of the
    family (the CSV's ci_low_family, ci_high_family); a filled marker where the
    corrected p is below 0.05 (the sentences call those resolved), an open one otherwise.
    (The sensitivity run's family is in the CSV and :func:`sensitivity_notes`.)"""
    df = family_rows()
    labels = tr.compared_groups(task)
    label = labels[0] if task == "local" else next(lab for lab in labels
                                                   if lab.startswith(measure))
    rows = df[(df["task"] == task) & (df["group"] == label)]
    names = [_("{a} − {b}").format(a=curve_label(*split(a)), b=curve_label(*split(b)))
             for a, b in zip(rows["a"], rows["b"])]
    diff = 100 * rows["difference"].to_numpy()
    low = 100 * rows["ci_low_family"].to_numpy()
    high = 100 * rows["ci_high_family"].to_numpy()
    sure = rows["p_holm"].to_numpy() < paired.ALPHA
    y = np.arange(len(rows))[::-1]
    hover = _("{pair}<br>difference {diff} points<br>simultaneous CI {low} … {high}<br>p {p}, "
              "corrected {holm}").format(pair="%{customdata[0]}", diff="%{x:.1f}",
                                         low="%{customdata[1]:.1f}",
                                         high="%{customdata[2]:.1f}", p="%{customdata[3]:.3g}",
                                         holm="%{customdata[4]:.3g}")
    traces = []
    for flag, name, symbol in ((True, _("resolved (corrected p < 0.05)"), "circle"),
                               (False, _("not resolved"), "circle-open")):
        pick = sure == flag
        custom = [[n, lo, hi, p, h] for n, lo, hi, p, h, k in
                  zip(names, low, high, rows["p"], rows["p_holm"], pick) if k]
        traces.append(dict(type="scatter", x=ui.typed(diff[pick]), y=ui.typed(y[pick]),
                           mode="markers", name=name,
                           marker=dict(symbol=symbol, size=8, color=PALETTE[0]),
                           error_x=dict(type="data", symmetric=False,
                                        array=ui.typed(high[pick] - diff[pick]),
                                        arrayminus=ui.typed(diff[pick] - low[pick]),
                                        color=PALETTE[0], thickness=1.2, width=3),
                           customdata=custom, hovertemplate=hover + "<extra></extra>"))
    group = tm.groups(task)[tm.group_labels(task).index(label)]
    where = _("positions {range}").format(range=group["position"].replace("-", "–")) \
        if task == "local" else group_names(task, measure)[-1]
    return ui.kept_figure(
        traces, layout=dict(yaxis=dict(tickvals=y.tolist(), ticktext=names, automargin=True),
                            xaxis=dict(zeroline=True)),
        shapes=(ui.vline(0, "black"),),
        title=_("{task} task, {where}: paired differences across {n} seeds").format(
            task=_(TASK_NAMES[task]), where=where, n=len(SEEDS)),
        x=_("a − b [points]"), y="", height=max(320, 22 * len(rows) + 140))


def split(name: str) -> tuple[str, str]:
    """A curve's CSV name back into (arm, method)."""
    arm, _slash, method = name.partition("/")
    return arm, method or "none"


# --- attention maps and pair norms (seed 0's models) --------------------------------------------

@ui.table
def attention_table(task: str, encoding: str, length: int, layer: int) -> pd.DataFrame:
    """One layer's attention weights on one example (seed 0's model): one row per head,
    query m, key n, with the position each query's answer is read from."""
    model = constants.tiny_models()[task, encoding]
    weights = tm.attention_example(model, task, length)[layer - 1]  # (heads, m, n)
    tokens, _answers = tm.sequences(task, 1, length, tm.EXAMPLE_SEED)
    source = tm.answer_sources(task, tokens)[0].numpy()  # (m,)
    heads, m, n = np.meshgrid(np.arange(weights.shape[0]), np.arange(length),
                              np.arange(length), indexing="ij")
    return pd.DataFrame({"task": task, "encoding": encoding, "seed": 0, "layer": layer,
                         "length [tokens]": length, "head": heads.ravel() + 1,
                         "query m [tokens]": m.ravel(), "key n [tokens]": n.ravel(),
                         "answer source [tokens]": source[m.ravel()],
                         "weight": weights.numpy().astype(np.float64).ravel()})


@ui.table
def source_weight(task: str, encoding: str, length: int, layer: int) -> dict:
    """Heads averaged: the mean weight each answered query puts on its answer's source,
    over rows m < L_train and rows m >= L_train of attention_table, once per setting (on
    the table's columns as arrays: a seventh of the CPU of pandas' row filters)."""
    df = attention_table(task, encoding, length, layer)
    m = df["query m [tokens]"].to_numpy()  # (heads * L * L,)
    source = df["answer source [tokens]"].to_numpy()
    weight = df["weight"].to_numpy()
    on_source = df["key n [tokens]"].to_numpy() == source
    heads = int(df["head"].max())
    out = {}
    for name, part in (("inside", m < L_TRAIN), ("beyond", m >= L_TRAIN)):
        queries = np.unique(m[part & (source >= 0)]).size
        if queries:
            out[name] = weight[on_source & part].sum() / (heads * queries)
    return out


@ui.figure
def attention_figure(task: str, encoding: str, length: int, layer: int) -> ui.Frozen:
    """One heatmap per head, side by side (axes laid out by hand: make_subplots is slow)."""
    df = attention_table(task, encoding, length, layer)
    heads = int(df["head"].max())
    z = df["weight"].to_numpy().reshape(heads, length, length)
    z = np.where(np.tril(np.ones((length, length), dtype=bool)), z, np.nan)  # (heads, m, n)
    hover = _("m={m}, n={n}<br>weight={value}").format(m="%{y}", n="%{x}", value="%{z:.3f}")
    width = 1 / heads
    columns = [(h * width + (0.05 if h else 0), (h + 1) * width - (0 if h == heads - 1 else 0.05))
               for h in range(heads)]
    traces, layout, titles = [], {}, []
    for h in range(heads):
        suffix = "" if h == 0 else str(h + 1)
        traces.append(dict(type="heatmap", z=ui.typed(z[h]), coloraxis="coloraxis",
                           xaxis=f"x{suffix}", yaxis=f"y{suffix}",
                           hovertemplate=hover + "<extra></extra>"))
        layout[f"xaxis{suffix}"] = dict(domain=columns[h], anchor=f"y{suffix}",
                                        showgrid=False, zeroline=False)
        layout[f"yaxis{suffix}"] = dict(domain=[0, 0.94], anchor=f"x{suffix}",
                                        autorange="reversed", showgrid=False, zeroline=False)
        titles.append(dict(text=_("head {h}").format(h=h + 1), showarrow=False,
                           x=sum(columns[h]) / 2, y=0.95, xref="paper", yref="paper",
                           xanchor="center", yanchor="bottom"))
    # the app's style, set on an empty figure (one pair of axes, cheap), copied to each panel
    styled = ui.style(ui.sketch(), title=_("{model}, layer {layer}: attention weights on one "
                                           "sequence of {n} tokens").format(
                                               model=_(ENCODING_NAMES[encoding]), layer=layer,
                                               n=length),
                      x=_("key position n [tokens]"), y=_("query position m [tokens]"),
                      height=460)
    styled = ui.kept([], styled).spec["layout"]  # JSON-ready: the panels are added as dicts
    for name, axis in layout.items():
        # axis titles and y tick labels once, on the left panel (side by side on a phone,
        # two x titles would run into each other, and the right panel's y ticks into the
        # left panel)
        style = dict(styled[name[0] + "axis"])
        if name not in ("xaxis", "yaxis"):
            style.pop("title", None)
        if name.startswith("yaxis") and name != "yaxis":
            style["showticklabels"] = False
        layout[name] = dict(style, **axis)
    styled.update(layout, annotations=[*styled.get("annotations", []), *titles],
                  plot_bgcolor="#c8c8c8",
                  coloraxis=dict(colorscale="Viridis", cmin=0, cmax=1,
                                 colorbar=dict(title=dict(text=_("weight")))))
    return ui.Frozen(dict(data=traces, layout=styled))


@ui.table
def norms_table(task: str) -> pd.DataFrame:
    """Mean norm of each pair of q and k, per layer and head, of seed 0's RoPE model
    (Barbero et al. 2024)."""
    model = constants.tiny_models()[task, "rope"]
    norms = constants.tiny_pair_norms()[task]  # (layers, heads, 2, pairs)
    layers, heads, _two, pairs = norms.shape
    theta_t = tm.model_theta(model.cfg)  # (pairs,) float64
    layer, head, i = np.meshgrid(np.arange(layers), np.arange(heads), np.arange(pairs),
                                 indexing="ij")  # (layers, heads, pairs) each
    wavelength = (2 * np.pi / theta_t).numpy()  # (pairs,)
    norms = norms.numpy().astype(np.float64)
    return pd.DataFrame({"task": task, "encoding": "rope", "seed": 0,
                         "layer": layer.ravel() + 1, "head": head.ravel() + 1,
                         "pair i": i.ravel(),
                         "theta_i [rad/token]": theta_t.numpy()[i.ravel()],
                         "wavelength [tokens]": wavelength.astype(np.float64)[i.ravel()],
                         "mean |q_i|": norms[:, :, 0, :].ravel(),
                         "mean |k_i|": norms[:, :, 1, :].ravel()})


@ui.figure
def norms_figure(task: str) -> ui.Frozen:
    df = norms_table(task)
    layers, heads = int(df["layer"].max()), int(df["head"].max())
    pairs = len(df) // (layers * heads)
    x = df["pair i"].to_numpy()[:pairs]  # (pairs,)
    # heads averaged, (layers, pairs) each: the numbers groupby(["layer", "pair i"]).mean()
    # gives (a test checks both tasks), at a tenth of its cost
    mean = {column: df[column].to_numpy().reshape(layers, heads, pairs).mean(axis=1)
            for column in ("mean |q_i|", "mean |k_i|")}
    hover = _("pair {i}<br>mean norm {value}").format(i="%{x}", value="%{y:.3f}")
    traces = []
    for layer in range(1, layers + 1):
        for column, label, dash in (("mean |q_i|", _("layer {layer}, query"), "solid"),
                                    ("mean |k_i|", _("layer {layer}, key"), "dash")):
            name = label.format(layer=layer)
            traces.append(dict(type="scatter", x=x,
                               y=mean[column][layer - 1], name=name, mode="lines+markers",
                               line=dict(color=PALETTE[layer - 1], dash=dash),
                               hovertemplate=hover + "<extra>" + name + "</extra>"))
    title = _("{task} task, RoPE model (seed 0): how much each frequency pair carries "
              "(mean norm of q and k per pair, heads averaged)").format(task=_(TASK_NAMES[task]))
    return ui.kept_figure(traces, yaxes=dict(rangemode="tozero"), title=title,
                          x=_("pair index i (0 = fastest, θ₀ = 1 rad/token)"),
                          y=_("mean norm"), height=460)


# --- sentences written from the comparisons --------------------------------------------------

def verdict(test: dict) -> str:
    """Resolved (its corrected p below 0.05) or not, in words."""
    return _("resolved") if resolved(test) else _("not resolved with {n} seeds").format(
        n=len(SEEDS))


@ui.prose
def versus(task: str, label: str, pairs: tuple) -> tuple[str, ...]:
    """One line per comparison ``(a, b)`` in a group: "a against b: +12.3 points,
    simultaneous CI ..., corrected p = ...; resolved" (:func:`quoted`)."""
    out = []
    for a, b in pairs:
        test = comparison(task, label, a, b)
        out.append(_("{a} against {b}: {quoted}; {verdict}.").format(
            a=curve_label(*a), b=curve_label(*b), quoted=quoted(test), verdict=verdict(test)))
    return tuple(out)


def compared_label(task: str, measure: str) -> str:
    """The group where a task's arms are compared along a measure (its farthest)."""
    labels = tr.compared_groups(task)
    return labels[0] if task == "local" else next(lab for lab in labels if lab.startswith(measure))


def group_words(task: str, label: str) -> str:
    """A group in words: "positions 96–127", or a recall cell."""
    g = tm.groups(task)[tm.group_labels(task).index(label)]
    if g["kind"] == "position":
        return _("positions {range}").format(range=g["position"].replace("-", "–"))
    return _("the store at depth {depth}, queries {distance} tokens after it").format(
        depth=g["depth"].replace("-", "–"), distance=g["distance"].replace("-", "–"))


@ui.prose
def sensitivity_notes() -> tuple[str, ...]:
    """The loss criterion's sensitivity run (rope_core.beyond.tiny_results.FAMILIES[1]):
    what it is; how many of the comparisons of each main arm at the criterion against
    trained to the end are resolved, and the largest; then, of the main family's resolved
    differences between two main arms, how many keep their direction and stay resolved
    with both arms stopped at the criterion (those that do not: :func:`criterion_changes`),
    and how many it leaves open become resolved."""
    rows = family_rows(tr.FAMILIES[1])
    record = constants.tiny_record()["models"]
    runs = [info for by_arm in record.values() for by_seed in by_arm.values()
            for info in by_seed.values()]
    ended = sum(info["criterion_step"] is None for info in runs)
    what = _("The sensitivity run stops each of the {runs} runs of the shipped models at its "
             "first check (every {every} steps) whose held-out loss is at most {criterion} "
             "nats, or, where no check reached it in {steps} steps ({ended} runs), at the end: "
             "its weights are then the shipped ones. Its comparisons are a family of their "
             "own, corrected apart (Holm), so adding them moves no corrected p-value of the "
             "main comparisons.").format(
        runs=len(runs), every=tm.TRAINING["check_every"],
        criterion=i18n.number(tm.TRAINING["criterion_loss"], "0.##"),
        steps=i18n.integer(tm.TRAINING["steps"]), ended=ended)
    against = rows[rows["b"].map(lambda name: split(name)[1] == "none")]
    if not len(against):
        return (what,)
    big = against.iloc[int(np.argmax(np.abs(against["difference"].to_numpy())))]
    task, label = big["task"], big["group"]
    first = _("Against the same runs trained to the end, paired by seed in the farthest "
              "groups, {n} of {total} differences are resolved after correction; the largest "
              "is {model} on the {task} task, {where}: {quoted}.").format(
        n=int((against["p_holm"] < paired.ALPHA).sum()), total=len(against),
        model=curve_label(split(big["a"])[0]), task=_(TASK_WORDS[task]),
        where=group_words(task, label),
        quoted=quoted(comparison(task, label, split(big["a"]), split(big["b"]))))
    pairs = tr.criterion_pairs(comparisons_table())
    main = pairs[pairs["p_holm"] < paired.ALPHA]
    changed = main[~main["kept"]]
    fresh = pairs[(pairs["p_holm"] >= paired.ALPHA)
                  & (pairs["p_holm_at_criterion"] < paired.ALPHA)]
    kept = int(main["kept"].sum())
    second = i18n.sentence([  # run together in Chinese, as ui.explain does
        ngettext("Every pair of kinds compared again with both stopped at the criterion, in "
                 "the same groups: {n} difference that the main comparisons leave open is "
                 "resolved there.",
                 "Every pair of kinds compared again with both stopped at the criterion, in "
                 "the same groups: {n} differences that the main comparisons leave open are "
                 "resolved there.", len(fresh)).format(n=len(fresh)),
        ngettext("Of the {n} difference between kinds that they resolve,",
                 "Of the {n} differences between kinds that they resolve,",
                 len(main)).format(n=len(main)),
        ngettext("{n} keeps its direction and stays resolved.",
                 "{n} keep their direction and stay resolved.", kept).format(n=kept),
        _("None changes.") if not len(changed) else ngettext(
            "The one that does not:", "The {n} that do not:", len(changed)).format(
                n=len(changed))])
    return (what, first, second)


@ui.prose
def criterion_changes() -> tuple[str, ...]:
    """One line for each difference between two main arms that the main family resolves
    and that does not keep its direction and stay resolved with both arms stopped at the
    criterion (:func:`rope_core.beyond.tiny_results.criterion_pairs`): both comparisons
    quoted."""
    pairs = tr.criterion_pairs(comparisons_table())
    changed = pairs[(pairs["p_holm"] < paired.ALPHA) & ~pairs["kept"]]
    return tuple(_("{a} against {b}, {task} task, {where}: trained to the end {main}; both "
                    "stopped at the criterion {stopped}, {verdict}.").format(
        a=curve_label(r.a), b=curve_label(r.b), task=_(TASK_WORDS[r.task]),
        where=group_words(r.task, r.group),
        main=quoted(comparison(r.task, r.group, (r.a, "none"), (r.b, "none"))),
        stopped=quoted(comparison(r.task, r.group, (r.a, "at_criterion"),
                                  (r.b, "at_criterion"))),
        verdict=verdict({"p_holm": r.p_holm_at_criterion}))
        for r in changed.itertuples(index=False))


# --- the page's fixed sentences, with their numbers ---------------------------------------------

@ui.prose
def task_lines() -> tuple[str, ...]:
    """The two tasks and the seven encodings."""
    n = SPEC["recall"]["pairs"]
    return (
        _("**Local**: random symbols; at every position m the answer is the symbol k = {k} "
          "places back. A fixed short offset: a sliding window of a few tokens suffices, and "
          "a recency prior helps.").format(k=SPEC["local"]["k"]),
        _("**Recall**, passkey-style: filler symbols, and somewhere among them a store of {n} "
          "key–value pairs; after it each stored key is asked once, at random positions among "
          "the filler, and the answer is its value. Keys and values appear nowhere else, so "
          "each key occurs exactly twice in a sequence, however long.").format(n=n),
        _("**Recall's ranges**: training puts the store at depth 1 … {deep} and asks at most "
          "{near} tokens after its last token; the evaluation moves the store deeper (queries "
          "as near as in training) or asks farther from it (the store as shallow as in "
          "training), {per} sequences a seed for each range.").format(
              deep=L_TRAIN - 3 * n, near=RECALL["near"] - 1, per=RECALL["per_cell"]),
        _("**Encodings**: NoPE, sinusoidal (base {base}, like RoPE), RoPE, ALiBi ×32 (its "
          "slopes scaled to L_train: this lab's adaptation), p-RoPE "
          "(p = {p}: the slowest {dropped} pairs unrotated), a 1:1 hybrid (RoPE and NoPE "
          "layers alternating) and an iRoPE-like hybrid after Llama 4; and four controls, "
          "each one of them with one setting changed.").format(
              base=ui.fmt_base(MODEL["base"]), p=MODEL["p"],
              dropped=MODEL["d_model"] // MODEL["n_heads"] // 2
              - int(MODEL["p"] * MODEL["d_model"] // MODEL["n_heads"] // 2)),
    )


@ui.prose
def differences() -> tuple[str, ...]:
    """Exactly what differs between the kinds (the arms table, in words)."""
    slopes = alibi_slopes(MODEL["n_heads"])  # (heads,)
    scaled = slopes * MODEL["alibi_scale"]
    many = alibi_slopes(8)
    irope = tm.model_config("local", "irope")
    rope_layers = [j + 1 for j in range(MODEL["n_layers"]) if irope.layer_encoding(j) == "rope"]
    nope_layer = [j + 1 for j in range(MODEL["n_layers"]) if irope.layer_encoding(j) == "none"]
    span = L_TRAIN - 1
    return (
        _("**The same for every kind**: sizes, optimiser (AdamW, learning rate {lr}, weight "
          "decay {wd}), the schedule and its {steps} steps, the batches, and within a task and "
          "seed the initial weights (every kind has the same parameters).").format(
              lr=i18n.number(tm.TRAINING["lr"], "0.###"),
              wd=i18n.number(tm.TRAINING["weight_decay"], "0.##"),
              steps=i18n.integer(tm.TRAINING["steps"])),
        _("**NoPE** adds nothing: only the causal mask and BOS break the symmetry. "
          "**Sinusoidal** adds PE[m] to the token embedding. **RoPE** rotates q and k in every "
          "layer. **p-RoPE** rotates only the fastest {kept} pairs. The **1:1 hybrid** rotates "
          "in layers 1 and 3 and adds nothing in 2 and 4.").format(
              kept=int((tm.model_theta(tm.model_config("local", "p_rope")) > 0).sum())),
        _("**ALiBi ×32** adds −slope·(m − n) to each head's logits in every layer, with "
          "slopes {s1} and {s2}: Press et al.'s two-head slopes ({p1}, {p2}) times 512/{train} "
          "= {scale}, this lab's adaptation (over L_train they span {w1} and {w2} logits; "
          "unscaled, {u1} and {u2}). Press et al.'s slopes depend on the heads alone; they "
          "trained WikiText-103 models at L = 64 to 3,072 with them. Controls keep them: two "
          "heads, and 8 heads of {d8} dimensions ({m1} … {m2}), the paper's "
          "configuration.").format(
              s1=f"{float(scaled[0]):g}", s2=f"{float(scaled[1]):g}",
              p1=f"1/{round(1 / float(slopes[0]))}", p2=f"1/{round(1 / float(slopes[1]))}",
              train=L_TRAIN, scale=i18n.number(MODEL["alibi_scale"], "0.#"),
              w1=i18n.number(float(scaled[0]) * span, "0.#"),
              w2=i18n.number(float(scaled[1]) * span, "0.#"),
              u1=i18n.number(float(slopes[0]) * span, "0.##"),
              u2=i18n.number(float(slopes[1]) * span, "0.##"), d8=MODEL["d_model"] // 8,
              m1=f"1/{round(1 / float(many[0]))}", m2=f"1/{round(1 / float(many[-1]))}"),
        _("**The iRoPE-like hybrid differs in three ways, not one**: layer {nope} has no "
          "position encoding (layers {rope} rotate); the rotating layers attend only within "
          "their own chunk of {chunk} tokens; and layer {nope} "
          "multiplies its query at position m by 1 + {scale}·ln(1 + ⌊(m + 1)/{floor}⌋), Llama "
          "4's formula as transformers applies it, with floor_scale scaled with the chunk "
          "({floor} for {chunk}; Llama 4: {l4_floor} for {l4_chunk}), so unlike in Llama 4 it "
          "acts inside training; no QK-norm.").format(
              nope=", ".join(map(str, nope_layer)), rope=", ".join(map(str, rope_layers)),
              chunk=MODEL["chunk"], scale=MODEL["attn_scale"], floor=MODEL["floor_scale"],
              l4_floor=i18n.integer(LLAMA_4["floor_scale"]),
              l4_chunk=i18n.integer(LLAMA_4["attention_chunk_size"])),
        _("**Chunks in training**: with L_train = {train} and chunks of {chunk}, a training "
          "sequence holds at most {chunks} chunks: the unrotated layer only ever had to reach "
          "into the previous chunk when exactly one existed; at {longest} tokens up to {later} "
          "precede a query's. A control with chunks of {small} has {small_chunks} within "
          "L_train.").format(
              chunk=MODEL["chunk"], train=L_TRAIN, chunks=L_TRAIN // MODEL["chunk"],
              longest=LONGEST, later=LONGEST // MODEL["chunk"] - 1,
              small=tm.CONTROLS["irope_chunk4"][1]["chunk"],
              small_chunks=L_TRAIN // tm.CONTROLS["irope_chunk4"][1]["chunk"]),
        _("**Base**: a pair counts as unseen here when its wavelength 2π/θᵢ exceeds L_train "
          "(it never completes a turn within training). With base {base}, {long} of the {half} "
          "pairs ({share}) are unseen, against {llama} of 64 ({llama_share}) in LLaMA 1 (base "
          "{b1}, heads of 128, L = {l1}) and {llama3} of 64 ({llama3_share}) in Llama 3 (base "
          "{b3}, L = {l3}): far more angles past L_train are new here than in a language model. "
          "The base-{low} controls have {low_long} of {half} ({low_share}).").format(
              base=ui.fmt_base(MODEL["base"]), long=long_pairs(DH_, MODEL["base"], L_TRAIN),
              half=DH_ // 2, share=pct(long_pairs(DH_, MODEL["base"], L_TRAIN) / (DH_ // 2)),
              llama=long_pairs(*LLAMA_1), llama_share=pct(long_pairs(*LLAMA_1) / 64),
              b1=ui.fmt_base(LLAMA_1[1]), l1=i18n.integer(LLAMA_1[2]),
              llama3=long_pairs(*LLAMA_3), llama3_share=pct(long_pairs(*LLAMA_3) / 64),
              b3=ui.fmt_base(LLAMA_3[1]), l3=i18n.integer(LLAMA_3[2]),
              low=f"{tm.CONTROLS['rope_base5'][1]['base']:g}",
              low_long=long_pairs(DH_, tm.CONTROLS["rope_base5"][1]["base"], L_TRAIN),
              low_share=pct(long_pairs(DH_, tm.CONTROLS["rope_base5"][1]["base"], L_TRAIN)
                            / (DH_ // 2))),
    )


DH_ = MODEL["d_model"] // MODEL["n_heads"]
# (head dim, base, training length) of LLaMA 1 (Touvron et al. 2023) and of Llama 3 before
# its long-context extension (Meta's Llama 3 config: rope_theta 5e5, 8,192 tokens)
LLAMA_1 = (128, 1e4, 2048)
LLAMA_4 = presets.HF_CONFIGS["Llama 4 Scout"]["text_config"]  # its chunk and floor_scale
LLAMA_3 = (128, 5e5, 8192)
LEARNED = 0.9  # a recall model learned its task: held-out accuracy at the end at least this


def long_pairs(dim: int, base: float, length: int) -> int:
    """Pairs whose wavelength 2π/θᵢ exceeds ``length`` (the page's rule for "unseen": the
    pair never completes a turn within training), which past it reach unseen angles."""
    return int((rc.wavelength(rc.theta(dim, base)) > length).sum())


@ui.prose
def encodings_notes(task: str, measure: str) -> tuple[str, ...]:
    label = compared_label(task, measure)
    first = {"position": _("Each point is the accuracy over the answers whose position falls "
                           "in a bin"),
             "distance": _("Each point is the accuracy over the queries asked that far from "
                           "the store's last token, the store as shallow as in training"),
             "depth": _("Each point is the accuracy over the queries of stores that deep, "
                        "asked as near as in training")}[measure]
    chance = (_("Dotted lines: the end of training's range (vertical) and chance, {any} (1/{s}: "
                "one of the {s} symbols guessed).").format(
                    any=pct(tm.chance(task), "0.##"), s=SPEC["local"]["symbols"])
              if task == "local" else
              _("Dotted lines: the end of training's range (vertical) and two levels of chance: "
                "{any} (1/{s}: one of the {s} value symbols guessed) and {stored} (1/{n}: one of "
                "the {n} stored values guessed, the chance of a model that has found the store "
                "but not the key).").format(any=pct(tm.chance(task), "0.##"),
                                            s=SPEC["recall"]["symbols"],
                                            stored=pct(tm.chance(task, "stored"), "0.##"),
                                            n=SPEC["recall"]["pairs"]))
    return (
        _("{first}, averaged over {n} seeds; the bar through it spans the seeds' accuracies "
          "(below: what it holds). The leftmost point is measured as in training; lines join "
          "only the points past it.").format(first=first, n=len(SEEDS)),
        chance,
        _("In {where}, from highest to lowest; a bracket holds kinds that no corrected paired "
          "test tells apart, > stands between brackets every pair across which is resolved, ≳ "
          "where only some are: {ranking}.").format(where=group_words(task, label),
                                                    ranking=ranking(task, label)),
    )


@ui.prose
def statistics_notes() -> tuple[str, ...]:
    return (
        _("Each row compares two kinds seed by seed, on the same sequences: the mean of the "
          "{n} differences and its p-value (Student's paired t, {df} degrees of freedom). The "
          "page makes {m} such comparisons of the models as trained and corrects them together "
          "(Holm): a difference is called resolved when its corrected p is below 0.05. No "
          "sentence on this page ranks two kinds otherwise; an unresolved difference is not "
          "evidence that two kinds are alike.").format(
              n=len(SEEDS), df=len(SEEDS) - 1, m=family_size()),
        _("The interval printed and drawn with each difference is simultaneous: all {m} hold "
          "together at 95% (Bonferroni: t at 1 − 0.025/{m}, {t_family}, against {t_one} for "
          "one alone; the CSV has both). It never clears 0 where the corrected p is 0.05 or "
          "more; Holm's correction can resolve a difference whose simultaneous interval still "
          "touches 0: the corrected p decides.").format(
              m=family_size(), t_family=i18n.number(t_family(), "0.##"),
              t_one=i18n.number(t_one(), "0.###")),
        _("Each accuracy's bar is the range of the {n} seeds' accuracies, not a confidence "
          "interval at 95%. Where the seeds crowd closer to 100% than one seed's answers can "
          "tell, it reaches down to Clopper and Pearson's 95% bound for one seed whose "
          "answers are all right (and as far up from 0).").format(n=len(SEEDS)),
        coverage_note(),
        _("The intervals cover the training seed and the sampled sequences, not the choices "
          "held fixed (sizes, learning rate, steps, base, chunk). Where all {n} seeds agree, "
          "{n} successes in {n} still allow a failure rate of up to {fail} per seed (one-sided, "
          "95%).").format(n=len(SEEDS), fail=pct(rc_failure())),
    )


def t_family(family: str = tr.FAMILIES[0]) -> float:
    """Student's t quantile of a family's simultaneous intervals (paired.simultaneous_level)."""
    from rope_core.beyond import intervals

    return intervals.t_quantile(len(SEEDS) - 1, paired.simultaneous_level(family_size(family)))


def t_one() -> float:
    """Student's t quantile of one comparison's own 95% interval."""
    from rope_core.beyond import intervals

    return intervals.t_quantile(len(SEEDS) - 1)


def coverage_note() -> str:
    """What the seeds' range holds on simulated experiments of this design
    (rope_core.beyond.intervals.MEDIAN_COVERAGE and COVERAGE, measured by
    benchmarks/interval_coverage.py)."""
    from rope_core.beyond import intervals

    def span(bounds: tuple[float, float]) -> str:
        return _("{low}–{high}").format(low=pct(bounds[0], "0"), high=pct(bounds[1], "0"))
    cases = _("; ").join(_("{share} where {case}").format(share=span(bounds), case=_(case))
                         for case, bounds in intervals.COVERAGE.items())
    return _("On simulated experiments of this design it holds the median seed's accuracy "
             "in {median} of experiments; the mean over seeds in {cases}.").format(
                 median=span(intervals.MEDIAN_COVERAGE), cases=cases)


def rc_failure() -> float:
    from rope_core.beyond import intervals

    return intervals.unseen_failure_bound(len(SEEDS))


@ui.prose
def methods_notes(task: str, label: str) -> tuple[str, ...]:
    pairs = tuple((("rope", m), ("rope", "none")) for m in tm.ROPE_METHODS)
    return (
        _("The RoPE models' weights unchanged: every layer cut to a sliding window of the last "
          "L_train keys; rope_core's scalings for s = {s} (original_max_position_embeddings "
          "= L_train), set once for {longest} tokens as a model's config sets them, so they "
          "apply within L_train too; and two analyses, YaRN without its attention factor and "
          "interpolation of only the pairs whose wavelength exceeds L_train.").format(
              s=FACTOR, longest=LONGEST),
        _("In {where}, paired by seed:").format(where=group_words(task, label)),
        *versus(task, label, pairs),
    )


@ui.prose
def controls_notes(task: str, label: str) -> tuple[str, ...]:
    pairs = [((arm, "none"), (v[0], "none")) for arm, v in tm.CONTROLS.items() if task in v[2]]
    if task == "local":
        pairs.append((("alibi_unscaled", "none"), ("nope", "none")))
    else:
        pairs += [(("rope_base5", m), ("rope_base5", "none")) for m in tm.CONTROL_METHODS]
    return (_("In {where}, paired by seed:").format(where=group_words(task, label)),
            *versus(task, label, tuple(pairs)))


@ui.prose
def training_notes(task: str) -> tuple[str, ...]:
    record = constants.tiny_record()
    steps = {}
    for key in ("models", "controls"):
        for arm, by_seed in record[key].get(task, {}).items():
            steps[arm] = [info["criterion_step"] for info in by_seed.values()]
    reached = _(", ").join(
        _("{model} {steps}").format(model=curve_label(arm), steps=i18n.integer(
            int(np.median([s for s in found if s])))) if all(found) else
        ngettext("{model}: {n} seed never reached it", "{model}: {n} seeds never reached it",
                 sum(not s for s in found)).format(model=curve_label(arm),
                                                   n=sum(not s for s in found))
        for arm, found in steps.items())
    cpu = record["cpu_seconds"]
    return (
        _("Every model trained {steps} steps. The median step at which the held-out loss "
          "first reached the criterion, on this task: {reached}.").format(
              steps=i18n.integer(tm.TRAINING["steps"]), reached=reached),
        _("Training took {total} s of CPU on one thread: {models} s for the {n} shipped "
          "models, {controls} s for the controls.").format(
              total=i18n.integer(round(record["train_cpu_seconds_total"])),
              models=i18n.integer(round(cpu["models"])),
              n=len(tm.TASKS) * len(tm.ENCODINGS) * len(SEEDS),
              controls=i18n.integer(round(cpu["controls"]))),
    )


@ui.prose
def norms_notes() -> tuple[str, ...]:
    bands = constants.tiny_pair_bands()
    return (
        _("A pair whose q and k are short barely moves the score, however it turns. Over all "
          "{seeds} seeds, layers and heads, the fastest four pairs carry a mean norm of "
          "{fast_l} and the slowest four {slow_l} on the local task; on recall {fast_r} and "
          "{slow_r}.").format(
              seeds=len(SEEDS), fast_l=i18n.number(bands["local"][0], "0.00"),
              slow_l=i18n.number(bands["local"][1], "0.00"),
              fast_r=i18n.number(bands["recall"][0], "0.00"),
              slow_r=i18n.number(bands["recall"][1], "0.00")),
        _("Barbero et al. (2024) read Gemma 7B this way: it builds its positional attention "
          "patterns from the highest frequencies, and overall puts the largest norms in the "
          "lowest ones, which they take to carry meaning rather than position."),
    )


def far_labels() -> dict[str, str]:
    """The farthest group of each measure: where the findings compare."""
    return {"position": compared_label("local", "position"),
            "distance": compared_label("recall", "distance"),
            "depth": compared_label("recall", "depth")}


def versus_line(task: str, label: str, a: tuple[str, str], b: tuple[str, str]) -> str:
    """One comparison as :func:`versus` writes it."""
    return versus(task, label, ((a, b),))[0]


def direction(task: str, label: str, a: tuple[str, str], b: tuple[str, str]) -> str:
    """What a comparison allows a sentence to say: "higher", "lower" (resolved) or "open"."""
    test = comparison(task, label, a, b)
    if not resolved(test):
        return "open"
    return "higher" if test["difference"] > 0 else "lower"


@ui.prose
def findings() -> tuple[str, ...]:
    """The page's conclusions, each with the paired comparisons it rests on (every
    comparative word follows from a corrected test: :func:`direction`)."""
    far = far_labels()
    loc, dist, depth = far["position"], far["distance"], far["depth"]
    train = tm.group_labels("recall")[0]
    rope, window = ("rope", "none"), ("rope", "window")
    base5 = ("rope_base5", "none")
    said = {"higher": _("more than"), "lower": _("less than"),
            "open": _("not told apart from")}
    return (
        _("**The local task does not test reach.** Cut to a sliding window of L_train keys, "
          "RoPE keeps {window} in {where} (as trained {rope}): the answer, {k} tokens back, "
          "never lies beyond the window. {test}").format(
              window=with_interval("local", "rope", "window", loc), where=group_words("local", loc),
              rope=with_interval("local", "rope", "none", loc), k=SPEC["local"]["k"],
              test=versus_line("local", loc, window, rope)),
        _("**Recall past the distances training shows.** RoPE as trained keeps {train} as in "
          "training and {far} in {where}; the same window keeps {window} there. Scaled "
          "without training: {yarn} {slow}").format(
              train=with_interval("recall", "rope", "none", train),
              far=with_interval("recall", "rope", "none", dist), where=group_words("recall", dist),
              window=with_interval("recall", "rope", "window", dist),
              yarn=versus_line("recall", dist, ("rope", "yarn"), rope),
              slow=versus_line("recall", dist, ("rope", "pi_slow_pairs"), rope)),
        _("**A store deeper than any in training**, asked as near as in training: RoPE as "
          "trained keeps {far} in {where}. {test}").format(
              far=with_interval("recall", "rope", "none", depth),
              where=group_words("recall", depth),
              test=versus_line("recall", depth, ("rope", "yarn"), rope)),
        _("**ALiBi ×32, this lab's adaptation**, keeps {alibi} of the local task in {where}, "
          "{word} NoPE ({nope}): {test} With the two-head slopes unscaled it keeps {unscaled}, "
          "{word2} NoPE: {test2}").format(
              alibi=with_interval("local", "alibi", "none", loc), where=group_words("local", loc),
              word=said[direction("local", loc, ("alibi", "none"), ("nope", "none"))],
              nope=with_interval("local", "nope", "none", loc),
              test=versus_line("local", loc, ("alibi", "none"), ("nope", "none")),
              unscaled=with_interval("local", "alibi_unscaled", "none", loc),
              word2=said[direction("local", loc, ("alibi_unscaled", "none"), ("nope", "none"))],
              test2=versus_line("local", loc, ("alibi_unscaled", "none"), ("nope", "none"))),
        base5_learning(),
        _("**Base 5 past L_train.** On recall RoPE with base 5 keeps {far} in {where}, {word} "
          "RoPE with base {base}: {test} With YaRN: {yarn}").format(
              far=with_interval("recall", "rope_base5", "none", dist),
              where=group_words("recall", dist),
              word=said[direction("recall", dist, base5, rope)],
              base=ui.fmt_base(MODEL["base"]), test=versus_line("recall", dist, base5, rope),
              yarn=versus_line("recall", dist, ("rope_base5", "yarn"), base5)),
        chunk_starts_line(loc),
        _("**They do not show** how these encodings do in language models: two synthetic tasks, "
          "one size, one L_train ({train} tokens), {seeds} seeds, and the accuracy of the most "
          "likely answer rather than perplexity.").format(train=L_TRAIN, seeds=len(SEEDS)),
    )


def chunk_starts_line(label: str) -> str:
    """The iRoPE-like models (chunks of 8 and of 4) at chunk starts and elsewhere, past
    L_train (the local group ``label``) and within it, from the stored per-position counts
    (rope_core.beyond.tiny_results.chunk_start_accuracy)."""
    stored = constants.tiny_stored()["curves"]
    span = tm.groups("local")[tm.group_labels("local").index(label)]["span"]
    k, sequences = SPEC["local"]["k"], tm.EVAL["sequences"]
    small = tm.CONTROLS["irope_chunk4"][1]["chunk"]
    share = {}
    for arm, chunk in (("irope", MODEL["chunk"]), ("irope_chunk4", small)):
        positions = stored["local", arm, "none"]["positions"]
        share[arm] = (tr.chunk_start_accuracy(positions, sequences, chunk, k, span[0],
                                              span[1] - 1),
                      tr.chunk_start_accuracy(positions, sequences, chunk, k, k + 1,
                                              L_TRAIN - 1))
    (far8, in8), (far4, in4) = share["irope"], share["irope_chunk4"]
    return _("**The iRoPE-like model's chunks.** At a chunk start (m mod chunk < {k}: the "
             "answer lies in the previous chunk) it answers {s8} in {where} and {i8} within "
             "L_train; elsewhere {o8}: its loss past L_train is all at chunk starts (chance "
             "{chance}). With chunks of {small}: {s4} and {i4} at chunk starts, {o4} elsewhere; "
             "its lower total comes from chunk starts being twice as common, and it does not "
             "show that seeing more chunks in training fails to transfer.").format(
        k=k, where=group_words("local", label), s8=pct(far8[0]), i8=pct(in8[0]),
        o8=pct(far8[1]), small=small, s4=pct(far4[0]), i4=pct(in4[0]), o4=pct(far4[1]),
        chance=pct(tm.chance("local"), "0.##"))


def base5_learning() -> str:
    """The base-5 control's in-distribution accuracy and how many of its seeds learned
    recall within L_train (held-out accuracy at the end, tiny/weights/models.json)."""
    train = tm.group_labels("recall")[0]
    checks = [info["check_accuracy"] for info in
              constants.tiny_record()["controls"]["recall"]["rope_base5"].values()]
    failed = [a for a in checks if a < LEARNED]
    if not failed:
        return _("**Base 5 learned.** As in training it keeps {train}; every seed's held-out "
                 "accuracy at the end is at least {cut}.").format(
            train=with_interval("recall", "rope_base5", "none", train), cut=pct(LEARNED))
    most = 2 * len(failed) > len(checks)
    return (_("**Base 5 did not always learn.** As in training it keeps {train}; {n} of its "
              "{seeds} seeds did not learn recall within L_train (held-out accuracy at the end "
              "{low}, below {cut}; the others {high}), so most seeds' comparisons with base {base} "
              "below set a model that did not learn against one that did.") if most else
            _("**Base 5 did not always learn.** As in training it keeps {train}; {n} of its "
              "{seeds} seeds did not learn recall within L_train (held-out accuracy at the end "
              "{low}, below {cut}; the others {high}).")).format(
        train=with_interval("recall", "rope_base5", "none", train), n=len(failed),
        seeds=len(checks), cut=pct(LEARNED), base=ui.fmt_base(MODEL["base"]),
        low=_(", ").join(pct(a) for a in failed),
        high=_(", ").join(pct(a) for a in checks if a >= LEARNED))


@ui.prose
def papers() -> tuple[str, ...]:
    """The papers' claims beside what these models show (numbers and words from the
    stored evaluation and its corrected comparisons)."""
    far = far_labels()
    loc, dist = far["position"], far["distance"]
    return (
        _("**ALiBi** (Press et al. 2022): ALiBi language models keep their perplexity on "
          "inputs longer than those they were trained on (WikiText-103, L = 64 to 3,072, 8 "
          "heads). *Here*, as they configure it, in {where}: {paper} With slopes ×32: "
          "{local}").format(
              where=group_words("local", loc),
              paper=versus_line("local", loc, ("alibi_8_heads", "none"), ("alibi", "none")),
              local=versus_line("local", loc, ("alibi", "none"), ("rope", "none"))),
        _("**ALiBi on recall**: only the slopes ×32 were trained on recall (no arm with the "
          "paper's slopes): {recall}").format(
              recall=versus_line("recall", dist, ("alibi", "none"), ("rope", "none"))),
        _("**Sinusoidal** (Vaswani et al. 2017): Press et al. found its perplexity stopped "
          "improving a few dozen tokens past L. *Here*, held at PE[L_train − 1] past L_train, "
          "on recall with {where}: {test} On the local task ({local_where}) held and as "
          "trained keep {held} and {none} (chance {chance}).").format(
              where=group_words("recall", far["depth"]),
              test=versus_line("recall", far["depth"], ("sinusoidal", "held"),
                               ("sinusoidal", "none")),
              local_where=group_words("local", loc),
              held=pct(value("local", "sinusoidal", "held", loc)[0]),
              none=pct(value("local", "sinusoidal", "none", loc)[0]),
              chance=pct(tm.chance("local"), "0.##")),
        _("**NoPE** (Kazemnejad et al. 2023) generalised to longer inputs better than explicit "
          "encodings in small models on reasoning and arithmetic tasks. *Here*, on the local "
          "task: {local} On recall: {recall}").format(
              local=versus_line("local", loc, ("nope", "none"), ("rope", "none")),
              recall=versus_line("recall", dist, ("nope", "none"), ("rope", "none"))),
        _("**Position interpolation** (Chen et al. 2023): LLaMA 7B (L = 2,048) extrapolating "
          "reached perplexity above 10³ at 8,192 tokens, and below 20 with interpolated "
          "positions before any fine-tuning (they then fine-tune it, which these models were "
          "not). *Here*, untrained, on the local task: {local} On recall: {recall}").format(
              local=versus_line("local", loc, ("rope", "linear"), ("rope", "none")),
              recall=versus_line("recall", dist, ("rope", "linear"), ("rope", "none"))),
        _("**YaRN** (Peng et al. 2023) keeps the pairs that turn more than β_fast = {beta} "
          "times within L and interpolates those that turn less than once. *Here*, untrained, "
          "as transformers implements it, on recall: {yarn} Without its attention factor: "
          "{nofactor}").format(
              beta=i18n.number(yarn_beta_fast(), "0"),
              yarn=versus_line("recall", dist, ("rope", "yarn"), ("rope", "none")),
              nofactor=versus_line("recall", dist, ("rope", "yarn_no_factor"),
                                   ("rope", "none"))),
        _("**YaRN's ramp at L_train = {train}**: no pair turns {beta} times (the fastest "
          "{turns}), so the paper's ramp, linear in turns, interpolates every pair; "
          "transformers' ramp, linear in the pair index, keeps pair 0 only because it clamps "
          "its lower end to 0. With the paper's ramp the same models score {local} on the "
          "local task in {lwhere} and {recall} on recall in {rwhere} (measured on the shipped "
          "models).").format(
              train=L_TRAIN, beta=i18n.number(yarn_beta_fast(), "0"),
              turns=i18n.number(L_TRAIN * float(rc.theta(DH_, MODEL["base"])[0]) / (2 * np.pi),
                                "0.##"),
              local=pct(YARN_PAPER_RAMP["local"]), lwhere=group_words("local", loc),
              recall=pct(YARN_PAPER_RAMP["recall"]), rwhere=group_words("recall", dist)),
        _("**p-RoPE** (Barbero et al. 2024) leaves the slowest pairs unrotated, and reported a "
          "slightly better perplexity at the training length, not past it. *Here*, past it, on "
          "recall: {test}").format(
              test=versus_line("recall", dist, ("p_rope", "none"), ("rope", "none"))),
        _("**iRoPE** (Llama 4): interleaved layers without position embeddings, chunked "
          "attention in the RoPE layers and a temperature on attention. *Here*, on recall: "
          "{recall} On the local task: {local}").format(
              recall=versus_line("recall", dist, ("irope", "none"), ("rope", "none")),
              local=versus_line("local", loc, ("irope", "none"), ("rope", "none"))),
    )
