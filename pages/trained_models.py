"""Trained tiny models: seven position encodings, two tasks, five seeds each, evaluated
per position bin beyond the training length (by tiny/train.py --evaluate, read from
tiny/weights/evaluation.npz)."""

import math

import numpy as np
import pandas as pd
import streamlit as st

import rope_core as rc
import ui
from rope_core.beyond import intervals
from rope_core.beyond import tiny_model as tm
from rope_core.beyond.alternatives import alibi_slopes
from rope_core.models.config import query_scale
from ui import constants, i18n
from ui.i18n import N_, _

L_TRAIN = tm.TRAINING["length"]
FACTOR = tm.EVAL["factor"]
LONGEST = tm.eval_length()
SEEDS = tuple(tm.TRAINING["seeds"])
MODEL = tm.TRAINING["model"]
# the turns within L from which YaRN keeps a pair (its default, which the page's YaRN uses)
YARN_BETA = next(p.default for p in rc.SCALINGS["yarn"].params if p.name == "beta_fast")
MAP_LENGTHS = (16, 32, 64)  # attention-map examples (a heatmap per head: small)
# Translators: names of position encodings in a legend and a choice.
ENCODING_NAMES = {"nope": N_("NoPE"), "sinusoidal": N_("sinusoidal"), "rope": N_("RoPE"),
                  "alibi": N_("ALiBi"), "p_rope": N_("p-RoPE"), "hybrid": N_("hybrid 1:1"),
                  "irope": N_("iRoPE-like")}
# Translators: how the RoPE model is run past its training length (legend entries).
METHOD_NAMES = {"none": N_("RoPE as trained"),
                "window": N_("RoPE with a sliding window of L_train keys"),
                "linear": N_("RoPE + position interpolation"),
                "ntk": N_("RoPE + NTK-aware"), "yarn": N_("RoPE + YaRN"),
                "linear_finetuned": N_("RoPE + position interpolation after fine-tuning"),
                "finetuned": N_("RoPE after the same fine-tuning, no interpolation")}
# Translators: the two tasks (a choice, and "{task} task" in titles).
TASK_NAMES = {"local": N_("Local"), "recall": N_("Recall")}
# Translators: the two tasks within a sentence ("iRoPE-like on the local task").
TASK_WORDS = {"local": N_("local"), "recall": N_("recall")}
PALETTE = [*ui.COLORS, "#000000"]  # seven encodings: the app's six colours and black
ENCODING_STYLE = {e: (PALETTE[i], "solid") for i, e in enumerate(tm.ENCODINGS)}
ENCODING_STYLE["p_rope"] = (PALETTE[tm.ENCODINGS.index("p_rope")], "dot")
METHOD_STYLE = {"none": (PALETTE[2], "solid"), "window": ("#555555", "dash"),
                "linear": (PALETTE[0], "dash"), "ntk": (PALETTE[3], "dash"),
                "yarn": (PALETTE[4], "dash"), "linear_finetuned": (PALETTE[0], "solid"),
                "finetuned": (PALETTE[1], "solid")}
# the methods that share a colour differ by their markers too
METHOD_SYMBOL = {"linear": "circle-open", "linear_finetuned": "circle", "finetuned": "square"}


def pct(value: float, pattern: str = "0.#") -> str:
    """A share as a percentage in the run's number format: 0.934 -> "93.4%" (a chance
    level with "0.##": 1/16 -> "6.25%")."""
    return i18n.number(100 * value, pattern) + "%"


def bin_labels(task: str) -> list[str]:
    edges = tm.bin_edges(task)
    return [f"{a}–{b - 1}" for a, b in zip(edges[:-1], edges[1:])]


def bin_centres(task: str) -> np.ndarray:
    edges = np.array(tm.bin_edges(task), dtype=np.float64)
    return (edges[:-1] + edges[1:] - 1) / 2


@ui.table
def accuracy_table() -> pd.DataFrame:
    """Every curve: one row per task, encoding, method, seed (each, then "all") and
    position bin, with its 95% interval (from the stored evaluation, read once per
    process)."""
    return pd.concat([curve.rows for curve in constants.tiny_evaluation().values()],
                     ignore_index=True)


@ui.table
def summary() -> dict:
    """``{(task, encoding, method): (accuracy, low, high)}`` over all seeds, each
    ``(bins,)``, read from the table's "all" rows (in bin order)."""
    df = accuracy_table()
    pooled = (df["seed"] == "all").to_numpy()  # (rows,)
    # grouped by hand, in order of first appearance (what groupby(sort=False) gives, at a
    # fifth of its cost): each key's rows in table order
    keys = zip(*(df[c].to_numpy()[pooled] for c in ("task", "encoding", "method")))
    rows: dict[tuple, list[int]] = {}
    for j, key in enumerate(keys):
        rows.setdefault(key, []).append(j)
    values = [df[c].to_numpy()[pooled] for c in ("accuracy", "ci_low", "ci_high")]
    return {key: tuple(v[index] for v in values) for key, index in rows.items()}


@ui.table
def training_table() -> pd.DataFrame:
    """What each model's training did (tiny/weights/models.json): one row per task,
    encoding and seed, then the fine-tuned position-interpolation models."""
    record = constants.tiny_record()
    rows = []
    for task, by_encoding in record["models"].items():
        for encoding, by_seed in by_encoding.items():
            for seed, info in by_seed.items():
                rows.append({"task": task, "encoding": encoding, "stage": "train",
                             "seed": int(seed), "steps": info["steps"],
                             "reached criterion": info["reached"],
                             "held-out loss [nats]": info["check_loss"],
                             "held-out accuracy": info["check_accuracy"],
                             "length [tokens]": L_TRAIN,
                             "train CPU [s]": info["train_cpu_seconds"]})
    for stage, key in (("pi_finetune", "pi_finetuned"), ("direct_finetune", "direct_finetuned")):
        for task, by_seed in record[key].items():
            for seed, info in by_seed.items():
                rows.append({"task": task, "encoding": "rope", "stage": stage,
                             "seed": int(seed), "steps": info["steps"],
                             "reached criterion": None, "held-out loss [nats]": np.nan,
                             "held-out accuracy": info["accuracy_at_length"],
                             "length [tokens]": info["length"],
                             "train CPU [s]": info["train_cpu_seconds"]})
    return pd.DataFrame(rows)


