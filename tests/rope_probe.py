"""What transformers' own modeling code rotates, layer by layer (test-only; needs transformers).

Used by tests/test_core_perlayer_probe.py. For every decoder family that
transformers registers for causal language modelling
(``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES``) and whose modeling module mentions a rotary
embedding, :func:`probe` builds a tiny model from the family's own config class
(small widths and vocabulary; the RoPE fields its checkpoints use, :data:`FIELDS`),
runs one forward pass on the CPU and records, per layer, what the attention did to
its queries.

The trick: a forward pre-hook on every decoder layer replaces the layer's input by
its first position's row at every position, so each attention's unrotated query is
the same vector q0 at every position, and the query the attention function gets at
position p is t(p) R_p q0 (t(p): a query scale outside the rotation). A registered
attention function ("rope_probe") records the queries and returns zeros (nothing
downstream matters: the next layer's input is replaced again). Wrappers around the
modeling module's ``apply_rotary*`` functions record what each one received and
returned, which gives the coordinates the rotation works in (DeepSeek's interleaved
pairs are returned de-interleaved) and the attention factor at position 0.
From the queries at positions 0, 1, 2, 3, 5, 8, 13, 100, 1000 and a few far ones:

* rotated coordinates: those that change with the position (a coordinate that is
  not rotated is passed through bit for bit);
* pairing: each rotated coordinate's partner is the one whose squared sum with it
  stays constant; written in the coordinates of the rotation's input;
* theta of each pair: the angle of z_p = q_p[j] + i q_p[j'] against z_0, unwrapped
  position by position;
* the attention factor at position 0 (what the rotation multiplied its input by);
* the query scale t(p) = |q_p| / |q_0|, the softmax scale the attention passes, and
  the sliding window it passes;
* the keys the attention mask lets each query see (:func:`mask_span`), which the test
  compares with the mask the layer's span gives at the positions fed
  (:func:`span_mask`): windows show where the far positions reach past them, and an
  attention chunk where the positions straddle chunk boundaries, which the probe
  makes sure of by building a config with an attention chunk (Llama 4's
  ``attention_chunk_size``) of :data:`CHUNK` tokens; that the published chunk (8,192
  for Scout) is read is checked against the config in the test.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import re
import warnings

import torch

try:
    from transformers import CONFIG_MAPPING
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask
    from transformers.modeling_utils import AttentionInterface
    from transformers.models.auto import configuration_auto
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
except ImportError:  # pragma: no cover - the test skips
    CONFIG_MAPPING = None

PROBE = "rope_probe"
CHUNK = 4  # the attention chunk probe() builds with: the mask shows it within a dozen tokens
MAX_LAYERS = 12  # enough for every default layer pattern (every 2nd, 3rd, 4th, 6th layer)
SMALL_POSITIONS = (0, 1, 2, 3, 5, 8, 13, 100, 1000)
ROTARY_SOURCE = re.compile(r"apply_rotary|rotate_half|RotaryEmbedding|rotate_every_two")
ROTATION_FUNCTION = re.compile(r"^_?apply_rotary")


# --- discovery ---------------------------------------------------------------------------

def module_name(model_type: str) -> str:
    return configuration_auto.model_type_to_module_name(model_type)


def modeling_module(model_type: str):
    """transformers' modeling module of a model_type, or None when there is none."""
    name = module_name(model_type)
    try:
        return importlib.import_module(f"transformers.models.{name}.modeling_{name}")
    except ImportError:
        return None


def text_model_type(model_type: str) -> str:
    """The model_type of a config's language model (its text_config), else its own."""
    cls = CONFIG_MAPPING[model_type]
    text = (getattr(cls, "sub_configs", {}) or {}).get("text_config")
    if text is not None and getattr(text, "model_type", None):
        return text.model_type
    return model_type


