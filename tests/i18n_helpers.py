"""What a visitor reads on a page, and whether it is Chinese.

:func:`visible_texts` collects every piece of text an AppTest run shows (Markdown,
captions, headings, alerts, widget labels, help texts and options, metrics, tabs,
expanders, buttons, page links, table headers, and each figure's titles, axis
titles, legend names, hover templates, annotations and slider labels).
:func:`english_words` returns the English words of four or more letters left in
a text once formulas, code, units and proper names are set aside, which in the
Chinese app must be none.
"""

from __future__ import annotations

import json
import re

from streamlit.testing.v1 import AppTest

# Names of people, models, libraries, file formats and functions: the same in
# both languages. Words with two capitals (RoPE, YaRN, PyTorch, CUDA) or with a
# digit or underscore (float16, rope_theta) are names and code by their form.
PROPER_NAMES = {
    "babel", "bfloat", "chen", "decimal", "deepseek", "eleutherai", "face", "float",
    "gemma", "hugging", "jianlin", "llama", "meta", "mistral", "plotly", "press", "python",
    "qwen", "softmax", "streamlit", "torch", "transformer", "transformers", "vaswani",
    "peng", "bloc", "emozilla", "kaiokendev", "nope", "yarn", "longrope", "polar",
    "github", "arxiv", "unicode", "numpy", "pandas", "microsoft", "google", "alibaba",
    "mistralai", "zhipu", "glm", "anthropic", "openai", "mini", "neox", "ding", "reddit",
    "haviv", "kazemnejad", "toeplitz", "mixtral", "arcee", "apertus",
    "xpos", "barbero",
    "scout", "command", "cohere", "smollm", "yang",
    "nakanishi", "scalable",
    "mamba", "granite", "trinity", "ministral", "gpt-oss", "nano",
    "student", "wilson", "aston", "zhang", "holm", "clopper", "pearson",
    "explorer", "jupyter",
    "sqlite", "postgresql",  # the class database's engines, and its URLs' schemes
}
_LATEX_TEXT = re.compile(r"\\(?:text|textrm|textit|textbf|mathrm|operatorname)\s*\{([^{}]*)\}")
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.S)
_CODE = re.compile(r"```.*?```|`[^`]*`", re.S)
_URL = re.compile(r"(?:https?|ftp)\u200b?://\S+|www\.\S+")
_LINK_TARGET = re.compile(r"\]\([^()\s]*\)")  # a Markdown link's address
_TAG = re.compile(r"<[^>]+>|&[a-z]+;")
_FIELD = re.compile(r"\{[a-z_][a-z0-9_]*(?:![rsa])?(?::[^{}]*)?\}")  # a message's {placeholder}
_HOVER = re.compile(r"%\{[^}]*\}|<extra>.*?</extra>")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.\-']*")
_IDENTIFIER = re.compile(r"[A-Za-z0-9_.\-]+")


def latex_words(latex: str) -> str:
    """The words in a formula: the contents of its \\text{…} (and \\mathrm{…})."""
    return " ".join(_LATEX_TEXT.findall(latex))


def english_words(text: str) -> list[str]:
    """English words of 4+ letters in ``text``, outside formulas (only their \\text
    words count), code spans, addresses, HTML tags, hover fields and names."""
    text = _HOVER.sub(" ", text)
    text = _MATH.sub(lambda m: " " + latex_words(m.group(0)) + " ", text)
    text = _LATEX_TEXT.sub(lambda m: " " + m.group(1) + " ", text)  # a bare formula's words
    text = _FIELD.sub(" ", text)
    text = _LINK_TARGET.sub("] ", text)
    text = _CODE.sub(" ", _URL.sub(" ", _TAG.sub(" ", text)))
    text = _ESCAPED.sub(r"\1", text)  # Markdown escapes: rot\_mode is rot_mode
    text = _COMMAND.sub(" ", text)  # LaTeX command names (\frac, \qquad); \text words stay
    text = text.replace("\\", " ")
    out = []
    for word in _WORD.findall(text):
        core = word.strip(".-'")
        letters = re.sub(r"[^A-Za-z]", "", core)
        if len(letters) < 4:
            continue
        if any(c.isdigit() or c == "_" for c in core) or sum(c.isupper() for c in core) >= 2:
            continue  # code (rope_theta, float16) or a name (RoPE, CUDA, LongRoPE)
        parts = re.split(r"[-.']", core)
        if all(len(p) < 4 or p.lower() in PROPER_NAMES or p.lower().rstrip("s") in
               PROPER_NAMES for p in parts):
            continue
        out.append(core)
    return out


