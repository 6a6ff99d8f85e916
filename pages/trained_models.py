"""Trained tiny models: six position encodings, one task, evaluated live past L_train."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import ui
from rope_core import tiny_model as tm
from ui import constants, i18n
from ui.i18n import N_, _

L_TRAIN = tm.TRAINING["length"]
K = tm.TRAINING["k"]
LENGTHS = tm.eval_lengths(8)  # L_train ... 8 L_train
MAP_LENGTHS = (16, 32, 64)  # attention-map examples (a heatmap per head: small)
# Translators: names of position encodings in a legend and a choice.
ENCODING_NAMES = {"nope": N_("NoPE"), "sinusoidal": N_("sinusoidal"), "rope": N_("RoPE"),
                  "alibi": N_("ALiBi"), "p_rope": N_("p-RoPE"),
                  "hybrid": N_("hybrid")}
# Translators: context-extension methods applied to the RoPE model at inference.
METHOD_NAMES = {"linear": N_("RoPE + position interpolation"),
                "ntk": N_("RoPE + NTK-aware"), "yarn": N_("RoPE + YaRN")}
# a colour per curve, the same in both figures (RoPE green in each); p-RoPE dotted, since
# it lies on RoPE's curve; the scalings dashed
STYLE = {("nope", "none"): (0, "solid"), ("sinusoidal", "none"): (1, "solid"),
         ("rope", "none"): (2, "solid"), ("alibi", "none"): (3, "solid"),
         ("p_rope", "none"): (4, "dot"), ("hybrid", "none"): (5, "solid"),
         ("rope", "linear"): (0, "dash"), ("rope", "ntk"): (3, "dash"),
         ("rope", "yarn"): (4, "dash")}
SETTINGS_COLUMNS = {"L_train [tokens]": L_TRAIN, "k [tokens]": K,
                    "eval sequences": tm.EVAL_SEQUENCES}
FACTOR = LENGTHS[-1] // L_TRAIN  # s of the context-extension methods: L_train -> 8 L_train


def shipped(encoding: str) -> tm.TinyTransformer:
    """A shipped model, loaded once per process (ui.constants; read-only)."""
    return constants.tiny_models()[encoding]


def curves() -> tuple[tuple[str, str], ...]:
    return constants.tiny_curves()


@ui.table
def accuracy_table() -> pd.DataFrame:
    """Every curve: one row per encoding, method and length, in the order of
    :func:`curves` (one evaluation pass per curve, one table built by column)."""
    pairs, n = curves(), len(LENGTHS)
    accuracy = constants.tiny_accuracy().ravel()  # evaluated once per process, live
    return pd.DataFrame({**{name: [value] * (n * len(pairs))
                            for name, value in SETTINGS_COLUMNS.items()},
                         "scaling factor s": [1 if m == "none" else FACTOR
                                              for e, m in pairs for _n in LENGTHS],
                         "encoding": [e for e, m in pairs for _n in LENGTHS],
                         "method": [m for e, m in pairs for _n in LENGTHS],
                         "length [tokens]": list(LENGTHS) * len(pairs), "accuracy": accuracy})


def accuracy_curves() -> dict[tuple[str, str], np.ndarray]:
    """Each (encoding, method)'s accuracies at LENGTHS, ``(len(LENGTHS),)``."""
    return dict(zip(curves(), constants.tiny_accuracy()))


def accuracy_traces(pairs: list[tuple[str, str]]) -> list[dict]:
    """One line per (encoding, method), styled by STYLE, as plain dicts (Plotly's
    trace objects validate every property: most of a figure's cost)."""
    hover = _("length {n} tokens<br>accuracy {acc}").format(n="%{x}", acc="%{y:.3f}")
    traces, accuracy, lengths = [], accuracy_curves(), np.array(LENGTHS)
    for encoding, method in pairs:
        name = _(ENCODING_NAMES[encoding]) if method == "none" else _(METHOD_NAMES[method])
        color, dash = STYLE[encoding, method]
        traces.append(dict(type="scatter", x=lengths,
                           y=accuracy[encoding, method], name=name, mode="lines+markers",
                           line=dict(color=ui.COLORS[color], dash=dash),
                           hovertemplate=hover + "<extra>" + name + "</extra>"))
    return traces


