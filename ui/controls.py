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

A link value is the same in both languages: a choice whose options are shown
translated (``fmt`` gives a label in the run's language) carries the option's own code
(``?decay_axis=log``, ``?task=recall``). Streamlit writes a bound widget's shown label
into the address and keeps that label as the widget's value in the browser, so such a
choice is bound here instead (:func:`_labelled`): the address holds the code, the widget
shows the label in the run's language, and after a language switch, or when an address
is opened as Back and the app's links open it (:mod:`ui.links`), the widget is given its
option again.

The sidebar's language switch is one of these widgets (:func:`language_switch`,
``?lang=``); app.py draws it first, and it sets the run's language in
:mod:`ui.translation`.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Callable, Sequence

import streamlit as st

from .safety import plain, quoted
from .translation import _RUN_LANG, DEFAULT_LANG, LANG_KEY, LANGUAGES, N_, _, integer, speaking

_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
# The keys of the link values this run has read (every control checks its link first);
# the navigation keeps a page's values for its link (ui.navigation.remember).
_DRAWN: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("drawn", default=None)
_LANG_SHOWN = "_lang_shown"  # session state: the language of the session's last run
_CHOSEN = "_chosen"  # session state: key -> option of choices kept out of the link
# session state: key -> the language a choice with translated labels was last drawn in
# (the language of the label the browser holds as its value)
_DRAWN_IN = "_drawn_in"


def drawn_keys() -> list[str]:
    """The keys of the controls drawn so far in this run, in order."""
    return list(_DRAWN.get() or ())


def link_values(keys: Sequence[str]) -> dict[str, str | list[str]]:
    """What the address carries now for ``keys`` (those it carries), as it writes them."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as qp:
        return {key: qp._query_params[key] for key in keys if key in qp._query_params}


def history_navigation() -> bool:
    """True in a run that opens an address as Back or Forward does (the browser's
    buttons, and every link of the app, :mod:`ui.links`): the address decides the value
    of every control, and a control it does not name takes its default."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.is_history_navigation)


def _relabelled(key: str) -> bool:
    """Whether the choice ``key`` (translated labels) was last drawn in another language
    than this run's: the browser then holds a label that matches none of its options.
    Kept per choice, so that a run interrupted before it is drawn (a rerun asked for
    meanwhile) leaves it to the next run."""
    drawn = st.session_state.setdefault(_DRAWN_IN, {})
    here = _RUN_LANG.get() or DEFAULT_LANG
    before = drawn.get(key)
    if before != here:
        drawn[key] = here
    return before not in (None, here)


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
    drawn = _DRAWN.get()
    if drawn is not None:
        drawn.append(key)
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
    """A select slider bound to ?key=..., the link carrying ``fmt(option)``, or the
    option's code where ``fmt`` translates it (:func:`_link_words`)."""
    words = _link_words(options, fmt)
    check_link(key, label, one_of(list(words), allowed or _("one of {first} … {last}").format(
        first=code(words.texts[0]), last=code(words.texts[-1]))), words.texts[
                   options.index(default)])

    def draw(initial, **bind):
        return (container or st).select_slider(label, options=options, value=initial,
                                                key=key, format_func=fmt, **bind, **kwargs)
    return _bound(key, options, default, words, draw)


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


def choice(label: str, options: Sequence[str], default: str | None, key: str, *,
           container=None, horizontal: bool = True, fmt: Callable | None = None,
           segmented: bool = False, in_link: bool = True, **kwargs) -> str | None:
    """A radio choice bound to ?key=... Without ``fmt``, options that several pages
    share (:data:`SHARED_LABELS`: the distance axis's ``linear`` and ``log``) show their
    translated labels, and any other option itself. The link carries the option's code,
    the same in every language (``?decay_axis=log``); a label of either language is read
    as the same option.

    ``segmented``: a few short options as one row of buttons, one always chosen (a
    segmented control, required), for a choice drawn on every run: Streamlit 1.67's
    radio copies the whole session state into a new dict on every run (``filtered_state``,
    about 1.3 µs per key; a student who has visited every page holds over 100 keys).

    ``in_link=False``: a choice the address does not carry (a prediction in the tour),
    which may start with nothing chosen (``default=None``); it keeps its option when the
    language changes."""
    if fmt is None:
        fmt = _shared_fmt(options)
    where = container or st

    def draw(initial, **bind):
        if segmented:
            return where.segmented_control(label, options, default=initial, key=key,
                                           format_func=fmt, required=True, width="stretch",
                                           **bind, **kwargs)
        index = None if initial is None else list(options).index(initial)
        return where.radio(label, options, index=index, key=key, horizontal=horizontal,
                           format_func=fmt, **bind, **kwargs)
    if not in_link:
        return _kept(key, default, fmt, draw)
    words = _link_words(options, fmt)
    check_link(key, label, _one_of_options(words.texts, accepted=words),
               words.texts[options.index(default)])
    return _bound(key, options, default, words, draw)