@ui.table
def recorded_table() -> pd.DataFrame:
    """The runs the page quotes but does not ship, as tiny/train.py recorded them
    in models.json: the sensitivity run (one seed per encoding trained on to the cap, beside
    the shipped model of that seed, from the accuracy table), ALiBi with more heads (each seed
    and "all") and the analyses of the shipped models (seeds pooled)."""
    record, evaluation = constants.tiny_record(), constants.tiny_evaluation()
    labels = {t: [label.replace("–", "-") for label in bin_labels(t)] for t in tm.TASKS}
    columns = ("run", "task", "encoding", "seed", "steps", "position bin [tokens]",
               "accuracy", "ci_low", "ci_high")
    out = {c: [] for c in columns}  # built as columns: a frame from 322 dicts costs ms

    def add(run, task, encoding, seed, steps, values):
        n = len(labels[task])
        for c, value in zip(columns[:5], (run, task, encoding, str(seed), steps)):
            out[c] += [value] * n
        out["position bin [tokens]"] += labels[task]
        for c in columns[6:]:
            out[c] += [float(v) for v in values[c]]
    steps = {(t, e, s): info["steps"] for t, by_e in record["models"].items()
             for e, by_s in by_e.items() for s, info in by_s.items()}
    seed = str(record["training"]["sensitivity_seed"])
    row = SEEDS.index(int(seed))  # the seed's rows: each bin's seeds, then "all"
    for task, by_encoding in record["sensitivity"].items():
        for encoding, info in by_encoding.items():
            shipped = evaluation[task, encoding, "none"].rows
            rows_ = shipped.iloc[row::len(SEEDS) + 1]  # (bins,): the seed's row of each bin
            add("criterion (shipped)", task, encoding, seed, steps[task, encoding, seed],
                {c: rows_[c].to_numpy() for c in columns[6:]})
            add("cap (sensitivity)", task, encoding, seed, info["steps"], info)
    for task, arm in record["alibi_heads"].items():
        run = f"alibi {arm['n_heads']} heads"
        for seed, info in arm["seeds"].items():
            add(run, task, "alibi", seed, info["steps"],
                dict(accuracy=info["accuracy"], ci_low=[np.nan] * len(labels[task]),
                     ci_high=[np.nan] * len(labels[task])))
        add(run, task, "alibi", "all", np.nan, arm["all"])
    for task, by_name in record["analyses"].items():
        for name, info in by_name.items():
            add(f"analysis: {name}", task, info["encoding"], "all", np.nan, info)
    return pd.DataFrame(out)


def curve_traces(task: str, curves: list[tuple[str, str]], names: list[str],
                 styles: list[tuple[str, str]], symbols: list[str] | None = None) -> list[dict]:
    """One trace per curve: a marker per bin with its 95% interval as an error bar, a
    line only between the bins past L_train (none across L_train: nothing is measured
    between the bin within it and the first beyond), each curve shifted a little along
    the log axis so that the bars do not hide one another."""
    acc = summary()
    x, labels = bin_centres(task), bin_labels(task)
    gap = [0, None, *range(1, len(labels))]  # the bin within L_train, a break, those past it

    def spread(values) -> np.ndarray:
        return np.array([np.nan if b is None else values[b] for b in gap], dtype=np.float64)
    hover = _("positions {bin}<br>accuracy {acc}<br>interval (95%): {low} … {high}").format(
        bin="%{customdata[0]}", acc="%{y:.3f}", low="%{customdata[1]:.3f}",
        high="%{customdata[2]:.3f}")
    traces = []
    for j, ((encoding, method), name, (color, dash)) in enumerate(zip(curves, names, styles)):
        mean, low, high = acc[task, encoding, method]
        shift = 1.025 ** (j - (len(curves) - 1) / 2)
        custom = [[labels[b], float(low[b]), float(high[b])] if b is not None
                  else [None, None, None] for b in gap]
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
    """Dotted lines at each chance level of the task (:func:`rope_core.beyond.tiny_model.chance`),
    labelled 1/n at the right edge: ``(shapes, annotations)``."""
    levels = [tm.chance(task)] + ([tm.chance(task, "stored")] if task == "recall" else [])
    shapes = tuple(ui.hline(level, "gray") for level in levels)
    notes = tuple(dict(text=f"1/{round(1 / level)}", x=1, xref="x domain", xanchor="right",
                       y=level, yref="y", yanchor="bottom", showarrow=False,
                       font=dict(color="#555555", size=12)) for level in levels)
    return shapes, notes


def bins_layout(task: str) -> tuple[dict, tuple, tuple]:
    """Log position axis ticked at the first answered position and at L_train, 2 L_train,
    ... (each point sits at its bin's centre; its hover names the bin); dotted lines at
    L_train and at each chance level (:func:`chance_lines`)."""
    edges = tm.bin_edges(task)
    ticks = [edges[0], *[n for n in edges[1:] if n & (n - 1) == 0]]  # first, L, 2L, 4L, 8L
    layout = dict(xaxis=dict(type="log", tickvals=ticks, ticktext=[str(n) for n in ticks],
                             range=[np.log10(edges[0] * 0.8), np.log10(LONGEST * 1.05)]),
                  yaxis=dict(range=[0, 1.04]))
    chance, notes = chance_lines(task)
    return layout, (ui.vline(L_TRAIN - 0.5, "black"), *chance), notes


@ui.figure
def encodings_figure(task: str) -> ui.Frozen:
    """The seven encodings' accuracy per position bin (mean over seeds, 95% interval)."""
    layout, shapes, notes = bins_layout(task)
    curves = [(e, "none") for e in tm.ENCODINGS]
    title = _("{task} task: accuracy per position bin, {n} seeds per encoding (trained at "
              "L_train = {train} tokens)").format(task=_(TASK_NAMES[task]), n=len(SEEDS),
                                                 train=L_TRAIN)
    return ui.kept_figure(curve_traces(task, curves, [_(ENCODING_NAMES[e]) for e in
                                                      tm.ENCODINGS],
                                       [ENCODING_STYLE[e] for e in tm.ENCODINGS]),
                          layout=layout, shapes=shapes, annotations=notes, title=title,
                          x=_("position of the answer [tokens] (log scale)"),
                          y=_("accuracy"), height=480)


@ui.figure
def methods_figure(task: str) -> ui.Frozen:
    """The RoPE model run past L_train in six ways."""
    layout, shapes, notes = bins_layout(task)
    curves = [("rope", m) for m in tm.METHODS]
    title = _("{task} task: the RoPE models past L_train, as trained, with a sliding "
              "window, scaled for s = {s} without training, and after a fine-tune with "
              "and without interpolation").format(task=_(TASK_NAMES[task]), s=FACTOR)
    return ui.kept_figure(curve_traces(task, curves, [_(METHOD_NAMES[m]) for m in tm.METHODS],
                                       [METHOD_STYLE[m] for m in tm.METHODS],
                                       [METHOD_SYMBOL.get(m, "circle") for m in tm.METHODS]),
                          layout=layout, shapes=shapes, annotations=notes, title=title,
                          x=_("position of the answer [tokens] (log scale)"),
                          y=_("accuracy"), height=480)


def cumulative(task: str, encoding: str, method: str = "none") -> np.ndarray:
    """The secondary view: the mean accuracy over every answered position up to n,
    at n = the bins' upper edges (seeds averaged), ``(bins,)``."""
    positions = constants.tiny_evaluation()[task, encoding, method].positions  # (seeds, seq)
    first = tm.first_answered(task)
    per_position = positions[:, first:].mean(0)  # (seq - first,): every one answered
    running = np.cumsum(per_position) / np.arange(1, LONGEST - first + 1)
    return np.array([running[b - 1 - first] for b in tm.bin_edges(task)[1:]])


