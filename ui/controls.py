"""Widgets bound to the URL, all under one rule for link values.

The rule (docs/links.md, "Shareable links"): a link value is applied only when it is
exactly one of the values the control offers, written the way the app writes
it into links (``?dim=64``, ``?att_causal=false``, ``?compare=10&compare=20``).
Anything else (a malformed or out-of-range value, a different spelling such as
``TRUE`` or ``10.9``, a single-valued parameter given twice, more selections
than the control allows) is ignored as a whole: the control keeps its default
and one warning says so, quoting the value as plain text.

Streamlit seeds a bound widget from the URL on its own and would otherwise
apply such values half-way (``10.9`` as 10, ``TRUE`` as true, the first two
of three selections) or raise inside the widget (``inf`` in a number box), so
each value is checked here *before* the widget is created, and a rejected one
is removed from the link first.

The sidebar's language switch is one of these widgets (:func:`language_switch`,
``?lang=``); app.py draws it first, and it sets the run's language in
:mod:`ui.translation`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import streamlit as st

from .safety import plain, quoted
from .translation import _RUN_LANG, DEFAULT_LANG, LANG_KEY, LANGUAGES, N_, _, integer, speaking

_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")


def link_value(key: str) -> list[str] | None:
    """The value(s) Streamlit would seed widget ``key`` from, or None."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as qp:
        value = qp.get_initial_value(key)
    if value is None:
        return None
    return value if isinstance(value, list) else [value]


def _drop_link_value(key: str) -> None:
    """Remove ``key`` from the link, so that the widget starts at its default."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as qp:
        qp._initial_query_params.pop(key, None)  # what widgets are seeded from
        qp.remove_param(key)  # what the address bar shows


def keep_in_link(key: str, value: str | list[str], default: str | list[str]) -> None:
    """Make the address carry ``?key=value`` (or nothing when it is the default).

    Streamlit writes a bound widget's value into the address when the widget
    changes, but may leave a value that came from a link out of the address
    after a page change (its page-transition filter, ``populate_from_query_string``
    in streamlit 1.67); the shared sidebar calls this after every run so that
    the address, and so the Back button and a copied link, always holds the full
    settings. Sent as a correction (history.replaceState), not a new entry.
    """
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as qp:
        current = qp._query_params.get(key)
        if value == default:
            if current is not None:
                qp.remove_param(key)
        elif current != value:
            qp._query_params[key] = value
            qp._send_query_param_msg()


def _translate_link(key: str, options: Sequence, fmt: Callable) -> None:
    """A link may carry an option's label in the other language (copied before a
    language switch, or shared across languages): replace it by the same option's
    label in this run's language before the widget is seeded from the link."""
    if fmt is str:
        return
    values = link_value(key)
    here = [fmt(o) for o in options]
    if values is None or all(v in here for v in values):
        return
    mapping = {}
    for code in LANGUAGES:
        with speaking(code):
            mapping.update({fmt(o): label for o, label in zip(options, here)})
    translated = [mapping.get(v, v) for v in values]
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as qp:
        qp._initial_query_params[key] = translated if len(translated) > 1 else translated[0]


def _relabel_link(key: str, fmt: Callable, value, default) -> None:
    """Keep the link's label in the run's language. Streamlit writes a bound
    widget's ``fmt(value)`` into the address when the widget changes; a label
    that is translated (``fmt`` calls ``_``) would otherwise stay in the old
    language after a language switch, and a copied link would then be refused."""
    if fmt is str:
        return
    if isinstance(value, list):
        keep_in_link(key, [fmt(v) for v in value], [fmt(d) for d in default])
    else:
        keep_in_link(key, fmt(value), fmt(default))


def code(text: str) -> str:
    """App-written text as a Markdown code span (a name, a link value); text with
    a backtick is escaped instead."""
    text = str(text)
    return plain(text) if "`" in text or not text else f"`{text}`"


def _one_value(values: list[str]) -> str:
    return _("this setting takes one value, the link gives {n}").format(n=len(values))


def _shown(values: list[str]) -> str:
    return ", ".join(quoted(v) for v in values[:3]) + (" …" if len(values) > 3 else "")


def check_link(key: str, label: str, valid: Callable[[list[str]], str | None],
               default_text: str) -> None:
    """Apply the rule to ``?key=``: ``valid(values)`` returns None when the values
    are allowed, else the sentence 'it must be …'. A rejected value is dropped
    from the link and the visitor is told that the default was kept."""
    values = link_value(key)
    if values is None:
        return
    problem = valid(values)
    if problem is None:
        return
    _drop_link_value(key)
    # key, problem, label and default are the app's own text; only the values
    # come from the visitor, quoted as plain text.
    st.warning(_("The link sets {key} = {values}, which is not used: {problem}. "
                 "{label} keeps its default, {default}.").format(
                     key=code(key), values=_shown(values), problem=problem,
                     label=label, default=code(default_text)),
               icon=":material/link_off:")