def decoder_families() -> dict[str, tuple[str, str]]:
    """{text model_type: (the model_type whose modeling module holds its causal-LM class,
    that class's name)} for every causal-LM family of transformers' registry whose modeling
    module mentions a rotary embedding. A multimodal entry counts as its language model,
    built from its text config (gemma3 as gemma3_text)."""
    out: dict[str, tuple[str, str]] = {}
    for model_type, class_name in sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.items()):
        module = modeling_module(model_type)
        if module is None or model_type not in CONFIG_MAPPING:
            continue
        if not ROTARY_SOURCE.search(inspect.getsource(module)):
            continue
        text_type = text_model_type(model_type)
        if text_type in out:
            continue
        if text_type != model_type and text_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
            out[text_type] = (text_type, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[text_type])
        else:
            out[text_type] = (model_type, class_name)
    return out


# --- building a tiny model ---------------------------------------------------------------

# Small widths for every config class (names through each class's attribute_map).
SHRINK = {
    "vocab_size": 96, "intermediate_size": 48, "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 32, "num_experts": 4, "num_local_experts": 4,
    "n_routed_experts": 4, "num_experts_per_tok": 2, "top_k_experts": 2, "moe_topk": 2,
    "n_shared_experts": 1, "num_shared_experts": 1, "n_group": 1, "topk_group": 1,
    "num_attention_heads": 2, "num_key_value_heads": 1, "pad_token_id": 0,
    "bos_token_id": 1, "eos_token_id": 2, "q_lora_rank": 32, "kv_lora_rank": 32,
    "linear_num_key_heads": 2, "linear_num_value_heads": 2, "linear_key_head_dim": 16,
    "linear_value_head_dim": 16, "mamba_n_heads": 2, "mamba_d_state": 16,
    "mamba_n_groups": 1, "ffn_hidden_size": 48, "expert_intermediate_size": 32,
    "vocab_size_per_layer_input": 96, "hidden_size_per_layer_input": 8,
}

# Per family: the fields its checkpoints use for RoPE and layers where the config
# class's defaults differ (source in the comment), and what a tiny model needs to build.
FIELDS: dict[str, dict] = {
    # ibm-ai-platform/Bamba-9B config.json: attention in layers 9, 18, 27 of 32
    "bamba": {"num_hidden_layers": 12, "attn_layer_indices": [3, 9]},
    # ibm-granite/granite-4.0-h-small config.json: one attention layer in about ten
    "granitemoehybrid": {"layer_types": ["mamba"] * 3 + ["attention"] + ["mamba"] * 5
                         + ["attention"] + ["mamba"] * 2},
    "gemma3n_text": {"num_kv_shared_layers": 4},
    # zai-org/GLM-4.5 config.json: head_dim 128, half of it rotated
    "glm4_moe": {"head_dim": 128},
    # tencent/Hunyuan-7B-Instruct config.json: head_dim 128 (the class has none)
    "hunyuan_v1_dense": {"head_dim": 128},
    "hunyuan_v1_moe": {"head_dim": 128},
    # mistralai/Ministral-8B-Instruct-2410 config.json: head_dim 128
    "ministral": {"head_dim": 128},
    # kyutai/helium-1-preview-2b config.json: hidden 2048 with 16 heads of 128
    "helium": {"hidden_size": 256},
    # databricks/dbrx-instruct config.json: attn_config {kv_n_heads 8, rope_theta 500000}
    "dbrx": {"attn_config": {"kv_n_heads": 1, "rope_theta": 500000.0, "clip_qkv": 8.0}},
    # CohereLabs/North-Micro-Vision-Instruct: per-layer-type rope_parameters
    "cohere_compass_text": {"rope_parameters": {"full_attention": {"rope_type": "default",
                                                                   "rope_theta": 10000.0}}},
    # LiquidAI/LFM2-8B-A1B config.json: convolutions with attention at a few layers
    "lfm2_moe": {"layer_types": ["conv", "conv", "full_attention", "conv", "conv", "conv",
                                 "full_attention", "conv", "conv", "conv", "full_attention",
                                 "conv"]},
    "qwen4_exp_text": {"indexer_n_heads": 2, "indexer_kv_heads": 1, "indexer_head_dim": 256,
                       "indexer_budget": 64, "indexer_compress_ratio": 4},
    # Llama 4's NoPE-layer temperature counts tokens in floor_scale steps (8,192 in Scout);
    # 4 makes it change within the probe's dozen tokens
    "llama4_text": {"floor_scale": 4},
    # allenai's released OLMo hybrid checkpoints: no RoPE, written by the OLMo-core converter
    # as "rope_theta": null (modeling_olmo_hybrid.py: "Released ckpt don't use any ROPE")
    "olmo_hybrid": {"rope_theta": None},
    "diffllama": {"num_key_value_heads": 2},
    "dots3_note_text": {"num_key_value_heads": 2},
    "zaya": {"num_experts_per_tok": 1},
}