@ui.figure
def cumulative_figure(task: str) -> ui.Frozen:
    edges = tm.bin_edges(task)[1:]
    hover = _("up to {n} tokens<br>accuracy {acc}").format(n="%{x}", acc="%{y:.3f}")
    traces = []
    for encoding in tm.ENCODINGS:
        name, (color, dash) = _(ENCODING_NAMES[encoding]), ENCODING_STYLE[encoding]
        traces.append(dict(type="scatter", x=np.array(edges), y=cumulative(task, encoding),
                           name=name, mode="lines+markers", line=dict(color=color, dash=dash),
                           hovertemplate=hover + "<extra>" + name + "</extra>"))
    title = _("{task} task: the cumulative average, every answer up to length n "
              "(secondary view)").format(task=_(TASK_NAMES[task]))
    chance, notes = chance_lines(task)
    return ui.kept_figure(traces, layout=dict(
        xaxis=dict(type="log", tickvals=list(edges), ticktext=[str(n) for n in edges]),
        yaxis=dict(range=[0, 1.04])), shapes=(ui.vline(L_TRAIN, "black"), *chance),
        annotations=notes, title=title, x=_("evaluation length n [tokens] (log scale)"),
        y=_("accuracy of positions up to n"), height=420)


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
    the table's columns as arrays: a seventh of the CPU of pandas' row filters, the same
    sums)."""
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
    theta = theta_t.numpy()
    layer, head, i = np.meshgrid(np.arange(layers), np.arange(heads), np.arange(pairs),
                                 indexing="ij")  # (layers, heads, pairs) each
    wavelength = (2 * np.pi / theta_t).numpy()  # (pairs,)
    norms = norms.numpy().astype(np.float64)
    return pd.DataFrame({"task": task, "encoding": "rope", "seed": 0,
                         "layer": layer.ravel() + 1, "head": head.ravel() + 1,
                         "pair i": i.ravel(),
                         "theta_i [rad/token]": theta.astype(np.float64)[i.ravel()],
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
    # gives (a test checks both tasks; with the models' two heads the sum of each pair's two
    # norms is rounded once whichever way it is formed), at a tenth of its cost
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


# ---------------------------------------------------------------------------- page ----
ui.settings()
st.title(_("Trained tiny models"))
record = constants.tiny_record()
spec = record["training"]["tasks"]
dh = MODEL["d_model"] // MODEL["n_heads"]
J = tm.EVAL["sequences"]
st.markdown(_(
    "Seven kinds of small causal transformer, trained in this repository (`tiny/train.py`, "
    "on one CPU core), identical except for the position encoding: {layers} layers, "
    "d_model = {d}, {heads} heads of {dh} dimensions ({pairs} RoPE pairs, base {base}). "
    "Each kind is trained on each of two tasks from {seeds} seeds, on sequences of "
    "L_train = {train} tokens that start with a BOS token, until its loss on {check} held-out "
    "sequences is at most {criterion} nats per answer (on average at least 99% "
    "probability on the right answer), or for at most {cap} steps; every other setting "
    "is the same for all. The shipped weights are evaluated on fresh sequences of "
    "{longest} tokens, {j} per seed, {total} per curve, by `tiny/train.py --evaluate`, "
    "which stores every model's right answers per sequence and position in "
    "`tiny/weights/evaluation.npz`; the page reads them, and a test evaluates a sample of "
    "the models again and finds the same counts.").format(
        layers=MODEL["n_layers"], d=MODEL["d_model"], heads=MODEL["n_heads"], dh=dh,
        pairs=dh // 2, base=ui.fmt_base(MODEL["base"]), seeds=len(SEEDS), train=L_TRAIN,
        check=tm.TRAINING["check_sequences"],
        criterion=i18n.number(tm.TRAINING["criterion_loss"], "0.##"),
        cap=i18n.integer(tm.TRAINING["max_steps"]), longest=LONGEST,
        j=J, total=J * len(SEEDS)))
st.markdown("\n".join([
    "- " + _("**Local**: random symbols; at every position m the answer is the symbol "
             "k = {k} places back. A fixed short offset: a sliding window of a few tokens "
             "suffices, and a recency prior helps.").format(k=spec["local"]["k"]),
    "- " + _("**Recall**: after BOS, {n} key–value pairs, then only keys: at each one the "
             "answer is the value stored with it. A value appears only in the store, so "
             "the answer at position m lies at least m − {store} tokens back; a window "
             "cannot reach it.").format(n=spec["recall"]["pairs"],
                                        store=2 * spec["recall"]["pairs"]),
    "- " + _("**Encodings**: NoPE, sinusoidal (base {base}, like RoPE), RoPE, ALiBi, p-RoPE "
             "(p = {p}: the slowest {dropped} pairs unrotated), a 1:1 hybrid (RoPE and NoPE "
             "layers alternating, all attending to the whole input) and an iRoPE-like hybrid "
             "after Llama 4: every {every}th layer NoPE with Llama 4's query temperature "
             "1 + {scale}·ln(1 + ⌊(m + 1)/{floor}⌋), the others RoPE with attention "
             "chunks of {chunk} tokens.").format(
                 base=ui.fmt_base(MODEL["base"]), p=MODEL["p"],
                 dropped=dh // 2 - int(MODEL["p"] * dh // 2), every=MODEL["nope_interval"],
                 scale=MODEL["attn_scale"], floor=MODEL["floor_scale"], chunk=MODEL["chunk"]),
]))
st.caption(_("The sidebar's base and head dim do not apply here: these models were trained "
             "with base {base} and heads of {dh} dimensions.").format(
                 base=ui.fmt_base(MODEL["base"]), dh=dh))

task = ui.choice(_("Task"), list(tm.TASKS), "local", key="task",
                 fmt=lambda t: _(TASK_NAMES[t]))
CURVES = summary()


def at_bin(encoding: str, b: int, method: str = "none", which: int = 0) -> float:
    """Accuracy (which = 0), lower (1) or upper (2) bound in bin b of the chosen task."""
    return float(CURVES[task, encoding, method][which][b])


def ranking(task_: str, b: int, curves: list[tuple[str, str]], names: dict) -> str:
    """The curves in bin b from highest to lowest, in brackets the runs whose intervals all
    overlap (rope_core.beyond.intervals.overlap_groups), ">" between brackets apart beyond every
    interval, "≳" where some intervals still overlap across: "[a 90%, b 88%] ≳ c 60%"."""
    order = sorted(curves, key=lambda c: -float(CURVES[task_, c[0], c[1]][0][b]))
    low = [float(CURVES[task_, e, m][1][b]) for e, m in order]
    high = [float(CURVES[task_, e, m][2][b]) for e, m in order]
    groups = intervals.overlap_groups(low, high)
    out = ""
    for g, group in enumerate(groups):
        if g:
            out += " > " if intervals.groups_apart(low, high, groups[g - 1], group) else " ≳ "
        items = _(", ").join(_("{model} {acc}").format(
            model=names[order[j]], acc=pct(float(CURVES[task_, order[j][0], order[j][1]][0][b])))
            for j in group)
        out += _("[{items}]").format(items=items) if len(group) > 1 else items
    return out


labels = bin_labels(task)
last = len(labels) - 1
ui.show(encodings_figure(task), key="encodings_plot",
        alt=_("Chart: accuracy of each of the seven position encodings per position bin, a "
              "marker with its interval (95%) per bin, averaged over the seeds; lines join only "
              "the bins beyond L_train; dotted lines mark L_train and chance."),
        table=_("the accuracy table (CSV below)"))
chance_any = tm.chance(task)
ui.explain(
    _("Each point is the accuracy over the answers whose position falls in a bin, averaged "
      "over {n} seeds; the bar through it is its interval (95%) over seeds and sequences. "
      "Lines join only the bins past L_train: between the bin within L_train and the first "
      "beyond it nothing was measured.").format(n=len(SEEDS)),
    (_("Dotted lines: L_train (vertical) and chance, {any} (1/{s}: one of the {s} symbols "
       "guessed).").format(any=pct(chance_any, "0.##"), s=spec["local"]["symbols"])
     if task == "local" else
     _("Dotted lines: L_train (vertical) and two levels of chance: {any} (1/{s}: one of the "
       "{s} value symbols guessed) and {stored} (1/{n}: one of the {n} values stored in the "
       "sequence guessed, the chance of a model that has found the store but not the "
       "key).").format(any=pct(chance_any, "0.##"), s=spec["recall"]["symbols"],
                       stored=pct(tm.chance(task, "stored"), "0.##"), n=spec["recall"]["pairs"])),
    _("In the last bin, positions {bin}, from highest to lowest; a bracket holds models "
      "whose intervals all overlap, their order not resolved; > stands between brackets "
      "apart beyond every interval, ≳ where some intervals still overlap across: "
      "{ranking}.").format(
        bin=labels[last], ranking=ranking(task, last, [(e, "none") for e in tm.ENCODINGS],
                                          {(e, "none"): _(ENCODING_NAMES[e])
                                           for e in tm.ENCODINGS})))

ui.show(methods_figure(task), key="methods_plot",
        alt=_("Chart: accuracy per position bin of the RoPE models with a sliding window, with "
              "position interpolation, NTK and YaRN applied without training, and after a short "
              "fine-tune with and without position interpolation, with intervals (95%)."),
        table=_("the accuracy table (CSV below)"))
ui.explain(_(
    "The RoPE models' weights unchanged: every layer cut to a sliding window of the last "
    "L_train keys; rope_core's scalings for s = {s} (original_max_position_embeddings = "
    "L_train), set once for {longest} tokens as a model's config sets them, so they apply "
    "within L_train too. Then two fine-tunes of {ft} steps on sequences of {longest} tokens "
    "(Chen et al.'s recipe, scaled down: see `tiny/train.py`): with position interpolation, "
    "and its control, the same fine-tune on the same sequences with the frequencies "
    "unchanged. Both fine-tuned models are evaluated at the length they were fine-tuned "
    "at: for them every bin is in distribution, unlike for the other curves. In the last "
    "bin: {values}.").format(
        s=FACTOR, longest=LONGEST, ft=tm.TRAINING["pi_fine_tune"]["steps"],
        values=_(", ").join(_("{model} {acc}").format(model=_(METHOD_NAMES[m]),
                                                       acc=pct(at_bin("rope", last, m)))
                            for m in tm.METHODS)))
ui.download(accuracy_table, filename=f"tiny_accuracy_Ltrain{L_TRAIN}.csv",
            label=_("accuracy table"), key="accuracy")

@ui.prose
def training_notes(task_: str) -> tuple[str, ...]:
    """The sentences under the training record for the chosen task (the record is
    fixed: written once per task and language)."""
    train_df = training_table()
    trained = train_df[train_df["stage"] == "train"]
    missed = trained[~trained["reached criterion"].astype(bool)]
    steps = trained.groupby(["task", "encoding"])["steps"].median()
    if len(missed):
        miss_text = _("{n} of {total} models missed the criterion within the cap: {which}.").format(
            n=len(missed), total=len(trained), which=_(", ").join(
                _("{model} on the {task} task, seed {seed} (held-out accuracy {acc})").format(
                    model=_(ENCODING_NAMES[r.encoding]), task=_(TASK_WORDS[r.task]), seed=r.seed,
                    acc=pct(r["held-out accuracy"])) for _i, r in missed.iterrows()))
    else:
        miss_text = _("All {total} models reached the criterion.").format(total=len(trained))
    fewest = min(tm.ENCODINGS, key=lambda e: steps[task_, e])
    most = max(tm.ENCODINGS, key=lambda e: steps[task_, e])
    return (
        miss_text,
        _("Median steps on this task (to the criterion or the cap): {values}.").format(
            values=_(", ").join(_("{model}: {steps}").format(
                model=_(ENCODING_NAMES[e]), steps=i18n.integer(int(steps[task_, e])))
                for e in tm.ENCODINGS)),
        _("So the training differs more than its settings: the learning rate warms up over the "
          "first {warmup} steps, then decays along a cosine that reaches zero at the {cap}-step "
          "cap; a model stopped after {fewest_steps} steps ({fewest}) stops at {fewest_rate} of "
          "the peak rate, one stopped after {most_steps} ({most}) at {most_rate}.").format(
              warmup=tm.TRAINING["warmup"], cap=i18n.integer(tm.TRAINING["max_steps"]),
              fewest_steps=i18n.integer(int(steps[task_, fewest])),
              fewest=_(ENCODING_NAMES[fewest]),
              fewest_rate=pct(tm.learning_rate(int(steps[task_, fewest]), tm.TRAINING["max_steps"])
                              / tm.TRAINING["lr"]),
              most_steps=i18n.integer(int(steps[task_, most])), most=_(ENCODING_NAMES[most]),
              most_rate=pct(tm.learning_rate(int(steps[task_, most]), tm.TRAINING["max_steps"])
                            / tm.TRAINING["lr"])),
        _("The {models} models and {tuned} fine-tunes took {cpu} s of CPU, on one core; with "
          "the recorded runs below, {total} s in all.").format(
              models=len(trained), tuned=len(train_df) - len(trained),
              cpu=i18n.integer(round(sum(record["cpu_seconds"][p] for p in ("models", "control")))),
              total=i18n.integer(round(record["train_cpu_seconds_total"]))))


st.header(_("How the models trained"))
ui.explain(*training_notes(task))
ui.download(training_table, filename="tiny_training.csv", label=_("training record"),
            key="training")


def sensitivity_line(task_: str) -> str:
    """Seed's shipped model against the same run trained on to the cap, last bin, per
    encoding (the stored evaluation and models.json)."""
    seed = record["training"]["sensitivity_seed"]
    evaluation = constants.tiny_evaluation()
    return _(", ").join(_("{model} {before} → {after}").format(
        model=_(ENCODING_NAMES[e]),
        before=pct(float(evaluation[task_, e, "none"].bins[SEEDS.index(seed), :, -1].mean())),
        after=pct(record["sensitivity"][task_][e]["accuracy"][-1])) for e in tm.ENCODINGS)


def sensitivity_summary() -> tuple[int, int, float, str]:
    """Over both tasks and every encoding, last bin: how many runs trained to the cap
    land within the shipped model's interval over its sequences (Wilson, rope_core
    .intervals), how many there are, the largest change and where."""
    seed = record["training"]["sensitivity_seed"]
    evaluation = constants.tiny_evaluation()
    inside, runs, largest, where = 0, 0, -1.0, ""
    for t in tm.TASKS:
        for e in tm.ENCODINGS:
            shipped = evaluation[t, e, "none"].bins[SEEDS.index(seed), :, -1]  # (J,)
            low, high = intervals.sequence_interval(shipped)
            capped = record["sensitivity"][t][e]["accuracy"][-1]
            inside += low <= capped <= high
            runs += 1
            if abs(capped - shipped.mean()) > largest:
                largest = abs(capped - shipped.mean())
                where = _("{model} on the {task} task").format(model=_(ENCODING_NAMES[e]),
                                                              task=_(TASK_WORDS[t]))
    return inside, runs, largest, where


@ui.prose
def sensitivity_note(task_: str) -> str:
    """The sentence on the sensitivity runs (the record is fixed: written once per task
    and language)."""
    inside, runs, change, where = sensitivity_summary()
    return _(
        "Recorded, not shipped: a sensitivity run trains seed {seed}'s model of each "
        "encoding on past the criterion to the {cap}-step cap (the same data and schedule: the "
        "same run, continued). In the last bin, as shipped → trained to the cap: "
        "{values}. Over both tasks, {inside} of the {runs} land within the shipped model's "
        "interval over its {j} sequences; the largest change is {change} points ({where}). The "
        "numbers come from `tiny/weights/models.json`, written by `tiny/train.py`; "
        "`python tiny/train.py --check sensitivity` trains them again and compares (the CSV "
        "below has them with their intervals).").format(
            seed=record["training"]["sensitivity_seed"], cap=i18n.integer(tm.TRAINING["max_steps"]),
            values=sensitivity_line(task_), j=J, inside=inside, runs=runs,
            change=i18n.number(100 * change, "0.#"), where=where)


ui.explain(sensitivity_note(task))
ui.download(recorded_table, filename="tiny_recorded_runs.csv",
            label=_("recorded runs"), key="recorded")

if ui.toggle(_("Show the cumulative average (secondary view)"), False, key="cumulative"):
    ui.show(cumulative_figure(task), key="cumulative_plot",
            alt=_("Line chart: each encoding's accuracy averaged over every answered position "
                  "up to the sequence length, a secondary view that mixes positions within "
                  "and beyond L_train."))
    first = tm.first_answered(task)
    ui.explain(_(
        "The value at length n averages every answered position from {first} to n − 1, so "
        "it mixes positions within L_train into the positions beyond: at n = {longest}, "
        "{inside} of the {total} answered positions ({first} … {last}) lie within "
        "L_train, about one in {ratio}. The bins above keep them apart.").format(
            first=first, longest=LONGEST, inside=L_TRAIN - first, total=LONGEST - first,
            last=LONGEST - 1, ratio=round((LONGEST - first) / (L_TRAIN - first))))


def at(task_: str, encoding: str, b: int, method: str = "none", which: int = 0) -> float:
    """Accuracy over seeds (which = 0), lower (1) or upper (2) bound of a curve in bin b
    (either task)."""
    return float(CURVES[task_, encoding, method][which][b])


def chunk_start_accuracy() -> tuple[float, float]:
    """The iRoPE-like models on the local task, positions past L_train: accuracy at the
    first two positions of each attention chunk and at the others (seeds averaged)."""
    positions = constants.tiny_evaluation()["local", "irope", "none"].positions  # (seeds, seq)
    m = np.arange(LONGEST)
    beyond, start = m >= L_TRAIN, m % MODEL["chunk"] < spec["local"]["k"]
    return (float(np.mean(positions[:, beyond & start])),
            float(np.mean(positions[:, beyond & ~start])))


def outside_store(method: str, b: int) -> float:
    """Recall, RoPE models: the share of answers in bin b that are no stored value."""
    stored = constants.tiny_evaluation()["recall", "rope", method].stored  # (seeds, J, bins)
    return 1.0 - float(stored[:, :, b].mean())


def interval_parts() -> tuple[int, int]:
    """How many of the pooled ("all") intervals on the page the sequences widen by more
    than half a point beyond Student's interval over the seed means (clipped), and how
    many there are."""
    widened = cells = 0
    for curve in constants.tiny_evaluation().values():
        student = np.clip(curve.student, 0.0, 1.0)  # (bins, 2)
        shown = np.array([intervals.joined(t, w) for t, w in zip(curve.student, curve.wilson)])
        widened += int(((shown[:, 1] - shown[:, 0]) - (student[:, 1] - student[:, 0])
                        > 0.005).sum())
        cells += len(shown)
    return widened, cells


def seed_spread(task_: str, encoding: str, b: int) -> tuple[float, float]:
    """Student's interval over the seed means of one curve in bin b, clipped."""
    low, high = constants.tiny_evaluation()[task_, encoding, "none"].student[b]
    return max(0.0, float(low)), min(1.0, float(high))


