"""Real models' RoPE settings, built from their published config.json values.

Each preset is a JSON file in ``preset_configs/`` beside this module, named for the preset
(:func:`slug`: ``Qwen3 8B`` is ``qwen3-8b.json``), and ``preset_configs/order.json`` lists
the files in the order the pages offer them. A file holds::

    {"name": "Qwen3 8B",
     "source": "Hub Qwen/Qwen3-8B, config.json; context 32,768: ...",
     "comment": "Qwen/Qwen3-8B, config.json (explicit head_dim 128 = 4096 / 32)",
     "config": {"model_type": "qwen3", "hidden_size": 4096, ...},
     "training_context": 32768,
     "training_comment": "the card: 32,768 natively ..."}

``config`` holds the RoPE-relevant fields of the model's ``config.json`` on the Hugging
Face Hub, as that file writes them (a file to compare with the Hub's); fields a config.json
omits and transformers fills from the model class's defaults are written out and the
comment says so. Each preset is :meth:`RopeConfig.from_hf` applied to its ``config``, so
every preset also exercises the parser. ``source`` (:data:`SOURCES`) names where the values
come from (the Hub repository's config.json, the public copy the values were checked
against, the model card); ``comment`` is the maintainer's note on the values (where the
file differs from the Hub's, and why), shown nowhere.

A model card's long-context recipe merged into the model's config.json is a preset of its
own with ``base`` (the preset of that config.json as the Hub has it) and
``card_rope_scaling`` (the rope_scaling the card adds) instead of ``config``: its config is
the base's with that ``rope_scaling`` and max_position_embeddings set to the length it
reaches, factor x original_max_position_embeddings (:func:`card_recipe`;
:data:`CARD_RECIPES`).

``training_context`` (:data:`TRAINING`) is the pre-training context of the presets whose
config.json does not say it (its max_position_embeddings is a configured context, not the
training length), with the paper or card that does in ``source`` and the reading in
``training_comment``. It sets the preset's ``training_context``; it also sets
``original_context`` (the L of context extension) unless the config's rope_scaling already
names one (``original_max_position_embeddings``, the L its scaling was built on, which
stays: Llama 4 Scout's llama3 scaling starts from 8,192 though the model was trained at
262,144).

:data:`NOTES`, the notes a page shows with a preset, stay here: they are messages of the
app's catalog.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from ..support._checks import N_, RopeError, check_int, fail
from .config import MAX_CONTEXT, RopeConfig, parse_json

PRESET_DIR = Path(__file__).with_name("preset_configs")
ORDER_FILE = "order.json"

REQUIRED = ("name", "source", "comment")
OPTIONAL = ("config", "base", "card_rope_scaling", "training_context", "training_comment")


def slug(name: str) -> str:
    """A preset's file name without ``.json``: its name in lower case, each run of
    characters other than letters, digits and dots one hyphen (``Qwen2.5 7B (YaRN 128K)``:
    ``qwen2.5-7b-yarn-128k``)."""
    return re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-")


def card_recipe(config: dict, rope_scaling: dict) -> dict:
    """A model card's long-context recipe applied to its config.json: ``rope_scaling``
    added, and max_position_embeddings set to the length it reaches,
    factor x original_max_position_embeddings."""
    reach = rope_scaling["factor"] * rope_scaling["original_max_position_embeddings"]
    return {**config, "max_position_embeddings": int(reach), "rope_scaling": rope_scaling}


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _check_entry(entry) -> None:
    """Raise RopeError unless ``entry`` is a preset as the module docstring describes it
    (its fields, their types, ``config`` or ``base`` and ``card_rope_scaling``,
    ``training_context`` with its ``training_comment``)."""
    if not isinstance(entry, dict):
        fail("preset", type(entry).__name__, "a JSON object")
    missing = [key for key in REQUIRED if key not in entry]
    unknown = sorted(set(entry) - set(REQUIRED) - set(OPTIONAL))
    if missing or unknown:
        raise RopeError("A preset has the fields {required} and some of {optional}; "
                        "missing: {missing}, unknown: {unknown}.", required=list(REQUIRED),
                        optional=list(OPTIONAL), missing=missing, unknown=unknown)
    for key in REQUIRED + ("base", "training_comment"):
        if key in entry and not (isinstance(entry[key], str) and entry[key].strip()):
            fail(key, entry[key], "a non-empty string")
    if ("config" in entry) == ("base" in entry) or ("base" in entry) != (
            "card_rope_scaling" in entry):
        raise RopeError("A preset has either config, or base and card_rope_scaling; this one "
                        "has {fields}.", fields=sorted(set(entry) & set(OPTIONAL[:3])))
    if "config" in entry and not isinstance(entry["config"], dict):
        fail("config", type(entry["config"]).__name__, "a JSON object")
    if "card_rope_scaling" in entry:
        scaling = entry["card_rope_scaling"]
        if not (isinstance(scaling, dict) and _is_number(scaling.get("factor"))
                and _is_number(scaling.get("original_max_position_embeddings"))):
            fail("card_rope_scaling", scaling, "a JSON object with a positive factor and "
                 "original_max_position_embeddings")
    if ("training_context" in entry) != ("training_comment" in entry):
        raise RopeError("training_context and training_comment go together.")
    if "training_context" in entry:
        check_int(entry["training_context"], "training_context", 1, MAX_CONTEXT)


def _in_file(file: str, error: RopeError) -> RopeError:
    """``error`` with the name of the preset file it is about in front."""
    return RopeError("{file}: {error}", file=file, error=error.message)


def read_preset_files(folder: Path = PRESET_DIR) -> dict[str, dict]:
    """name -> preset entry, in the order of ``folder``'s order.json: each file's fields,
    checked (:func:`_check_entry`), with ``config`` built for a card's recipe
    (:func:`card_recipe` on its base's config) and ``file``, the file's name. Raises
    RopeError (a ValueError) naming the file for a file that is not valid JSON, is not a
    preset, is named other than its preset's :func:`slug`, repeats another's name, names a
    base that is not a preset with a config of its own, or is missing from order.json or
    present there without its file."""
    order_path = folder / ORDER_FILE
    try:
        order = parse_json(order_path.read_bytes())
    except RopeError as err:
        raise _in_file(ORDER_FILE, err) from None
    if not (isinstance(order, list) and all(isinstance(s, str) for s in order)):
        fail(ORDER_FILE, order, "a JSON list of the preset files' names without .json")
    repeated = sorted({s for s in order if order.count(s) > 1})
    files = {p.stem for p in folder.glob("*.json")} - {order_path.stem}
    if repeated or set(order) != files:
        raise RopeError("{file} lists each preset file once; it lists {repeated} more than "
                        "once, {absent} without a file, and not {unlisted}.", file=ORDER_FILE,
                        repeated=repeated, absent=sorted(set(order) - files),
                        unlisted=sorted(files - set(order)))
    entries: dict[str, dict] = {}
    for stem in order:
        file = f"{stem}.json"
        try:
            entry = parse_json((folder / file).read_bytes())
            _check_entry(entry)
        except RopeError as err:
            raise _in_file(file, err) from None
        name = entry["name"]
        if name in entries:
            raise RopeError("{file}: the name {name} is also that of {other}; each preset has "
                            "its own.", file=file, name=repr(name), other=entries[name]["file"])
        if stem != slug(name):
            raise RopeError("{file}: the file of the preset {name} is {expected}.", file=file,
                            name=repr(name), expected=f"{slug(name)}.json")
        entries[name] = {**entry, "file": file}
    for entry in entries.values():
        if "base" in entry:
            base = entries.get(entry["base"])
            if base is None or "config" not in base:
                raise RopeError("{file}: base {base} is not a preset with a config of its own.",
                                file=entry["file"], base=repr(entry["base"]))
            entry["config"] = card_recipe(base["config"], entry["card_rope_scaling"])
    return entries


def _preset(entry: dict) -> RopeConfig:
    """The RopeConfig of a preset entry: from_hf on its config, then its training
    context (a file whose config does not parse: RopeError naming the file)."""
    name = entry["name"]
    try:
        preset = RopeConfig.from_hf(entry["config"], name=name)
    except RopeError as err:
        raise _in_file(entry["file"], err) from None
    if "training_context" in entry:
        # an original_max_position_embeddings the config names is its scaling's L: kept
        names_L = preset.original_context != preset.max_context
        training = entry["training_context"]
        original = preset.original_context if names_L else training
        preset = dataclasses.replace(preset, original_context=original,
                                     training_context=training)
    return preset


_ENTRIES = read_preset_files()

# Each preset's config.json fields (a card's recipe merged in), in the pages' order.
HF_CONFIGS: dict[str, dict] = {name: e["config"] for name, e in _ENTRIES.items()}

# Where each preset's values come from. "Hub" = huggingface.co/<repo>/blob/main/config.json.
SOURCES: dict[str, str] = {name: e["source"] for name, e in _ENTRIES.items()}

# Pre-training contexts that a config.json does not give (its max_position_embeddings is
# only a configured context), with their source in SOURCES.
TRAINING: dict[str, int] = {name: e["training_context"] for name, e in _ENTRIES.items()
                            if "training_context" in e}

# Presets that are a model card's long-context recipe merged into the model's config.json,
# and the preset of that config.json as the Hub has it: a line that changes no RoPE setting
# runs the recipe only from a config.json (or GGUF) that already carries it.
CARD_RECIPES: dict[str, str] = {name: e["base"] for name, e in _ENTRIES.items()
                                if "base" in e}

# Notes shown with a preset (English; a page translates them).
NOTES: dict[str, str] = {
    "Gemma 3 4B": N_("Pre-trained at 32K tokens, then extended to 128K at the end of "
                     "pre-training by dividing the global layers' θᵢ by 8 (linear "
                     "interpolation, base 1,000,000); the local layers keep base 10,000 "
                     "unscaled. The factor 8 is not 131,072 / 32,768 = 4."),
    "Mistral 7B v0.1": N_("Its paper gives a context length of 8,192 tokens (Table 1, model "
                          "architecture); `config.json`'s 32,768 is the configured context."),
    "Qwen3 8B": N_("Its model card gives a context of 32,768 tokens natively (131,072 with "
                   "YaRN ×4 from 32,768); `config.json`'s 40,960 is the configured context."),
    "Llama 3.2 1B": N_("Its llama3 factor 32 would reach 32 × 8,192 = 262,144 tokens; the "
                       "model is configured for 131,072."),
    "Llama 4 Scout": N_("Pre-trained and post-trained at 262,144 tokens (256K, Meta's Llama 4 "
                        "post), configured for 10,485,760 (10M). Its llama3 scaling starts "
                        "from L = 8,192 (original_max_position_embeddings; Meta's "
                        "apply_scaling hard-codes old_context_len = 8192, the \"original llama3 "
                        "length\", equal to its attention chunk size but not derived from it) "
                        "and has low_freq_factor = high_freq_factor = 1: no blended band; "
                        "every pair whose wavelength is longer than 8,192 tokens has its θᵢ "
                        "divided by 16, so that wavelength is multiplied by 16."),
    "LFM2-350M": N_("Its model card and the LFM2 report give a context of 32,768 tokens; "
                    "`config.json`'s 128,000 is the configured context."),
    "Qwen2.5-VL 7B": N_("Its model card says its `config.json` is set for 32,768 tokens and "
                        "gives YaRN ×4 from 32,768 for longer inputs (while advising against "
                        "it for temporal and spatial localization); `config.json`'s 128,000 is "
                        "the configured context."),
    "Qwen2.5 7B (YaRN 128K)": N_("Trained at 32,768 tokens; its model card adds this YaRN ×4 "
                                 "at inference only, for inputs longer than 32,768."),
    "Qwen3 8B (YaRN 128K)": N_("Trained at 32,768 tokens; its model card adds this YaRN ×4 at "
                               "inference only, for inputs longer than 32,768."),
    "DeepSeek-V4-Flash": N_("Its compressed layers attend to a raw window of the last 128 "
                            "tokens and to compressed keys of the whole context, one per 4 "
                            "tokens (compressed sparse attention, of which the indexer keeps "
                            "the top 512 per query) or one per 128 tokens (heavily compressed "
                            "attention); its first two layers attend within the window "
                            "only."),
}


PRESETS: dict[str, RopeConfig] = {name: _preset(e) for name, e in _ENTRIES.items()}