class _Words(dict):
    """Link text -> option, for every way a link may write each option; ``texts``: what
    the app writes, in the options' order. Labels the same in every language are the
    link texts themselves (Streamlit binds such a widget). Translated labels: the link
    carries the option's code (``str(option)``, English: ``log``, ``recall``, ``rope``);
    its label in any language is read as the same option (links written before)."""

    texts: list[str]
    translated: bool  # the labels differ between languages


def _link_words(options: Sequence, fmt: Callable) -> _Words:
    words = _Words()
    if fmt is str:
        words.update((str(o), o) for o in options)
        words.texts, words.translated = list(words), False
        return words
    labels = {}
    for code_ in LANGUAGES:
        with speaking(code_):
            labels[code_] = [fmt(o) for o in options]
    english = labels[DEFAULT_LANG]
    words.translated = any(other != english for other in labels.values())
    words.texts = [str(o) for o in options] if words.translated else english
    words.update(zip(words.texts, options))
    for shown in labels.values():
        for text, option in zip(shown, options):
            words.setdefault(text, option)
    return words


def _bound(key: str, options: Sequence, default, words: _Words, draw: Callable,
           multi: bool = False):
    """Draw a choice bound to ?key=... whose link value has been checked.

    Labels the same in every language: Streamlit binds the widget to the address itself.
    Translated labels (:func:`_labelled`): the app binds it, writing the options' codes."""
    if not words.translated:
        return draw(default, bind="query-params")
    return _labelled(key, options, default, words, draw, multi)


def _labelled(key: str, options: Sequence, default, words: _Words, draw: Callable,
              multi: bool):
    """A choice with translated labels, bound to the address by the app.

    The widget starts from the link (the option's code, or its label in any language)
    or its default. The option is given to the widget again when the language changes
    (the browser still holds the old label, which matches no option) and when an address
    is opened as Back does (the app's links too): then the address decides, and a
    choice it does not name takes its default. The address then carries the option's
    code (nothing when the choice is at its default)."""
    values = link_value(key)
    if values is None:
        wanted = default
    elif multi:
        wanted = [words[v] for v in values]
    else:
        wanted = words[values[0]]
    relabelled = _relabelled(key)
    if key not in st.session_state:
        value = draw(wanted)
    elif history_navigation() or relabelled:
        st.session_state[key] = wanted
        value = draw(None)  # the value is the one just set: no second default
    else:
        value = draw(default)
    text = {option: t for t, option in zip(words.texts, options)}
    if multi:
        keep_in_link(key, [text[v] for v in value], [text[d] for d in default])
    else:
        keep_in_link(key, text[value], text[default])
    return value


def _kept(key: str, default, fmt: Callable, draw: Callable):
    """A choice with translated labels that the address does not carry: it keeps its
    option (kept in the session for this) when the language changes."""
    chosen = st.session_state.setdefault(_CHOSEN, {})
    relabelled = _relabelled(key)
    if key not in st.session_state:
        value = draw(default)
    elif relabelled and key in chosen:
        st.session_state[key] = chosen[key]
        value = draw(None)
    else:
        value = draw(default)
    if chosen.get(key, default) != value:
        chosen[key] = value
    return value


def undrawn_choice(label: str, options: Sequence[str], default: str, key: str) -> str:
    """The option that ``?key=`` names, for a choice that this server does not draw (the
    compute device without a GPU): the rule for links applies as for :func:`choice`."""
    check_link(key, label, _one_of_options(options), default)
    return (link_value(key) or [default])[0]