def accuracy_layout() -> dict:
    """Dotted lines at L_train and at chance; log length axis ticked at the lengths."""
    dotted = dict(type="line", line=dict(dash="dot", width=1.5))
    return dict(
        shapes=[dict(dotted, x0=L_TRAIN, x1=L_TRAIN, y0=0, y1=1, yref="paper",
                     line=dict(dotted["line"], color="black")),
                dict(dotted, x0=0, x1=1, xref="paper", y0=1 / tm.TRAINING["model"]["vocab"],
                     y1=1 / tm.TRAINING["model"]["vocab"],
                     line=dict(dotted["line"], color="gray"))],
        xaxis=dict(type="log", tickvals=list(LENGTHS), ticktext=[str(n) for n in LENGTHS]),
        yaxis=dict(range=[0, 1.03]))


@ui.figure
def accuracy_figure() -> ui.Frozen:
    """The six encodings' accuracy against evaluation length."""
    title = _("Accuracy against evaluation length, one model per encoding "
              "(trained at L_train = {train} tokens)").format(train=L_TRAIN)
    return ui.kept_figure(accuracy_traces([(e, "none") for e in tm.ENCODINGS]),
                          layout=accuracy_layout(), title=title,
                          x=_("evaluation length [tokens] (log scale)"), y=_("accuracy"),
                          height=460)


@ui.figure
def scaling_figure() -> ui.Frozen:
    """The RoPE model as trained and with three context-extension scalings (s = 8)."""
    title = _("The RoPE model with context extension at inference, no fine-tuning "
              "(s = {s}: L_train → {longest} tokens)").format(s=FACTOR, longest=LENGTHS[-1])
    return ui.kept_figure(accuracy_traces([("rope", m) for m in ("none", *METHOD_NAMES)]),
                          layout=accuracy_layout(), title=title,
                          x=_("evaluation length [tokens] (log scale)"), y=_("accuracy"),
                          height=420)


@ui.table
def attention_table(encoding: str, length: int, layer: int) -> pd.DataFrame:
    """One layer's attention weights on one example: one row per head, query m, key n."""
    weights = tm.attention_example(shipped(encoding), length)[layer - 1]  # (heads, m, n)
    heads, m, n = np.meshgrid(np.arange(weights.shape[0]), np.arange(length),
                              np.arange(length), indexing="ij")
    return pd.DataFrame({"encoding": encoding, "layer": layer, "length [tokens]": length,
                         "head": heads.ravel() + 1, "query m [tokens]": m.ravel(),
                         "key n [tokens]": n.ravel(),
                         "weight": weights.numpy().astype(np.float64).ravel()})


def diagonal_summary(encoding: str, length: int, layer: int) -> dict:
    """Heads averaged: the mean weight at distance m - n = k in rows m < L_train and
    m >= L_train, and beyond L_train the most-read other distance and its weight."""
    df = attention_table(encoding, length, layer)
    m, n = df["query m [tokens]"], df["key n [tokens]"]
    heads = df["head"].max()
    per_row = df[m >= K].assign(distance=m - n)
    inside = per_row[per_row["query m [tokens]"] < L_TRAIN]
    beyond = per_row[per_row["query m [tokens]"] >= L_TRAIN]
    out = {"inside": inside.loc[inside["distance"] == K, "weight"].sum()
           / (heads * inside["query m [tokens]"].nunique())}
    if len(beyond):
        rows = heads * beyond["query m [tokens]"].nunique()
        by_distance = beyond.groupby("distance")["weight"].sum() / rows
        other = by_distance.drop(K)
        out.update(beyond=by_distance[K], other=int(other.idxmax()), other_weight=other.max())
    return out