def one_of(labels: Sequence[str], allowed: str) -> Callable[[list[str]], str | None]:
    allowed_set = set(labels)

    def valid(values: list[str]) -> str | None:
        if len(values) != 1:
            return _one_value(values)
        return None if values[0] in allowed_set else _("it must be {allowed}").format(
            allowed=allowed)
    return valid


def _integer_in(low: int, high: int, step: int = 1) -> Callable[[list[str]], str | None]:
    def valid(values: list[str]) -> str | None:
        if len(values) != 1:
            return _one_value(values)
        v = values[0]
        n = int(v) if _INTEGER.fullmatch(v) and len(v) <= 20 else None
        if n is not None and low <= n <= high and (n - low) % step == 0:
            return None
        if step > 1:
            return _("it must be a whole number from {low} to {high} in steps of {step}, "
                     "written with digits only").format(low=low, high=high, step=step)
        return _("it must be a whole number from {low} to {high}, written with digits "
                 "only").format(low=low, high=high)
    return valid


def select_slider(label: str, options: Sequence, default, key: str, *, container=None,
                  fmt: Callable = str, allowed: str | None = None, **kwargs):
    """A select slider bound to ?key=..., the link carrying ``fmt(option)``."""
    _translate_link(key, options, fmt)
    labels = [fmt(o) for o in options]
    check_link(key, label, one_of(labels, allowed or _("one of {first} … {last}").format(
        first=code(labels[0]), last=code(labels[-1]))),
               fmt(default))
    value = (container or st).select_slider(label, options=options, value=default, key=key,
                                            format_func=fmt, bind="query-params", **kwargs)
    _relabel_link(key, fmt, value, default)
    return value


def slider(label: str, low: int, high: int, default: int, key: str, *, step: int = 1,
           container=None, **kwargs) -> int:
    """An integer slider bound to ?key=..."""
    check_link(key, label, _integer_in(low, high, step), str(default))
    return (container or st).slider(label, min_value=low, max_value=high, value=default,
                                    step=step, key=key, bind="query-params", **kwargs)


def number(label: str, low: int, high: int, default: int, key: str, *, container=None,
           **kwargs) -> int:
    """An integer number box bound to ?key=..."""
    check_link(key, label, _integer_in(low, high), str(default))
    return int((container or st).number_input(label, min_value=low, max_value=high,
                                              value=default, step=1, key=key,
                                              bind="query-params", **kwargs))


def pair_index(asked: int, dim: int, note: str) -> int:
    """The pair a page's pair control asked for, or the last pair of head dim ``dim`` when
    it has fewer (the control's range is that of the largest head dim); ``note``, a
    translated template with {asked}, {dim}, {last} and {pair}, then says which pair is used."""
    last = dim // 2 - 1
    pair = min(asked, last)
    if pair != asked:
        st.info(note.format(asked=asked, dim=dim, last=last, pair=pair), icon=":material/info:")
    return pair


# Options offered by several pages, shown in the visitor's language wherever they are
# offered: a choice whose options are exactly these keys shows their labels.
AXIS_LABELS = {
    # Translators: a distance axis with evenly spaced ticks (a radio option).
    "linear": N_("linear"),
    # Translators: a distance axis on a logarithmic scale (a radio option).
    "log": N_("log"),
}
SHARED_LABELS = (AXIS_LABELS,)


def _shared_fmt(options: Sequence[str]) -> Callable:
    """The labels of options that several pages offer (:data:`SHARED_LABELS`), else str."""
    for labels in SHARED_LABELS:
        if set(options) == set(labels):
            return lambda option: _(labels[option])
    return str


def choice(label: str, options: Sequence[str], default: str, key: str, *, container=None,
           horizontal: bool = True, fmt: Callable | None = None, segmented: bool = False,
           **kwargs) -> str:
    """A radio choice bound to ?key=... (the link carries ``fmt(option)``). Without
    ``fmt``, options that several pages share (:data:`SHARED_LABELS`: the distance
    axis's ``linear`` and ``log``) show their translated labels, and any other option
    itself. A link in English (``?decay_axis=log``) works in every language: Streamlit
    writes the shown label into the address, and a label of the other language is
    read as the same option.

    ``segmented``: a few short options as one row of buttons, one always chosen (a
    segmented control, required), for a choice drawn on every run: Streamlit 1.67's
    radio copies the whole session state into a new dict on every run (``filtered_state``,
    about 1.3 µs per key; a student who has visited every page holds over 100 keys)."""
    if fmt is None:
        fmt = _shared_fmt(options)
    _translate_link(key, options, fmt)
    labels = [fmt(o) for o in options]
    check_link(key, label, _one_of_options(labels), fmt(default))
    where = container or st
    if segmented:
        value = where.segmented_control(label, options, default=default, key=key,
                                        format_func=fmt, required=True, bind="query-params",
                                        width="stretch", **kwargs)
    else:
        value = where.radio(label, options, index=list(options).index(default), key=key,
                            horizontal=horizontal, format_func=fmt, bind="query-params",
                            **kwargs)
    _relabel_link(key, fmt, value, default)
    return value