SIZE_KEYS = ("hidden_size", "num_attention_heads", "num_key_value_heads", "intermediate_size",
             "vocab_size", "n_embd", "n_head", "d_model")


def preset_fields(config_json: dict) -> tuple[str, dict]:
    """(text model_type, the fields to build its tiny model with) from a published
    config.json: its language model's RoPE and layer fields, without its widths (kept:
    head_dim, or hidden_size / num_attention_heads as the tiny model's head dim)."""
    cfg = dict(config_json.get("text_config") or config_json)
    model_type = cfg.pop("model_type")
    if model_type not in CONFIG_MAPPING:
        return model_type, {}
    head_dim = cfg.get("head_dim")
    hidden = cfg.get("hidden_size") or cfg.get("n_embd") or cfg.get("d_model")
    heads = cfg.get("num_attention_heads") or cfg.get("n_head")
    if head_dim is None and hidden and heads:
        head_dim = hidden // heads
    fields = {k: v for k, v in cfg.items() if k not in SIZE_KEYS}
    # at most MAX_LAYERS layers: per-layer lists cut, layer indices beyond dropped
    n = fields.get("num_hidden_layers")
    if isinstance(n, int) and n > MAX_LAYERS:
        fields["num_hidden_layers"] = MAX_LAYERS
        for key, value in list(fields.items()):
            if isinstance(value, list) and len(value) == n:
                fields[key] = value[:MAX_LAYERS]
            elif key in ("full_attn_idxs", "attn_layer_indices") and isinstance(value, list):
                fields[key] = [i for i in value if i < MAX_LAYERS]
    cls = CONFIG_MAPPING[model_type]
    alias = getattr(cls, "attribute_map", {}) or {}
    if "head_dim" in _fields(cls):
        fields["head_dim"] = head_dim
    else:
        fields[alias.get("hidden_size", "hidden_size")] = 2 * head_dim
        fields[alias.get("num_attention_heads", "num_attention_heads")] = 2
    return model_type, fields


def _fields(cls) -> set[str]:
    try:
        return {f.name for f in dataclasses.fields(cls)}
    except TypeError:
        return set(inspect.signature(cls.__init__).parameters)


def _attr(config, name):
    """config.name, or the global value where a heterogeneous config varies it per layer."""
    try:
        return getattr(config, name, None)
    except RuntimeError:  # AmbiguousGlobalPerLayerAttributeError
        return config._getattr_without_heterogeneous_validation(name, None)


def visible_spans(model_type: str, fields: dict) -> dict:
    """``fields`` with an attention chunk of :data:`CHUNK` tokens where the family's config
    class has one set (``attention_chunk_size``: Llama 4, 8,192 by default), so that the
    chunked mask shows within the probe's tokens; every other field kept."""
    cls = CONFIG_MAPPING[model_type]
    if "attention_chunk_size" not in _fields(cls):
        return dict(fields)
    chunk = fields.get("attention_chunk_size", getattr(cls(), "attention_chunk_size", None))
    if chunk is None:
        return dict(fields)
    return {**fields, "attention_chunk_size": CHUNK}