@ui.figure
def attention_figure(encoding: str, length: int, layer: int) -> ui.Frozen:
    """One heatmap per head on a 2 x 2 grid (axes laid out by hand: make_subplots is slow)."""
    df = attention_table(encoding, length, layer)
    heads = int(df["head"].max())
    z = df["weight"].to_numpy().reshape(heads, length, length)
    z = np.where(np.tril(np.ones((length, length), dtype=bool)), z, np.nan)  # (heads, m, n)
    hover = _("m={m}, n={n}<br>weight={value}").format(m="%{y}", n="%{x}", value="%{z:.3f}")
    columns, rows = ([0, 0.45], [0.55, 1]), ([0.6, 1], [0, 0.4])  # domains, top row first
    traces, layout, titles = [], {}, []
    for h in range(heads):
        suffix = "" if h == 0 else str(h + 1)
        row, col = divmod(h, 2)
        traces.append(dict(type="heatmap", z=ui.typed(z[h]), coloraxis="coloraxis",
                           xaxis=f"x{suffix}", yaxis=f"y{suffix}",
                           hovertemplate=hover + "<extra></extra>"))
        layout[f"xaxis{suffix}"] = dict(domain=columns[col], anchor=f"y{suffix}",
                                        showgrid=False, zeroline=False)
        layout[f"yaxis{suffix}"] = dict(domain=rows[row], anchor=f"x{suffix}",
                                        autorange="reversed", showgrid=False, zeroline=False)
        titles.append(dict(text=_("head {h}").format(h=h + 1), showarrow=False,
                           x=sum(columns[col]) / 2, y=rows[row][1], xref="paper", yref="paper",
                           xanchor="center", yanchor="bottom"))
    # the app's style, set on an empty figure (one pair of axes, cheap), copied to each panel
    styled = ui.style(go.Figure(), title=_("{model}, layer {layer}: attention weights on one "
                                           "sequence of {n} tokens").format(
                                               model=_(ENCODING_NAMES[encoding]), layer=layer,
                                               n=length),
                      x=_("key position n [tokens]"), y=_("query position m [tokens]"),
                      height=640)
    styled = ui.freeze(styled).spec["layout"]  # JSON-ready: the panels are added as dicts
    for name, axis in layout.items():
        # axis titles once per row and column of the left panels (two x titles side by
        # side would run into each other on a phone)
        outer = name in ("xaxis3", "yaxis", "yaxis3")
        style = dict(styled[name[0] + "axis"])
        if not outer:
            style.pop("title", None)
        layout[name] = dict(style, **axis)
    styled.update(layout, annotations=[*styled.get("annotations", []), *titles],
                  plot_bgcolor="#c8c8c8",
                  coloraxis=dict(colorscale="Viridis", cmin=0, cmax=1,
                                 colorbar=dict(title=dict(text=_("weight")))))
    return ui.Frozen(dict(data=traces, layout=styled))


@ui.table
def norms_table(encoding: str) -> pd.DataFrame:
    """Mean norm of each pair of q and k, per layer and head (Barbero et al. 2024)."""
    model = shipped(encoding)
    norms = tm.pair_norms(model)  # (layers, heads, 2, pairs)
    layers, heads, _two, pairs = norms.shape
    theta_t = tm.model_theta(model.cfg)  # (pairs,) float64
    theta = theta_t.numpy()
    layer, head, i = np.meshgrid(np.arange(layers), np.arange(heads), np.arange(pairs),
                                 indexing="ij")  # (layers, heads, pairs) each
    # divided in torch, as before (numpy rounds some quotients an ulp apart)
    wavelength = np.where(theta > 0, (2 * np.pi / theta_t).numpy(), np.inf)  # (pairs,)
    norms = norms.numpy().astype(np.float64)
    return pd.DataFrame({"encoding": encoding, "layer": layer.ravel() + 1,
                         "head": head.ravel() + 1, "pair i": i.ravel(),
                         "theta_i [rad/token]": theta.astype(np.float64)[i.ravel()],
                         "wavelength [tokens]": wavelength.astype(np.float64)[i.ravel()],
                         "mean |q_i|": norms[:, :, 0, :].ravel(),
                         "mean |k_i|": norms[:, :, 1, :].ravel()})


@ui.figure
def norms_figure(encoding: str) -> ui.Frozen:
    df = norms_table(encoding)
    mean = df.groupby(["layer", "pair i"])[["mean |q_i|", "mean |k_i|"]].mean()  # heads averaged
    hover = _("pair {i}<br>mean norm {value}").format(i="%{x}", value="%{y:.3f}")
    traces = []
    for layer in sorted(set(df["layer"])):
        block = mean.loc[layer]
        for column, label, dash in (("mean |q_i|", _("layer {layer}, query"), "solid"),
                                    ("mean |k_i|", _("layer {layer}, key"), "dash")):
            name = label.format(layer=layer)
            traces.append(dict(type="scatter", x=block.index.to_numpy(),
                               y=block[column].to_numpy(), name=name, mode="lines+markers",
                               line=dict(color=ui.COLORS[layer - 1], dash=dash),
                               hovertemplate=hover + "<extra>" + name + "</extra>"))
    title = _("{model}: how much each frequency pair carries (mean norm of q and k per pair, "
              "heads averaged)").format(model=_(ENCODING_NAMES[encoding]))
    return ui.kept_figure(traces, yaxes=dict(rangemode="tozero"), title=title,
                          x=_("pair index i (0 = fastest, θ₀ = 1 rad/token)"),
                          y=_("mean norm"), height=440)