def long_pairs(dim: int, base: float, length: int) -> int:
    """Pairs whose wavelength 2π/θᵢ exceeds ``length``: past it they reach unseen angles."""
    return int((rc.wavelength(rc.theta(dim, base)) > length).sum())


@ui.prose
def facts() -> dict:
    """Every number the two lists below quote, formatted in the run's language (once
    per language)."""
    last, up_to_2l = len(bin_labels("local")) - 1, 2  # bins 96-127 and 24-31
    out = {f"{e}_{t[0]}": pct(at(t, e, last)) for t in tm.TASKS for e in tm.ENCODINGS}
    out.update({f"{m}_{t[0]}": pct(at(t, "rope", last, m)) for t in tm.TASKS
                for m in tm.METHODS[1:]})
    out.update({f"{e}_{t[0]}_{end}": pct(at(t, e, last, which=which)) for t in tm.TASKS
                for e in ("nope", "alibi") for end, which in (("lo", 1), ("hi", 2))})
    out.update({f"{e}_l1": pct(at("local", e, 1)) for e in ("nope", "sinusoidal", "alibi")})
    out.update(nope_2=pct(at("recall", "nope", up_to_2l)),
               first_beyond=bin_labels("local")[1], up_to=bin_labels("recall")[up_to_2l],
               alibi_2=pct(at("recall", "alibi", up_to_2l)),
               pi_in_l=pct(at("local", "rope", 0, "linear")),
               pi_in_r=pct(at("recall", "rope", 0, "linear")),
               chance_l=pct(tm.chance("local"), "0.##"), chance_r=pct(tm.chance("recall"), "0.##"),
               stored_r=pct(tm.chance("recall", "stored"), "0.##"),
               values=spec["recall"]["symbols"], pairs=spec["recall"]["pairs"],
               rope_out=pct(outside_store("none", last)),
               window_out=pct(outside_store("window", last)),
               last=bin_labels("local")[last], last_start=tm.bin_edges("local")[last],
               longest=LONGEST, train=L_TRAIN, base=ui.fmt_base(MODEL["base"]),
               ft=tm.TRAINING["pi_fine_tune"]["steps"])
    # the intervals
    widened, cells = interval_parts()
    t_low, t_high = seed_spread("local", "alibi", last)
    seeds = len(SEEDS)
    out.update(widened=widened, cells=cells, seeds=seeds, total=seeds * J, j=J,
               t_lo=pct(t_low), t_hi=pct(t_high),
               a_lo=pct(at("local", "alibi", last, which=1)),
               a_hi=pct(at("local", "alibi", last, which=2)),
               fail=pct(intervals.unseen_failure_bound(seeds)),
               one_low=pct(intervals.wilson(1.0, J)[0]))
    # the base
    half = dh // 2
    long, llama = long_pairs(dh, MODEL["base"], L_TRAIN), long_pairs(128, 10_000.0, 2048)
    dropped = half - int(MODEL["p"] * half)
    out.update(half=half, long=long, long_pct=pct(long / half), llama_long=llama,
               llama_pct=pct(llama / 64), dropped=dropped, still=long - dropped)
    # ALiBi
    slopes = alibi_slopes(MODEL["n_heads"])  # (heads,)
    steep, gentle = float(slopes.max()), float(slopes.min())
    k = spec["local"]["k"]
    heads = record["training"]["alibi_heads"]
    many = alibi_slopes(heads)  # (heads,)
    wide = record["alibi_heads"]
    out.update(slope=f"1/{round(1 / steep)}", slope_min=f"1/{round(1 / gentle)}",
               gap=i18n.number(steep * (L_TRAIN - 1 - k), "0.##"),
               far=L_TRAIN - 1, k=k, heads=heads, heads_dim=MODEL["d_model"] // heads,
               d_model=MODEL["d_model"], heads_min=f"1/{round(1 / float(many.max()))}",
               heads_max=f"1/{round(1 / float(many.min()))}",
               gap_many=i18n.number(float(many.max()) * (L_TRAIN - 1 - k), "0.#"),
               **{f"many_{t[0]}{end}": pct(wide[t]["all"][col][last]) for t in tm.TASKS
                  for end, col in (("", "accuracy"), ("_lo", "ci_low"), ("_hi", "ci_high"))})
    # the analyses
    analyses = record["analyses"]
    out.update({f"{name}_{t[0]}": pct(analyses[t][name]["accuracy"][last])
                for t in tm.TASKS for name in analyses[t]})
    out.update(held=L_TRAIN - 1)
    # frequencies under the scalings: YaRN's pairs, NTK's largest overshoot
    regime = rc.pair_regime(dh, MODEL["base"], "yarn", factor=float(FACTOR),
                            original_max_position_embeddings=L_TRAIN)
    theta = rc.theta(dh, MODEL["base"])  # (pairs,)
    ntk, _factor = rc.scaled_theta(dh, MODEL["base"], "ntk", factor=float(FACTOR))
    slow = rc.wavelength(theta) > L_TRAIN
    over = float(((LONGEST - 1) * ntk[slow] / ((L_TRAIN - 1) * theta[slow])).max())
    blended = [i for i, r in enumerate(regime) if r == "blended"]
    out.update(kept=", ".join(str(i) for i, r in enumerate(regime) if r == "kept"),
               blend_first=blended[0], blend_last=blended[-1],
               interp_first=regime.index("interpolated"), interp_last=half - 1,
               ntk_over=i18n.number(over, "0.#"),
               beta=i18n.number(YARN_BETA, "0.##"),
               fast_turns=i18n.number(L_TRAIN * float(theta.max()) / (2 * math.pi), "0.#"),
               paper_first=pct(float(rc.yarn_paper_ramp(dh, MODEL["base"], L_TRAIN)[0])),
               pi_over=i18n.number((LONGEST - 1) / FACTOR / (L_TRAIN - 1), "0.##"))
    # p-RoPE
    theta_rope = tm.model_theta(tm.model_config("local", "rope"))  # (pairs,)
    unrotated = theta_rope[tm.model_theta(tm.model_config("local", "p_rope")) == 0]
    out.update(angle_train=i18n.number(float(unrotated.max()) * (L_TRAIN - 1), "0.##"),
               angle_end=i18n.number(float(unrotated.max()) * (LONGEST - 1), "0.#"))
    # iRoPE
    start, elsewhere = chunk_start_accuracy()
    trained_irope = record["models"]["local"]["irope"].values()
    out.update(start=pct(start), elsewhere=pct(elsewhere), chunk=MODEL["chunk"],
               boundary=pct(k / MODEL["chunk"]), layers=MODEL["n_layers"],
               every=MODEL["nope_interval"],
               missed=sum(not info["reached"] for info in trained_irope),
               temp=i18n.number(float(query_scale(
                   "llama4", MODEL["floor_scale"], MODEL["attn_scale"], [LONGEST - 1])[0]),
                   "0.##"))
    return out