def tiny_config(model_type: str, fields: dict | None = None):
    """The family's config class with small widths (its head dim kept), at most
    MAX_LAYERS layers, then ``fields`` on top."""
    cls = CONFIG_MAPPING[model_type]
    default = cls()
    names = _fields(cls)
    head_dim = _attr(default, "head_dim")
    heads = _attr(default, "num_attention_heads") or 1
    hidden = _attr(default, "hidden_size")
    if head_dim is None and hidden:
        head_dim = hidden // heads
    alias = getattr(cls, "attribute_map", {}) or {}
    kwargs = {}
    for key, value in SHRINK.items():
        key = alias.get(key, key)
        if key in names:
            kwargs[key] = value
    hidden_key = alias.get("hidden_size", "hidden_size")
    if hidden_key in names and head_dim:
        kwargs[hidden_key] = 2 * head_dim if "head_dim" not in names else 64
    layers_key = alias.get("num_hidden_layers", "num_hidden_layers")
    n = _attr(default, "num_hidden_layers")
    if layers_key in names and isinstance(n, int) and n > MAX_LAYERS:
        kwargs[layers_key] = MAX_LAYERS
    kwargs.update(fields or {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return cls(**kwargs)
        except Exception:
            if layers_key in (fields or {}) or kwargs.pop(layers_key, None) is None:
                raise
            return cls(**kwargs)


# --- running it -------------------------------------------------------------------------

@dataclasses.dataclass
class Measured:
    """What one layer's attention received, read off its queries."""

    pairs: tuple  # ((j, j'), ...) rotated pairs in the rotation's input coordinates, j < j'
    theta: tuple  # signed theta per pair [rad/token], same order
    attention_factor: float | None  # what the rotation multiplied its input by at position 0
    query_scale: tuple  # |q_p| / |q_0| per position
    softmax: float | None  # the softmax scale the attention passed, times sqrt(head dim)
    window: int | None  # the sliding window the attention passed
    head_dim: int  # the query's width
    layout_note: str = ""  # how the rotation's output coordinates map to its input
    by_index: bool = False  # it rotated by the token's index, not the position id
    mask: tuple | None = None  # the keys the mask lets each query see (mask_span), or None
    attended: bool = True  # the attention interface ran (False: only a rotation was seen)


def positions_for(config) -> tuple[int, ...]:
    """The positions the probe feeds: small ones, plus far ones (L/2, L - 1 and 2L + 1
    for the smallest original_max_position_embeddings L, else the configured context);
    only up to that L where a spectrum depends on the current length (dynamic NTK,
    LongRoPE); never past the configured context."""
    text = config.get_text_config()
    params = _attr(text, "rope_parameters") or {}
    entries = [v for v in params.values() if isinstance(v, dict)] or [params]
    types = {e.get("rope_type", e.get("type", "default")) for e in entries}
    limit = _attr(text, "max_position_embeddings") or 2048
    originals = [e.get("original_max_position_embeddings") for e in entries]
    originals = [o for o in originals if isinstance(o, int)]
    out = set(SMALL_POSITIONS)
    if types & {"dynamic", "longrope"}:
        top = min([limit] + originals)
        out |= {top // 2, top - 1}
    else:
        far = min(originals) if originals else limit
        out |= {far // 2, far - 1, 2 * far + 1}
    return tuple(sorted(p for p in out if p < limit))


_CALLS: list = []


def _probe_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0,
                     **kwargs):
    _CALLS.append((module, query.detach(), scaling, kwargs.get("sliding_window"),
                   mask_span(attention_mask, query.shape[2])))
    b, h, s = query.shape[:3]
    return torch.zeros(b, s, h, value.shape[-1], dtype=query.dtype), None


def _layer_list(model, n: int | None):
    """The decoder's ModuleList of layers: the first with num_hidden_layers entries, else
    the longest ModuleList in the model."""
    lists = [m for m in model.modules() if isinstance(m, torch.nn.ModuleList)]
    same = [m for m in lists if len(m) == n]
    return same[0] if same else max(lists, key=len)


def _same_row(t: torch.Tensor, seq: int) -> torch.Tensor:
    """t with its position axis (the last axis of size seq before the features) filled
    with its first row."""
    axes = [a for a in range(t.ndim - 1) if t.shape[a] == seq]
    if not axes:
        return t
    return t.narrow(axes[-1], 0, 1).expand_as(t).contiguous()


def _row_major(t: torch.Tensor, seq: int) -> torch.Tensor | None:
    """(seq, D) float64 of batch 0 and head 0 of a query-like tensor, or None."""
    if not isinstance(t, torch.Tensor) or t.ndim < 2 or t.is_complex():
        return None
    axes = [a for a in range(t.ndim - 1) if t.shape[a] == seq]
    if not axes:
        return None
    a = axes[-1]
    t = t.movedim(a, -2)
    while t.ndim > 2:
        t = t[0]
    return t.detach().double()


def run(model_type: str, class_name: str, config):
    """Build the model, run it once on one repeated token, return (positions,
    {layer: [(query (S, D), scaling, window, rotation calls)]})."""
    AttentionInterface.register(PROBE, _probe_attention)
    AttentionMaskInterface.register(PROBE, sdpa_mask)
    module = modeling_module(model_type)
    config._attn_implementation = PROBE
    inner = getattr(config, "text_config", None)
    if inner is not None:
        inner._attn_implementation = PROBE
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = getattr(module, class_name)(config).eval()
        except KeyError as err:  # Falcon picks its attention class by the name: run eager
            if PROBE not in str(err):
                raise
            config._attn_implementation = "eager"
            model = getattr(module, class_name)(config).eval()
    positions = positions_for(config)
    seq = len(positions)
    layers = _layer_list(model, _attr(config.get_text_config(), "num_hidden_layers"))
    stack: list = []
    rotations: dict[int, list] = {}

    def layer_hook(mod, args, kwargs):
        if args and isinstance(args[0], torch.Tensor) and args[0].is_floating_point():
            args = (_same_row(args[0], seq),) + tuple(args[1:])
        if isinstance(kwargs.get("hidden_states"), torch.Tensor):
            kwargs["hidden_states"] = _same_row(kwargs["hidden_states"], seq)
        return args, kwargs

    def push(mod, args, kwargs):
        stack.append(mod)

    def pop(mod, args, kwargs, out):
        stack.pop()

    depth = [0]

    def wrap(fn):
        def wrapper(*args, **kwargs):
            depth[0] += 1
            try:
                out = fn(*args, **kwargs)
            finally:
                depth[0] -= 1
            if depth[0] == 0 and stack:
                q_out = out[0] if isinstance(out, (tuple, list)) else out
                # the input rotated into the output: the first argument of its shape
                same = [a for a in args if isinstance(a, torch.Tensor)
                        and isinstance(q_out, torch.Tensor) and a.shape == q_out.shape]
                q_in = _row_major(same[0] if same else None, seq)
                q_out = _row_major(q_out, seq)
                if q_in is not None and q_out is not None and q_in.shape == q_out.shape:
                    rotations.setdefault(id(stack[-1]), []).append((q_in, q_out))
            return out
        return wrapper

    # the module's rotation functions, and rotation static methods of its classes
    originals = {(module, name): fn for name, fn in vars(module).items()
                 if ROTATION_FUNCTION.match(name) and callable(fn)}
    for cls in [c for c in vars(module).values() if isinstance(c, type)
                and c.__module__ == module.__name__]:
        for name, fn in vars(cls).items():
            if ROTATION_FUNCTION.match(name) and isinstance(fn, staticmethod):
                originals[(cls, name)] = fn
    handles = [lay.register_forward_pre_hook(layer_hook, with_kwargs=True) for lay in layers]
    for mod in model.modules():
        handles.append(mod.register_forward_pre_hook(push, with_kwargs=True))
        handles.append(mod.register_forward_hook(pop, with_kwargs=True, always_call=True))
    ids = torch.full((1, seq), 5, dtype=torch.long)
    pos = torch.tensor([positions], dtype=torch.long)
    _CALLS.clear()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: every row of a product computed the same way
    try:
        for (owner, name), fn in originals.items():
            if isinstance(fn, staticmethod):
                setattr(owner, name, staticmethod(wrap(fn.__func__)))
            else:
                setattr(owner, name, wrap(fn))
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # an all-ones attention mask: without one, transformers reads position ids
            # that do not step by 1 as packed sequences (masking_utils'
            # find_packed_sequence_indices) and masks across them
            try:
                model(input_ids=ids, position_ids=pos, use_cache=False,
                      attention_mask=torch.ones(1, seq, dtype=torch.long))
            except TypeError:  # a model without an attention_mask argument
                _CALLS.clear()
                model(input_ids=ids, position_ids=pos, use_cache=False)
    finally:
        torch.set_num_threads(threads)
        for (owner, name), fn in originals.items():
            setattr(owner, name, fn)
        for h in handles:
            h.remove()
    index = {id(sub): i for i, lay in enumerate(layers) for sub in lay.modules()}
    calls: dict[int, list] = {}
    seen, first = set(), set()
    for mod, q, scaling, window, span in _CALLS:
        if id(mod) not in index:  # an attention outside the decoder's layers
            continue
        layer = index[id(mod)]
        seen.add(id(mod))
        entry = (_row_major(q, seq), scaling, window, rotations.get(id(mod), []), span)
        found = calls.setdefault(int(layer), [])
        # the layer's self-attention first: Inkling 2's layers first attend over the
        # earlier layers' outputs (Inkling2BlockAttentionResidual, no window, no positions)
        if mod is getattr(layers[layer], "self_attn", None) and id(mod) not in first:
            first.add(id(mod))
            found.insert(0, entry)
        else:
            found.append(entry)
    # attentions that rotate without calling the attention interface
    for mod in model.modules():
        if id(mod) in rotations and id(mod) not in seen and id(mod) in index:
            calls.setdefault(index[id(mod)], []).append(
                (None, None, None, rotations[id(mod)], None))
    return positions, calls


def mask_span(mask, seq: int):
    """The keys an attention mask lets each of the ``seq`` queries see among the first
    ``seq`` keys, as a tuple of ``seq`` tuples of booleans (causal part only); None when
    there is no mask (a plain causal attention). Compressed keys beyond the first ``seq``
    columns (DeepSeek-V4) are not read."""
    if not isinstance(mask, torch.Tensor) or mask.ndim < 2 or mask.shape[-2] != seq \
            or mask.shape[-1] < seq:
        return None
    m = mask
    while m.ndim > 2:
        m = m[0]
    m = m[:, :seq]
    allowed = m if m.dtype == torch.bool else m > -1e30  # additive masks: 0 or -inf
    allowed = allowed & torch.ones(seq, seq, dtype=torch.bool).tril()
    return tuple(tuple(bool(v) for v in row) for row in allowed.tolist())


def span_mask(attention: str | None, window: int | None, positions) -> tuple:
    """The causal mask a layer's span gives queries and keys at ``positions`` (as
    :func:`mask_span` reads it): full attention every earlier key; a sliding window of w
    the keys with p_q - p_k < w (transformers' sliding_window_overlay); a chunk of c the
    keys in the query's chunk, p // c equal (chunked_overlay); a compressed layer's raw
    window as a sliding one."""
    p = list(positions)
    out = []
    for i, pi in enumerate(p):
        row = []
        for j, pj in enumerate(p):
            ok = j <= i
            if ok and window is not None and attention in ("sliding", "compressed"):
                ok = pi - pj < window
            if ok and window is not None and attention == "chunked":
                ok = pi // window == pj // window
            row.append(ok)
        out.append(tuple(row))
    return tuple(out)


def describe_mask(allowed) -> str:
    """A mask as the first key each query sees (by token index)."""
    if allowed is None:
        return "causal (no mask)"
    return "first keys " + str([row.index(True) if True in row else None for row in allowed])


# --- reading the queries -----------------------------------------------------------------

# How a rotation's output coordinates may map to its input coordinates: the output
# coordinate j holds input coordinate perm[j].
def _permutations(d: int) -> dict[str, list[int]]:
    out = {"": list(range(d))}
    if d % 2 == 0:
        # cat(x[0::2], x[1::2]): DeepSeek's apply_rotary_pos_emb_interleave
        out["de-interleaved"] = list(range(0, d, 2)) + list(range(1, d, 2))
    return out


def _input_map(q_in: torch.Tensor, q_out: torch.Tensor):
    """(perm, attention factor, note) from a rotation call's input and output at
    position 0: out0[j] = a in0[perm[j]] on rotated coordinates, in0[perm[j]] on the
    others."""
    in0, out0 = q_in[0], q_out[0]
    for note, perm in _permutations(in0.numel()).items():
        ratio = out0 / in0[perm]
        ok = torch.isfinite(ratio)
        values = ratio[ok]
        if values.numel() == 0:
            continue
        off = (values - 1).abs() > 1e-6
        a = float(values[off].mean()) if bool(off.any()) else 1.0
        if bool(((values - 1).abs() <= 1e-6 * 4).logical_or((values - a).abs() <= 1e-5 * abs(a))
                .all()):
            return perm, a, note
    return None, None, "unknown"


def _pairs_and_theta(positions, x: torch.Tensor, y: torch.Tensor, tol: float = 1e-9):
    """Rotated pairs and their theta from a rotation's input x and output y (S, D), both
    in the input's coordinates: y_p = a R_p x_p on the rotated pairs, y_p = x_p on the
    others. Returns (pairs, thetas, a) with pairs (j, j'), j < j'."""
    r0 = torch.where(x[0] != 0, y[0] / x[0], torch.ones_like(x[0]))  # (D,)
    size = float(y.abs().max())
    moving = ((y - r0 * x).abs().max(dim=0).values > tol * size).nonzero().flatten().tolist()
    if not moving:
        return [], [], None, False
    xs, ys = x[:, moving] ** 2, y[:, moving] ** 2  # (S, J)
    ratio = (ys[:, :, None] + ys[:, None, :]) / (xs[:, :, None] + xs[:, None, :]).clamp(
        min=1e-300)  # (S, J, J): a^2 for a rotated pair at every position
    spread = ratio.std(dim=0) / ratio.mean(dim=0).clamp(min=1e-300)
    spread.fill_diagonal_(math.inf)
    partner = spread.argmin(dim=1).tolist()
    pairs, thetas, factors = [], [], []
    for i, k in enumerate(partner):
        if not (i < k and partner[k] == i):
            continue
        factors.append(float(ratio[0, i, k]) ** 0.5)
        j, jj = moving[i], moving[k]
        phi = torch.angle(torch.complex(y[:, j], y[:, jj])
                          * torch.complex(x[:, j], x[:, jj]).conj()).tolist()  # (S,)
        pairs.append((j, jj))
        thetas.append(phi)
    # positions as fed (position ids), or the token's index for a model that ignores them
    best = None
    for by_index, p in enumerate(([float(v) for v in positions],
                                  [float(v) for v in range(len(positions))])):
        ests, worst = [], 0.0
        for phi in thetas:
            est = phi[1] / p[1]
            for m in range(2, len(p)):
                turns = round((est * p[m] - phi[m]) / (2 * math.pi))
                est = (phi[m] + 2 * math.pi * turns) / p[m]
            ests.append(est)
            worst = max(worst, max(abs(math.remainder(phi[m] - est * p[m], 2 * math.pi))
                                   for m in range(len(p))))
        if best is None or worst < best[0] - 1e-9:
            best = (worst, ests, bool(by_index))
    thetas = best[1] if best else []
    a = sum(factors) / len(factors) if factors else None
    return pairs, thetas, a, bool(best and best[2])


def measure(positions, query, scaling, window, rotations, span=None) -> Measured:
    """Pairs, theta per pair, attention factor and query scale of one layer: from its
    first rotation call (input and output) when there is one, else from the attention's
    queries (the same unrotated vector at every position: x_p = q_0)."""
    softmax = None if scaling is None or query is None else float(scaling) * query.shape[-1] ** 0.5
    note, a = "", None
    if rotations:
        q_in, q_out = rotations[0]
        perm, _a, note = _input_map(q_in, q_out)
        if perm is None:
            y = q_out
        else:
            y = torch.empty_like(q_out)
            y[:, perm] = q_out  # the output in the input's coordinates
        pairs, thetas, a, by_index = _pairs_and_theta(positions, q_in, y)
        d = query.shape[-1] if query is not None else q_out.shape[-1]
        scale = torch.ones(len(positions), dtype=torch.float64)
        if query is not None:  # where the rotated block sits in the query; a scale after it
            width = q_out.shape[-1]
            for start in range(0, query.shape[-1] - width + 1):
                block = query[:, start:start + width]
                if torch.allclose(block[0], q_out[0], rtol=1e-5, atol=1e-7):
                    scale = block.norm(dim=-1) / q_out.norm(dim=-1)
                    pairs = [(start + j, start + jj) for j, jj in pairs]
                    break
    else:
        d = query.shape[-1]
        norms = query.norm(dim=-1)  # (S,)
        scale = norms / norms[0]
        x = query[0].expand_as(query)
        scaled = bool(((scale - 1).abs() > 1e-9).any())  # dividing it out costs rounding
        pairs, thetas, a, by_index = _pairs_and_theta(positions, x, query / scale[:, None],
                                                      1e-6 if scaled else 1e-9)
        if not pairs:
            a = None
    order = sorted(range(len(pairs)), key=lambda i: pairs[i])
    return Measured(tuple(pairs[i] for i in order), tuple(thetas[i] for i in order), a,
                    tuple(scale.tolist()), softmax, window, d, note, by_index, span,
                    query is not None)


def probe(model_type: str, class_name: str, fields: dict | None = None):
    """(config, positions, {layer: Measured}) for one family; a layer whose attention
    runs more than once (several attention calls) is measured from its first call (its
    ``self_attn``'s first where it has one, see :func:`run`)."""
    text_type = text_model_type(model_type)
    fields = FIELDS.get(text_type, {}) if fields is None else fields
    config = tiny_config(text_type, visible_spans(text_type, fields))
    positions, calls = run(model_type, class_name, config)
    out = {}
    for layer, found in calls.items():
        query, scaling, window, rotations, span = found[0]
        out[layer] = measure(positions, query, scaling, window, rotations, span)
    return config, positions, out


# --- a readable summary (for failures and for working on FIELDS) ---------------------------

def describe_pairs(pairs) -> str:
    """The pairs as "half start+n/span" or "interleaved start+n", else listed."""
    if not pairs:
        return "none"
    n = len(pairs)
    j0 = pairs[0][0]
    if all(b == a + 1 for a, b in pairs) and all(pairs[i][0] == j0 + 2 * i for i in range(n)):
        return f"interleaved {j0}+{n}"
    span = pairs[0][1] - j0
    if all(b - a == span for a, b in pairs) and all(pairs[i][0] == j0 + i for i in range(n)):
        return f"half {j0}+{n}/{span}"
    return "other " + str(pairs[:4])


def summary(m: Measured, positions) -> tuple:
    th = m.theta
    spectrum = (f"{th[0]:.6g}", f"{th[1]:.6g}", f"{th[-1]:.4g}") if len(th) >= 2 else ()
    far = tuple((p, round(s, 5)) for s, p in zip(m.query_scale, positions) if abs(s - 1) > 1e-5)
    return (describe_pairs(m.pairs), spectrum,
            None if m.attention_factor is None else round(m.attention_factor, 6), m.window,
            describe_mask(m.mask),
            None if m.softmax is None else round(m.softmax, 5), far, m.head_dim, m.layout_note)