def undrawn_choice(label: str, options: Sequence[str], default: str, key: str) -> str:
    """The option that ``?key=`` names, for a choice that this server does not draw (the
    compute device without a GPU): the rule for links applies as for :func:`choice`."""
    check_link(key, label, _one_of_options(options), default)
    return (link_value(key) or [default])[0]


def _one_of_options(labels: Sequence[str]) -> Callable[[list[str]], str | None]:
    return one_of(labels, _("one of {values}").format(values=_(", ").join(map(code, labels))))


def toggle(label: str, default: bool, key: str, *, container=None, **kwargs) -> bool:
    """A toggle bound to ?key=true / ?key=false (lower case, as the app writes them)."""
    check_link(key, label, one_of(["true", "false"], _("true or false, in lower case")),
               str(default).lower())
    return (container or st).toggle(label, value=default, key=key, bind="query-params",
                                    **kwargs)


def text(label: str, default: str, key: str, *, container=None, max_chars: int = 400,
         **kwargs) -> str:
    """A text box bound to ?key=...; the page validates the content itself."""
    def valid(values: list[str]) -> str | None:
        if len(values) != 1:
            return _one_value(values)
        if len(values[0]) > max_chars:
            return _("it must be at most {n} characters long").format(n=integer(max_chars))
        return None
    check_link(key, label, valid, default)
    return (container or st).text_input(label, value=default, key=key, max_chars=max_chars,
                                        bind="query-params", **kwargs)


def multiselect(label: str, options: Sequence, default: Sequence, key: str, *,
                max_selections: int, container=None, fmt: Callable = str, **kwargs) -> list:
    """A multiselect bound to ?key=a&key=b, at most ``max_selections`` distinct items."""
    _translate_link(key, options, fmt)
    labels = [fmt(o) for o in options]
    allowed = set(labels)

    def valid(values: list[str]) -> str | None:
        if len(values) > max_selections:
            return _("at most {most} values may be chosen, the link gives {n}").format(
                most=max_selections, n=len(values))
        if len(set(values)) != len(values):
            return _("each value may be chosen once")
        bad = [v for v in values if v not in allowed]
        if bad:
            return _("each value must be one of {first} … {last}").format(
                first=code(labels[0]), last=code(labels[-1]))
        return None
    check_link(key, label, valid, ", ".join(fmt(d) for d in default) or _("none"))
    kwargs.setdefault("placeholder", _("Choose options"))
    value = (container or st).multiselect(label, options, default=list(default), key=key,
                                          max_selections=max_selections, format_func=fmt,
                                          bind="query-params", **kwargs)
    _relabel_link(key, fmt, value, default)
    return value


# ------------------------------------------------------- the language switch ----
def browser_language() -> str:
    """"zh" when the browser prefers Chinese (``st.context.locale``), else English."""
    try:
        locale = st.context.locale or ""
    except Exception:  # noqa: BLE001 (no browser, e.g. AppTest): the default
        locale = ""
    return "zh" if locale.lower().startswith("zh") else DEFAULT_LANG


def language_switch() -> str:
    """The sidebar's language switch, bound to ``?lang=``; returns the language.

    The first run of a session takes the link's value when it is exactly "en" or
    "zh" (anything else is dropped with a warning, under the app's rule for link
    values), else the browser's language. The address always carries the
    language, so a shared link opens in it.
    """
    _RUN_LANG.set(None)  # until this run's choice is known
    if LANG_KEY not in st.session_state:
        values = link_value(LANG_KEY)
        valid = values is not None and len(values) == 1 and values[0] in LANGUAGES
        st.session_state[LANG_KEY] = values[0] if valid else browser_language()
        check_link(LANG_KEY, _("Language"),
                            one_of(list(LANGUAGES), _("en or zh")),
                            st.session_state[LANG_KEY])
    # the switch's label names itself in both languages, so anyone can find it
    label = "Language · 语言"  # i18n: the same in both languages
    # A segmented control, not a radio: the same one choice of two (required: a click on
    # the chosen language keeps it), without the radio's pass over the whole session
    # state on every run (Streamlit 1.67 builds a dict of every key for each radio).
    chosen = st.sidebar.segmented_control(label, list(LANGUAGES), key=LANG_KEY,
                                          format_func=LANGUAGES.__getitem__, required=True,
                                          width="stretch")
    keep_in_link(LANG_KEY, chosen, None)
    _RUN_LANG.set(chosen if chosen in LANGUAGES else DEFAULT_LANG)
    return chosen
