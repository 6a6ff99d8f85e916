"""The Glossary page's text (pages/glossary.py): the terms of ui.glossary grouped by
section, each with its definition and the page where it matters most, written once per
language."""

import ui
from ui.glossary import TERMS
from ui.i18n import _, lang
from ui.navigation import by_name


def page_link(name: str) -> str:
    """A relative Markdown link to a page of the lesson, in this run's language."""
    spec = by_name(name)
    path = "./" if spec.default else spec.name
    return f"[{_(spec.title)}]({path}?lang={lang()})"


@ui.prose
def entries() -> tuple:
    """((section, ((key, name, Markdown), ...)), ...): every term in the lesson's order,
    its definition followed by the page where it matters most."""
    sections: dict[str, list] = {}
    for term in TERMS:
        text = _("{definition}\n\nWhere it matters most: {page}.").format(
            definition=_(term.text), page=page_link(term.page))
        sections.setdefault(_(term.section), []).append((term.key, _(term.name), text))
    return tuple((section, tuple(items)) for section, items in sections.items())


@ui.prose
def jump_links() -> str:
    """A list of links to every term's heading on the page, one line per section, for a
    phone or a quick look (in-page anchors: Streamlit follows them without a new tab)."""
    sections: dict[str, list[str]] = {}
    for term in TERMS:
        sections.setdefault(_(term.section), []).append(f"[{_(term.name)}](#{term.key})")
    return "\n".join("- " + _("**{term}**: {definition}").format(term=section,
                                                                 definition=" · ".join(links))
                     for section, links in sections.items())
