"""Trained tiny models (pages/trained_models.py) as a notebook.

The page reads the shipped models and their stored evaluation once per process
(``ui.constants``); the notebook reads them from ``folder``, the ``tiny/weights`` folder
of a copy of RoPE Explorer (``rope_core.beyond.tiny_model`` takes it as an argument), and
computes the curves and the paired comparisons as the page does (``ui.constants``'
``tiny_evaluation`` and ``tiny_comparisons``, taken as they are).
"""

from rope_core.beyond import tiny_model as tm
from ui import constants
from ui.i18n import N_

from . import Figure, Recipe

folder = tm.WEIGHTS_DIR  # in the notebook, its setting (RECIPE.settings)


def tiny_record() -> dict:
    """models.json in ``folder``: the training settings and what each training did."""
    return tm.read_record(folder)


def tiny_stored() -> dict:
    """evaluation.npz in ``folder``: the stored evaluation of every shipped model."""
    return tm.read_evaluation(folder)


def tiny_models() -> dict:
    """The shipped models of seed 0, ``{(task, encoding): model}``, from ``folder``."""
    return {(t, e): tm.load_models(t, e, folder=folder, seeds=(0,))[0]
            for t in tm.TASKS for e in tm.ENCODINGS}


RECIPE = Recipe(
    tables={"accuracy_table": "accuracy", "seed_accuracy_table": "accuracy_seeds",
            "comparisons_table": "comparisons", "arms_table": "arms",
            "training_table": "training", "attention_table": "attention",
            "norms_table": "norms"},
    figures={
        "encodings_plot": Figure('''
shown = accuracy[accuracy["method"] == "none"]  # every arm as trained, each group of answers
fig = px.line(shown, x="group", y="accuracy", color="arm", facet_row="task", markers=True)''',
                                 ("accuracy_table",), axes=False),
        "attention_plot": Figure('''
fig = px.imshow(np.stack([head.pivot(index="query m [tokens]", columns="key n [tokens]",
                                     values="weight") for _h, head in attention.groupby("head")]),
                facet_col=0, color_continuous_scale="Viridis")
for panel in fig.layout.annotations:
    panel.text = f"head {int(panel.text.split('=')[1]) + 1}"''', ("attention_table",),
            axes=False),
        "norms_plot": Figure('''
fig = px.line(norms.groupby(["layer", "pair i"], as_index=False)["mean |q_i|"].mean(),
              x="pair i", y="mean |q_i|", color="layer")''', ("norms_table",), axes=False),
    },
    code={"tiny_record": tiny_record, "tiny_stored": tiny_stored, "tiny_models": tiny_models,
          "tiny_evaluation": constants.tiny_evaluation,
          "tiny_comparisons": constants.tiny_comparisons,
          "tiny_pair_norms": constants.tiny_pair_norms,
          "tiny_pair_bands": constants.tiny_pair_bands},
    settings={"folder": (N_("The trained tiny models' files (their weights, models.json and "
                            "evaluation.npz) are in tiny/weights of your copy of RoPE "
                            "Explorer: rope_core finds that folder when it runs from your "
                            "copy; once installed with pip, write its path here instead, "
                            "for example folder = \"/home/me/rope-explorer/tiny/weights\"."),
                         "from rope_core.beyond.tiny_model import WEIGHTS_DIR\n"
                         "folder = WEIGHTS_DIR")})