f = facts()
st.header(_("What the curves show, and what they do not"))
ui.bullets((
    _("**The local task does not test reach.** RoPE with every layer cut to a sliding "
      "window of L_train keys keeps {window_l} in the last bin ({last}): nothing beyond "
      "L_train is needed. What differs is how each model found the symbol k back: RoPE, "
      "p-RoPE and the 1:1 hybrid keep {rope_l}, {p_rope_l} and {hybrid_l}, while NoPE, "
      "sinusoidal and ALiBi drop in the first bin past L_train ({nope_l1}, "
      "{sinusoidal_l1}, {alibi_l1} in positions {first_beyond}) to about chance "
      "({chance_l}) in the last ({nope_l}, {sinusoidal_l}, {alibi_l}).").format(**f),
    _("**The recall task does.** The same window falls to {window_r} once the store has left "
      "it, and RoPE as trained falls to {rope_r}: near the {chance_r} of a value guessed among "
      "all {values}, not the {stored_r} of a guess among the {pairs} stored ones. From position "
      "{last_start} on, RoPE answers a value that is not in the store {rope_out} of the time, "
      "the window {window_out}: past L_train RoPE loses the store itself, not only which of its "
      "keys was asked. The models with layers or pairs that do not rotate keep more: the 1:1 "
      "hybrid {hybrid_r}, the iRoPE-like {irope_r}, p-RoPE {p_rope_r}; NoPE and ALiBi hold up "
      "to 2·L_train ({nope_2} and {alibi_2} in positions {up_to}), then fall alike ({nope_r}, "
      "interval {nope_r_lo} to {nope_r_hi}; {alibi_r}, {alibi_r_lo} to {alibi_r_hi}: the "
      "intervals overlap).").format(**f),
    _("**They do not show** how these encodings do in language models: two synthetic tasks, "
      "one size, one base ({base}), one L_train ({train} tokens), and the accuracy of the "
      "most likely answer rather than perplexity. The intervals cover the training seed "
      "and the sampled sequences, not the choices held fixed (learning rate, sizes, base, "
      "attention chunk, the stopping criterion).").format(**f),
    _("**The base weighs against RoPE.** RoPE and the sinusoidal encoding both use base "
      "{base}: with {half} pairs per head, {long} of them ({long_pct}) have a wavelength "
      "longer than L_train, so past it they turn to angles training never showed; in LLaMA "
      "(base 10⁴, heads of 128 dimensions, L = 2,048) {llama_long} of 64 do ({llama_pct}). "
      "RoPE here meets far more unseen angles past L_train than in a language model. "
      "p-RoPE leaves only the slowest {dropped} unrotated, so {still} such pairs still turn "
      "in it.").format(**f),
    _("**The intervals.** Each spans two intervals (95%), from the lower of their lower ends "
      "to the higher of their upper ends: Student's t over the "
      "{seeds} seed means, wide where the seeds disagree, and Wilson's over the {total} "
      "sequences pooled, wide where the sampled sequences alone could move the mean. The "
      "sequences widen {widened} of the {cells} intervals over seeds (both tasks, every "
      "curve and bin) by more than half a point (local ALiBi in the last bin: its seed "
      "means give {t_lo} to {t_hi}, the interval shown is {a_lo} to {a_hi}); the seeds set "
      "it where they disagree (NoPE "
      "on recall in the last bin: {nope_r_lo} to {nope_r_hi}). Where all {seeds} seeds agree "
      "the interval says nothing about a seed that fails now and then: {seeds} successes in "
      "{seeds} still allow a failure rate of up to {fail} per seed (one-sided, 95%). Each "
      "curve rests on {total} fresh sequences ({j} per seed); one seed's row in the CSV rests on "
      "its {j} alone, so its interval is wide: for a model right on every answer, {one_low} "
      "to 100%.").format(**f),
    _("Training stops at the first check (every {every} steps) whose held-out loss is at most "
      "the criterion, so a model that reached it is about as sure of its answers within "
      "L_train as the criterion asks, trained at most {every} steps more; the {missed} "
      "iRoPE-like models that missed it at the cap are a little less sure. How many steps "
      "that took differs widely (the training record above); the sensitivity run above "
      "shows what training on to the cap changes.").format(
          every=tm.TRAINING["check_every"], missed=f["missed"]),
))

