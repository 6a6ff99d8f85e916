"""Trained tiny models: seven position encodings and four controls, two tasks, five seeds
each, trained for the same steps, evaluated beyond the training length (by tiny/train.py,
read from tiny/weights/evaluation.npz); every comparison paired by seed and corrected."""

import streamlit as st

import ui
from rope_core.beyond import tiny_model as tm
from ui import constants, i18n
from ui.i18n import _
from views import trained_models as v

MODEL, SPEC, SEEDS, L_TRAIN = v.MODEL, v.SPEC, v.SEEDS, v.L_TRAIN
DH = MODEL["d_model"] // MODEL["n_heads"]

ui.settings()
record = constants.tiny_record()
ui.intro(
    _("Trained tiny models"),
    _("Seven kinds of small causal transformer, trained in this repository (`tiny/train.py`, "
      "on one CPU core): {layers} layers, d_model = {d}, {heads} heads of {dh} dimensions "
      "({pairs} RoPE pairs, base {base}).").format(
        layers=MODEL["n_layers"], d=MODEL["d_model"], heads=MODEL["n_heads"], dh=DH,
        pairs=DH // 2, base=ui.fmt_base(MODEL["base"])),
    _("Each kind is trained on each of two tasks from {seeds} seeds for exactly {steps} steps "
      "(a linear warm-up multiplied by a cosine decay: the learning rate peaks at {peak} at "
      "step {warmup}), on sequences of L_train = {train} tokens that start with a BOS "
      "token.").format(
        seeds=len(SEEDS), steps=i18n.integer(tm.TRAINING["steps"]), train=L_TRAIN,
        peak=i18n.number(tm.learning_rate(tm.TRAINING["warmup"], tm.TRAINING["steps"]),
                         "0.####"),
        warmup=tm.TRAINING["warmup"]),
    _("Within a task and a seed every kind starts from the same initial weights, reads the "
      "same batches and is evaluated on the same fresh sequences of {longest} tokens: kinds "
      "are compared seed by seed.").format(longest=v.LONGEST))
with st.expander(_("Where the results are stored, and how they are checked")):
    st.markdown(_(
        "`tiny/train.py` stores every model's right answers per sequence in "
        "`tiny/weights/evaluation.npz`; the page reads them, and `tiny/train.py --check` "
        "evaluates every shipped model again and retrains a sample, and finds the same "
        "counts."))
ui.bullets(v.task_lines())
st.caption(_("The sidebar's base and head dim do not apply here: these models were trained "
             "with base {base} and heads of {dh} dimensions.").format(
                 base=ui.fmt_base(MODEL["base"]), dh=DH))

st.header(_("What differs between the kinds"))
ui.bullets(v.differences())
ui.download(v.arms_table, filename="tiny_arms.csv", label=_("arms, layer by layer"),
            key="arms")

task = ui.choice(_("Task"), list(tm.TASKS), "local", key="task",
                 fmt=lambda t: _(v.TASK_NAMES[t]))
measure = "position"
if task == "recall":
    measure = ui.choice(_("Measure recall against"), ["distance", "depth"], "distance",
                        key="measure", fmt=lambda m: _(v.MEASURE_NAMES[m]), segmented=True)
label = v.compared_label(task, measure)

st.header(_("The seven encodings"))
ui.show(v.encodings_figure(task, measure), key="encodings_plot",
        alt=_("Chart: accuracy of each of the seven position encodings per group of answers "
              "(position bins, or recall's cells), a marker per group, averaged over the "
              "seeds, with a bar over the seeds' accuracies; lines join only the groups past "
              "the range training shows; dotted lines mark that range's end and chance."),
        table=_("the accuracy table (CSV below)"))
for note in v.encodings_notes(task, measure):
    ui.explain(note)

st.header(_("Paired comparisons"))
ui.show(v.forest_figure(task, measure), key="forest_plot",
        alt=_("Chart: one row per paired comparison of the models as trained in the farthest "
              "group, the difference between two kinds in percentage points with its "
              "simultaneous interval (all hold together at 95%); filled markers where the "
              "corrected p-value is below 0.05, open ones elsewhere."),
        table=_("the comparisons (CSV below)"))
what, *details = v.statistics_notes()
ui.explain(what)
with st.expander(_("The intervals and bars: what they hold")):
    for note in details:
        ui.explain(note)
ui.download(v.comparisons_table, filename="tiny_comparisons.csv",
            label=_("paired comparisons"), key="comparisons")

st.header(_("RoPE past L_train, run other ways"))
ui.show(v.methods_figure(task, measure), key="methods_plot",
        alt=_("Chart: accuracy per group of the RoPE models as trained, with a sliding window, "
              "with position interpolation, NTK-aware scaling and YaRN applied without "
              "training, and two analyses (YaRN without its attention factor, interpolation "
              "of the slow pairs only), each with a bar over the seeds' accuracies."),
        table=_("the accuracy table (CSV below)"))
what, where, *compared = v.methods_notes(task, label)
ui.explain(what)
ui.explain(where)
ui.bullets(compared)

st.header(_("Controls"))
ui.show(v.controls_figure(task, measure), key="controls_plot",
        alt=_("Chart: accuracy per group of each control (ALiBi with other slopes or heads, "
              "RoPE with base 5, also with YaRN, the iRoPE-like hybrid with smaller chunks) beside "
              "the kind it changes, each with a bar over the seeds' accuracies."),
        table=_("the accuracy table (CSV below)"))
where, *compared = v.controls_notes(task, label)
ui.explain(where)
ui.bullets(compared)
ui.download(v.accuracy_table, filename=f"tiny_accuracy_Ltrain{L_TRAIN}.csv",
            label=_("accuracy table, seeds pooled"), key="accuracy")
ui.download(v.seed_accuracy_table, filename=f"tiny_accuracy_per_seed_Ltrain{L_TRAIN}.csv",
            label=_("accuracy table, seed by seed"), key="accuracy_seeds")

st.header(_("How the models trained"))
for note in v.training_notes(task):
    ui.explain(note)
ui.paragraphs(*v.sensitivity_notes())
if changes := v.criterion_changes():
    ui.bullets(changes)
ui.download(v.training_table, filename="tiny_training.csv", label=_("training record"),
            key="training")

st.header(_("What the curves show, and what they do not"))
ui.bullets(v.findings())

st.header(_("Beside the papers"))
ui.bullets(v.papers())


@st.fragment
def attention_section() -> None:
    st.header(_("Where a trained head looks"))
    c1, c2, c3 = st.columns(3)
    encoding = ui.choice(_("Model"), list(tm.ENCODINGS), "rope", key="model", container=c1,
                         fmt=lambda e: _(v.ENCODING_NAMES[e]), horizontal=False)
    length = ui.select_slider(_("Example length [tokens]"), v.MAP_LENGTHS, 32, key="length",
                              container=c2, fmt=str)
    layer = ui.choice(_("Layer"), list(range(1, MODEL["n_layers"] + 1)), MODEL["n_layers"],
                      key="layer", container=c3, fmt=str)
    ui.show(v.attention_figure(task, encoding, length, layer), key="attention_plot",
            alt=_("Heatmaps, one per head: the attention weights of the chosen model and layer "
                  "on one sequence, query position m down, key position across; bright cells "
                  "are the keys a query reads."),
            table=_("the attention weights (CSV below)"))
    weights = v.source_weight(task, encoding, length, layer)
    ui.explain(
        _("Seed 0's model, on one sequence of the chosen task. Each row is one query "
          "position m; bright cells are the keys it reads. Rows from m = {train} on lie "
          "beyond L_train.").format(train=L_TRAIN),
        _("Heads averaged, the weight on the token that holds each query's answer: {inside} "
          "in rows within L_train, {beyond} in rows beyond it.").format(
              inside=v.pct(weights.get("inside", 0.0)), beyond=v.pct(weights.get("beyond", 0.0)))
        if "beyond" in weights else
        _("Heads averaged, the weight on the token that holds each query's answer: "
          "{inside}.").format(inside=v.pct(weights.get("inside", 0.0))))
    ui.download(v.attention_table, task, encoding, length, layer,
                filename=f"tiny_attention_{task}_{encoding}_L{length}_layer{layer}.csv",
                label=_("attention weights"), key="attention")


attention_section()

st.header(_("Which frequencies the RoPE model uses"))
ui.show(v.norms_figure(task), key="norms_plot",
        alt=_("Line chart: for the chosen task's RoPE model (seed 0), the mean norm of its query "
              "(solid) and key (dashed) pairs per pair index and layer, heads averaged; the "
              "fastest pair on the left."),
        table=_("the pair norms (CSV below)"))
for note in v.norms_notes():
    ui.explain(note)
ui.download(v.norms_table, task, filename=f"tiny_pair_norms_{task}_rope.csv",
            label=_("pair norms"), key="norms")
