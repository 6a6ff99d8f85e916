"""A visitor's own ``config.json``, pasted or uploaded: read once here for every page.

The text is untrusted: its size is capped, it is parsed by
:meth:`rope_core.RopeConfig.from_json` (which names any problem), and every part of it
that reaches the page is escaped. The model it gives is named ``config.json: <name>``
(English, as the CSV files write it); :func:`shown_name` writes that name in the run's
language.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

import rope_core as rc
from rope_core.models.config import MAX_JSON_BYTES

from .i18n import N_, _, error_text, integer
from .safety import capped, plain

PASTED = "config.json: "  # the name of a pasted model starts so (English in the CSV)
UNNAMED = N_("custom model")  # rope_core's name for a config.json without model_type


def not_added(message: str) -> None:
    """An error box: app-written Markdown whose visitor parts are already escaped."""
    st.error(message, icon=":material/block:")


def pasted_config(text: str, upload) -> rc.RopeConfig | None:
    """The visitor's config.json (upload first, else the text box), or None.

    Untrusted: size-capped, parsed by RopeConfig.from_json, any problem shown as an
    escaped error while the rest of the page keeps working."""
    if upload is not None:
        if upload.size > MAX_JSON_BYTES:
            not_added(_("The uploaded file is {size} bytes; a `config.json` may be at most "
                        "{most} bytes. It was not added.").format(
                size=integer(upload.size), most=integer(MAX_JSON_BYTES)))
            return None
        data, failed = upload.getvalue(), _("The uploaded file was not added: {error}")
    elif text.strip():
        data, failed = text, _("The pasted `config.json` was not added: {error}")
    else:
        return None
    try:
        cfg = rc.RopeConfig.from_json(data)
    except (ValueError, RecursionError) as err:
        not_added(failed.format(error=plain(error_text(err))))
        return None
    return dataclasses.replace(cfg, name=PASTED + capped(cfg.name, 40))


def shown_name(name: str) -> str:
    """A model's name for people: a pasted model's CSV name "config.json: llama" is
    written in the run's language."""
    if not name.startswith(PASTED):
        return name
    rest = name[len(PASTED):]
    return _("config.json: {name}").format(name=_(UNNAMED) if rest == UNNAMED else rest)


def config_text(key: str) -> str | bytes | None:
    """The raw ``config.json`` the visitor gave :func:`config_input` ``key`` on this run: the
    uploaded file's bytes (when at most :data:`MAX_JSON_BYTES`) before the pasted text, or
    None. Untrusted: for a reader that parses it safely (``rope_core.models.doctor``)."""
    upload = st.session_state.get(f"{key}_config_file")
    if upload is not None:
        return upload.getvalue() if upload.size <= MAX_JSON_BYTES else None
    text = st.session_state.get(f"{key}_config_text") or ""
    return text if text.strip() else None


def config_input(key: str, title: str, caption: str, done: str) -> rc.RopeConfig | None:
    """An expander ``title`` with a text box and a file uploader for a ``config.json``
    (widget keys ``<key>_config_text`` and ``<key>_config_file``), ``caption`` under its
    title; returns the visitor's model, or None. ``done`` is the success sentence, with
    ``{name}`` for the model's (escaped) name."""
    with st.expander(title):
        st.caption(caption)
        text = st.text_area(_("`config.json` text"), key=f"{key}_config_text", height=160,
                            max_chars=MAX_JSON_BYTES,
                            placeholder='{"model_type": "llama", "hidden_size": 4096, ...}')
        upload = st.file_uploader(_("`config.json` file"), type=["json"],
                                  key=f"{key}_config_file")
        mine = pasted_config(text, upload)
        if mine is not None:
            st.success(done.format(name=plain(shown_name(mine.name))), icon=":material/check:")
    return mine