ui.settings()
st.title(_("Trained tiny models"))
record = constants.tiny_record()
cfg = record["training"]["model"]
st.markdown(_(
    "Six small causal transformers, trained in this repository (`tiny/train.py`, on one CPU "
    "core), identical except for the position encoding: {layers} layers, d_model = {d}, "
    "{heads} heads of {dh} dimensions, {vocab} symbols. The task needs token order and "
    "nothing else: read a sequence of random symbols and, at every position m, answer the "
    "symbol k = {k} places back. Every model saw only sequences of L_train = {train} tokens; "
    "the page evaluates the shipped weights live on {n} fixed random sequences of "
    "{longest} tokens, never seen in training (the accuracy at length n counts the answers "
    "within their first n tokens).").format(
        layers=cfg["n_layers"], d=cfg["d_model"], heads=cfg["n_heads"],
        dh=cfg["d_model"] // cfg["n_heads"], vocab=cfg["vocab"], k=K, train=L_TRAIN,
        longest=LENGTHS[-1], n=tm.EVAL_SEQUENCES))
st.caption(_("The sidebar's base and head dim do not apply here: these models were trained "
             "with base {base} and heads of {dh} dimensions.").format(
                 base=ui.fmt_base(cfg["base"]), dh=cfg["d_model"] // cfg["n_heads"]))

with st.spinner(_("Evaluating the models…")):
    CURVES = accuracy_curves()  # one lookup per number, not a filter of the whole table


def accuracy_at(encoding: str, length: int, method: str = "none") -> float:
    return float(CURVES[encoding, method][LENGTHS.index(length)])


def unrotated_angles() -> dict:
    """The largest angle, in the RoPE model, of the pairs p-RoPE leaves unrotated:
    m theta_i for its fastest such pair, at m = L_train and at the longest length."""
    theta = tm.model_theta(shipped("rope").cfg)  # (d_head/2,)
    fastest_dropped = float(theta[tm.model_theta(shipped("p_rope").cfg) == 0].max())
    return {"angle_train": i18n.number(L_TRAIN * fastest_dropped, "0.###"),
            "angle_end": i18n.number(LENGTHS[-1] * fastest_dropped, "0.###")}


def pct(value: float) -> str:
    """A share as a percentage in the run's number format: 0.934 -> "93.4%"."""
    return i18n.number(100 * value, "0.#") + "%"


longest = LENGTHS[-1]
end = {e: pct(accuracy_at(e, longest)) for e in tm.ENCODINGS}
end.update({m: pct(accuracy_at("rope", longest, m)) for m in METHOD_NAMES})
trained = {e: pct(v["accuracy_at_L_train"]) for e, v in record["models"].items()}

ui.show(accuracy_figure(), key="accuracy_plot",
        alt=_("Line chart: accuracy against the evaluation length (log scale), one line per "
              "position encoding, with the training length marked; past it, the encodings part "
              "ways."), table=_("accuracy table"))
ui.explain(
    _("Dotted lines: L_train (vertical) and chance, 1/{vocab} (horizontal). Trained at "
      "L_train, on {held} held-out sequences of that length: {trained}.").format(
          vocab=cfg["vocab"], held=tm.HELDOUT_SEQUENCES, trained=_(", ").join(
              _("{model} {acc}").format(model=_(ENCODING_NAMES[e]), acc=trained[e])
              for e in tm.ENCODINGS)),
    _("At {n} tokens: {ranking}.").format(
        n=longest, ranking=_(", ").join(
            _("{model} {acc}").format(model=_(ENCODING_NAMES[e]), acc=end[e])
            for e in sorted(tm.ENCODINGS, key=lambda e: -accuracy_at(e, longest)))),
    _("The accuracy at length n counts every answered position up to n, so at 8·L_train one "
      "position in eight still lies within the trained length."))
ui.download(accuracy_table, filename=f"tiny_accuracy_Ltrain{L_TRAIN}.csv",
            label=_("accuracy table"), key="accuracy")

st.subheader(_("Context extension without fine-tuning"))
ui.show(scaling_figure(), key="scaling_plot",
        alt=_("Line chart: the RoPE model's accuracy against the evaluation length (log scale), as "
              "trained and with three context-extension scalings applied at inference without fine-"
              "tuning."), table=_("accuracy table"))
ui.explain(_(
    "The RoPE model's weights unchanged, its frequencies replaced at inference by "
    "rope_core's scalings for s = {s} (original_max_position_embeddings = L_train): position "
    "interpolation divides every θᵢ by s; NTK-aware scaling raises the base so the fastest "
    "pair keeps θ₀ = 1 and the slowest is divided by s; YaRN keeps the fast pairs, "
    "interpolates the slow ones and multiplies the logits by its attention factor squared. "
    "The scaling is set once for {longest} tokens, as a model's config sets it, so it "
    "applies at L_train too. At {longest} tokens: {linear} with position interpolation, "
    "{ntk} with NTK-aware scaling, {yarn} with YaRN, against {rope} unscaled.").format(
        s=FACTOR, longest=longest, linear=end["linear"], ntk=end["ntk"], yarn=end["yarn"],
        rope=end["rope"]))

st.subheader(_("What the literature reports, and what these models do"))
facts = dict(alibi=end["alibi"], rope=end["rope"], sin=end["sinusoidal"], nope=end["nope"],
             nope_train=trained["nope"], linear_train=pct(accuracy_at("rope", L_TRAIN, "linear")),
             p_rope=end["p_rope"], hybrid=end["hybrid"], ntk=end["ntk"], n=longest,
             base=ui.fmt_base(cfg["base"]), pairs=cfg["d_model"] // cfg["n_heads"] // 2,
             **unrotated_angles())
st.markdown("\n".join([
    "- " + _("**ALiBi** (Press et al. 2022): language models with "
             "ALiBi keep their perplexity on inputs longer than those they were trained on, "
             "where sinusoidal models fail at once and rotary ones hold only a little past "
             "their length. *Here the same order:* ALiBi {alibi}, RoPE {rope}, sinusoidal "
             "{sin} at {n} tokens. ALiBi's bias only grows with distance, so a head that "
             "looks k back meets nothing new in a longer sequence; the sinusoidal model meets "
             "position vectors it never saw.").format(**facts),
    "- " + _("**NoPE** (Kazemnejad et al. 2023): small decoder-only models without any "
             "position encoding generalised to longer inputs better than those with absolute "
             "encodings, and as well as or better than RoPE and ALiBi, on their synthetic "
             "tasks. *Here only in part:* NoPE beats the sinusoidal model ({nope} against "
             "{sin} at {n} tokens) but not RoPE or ALiBi, and it learned the task least well "
             "({nope_train} at L_train): an exact offset is hard to build from the causal "
             "mask alone, and this task is nothing but an exact offset.").format(**facts),
    "- " + _("**Position interpolation** (Chen et al. 2023): dividing every position by s "
             "keeps RoPE's angles within the trained range; Chen et al. extend LLaMA this "
             "way and then fine-tune briefly (within 1000 steps), and show that extrapolating "
             "without interpolation fails. *Here, without the fine-tuning,* interpolation "
             "fails at every length, L_train included ({linear_train}): the head learned the "
             "angle between tokens k apart, and interpolation shows it that angle only "
             "s·k tokens apart. NTK-aware scaling, which keeps the fastest pairs, holds "
             "{ntk} at {n} tokens.").format(**facts),
    "- " + _("**p-RoPE** (Barbero et al. 2024) leaves the slowest quarter of the pairs "
             "unrotated. Its curve lies on the RoPE model's ({p_rope} against {rope}) for a "
             "plain reason: with base {base} and {pairs} pairs per head, the pairs it leaves "
             "unrotated turn by at most {angle_train} rad within L_train in the RoPE model "
             "too ({angle_end} rad at {n} tokens), so at these lengths the two models (same "
             "seed, same data) are nearly the same network. p-RoPE is about long contexts, "
             "where those pairs do turn. The **hybrid**, whose second layer has no position "
             "encoding, falls off sooner than RoPE ({hybrid}).").format(**facts),
]))
st.caption(_("These are 2-layer models trained for half a minute each on one synthetic task; "
             "the papers train far larger models on language and other tasks. Other seeds or "
             "sizes may reorder curves that lie close together."))


@st.fragment
def attention_section() -> None:
    st.subheader(_("Where a trained head looks"))
    c1, c2, c3 = st.columns(3)
    encoding = ui.choice(_("Model"), list(tm.ENCODINGS), "rope", key="model", container=c1,
                         fmt=lambda e: _(ENCODING_NAMES[e]), horizontal=False)
    length = ui.select_slider(_("Example length [tokens]"), MAP_LENGTHS, 32, key="length",
                              container=c2, fmt=str)
    layer = ui.choice(_("Layer"), [1, 2], 2, key="layer", container=c3, fmt=str)
    ui.show(attention_figure(encoding, length, layer), key="attention_plot",
            alt=_("Four heatmaps, one per attention head: the weight of every query position m "
                  "(rows) on every key position (columns) for one sequence."),
            table=_("attention weights"))
    ui.explain(_("Each row is one query position m; bright cells are the keys it reads. A "
                 "head that reads the answer directly puts its weight on the diagonal "
                 "n = m − {k}: the RoPE, p-RoPE and sinusoidal models do so in layer 2, the "
                 "hybrid in its RoPE layer 1. The ALiBi and NoPE models spread their weight "
                 "over several recent keys in both layers and assemble the answer across the "
                 "two. Rows below m = {train} lie beyond L_train: the head meets distances and "
                 "positions it never saw.").format(k=K, train=L_TRAIN))
    d = diagonal_summary(encoding, length, layer)
    if "beyond" in d:
        st.markdown(_("Here, heads averaged: weight {inside} on n = m − {k} in rows within "
                      "L_train, {beyond} in rows beyond it, where the other distance read most "
                      "is m − n = {other} ({weight}).").format(
                          inside=pct(d["inside"]), k=K, beyond=pct(d["beyond"]),
                          other=d["other"], weight=pct(d["other_weight"])))
    else:
        st.markdown(_("Here, heads averaged: weight {inside} on n = m − {k}.").format(
            inside=pct(d["inside"]), k=K))
    ui.download(attention_table, encoding, length, layer,
                filename=f"tiny_attention_{encoding}_L{length}_layer{layer}.csv",
                label=_("attention weights"), key="attention")


attention_section()

st.subheader(_("Which frequencies the RoPE model uses"))
ui.show(norms_figure("rope"), key="norms_plot",
        alt=_("Line chart: the mean norm of the query and of the key in each frequency pair against"
              " the pair index i, one colour per layer, queries solid and keys dashed."),
        table=_("pair norms"))
norms = norms_table("rope")
by_pair = norms.groupby(["layer", "pair i"])[["mean |q_i|", "mean |k_i|"]].mean().sum(axis=1)
top = by_pair.loc[2].sort_values(ascending=False)
ui.explain(
    _("A pair whose q and k are short barely moves the score, however it turns. In layer 2 "
      "the largest norms sit in pairs {first} and {second} (wavelengths {w1} and {w2} "
      "tokens): the head that finds the symbol k back reads short distances, which only the "
      "fast pairs resolve.").format(
          first=int(top.index[0]), second=int(top.index[1]),
          w1=i18n.number(2 * np.pi / float(tm.model_theta(shipped("rope").cfg)[top.index[0]]),
                         "0.#"),
          w2=i18n.number(2 * np.pi / float(tm.model_theta(shipped("rope").cfg)[top.index[1]]),
                         "0.#")),
    _("Barbero et al. (2024) read Gemma 7B this way: it builds its positional attention "
      "patterns from the highest frequencies, as here, but overall puts the largest norms in "
      "the lowest frequencies, which they take to carry meaning rather than position; this "
      "task has no meaning to carry."))
ui.download(norms_table, "rope", filename="tiny_pair_norms_rope.csv",
            label=_("pair norms"), key="norms")