st.header(_("Beside the papers"))
ui.bullets((
    _("**ALiBi** (Press et al. 2022): language models with ALiBi keep their perplexity on "
      "inputs longer than those they were trained on; on WikiText-103 a sinusoidal model's "
      "perplexity stopped improving 20 to 50 tokens past L, a rotary one's 200 tokens past "
      "L = 512 (100 past L = 1,024). *The two-head models here cannot test that claim on the "
      "local task:* with two heads Press et al.'s rule gives slopes {slope} and {slope_min}, "
      "and between a key {k} back and one {far} back the steeper head's bias differs by only "
      "{gap} logits, hardly a preference for the nearest keys; past L_train they fall to "
      "chance ({alibi_l}), as NoPE and sinusoidal do. With {heads} heads of {heads_dim} "
      "dimensions (d_model kept at {d_model}; slopes {heads_min} … {heads_max}: {gap_many} "
      "logits over the same keys; otherwise trained alike, recorded, not shipped) ALiBi "
      "keeps {many_l} of the local task in the last bin ({many_l_lo} to "
      "{many_l_hi}) and {many_r} of recall ({many_r_lo} to {many_r_hi}). On recall the "
      "two-head models hold to 2·L_train and then fall like NoPE ({alibi_r} and {nope_r}, "
      "intervals overlapping).").format(**f),
    _("**Sinusoidal** (Vaswani et al. 2017): Press et al. found its perplexity stopped "
      "improving a few dozen tokens past L, and Kazemnejad et al. found absolute encodings "
      "generalised worst of all on their tasks. *Here* it fails the local task past L_train "
      "({sinusoidal_l}) but keeps {sinusoidal_r} of recall in the last bin. Recall needs no "
      "position at the query: each key sits next to its value in the store, within L_train, "
      "and the query only has to match a key's contents. Held at PE[{held}] for every "
      "position past L_train (an analysis of the shipped models, recorded), the sinusoidal "
      "signal gives {sinusoidal_held_r} of recall: what the model loses is the disturbance "
      "of position vectors it never saw, not a lookup that needs position. Language "
      "modelling, the local task and Kazemnejad et al.'s tasks need position at every "
      "step.").format(**f),
    _("**NoPE** (Kazemnejad et al. 2023) generalised to longer inputs better than explicit "
      "encodings in small models trained on reasoning and arithmetic tasks; in their "
      "1B-scale code models trained on 1,024 tokens its perplexity, like ALiBi's, held up "
      "to about twice L. *Here the same holds on recall* up to 2·L_train ({nope_2}), and "
      "beyond it NoPE falls ({nope_r}). *On the local task it does not:* NoPE drops to "
      "{nope_l1} in the first bin past L_train ({first_beyond}) and to about chance "
      "({chance_l}) in the last ({nope_l}). Without an encoding a model can place the "
      "symbol k back only by what BOS and the causal mask let it count, and past L_train "
      "the counts are new.").format(**f),
    _("**Position interpolation** (Chen et al. 2023): LLaMA 7B (L = 2,048) extrapolating "
      "reached perplexity above 10³ at 8,192 tokens, and below 20 with interpolated "
      "positions before any fine-tuning; after 200 fine-tuning steps it found passkeys "
      "anywhere in the extended window, while direct fine-tuning, without interpolation, "
      "extended the window only from 2,048 to 2,560 tokens in more than 10,000 steps. "
      "*Here, without fine-tuning,* interpolation fails the local task even within L_train "
      "({pi_in_l}): the head that reads {k} back meets the angle it learned only {far_k} "
      "tokens back. On recall it keeps {pi_in_r} within L_train and {linear_r} in the last "
      "bin. *After {ft} fine-tuning steps* at {longest} tokens it keeps {linear_finetuned_l} "
      "(local) and {linear_finetuned_r} (recall), but that is measured at the length it was "
      "fine-tuned at, in distribution; *the control*, the same fine-tune without "
      "interpolation, keeps {finetuned_l} and {finetuned_r}. So these models cannot credit "
      "interpolation with what Chen et al.'s fine-tune shows. Unlike their extrapolation, "
      "RoPE as trained keeps the local task ({rope_l}): {k} tokens back is the same angle at "
      "every position, and the angles unseen in training come with long distances, which "
      "recall needs: there RoPE falls to {rope_r}.").format(far_k=f["k"] * FACTOR, **f),
    _("**YaRN, NTK-aware, interpolation, untrained** (Peng et al. 2023): on recall in the last "
      "bin YaRN keeps {yarn_r}, position interpolation {linear_r}, NTK-aware {ntk_r}. YaRN as "
      "transformers (and YaRN's reference code) computes it leaves pair {kept} as trained, "
      "blends pairs {blend_first}–{blend_last} and divides pairs "
      "{interp_first}–{interp_last}, whose wavelengths exceed L_train, by s = {s}. That "
      "split is the code's, not the paper's: within L_train even the fastest pair turns only "
      "{fast_turns} times, short of the {beta} turns from which the paper keeps a pair, so "
      "its ramp γ(r) would interpolate every pair mostly, even pair 0 ({paper_first}); the "
      "code keeps pair {kept} only because the ramp's lower end, which falls below pair 0, "
      "is clipped to pair 0. Interpolation divides every pair, and the fast ones, which "
      "tell a token from its neighbour, turn {s} times slower, so the models lose much even "
      "within L_train (recall "
      "{pi_in_r}; local {pi_in_l}); "
      "NTK-aware scaling changes the fast pairs little but leaves the slow ones turning up "
      "to {ntk_over} times past the largest angle they saw in training (YaRN and "
      "interpolation: {pi_over} times). Two analyses of the shipped models (recorded): YaRN "
      "without its attention factor keeps {yarn_without_factor_r}, and interpolation of only "
      "the pairs whose wavelength exceeds L_train keeps {pi_slow_pairs_r}. What matters here "
      "is leaving the fast pairs as trained while keeping the slow ones within the angles "
      "they saw.").format(s=FACTOR, **f),
    _("**p-RoPE** (Barbero et al. 2024): the authors argue that the slowest pairs serve as "
      "meaning-carrying channels that drift over long contexts, and report that leaving "
      "them unrotated slightly improved perplexity in their Gemma 2B experiments, measured "
      "at the 8,192-token training length, not past it. *Here, past it,* p-RoPE keeps "
      "{p_rope_r} of recall in the last bin against RoPE's {rope_r}, though far below the "
      "1:1 hybrid ({hybrid_r}), whose NoPE layers do not rotate at all. In the RoPE model "
      "the {dropped} pairs that p-RoPE leaves unrotated turn by at most {angle_train} rad "
      "within L_train and {angle_end} rad at {longest} tokens; but {still} more pairs with "
      "wavelengths longer than L_train keep turning in p-RoPE, so these models cannot tell "
      "the drift they describe from angles merely unseen. On the local task the two are "
      "alike ({p_rope_l}, {rope_l}).").format(**f),
    _("**iRoPE** (Llama 4): Meta's launch post describes interleaved attention layers "
      "without position embeddings and a temperature on attention at inference; Aston Zhang "
      "(Meta), in his thread on X at the launch (April 2025), adds that the RoPE layers use "
      "local chunked attention for short contexts (e.g. 8K), that only the global layers, "
      "without position embeddings, model long context, and that the longest training "
      "sequences held 256K tokens; Llama 4 Scout is configured for 10.5 million. *Here* the "
      "iRoPE-like models keep {irope_r} of recall in the last bin (RoPE {rope_r}) but lose "
      "part of the local task: past L_train {start} at the first {k} positions of each chunk "
      "of {chunk}, whose answer lies in the previous chunk that only the NoPE layer sees, "
      "against {elsewhere} elsewhere; {missed} of {seeds} seeds missed the training "
      "criterion. That loss is mostly an artefact of the chunk's size: here {boundary} of "
      "the answers sit at a chunk's start, in Llama 4 (chunks of 8,192 tokens) about {k} "
      "positions in 8,192 would. The 1:1 hybrid, whose RoPE layers see the whole input, "
      "keeps the local task ({hybrid_l}) and {hybrid_r} of recall. Also unlike Llama 4: with "
      "{layers} layers and every {every}th NoPE, the one NoPE layer is the last; Llama 4 "
      "Scout normalises q and k (L2) in its RoPE layers, which these models do not; and "
      "the query temperature acts in training too, as transformers' code applies it, where "
      "Meta describes it at inference. It reaches only {temp} at {longest} tokens "
      "here.").format(**f),
))