def _figure_texts(spec: dict) -> list[str]:
    out: list[str] = []

    def title(node) -> None:
        if isinstance(node, dict):
            node = node.get("text")
        if isinstance(node, str):
            out.append(node)

    def walk_layout(layout: dict) -> None:
        title(layout.get("title"))
        for key, value in layout.items():
            if isinstance(value, dict) and key.startswith(("xaxis", "yaxis", "coloraxis",
                                                           "polar", "scene")):
                title(value.get("title"))
                title((value.get("colorbar") or {}).get("title"))
                for k in ("ticktext",):
                    out.extend(str(t) for t in value.get(k) or [] if isinstance(t, str))
        for ann in layout.get("annotations") or []:
            if isinstance(ann, dict):
                out.append(str(ann.get("text", "")))
        for slider in layout.get("sliders") or []:
            current = slider.get("currentvalue") or {}
            out.append(str(current.get("prefix", "")))
            out.extend(str(step.get("label", "")) for step in slider.get("steps") or [])
        for menu in layout.get("updatemenus") or []:
            out.extend(str(b.get("label", "")) for b in menu.get("buttons") or [])

    def walk_trace(trace: dict) -> None:
        for key in ("name", "hovertemplate", "legendgrouptitle"):
            value = trace.get(key)
            title(value) if isinstance(value, dict) else out.append(str(value or ""))
        for key in ("text", "hovertext"):
            value = trace.get(key)
            if isinstance(value, str):
                out.append(value)
            elif isinstance(value, list):
                out.extend(v for v in value if isinstance(v, str))
        title((trace.get("colorbar") or {}).get("title"))

    walk_layout(spec.get("layout") or {})
    for trace in spec.get("data") or []:
        walk_trace(trace)
    for frame in spec.get("frames") or []:
        walk_layout(frame.get("layout") or {})
        for trace in frame.get("data") or []:
            walk_trace(trace)
    return out


def visible_texts(at: AppTest, skip_keys: frozenset[str] = frozenset({"lang"})) -> list[str]:
    """Every text the run shows (see the module docstring). Widget options that
    are identifiers (``interleaved``, ``float16``: the values a link carries) are
    left out; the language switch names each language in itself."""
    texts: list[str] = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "warning", "error",
                 "info", "success", "toast"):
        texts.extend(str(e.value) for e in at.get(kind))
    texts.extend(latex_words(str(e.value)) for e in at.get("latex"))
    for kind in ("button", "toggle", "checkbox", "radio", "selectbox", "multiselect", "slider",
                 "select_slider", "number_input", "text_input", "text_area", "color_picker",
                 "date_input", "download_button", "segmented_control", "pills",
                 "feedback", "file_uploader"):
        for w in at.get(kind):
            proto = w.proto
            if getattr(w, "key", None) in skip_keys:
                continue
            texts.append(getattr(proto, "label", ""))
            texts.append(getattr(proto, "help", ""))
            texts.append(getattr(proto, "placeholder", "") if hasattr(proto, "placeholder")
                         else "")
            for option in getattr(proto, "options", []) or []:
                option = getattr(option, "content", option)  # pills, segmented controls
                if not _IDENTIFIER.fullmatch(str(option)):
                    texts.append(str(option))
            for caption in getattr(proto, "captions", []) or []:
                texts.append(caption)
    for m in at.get("metric"):
        texts.extend([m.proto.label, m.proto.body, m.proto.help])
    for t in at.get("tab"):
        texts.append(t.proto.label)
    for e in at.get("expander"):
        texts.append(e.proto.label)
    for e in at.get("page_link"):
        texts.extend([e.proto.label, e.proto.help])
    for df in at.get("arrow_data_frame"):
        try:
            texts.extend(str(c) for c in df.value.columns)
        except Exception:  # noqa: BLE001 (an unreadable table has no header to check)
            pass
    for chart in at.get("plotly_chart"):
        texts.extend(_figure_texts(json.loads(chart.proto.spec)))
    return [t for t in texts if t]


def untranslated(at: AppTest) -> dict[str, list[str]]:
    """Each visible text that still holds English words, with the words."""
    found = {}
    for text in visible_texts(at):
        words = english_words(text)
        if words:
            found[text[:160]] = words
    return found


# ------------------------------------------------------- text a room can read ----
PARAGRAPH_WORDS = 80  # issue 46: no paragraph over about 80 words on first view
_HAN = re.compile(r"[\u3400-\u9fff]")
_ITEM = re.compile(r"\s*(?:[-*]|\d+\.)\s")


def word_count(text: str) -> float:
    """Words of a paragraph: English words, and a Chinese character as half a word (a
    Chinese word is one to three characters, two on average)."""
    han = len(_HAN.findall(text))
    return len(_HAN.sub(" ", text).split()) + han / 2


def first_view_paragraphs(at: AppTest) -> list[str]:
    """Every paragraph the main area shows without a click: Markdown split at blank lines,
    captions, notices and widget labels, leaving out what sits in a closed expander."""
    found: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "WhichOneof"):
            try:
                if proto.WhichOneof("type") == "expandable":
                    return
            except (TypeError, ValueError):
                pass
        kind = getattr(node, "type", "")
        if kind in ("markdown", "caption", "info", "success", "warning", "error"):
            for block in str(node.value).split("\n\n"):
                lines = [line for line in block.split("\n") if line.strip()]
                # a list is read item by item
                items = all(_ITEM.match(line) for line in lines)
                found.extend(lines if items else [block] if lines else [])
        elif kind in ("radio", "toggle"):
            found.append(node.proto.label)
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for child in children.values():
                walk(child)

    walk(at.main)
    return found


def long_paragraphs(at: AppTest, most: float = PARAGRAPH_WORDS) -> dict[str, float]:
    """The first-view paragraphs over ``most`` words, with their counts."""
    return {p[:120]: word_count(p) for p in first_view_paragraphs(at) if word_count(p) > most}