def undrawn_number(label: str, low: int, high: int, default: int, key: str) -> int:
    """A whole number that the address alone sets (``?key=``), drawn by no widget: the
    tour's step, which the tour's links move (one history entry per step). The rule for
    links applies as for :func:`number`."""
    check_link(key, label, _integer_in(low, high), str(default))
    # the address as it is now: a callback of this run (slide mode's buttons) may have
    # moved it since the run began
    value = link_values([key]).get(key)
    values = [value] if isinstance(value, str) else value
    return int(values[0]) if values and _integer_in(low, high)(values) is None else default


def _one_of_options(labels: Sequence[str], accepted=None) -> Callable[[list[str]], str | None]:
    """The rule for a choice: one of ``labels`` (as the app writes them; ``accepted``: every
    spelling read as one of them, the labels of other languages too)."""
    return one_of(accepted if accepted is not None else labels,
                  _("one of {values}").format(values=_(", ").join(map(code, labels))))


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
    """A multiselect bound to ?key=a&key=b, at most ``max_selections`` distinct items.

    The limit is in its label ("up to 3"), and the widget keeps to it honestly: no
    "Select all" row (Streamlit 1.67 offers one that silently keeps the first
    ``max_selections`` items, and puts it first under a typed filter, so that Enter
    after typing "5000" chose 5000 and 50000). Enter chooses the first match."""
    words = _link_words(options, fmt)

    def valid(values: list[str]) -> str | None:
        if len(values) > max_selections:
            return _("at most {most} values may be chosen, the link gives {n}").format(
                most=max_selections, n=len(values))
        known = [words[v] for v in values if v in words]  # (a label and its code: one value)
        if len(set(values)) != len(values) or len(set(known)) != len(known):
            return _("each value may be chosen once")
        bad = [v for v in values if v not in words]
        if bad:
            return _("each value must be one of {first} … {last}").format(
                first=code(words.texts[0]), last=code(words.texts[-1]))
        return None
    check_link(key, label, valid,
               ", ".join(words.texts[options.index(d)] for d in default) or _("none"))
    kwargs.setdefault("placeholder", _("Choose options"))

    def draw(initial, **bind):
        return (container or st).multiselect(label, options, default=initial, key=key,
                                             max_selections=max_selections, format_func=fmt,
                                             select_all=False, **bind, **kwargs)
    return _bound(key, options, list(default), words, draw, multi=True)


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
    _DRAWN.set([])  # the first control of every run
    if LANG_KEY not in st.session_state:
        values = link_value(LANG_KEY)
        valid = values is not None and len(values) == 1 and values[0] in LANGUAGES
        st.session_state[LANG_KEY] = values[0] if valid else browser_language()
        check_link(LANG_KEY, _("Language"),
                            one_of(list(LANGUAGES), _("en or zh")),
                            st.session_state[LANG_KEY])
    elif st.session_state[LANG_KEY] not in LANGUAGES:
        # The browser sent the switch with no choice: keep the language of the session's
        # last run (the switch is required: there is always a language).
        st.session_state[LANG_KEY] = st.session_state.get(_LANG_SHOWN) or DEFAULT_LANG
    # the switch's label names itself in both languages, so anyone can find it
    label = "Language · 语言"  # i18n: the same in both languages
    # A segmented control, not a radio: the same one choice of two (required: a click on
    # the chosen language keeps it), without the radio's pass over the whole session
    # state on every run (Streamlit 1.67 builds a dict of every key for each radio).
    chosen = st.sidebar.segmented_control(label, list(LANGUAGES), key=LANG_KEY,
                                          format_func=LANGUAGES.__getitem__, required=True,
                                          width="stretch")
    shown = st.session_state.get(_LANG_SHOWN)
    if chosen not in LANGUAGES:
        # Seen once in a browser test under a load of 18 on 2 cores: a page change (an app
        # link opened as a history navigation) whose run drew the switch with no choice,
        # which dropped ?lang= from the new entry (and would have turned a Chinese page
        # English). Keep the session's language, and its link.
        chosen = shown or DEFAULT_LANG
    keep_in_link(LANG_KEY, chosen, None)
    _RUN_LANG.set(chosen)
    if shown != chosen:
        st.session_state[_LANG_SHOWN] = chosen
    return chosen