@st.fragment
def attention_section() -> None:
    st.header(_("Where a trained head looks"))
    c1, c2, c3 = st.columns(3)
    encoding = ui.choice(_("Model"), list(tm.ENCODINGS), "rope", key="model", container=c1,
                         fmt=lambda e: _(ENCODING_NAMES[e]), horizontal=False)
    length = ui.select_slider(_("Example length [tokens]"), MAP_LENGTHS, 32, key="length",
                              container=c2, fmt=str)
    layer = ui.choice(_("Layer"), list(range(1, MODEL["n_layers"] + 1)), MODEL["n_layers"],
                      key="layer", container=c3, fmt=str)
    ui.show(attention_figure(task, encoding, length, layer), key="attention_plot",
            alt=_("Heatmaps, one per head: the attention weights of the chosen model and layer "
                  "on one sequence, query position m down, key position across; bright cells "
                  "are the keys a query reads."),
            table=_("the attention weights (CSV below)"))
    weights = source_weight(task, encoding, length, layer)
    ui.explain(
        _("Seed 0's model, on one sequence of the chosen task. Each row is one query "
          "position m; bright cells are the keys it reads. Rows from m = {train} on lie "
          "beyond L_train.").format(train=L_TRAIN),
        _("Heads averaged, the weight on the token that holds each query's answer: {inside} "
          "in rows within L_train, {beyond} in rows beyond it.").format(
              inside=pct(weights.get("inside", 0.0)), beyond=pct(weights.get("beyond", 0.0)))
        if "beyond" in weights else
        _("Heads averaged, the weight on the token that holds each query's answer: "
          "{inside}.").format(inside=pct(weights.get("inside", 0.0))))
    ui.download(attention_table, task, encoding, length, layer,
                filename=f"tiny_attention_{task}_{encoding}_L{length}_layer{layer}.csv",
                label=_("attention weights"), key="attention")


attention_section()

st.header(_("Which frequencies the RoPE model uses"))
ui.show(norms_figure(task), key="norms_plot",
        alt=_("Line chart: for the chosen task's RoPE model (seed 0), the mean norm of its query "
              "(solid) and key (dashed) pairs per pair index and layer, heads averaged; the "
              "fastest pair on the left."),
        table=_("the pair norms (CSV below)"))
bands = constants.tiny_pair_bands()
ui.explain(
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
      "lowest ones, which they take to carry meaning rather than position. The two tasks "
      "split along that line: reading the symbol k back is positional, and the models use "
      "the fast pairs for it; finding a stored key is a match of contents, and the models "
      "put more into the slow pairs, which past L_train turn by angles never seen in "
      "training and which p-RoPE leaves unrotated."))
ui.download(norms_table, task, filename=f"tiny_pair_norms_{task}_rope.csv",
            label=_("pair norms"), key="norms")
