"""Tiny causal transformers with a pluggable position encoding, their two tasks,
and their evaluation per position bin.

The model (pure PyTorch, CPU) is small enough to train in well under a minute on
one core and to evaluate in a page: token embedding, ``n_layers`` pre-norm blocks
of causal multi-head attention and a ReLU MLP, a final norm and an unembedding.
Where position enters depends on ``encoding``:

* ``"nope"``: nowhere; only the causal mask (and the first token, BOS) break the
  symmetry (Kazemnejad et al. 2023).
* ``"sinusoidal"``: PE[m] (:func:`~rope_core.rotary.sinusoidal.sinusoidal_pe`) added to
  the token embeddings (Vaswani et al. 2017).
* ``"rope"``: q and k of every head rotated by m theta_i,
  theta_i = base^(-2i/d_head) (Su et al. 2021), in the interleaved layout.
* ``"alibi"``: the bias -slope_h (m - n) added to the logit of query m and key n
  (Press et al. 2022), slopes :func:`~rope_core.beyond.alternatives.alibi_slopes` times
  ``alibi_scale``. Press et al.'s slopes depend on the number of heads only
  (fairseq's ``get_slopes(attn_heads)``): they trained WikiText-103 models at L = 64 to
  3,072 with the same slopes. The main arm's scale 512 / L_train = 32 is this lab's
  adaptation, not the paper's design: over L_train the two-head slopes 1/16 and 1/256
  times 32 span what they span unscaled over 512 tokens (32 and 2 logits). The control
  ``alibi_8_heads`` (8 heads, unscaled) is the paper's configuration.
* ``"p_rope"``: RoPE on the highest-frequency fraction p of the pairs only, the
  other pairs unrotated (theta = 0, :func:`~rope_core.beyond.alternatives.p_rope_theta`;
  Barbero et al. 2024).
* ``"hybrid"``: RoPE in even layers (0, 2, ...), NoPE in odd ones, all with
  attention over the whole input (1:1).
* ``"irope"``: like Llama 4's iRoPE (transformers' Llama4TextAttention): every
  ``nope_interval``-th layer (layer j with (j + 1) % nope_interval == 0) has no
  position encoding, attends to the whole input and multiplies its query at
  position m by 1 + attn_scale ln(1 + floor((m + 1) / floor_scale))
  (:func:`~rope_core.models.config.query_scale`, rule "llama4"); the other layers use RoPE with
  chunked attention: query m sees key n only if floor(m / chunk) = floor(n / chunk).

The tasks (:func:`task_batch`), each sequence starting with a BOS token:

* ``"local"``: random symbols; at every position m >= k + 1 the answer is the
  symbol k places back, x[m - k]. A fixed short offset: a recency prior helps.
* ``"recall"`` (associative recall with the store at a random depth, passkey-style):
  filler symbols (never a key or a value), and somewhere among them a store of
  ``pairs`` key-value pairs k_1 v_1 ... k_N v_N (distinct keys, distinct values); after
  the store each stored key is asked once, in a random order, at random positions among
  the filler, and the answer at a query is the value stored with its key. Keys and
  values appear nowhere else, so each key occurs exactly twice in a sequence (in the
  store and at its query), whatever its length. Evaluated by store depth and by distance
  from the store (:func:`recall_cells`).

At inference the RoPE layers can run with other frequencies (a context-extension
scaling from :mod:`rope_core.models.scaling`: ``theta`` and ``attention_factor`` of
:meth:`TinyTransformer.forward`; the factor multiplies cos and sin, as in Hugging
Face's YaRN) and every layer's attention can be cut to a sliding window
(``window``).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..models.config import query_scale
from ..models.scaling import scaled_theta
from ..rotary.frequencies import theta as rope_theta
from ..rotary.rotation import cos_sin
from ..rotary.sinusoidal import sinusoidal_pe
from ..support._checks import check_base, check_choice, check_int, check_positive_float, fail
from .alternatives import alibi_slopes, p_rope_theta

ENCODINGS = ("nope", "sinusoidal", "rope", "alibi", "p_rope", "hybrid", "irope")
TASKS = ("local", "recall")
# The controls: trained exactly as the main arms (one per encoding, named after it), with
# one setting of TRAINING["model"] changed, on the task where that setting matters.
# Recorded (their evaluation is stored), not shipped: tiny/train.py --check controls trains
# them again and compares. name -> (encoding, changes, tasks)
CONTROLS = {
    # ALiBi as its authors configured it: 8 heads (of d_model / 8 dimensions; their
    # WikiText-103 model has 8 heads), the slopes Press et al. give 8 heads, unscaled
    # (1/2 ... 1/256); local, where the main arm's slopes x32 (this lab's adaptation) are
    # compared with the paper's (recall too was planned: cut to fit the training budget,
    # docs/tiny-models.md; no recall arm with the paper's slopes was trained)
    "alibi_8_heads": ("alibi", {"n_heads": 8, "alibi_scale": 1.0}, ("local",)),
    # the main arm's ALiBi with the slopes unscaled (1/16, 1/256): what the first version
    # of this experiment trained
    "alibi_unscaled": ("alibi", {"alibi_scale": 1.0}, ("local",)),
    # base 5: 6 of 16 pairs (37.5%) have a wavelength over L_train, as 23 of 64 (36%) do in
    # LLaMA 1 (base 10^4, heads of 128, L = 2,048); recall, where RoPE fails
    "rope_base5": ("rope", {"base": 5.0}, ("recall",)),
    # iRoPE-like with chunks of 4 tokens: 4 chunks within L_train instead of 2; local,
    # where the chunk starts cost the iRoPE-like models answers
    "irope_chunk4": ("irope", {"chunk": 4}, ("local",)),
}
# every trained family: the main arms (an encoding each), then the controls
ARMS = {**{e: (e, {}) for e in ENCODINGS}, **{c: v[:2] for c, v in CONTROLS.items()}}
# How a model is run beyond L_train. Any model: "none", as trained; "at_criterion", the
# same run's weights at the first check whose held-out loss reached the criterion, or at
# the end of the budget where none did (the sensitivity run: recorded, not shipped). A RoPE
# model: every layer cut to a sliding
# window of L_train keys; frequencies scaled for s = EVAL["factor"] without training
# (position interpolation, NTK-aware, YaRN); two analyses, YaRN without its attention
# factor and position interpolation of the slow pairs only. A sinusoidal model: "held",
# its signal held at PE[L_train - 1] past L_train. (The first version also fine-tuned
# position interpolation, Chen et al. 2023; cut from this one to fit the training budget:
# docs/tiny-models.md.)
METHODS = ("none", "window", "linear", "ntk", "yarn", "yarn_no_factor", "pi_slow_pairs",
           "held", "at_criterion")
ROPE_METHODS = METHODS[1:7]
SCALINGS = ("linear", "ntk", "yarn")  # rope_core.models.scaling names
MAX_LENGTH = 4096  # tokens of one evaluated sequence (a bounded demo)
MAX_BATCH = 4096
WEIGHTS_DIR = Path(__file__).resolve().parents[2] / "tiny" / "weights"

# How tiny/train.py trains every model: the same for every arm, task and seed.
TRAINING = {
    "model": {"d_model": 64, "n_heads": 2, "n_layers": 4, "d_mlp": 128, "base": 100.0,
              "p": 0.75, "chunk": 8, "nope_interval": 4, "floor_scale": 8, "attn_scale": 0.1,
              "alibi_scale": 32.0},  # ALiBi's slopes x 512 / L_train: our adaptation (module doc)
    "length": 16,  # L_train, tokens per training sequence, BOS included
    "tasks": {"local": {"symbols": 16, "k": 2},
              "recall": {"symbols": 16, "pairs": 3, "filler": 16}},
    "batch": 64,
    "lr": 3e-3,
    "warmup": 100,
    "weight_decay": 0.01,
    # every model trains exactly this many steps: a linear warm-up multiplied by a cosine decay
    # that reaches zero at the last step (the same schedule for every arm)
    "steps": 500,
    # the sensitivity run: the weights at the first check (every check_every steps) whose
    # held-out loss (mean cross-entropy per answer, nats) is at most this (on average at
    # least 99% probability on the right answer), kept aside from the same run; where no
    # check reaches it, the run stops at the end of the budget (the shipped weights)
    "criterion_loss": 0.01,
    "check_every": 50,  # steps between checks
    "check_sequences": 256,  # fixed held-out sequences of L_train tokens
    "seeds": [0, 1, 2, 3, 4],
}
# The evaluation: sequences of factor * L_train tokens, fresh for every seed. Local: J =
# "sequences" per seed, every position answered. Recall: "per_cell" sequences per seed in
# each cell of :func:`recall_cells` (the store's depth, the queries' distance from it).
EVAL = {"factor": 8, "sequences": 52, "chunk": 64,
        "recall": {"per_cell": 20,
                   # the depth slice: queries 1 ... near - 1 tokens after the store's last
                   # token (the distances training shows), the store at depth [a, b)
                   "near": 10, "depth_edges": (8, 16, 24, 32, 48, 64, 96, 120),
                   # the distance slice: the store at depth 1 ... shallow - 1 (the depths
                   # training shows), queries at a distance [a, b) from its last token
                   "shallow": 8, "distance_edges": (10, 16, 24, 32, 48, 64, 96, 122)}}
# Generator seeds of the sequences: training data, checks and evaluation never meet.
DATA_SEED, CHECK_SEED, EVAL_SEED, EXAMPLE_SEED = 10_000, 20_000, 30_000, 40_000


@dataclass(frozen=True)
class TinyConfig:
    """Sizes and position encoding of one tiny model (plain numbers, saved as JSON)."""

    encoding: str = "rope"
    vocab: int = 17
    d_model: int = 64
    n_heads: int = 2
    n_layers: int = 4
    d_mlp: int = 128
    base: float = 100.0  # RoPE and sinusoidal base
    p: float = 0.75  # p-RoPE: fraction of pairs kept rotating
    chunk: int = 8  # iRoPE: attention chunk of its RoPE layers [tokens]
    nope_interval: int = 4  # iRoPE: every nope_interval-th layer is NoPE
    floor_scale: float = 8  # iRoPE: NoPE query temperature, Llama 4's floor_scale
    attn_scale: float = 0.1  # ... and attn_scale
    alibi_scale: float = 1.0  # ALiBi: the slopes of alibi_slopes(n_heads) times this
    max_length: int = MAX_LENGTH  # longest sequence the sinusoidal table covers

    def __post_init__(self):
        check_choice(self.encoding, "encoding", ENCODINGS)
        check_int(self.vocab, "vocab", 2, 1024)
        check_int(self.n_heads, "n_heads", 1, 64)
        check_int(self.n_layers, "n_layers", 1, 16)
        check_int(self.d_model, "d_model", 2 * self.n_heads, 1024)
        if self.d_model % (2 * self.n_heads):
            fail("d_model", self.d_model, "a multiple of 2 * n_heads = {m}", m=2 * self.n_heads)
        check_int(self.d_mlp, "d_mlp", 1, 4096)
        check_base(self.base)
        check_positive_float(self.p, "p", 1.0)
        check_int(self.chunk, "chunk", 1, MAX_LENGTH)
        check_int(self.nope_interval, "nope_interval", 1, 16)
        check_positive_float(self.floor_scale, "floor_scale", 1e9)
        check_positive_float(self.attn_scale, "attn_scale", 100.0)
        check_positive_float(self.alibi_scale, "alibi_scale", 1024.0)
        check_int(self.max_length, "max_length", 1, MAX_LENGTH)

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return asdict(self)

    def layer_encoding(self, layer: int) -> str:
        """The encoding layer ``layer`` applies inside attention: "rope", "p_rope",
        "alibi" or "none" (NoPE and sinusoidal add nothing there)."""
        if self.encoding in ("rope", "p_rope", "alibi"):
            return self.encoding
        if self.encoding == "hybrid":
            return "rope" if layer % 2 == 0 else "none"
        if self.encoding == "irope":
            return "none" if (layer + 1) % self.nope_interval == 0 else "rope"
        return "none"

    def layer_attention(self, layer: int) -> str:
        """"chunked" for an iRoPE model's RoPE layers, "full" otherwise."""
        if self.encoding == "irope" and self.layer_encoding(layer) == "rope":
            return "chunked"
        return "full"

    def layer_temperature(self, layer: int) -> bool:
        """Whether the layer scales its queries (an iRoPE model's NoPE layers)."""
        return self.encoding == "irope" and self.layer_encoding(layer) == "none"


def learning_rate(step: int, steps: int, settings: dict = TRAINING) -> float:
    """The learning rate of training step ``step`` (1, 2, ..., ``steps``): a linear
    warm-up multiplied by a cosine decay that would reach zero one step after the last (so
    the cosine decays during the warm-up too, and the peak, at step warmup, is below lr),

        lr min(1, step / warmup) (1 + cos(pi (step - 1) / steps)) / 2.
    """
    step = check_int(step, "step", 1, 10**7)
    steps = check_int(steps, "steps", 1, 10**7)
    warm = min(1.0, step / settings["warmup"])
    return settings["lr"] * warm * 0.5 * (1 + math.cos(math.pi * (step - 1) / steps))


def rotate_pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """RoPE in the interleaved layout, differentiable (apply_rope writes into an
    ``out=`` buffer, which autograd refuses):

        out_2i = x_2i cos - x_2i+1 sin,   out_2i+1 = x_2i sin + x_2i+1 cos,

    computed as the complex product (x_2i + i x_2i+1)(cos + i sin), one fused
    kernel (about 20 times faster on the CPU than the four real products).

    Args:
        x: ``(..., seq, d)`` float32 or float64, pairs adjacent in memory;
            cos, sin: ``(seq, d/2)`` in x's dtype.
    Returns:
        ``(..., seq, d)``.
    """
    pairs = torch.view_as_complex(x.unflatten(-1, (-1, 2)))  # (..., seq, d/2) complex
    return torch.view_as_real(pairs * torch.complex(cos, sin)).flatten(-2)


class Block(nn.Module):
    """Pre-norm block: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.n_heads, self.d_head = cfg.n_heads, cfg.d_head
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.out = nn.Linear(cfg.d_model, cfg.d_model)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(nn.Linear(cfg.d_model, cfg.d_mlp), nn.ReLU(),
                                 nn.Linear(cfg.d_mlp, cfg.d_model))

    def qkv_heads(self, x: torch.Tensor):
        """q, k, v of every head before any position encoding, each
        ``(batch, heads, seq, d_head)``."""
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)  # (batch, seq, d_model) each
        return [t.unflatten(-1, (self.n_heads, self.d_head)).transpose(1, 2) for t in (q, k, v)]

    def forward(self, x, rot, bias, query_scale=None, need_weights=False):
        """x: ``(batch, seq, d_model)``; rot: None or (cos, sin) ``(seq, d_head/2)``;
        bias: ``(1, heads or 1, seq, seq)`` additive logits, causal mask included;
        query_scale: None or ``(seq, 1)`` factors of the queries.
        Returns (x, attention weights ``(batch, heads, seq, seq)`` or None)."""
        q, k, v = self.qkv_heads(x)  # (batch, heads, seq, d_head)
        if rot is not None:
            q, k = rotate_pairs(q, *rot), rotate_pairs(k, *rot)
        if query_scale is not None:
            q = q * query_scale
        weights = None
        if need_weights:
            logits = q @ k.transpose(-1, -2) / math.sqrt(self.d_head) + bias  # (b, h, seq, seq)
            weights = logits.softmax(dim=-1)
            mixed = weights @ v  # (batch, heads, seq, d_head)
        else:  # the same softmax(q k^T / sqrt(d_head) + bias) v, fused
            mixed = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = x + self.out(mixed.transpose(1, 2).flatten(-2))  # (batch, seq, d_model)
        return x + self.mlp(self.ln2(x)), weights


class TinyTransformer(nn.Module):
    """The tiny causal transformer; see the module docstring for the encodings."""

    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.unembed = nn.Linear(cfg.d_model, cfg.vocab)
        self.register_buffer("theta", model_theta(cfg), persistent=False)  # (d_head/2,)
        self.register_buffer("slopes", (alibi_slopes(cfg.n_heads) * cfg.alibi_scale).float(),
                             persistent=False)  # (heads,)
        self.d_head = cfg.d_head

    def positional(self, seq: int) -> torch.Tensor:
        """The sinusoidal table PE[0 ... seq-1], ``(seq, d_model)`` float32 (each row
        is the same whatever seq: its angles are formed in float64 one by one)."""
        return sinusoidal_pe(seq, self.cfg.d_model, self.cfg.base, dtype=torch.float32)

    def _check(self, tokens):
        cfg = self.cfg
        if not isinstance(tokens, torch.Tensor) or tokens.ndim != 2 \
                or tokens.dtype.is_floating_point or tokens.dtype == torch.bool:
            fail("tokens", tokens, "an integer tensor of shape (batch, seq)")
        batch, seq = tokens.shape
        check_int(seq, "seq", 1, cfg.max_length)
        check_int(batch, "batch", 1, MAX_BATCH)
        if bool((tokens < 0).any()) or bool((tokens >= cfg.vocab).any()):
            fail("tokens", tokens, "integers from 0 to {high}", high=cfg.vocab - 1)
        return seq

    def layer_inputs(self, seq: int, theta=None, attention_factor: float = 1.0,
                     window: int | None = None):
        """What each layer adds to attention, for a sequence of ``seq`` tokens:
        a list of ``(rot, bias, query_scale)`` per layer (see :meth:`Block.forward`).

        bias holds the causal mask, an iRoPE RoPE layer's chunks, ALiBi's
        -slope_h (m - n) and a sliding window of ``window`` keys (query m sees
        m - window + 1 ... m), each where it applies."""
        cfg = self.cfg
        attention_factor = check_positive_float(attention_factor, "attention_factor", 100.0)
        if window is not None:
            window = check_int(window, "window", 1, MAX_LENGTH)
        m = torch.arange(seq).view(-1, 1)  # (seq, 1) query positions
        n = torch.arange(seq).view(1, -1)  # (1, seq) key positions
        distance = m - n  # (seq, seq)
        allowed = distance >= 0
        if window is not None:
            allowed = allowed & (distance < window)
        rot = None
        if any(cfg.layer_encoding(j) in ("rope", "p_rope") for j in range(cfg.n_layers)):
            if theta is None:
                theta = self.theta
            elif not isinstance(theta, torch.Tensor) or theta.shape != self.theta.shape:
                fail("theta", theta, "a tensor of d_head/2 = {half} frequencies",
                     half=self.theta.numel())
            rot = rope_cos_sin(seq, theta, attention_factor)
        out = []
        for j in range(cfg.n_layers):
            kind = cfg.layer_encoding(j)
            keep = allowed
            if cfg.layer_attention(j) == "chunked":
                keep = keep & (m // cfg.chunk == n // cfg.chunk)
            # 4-D, (1, 1 or heads, seq, seq): scaled_dot_product_attention then takes its
            # fused kernel on the CPU (a 3-D mask sends it to the slower reference path)
            bias = torch.zeros(1, 1, seq, seq).masked_fill(~keep, float("-inf"))
            if kind == "alibi":
                bias = bias - self.slopes.view(1, -1, 1, 1) * distance  # (1, heads, seq, seq)
            scale = None
            if cfg.layer_temperature(j):
                scale = query_scale("llama4", cfg.floor_scale, cfg.attn_scale, list(range(seq)))
                scale = scale.float().view(-1, 1)  # (seq, 1)
            out.append((rot if kind in ("rope", "p_rope") else None, bias, scale))
        return out

    def forward(self, tokens: torch.Tensor, *, theta: torch.Tensor | None = None,
                attention_factor: float = 1.0, window: int | None = None,
                hold_position: int | None = None, return_attention: bool = False):
        """Logits for the answer at every position.

        Args:
            tokens: ``(batch, seq)`` integers in [0, vocab).
            theta: ``(d_head/2,)`` frequencies for the RoPE layers instead of the
                trained ones (a context-extension scaling); None keeps them.
            attention_factor: multiplies cos and sin of the RoPE layers (so the
                logits by its square), YaRN's mscale; 1 otherwise.
            window: every layer attends to the last ``window`` keys only; None: as
                trained.
            hold_position: sinusoidal models only, an analysis: positions from
                ``hold_position`` on get PE[hold_position - 1], the last row seen
                in training when it is L_train; None: PE[m] at every m.
            return_attention: also return every layer's weights.
        Returns:
            ``(batch, seq, vocab)`` logits, and with ``return_attention`` a list of
            ``n_layers`` tensors ``(batch, heads, seq, seq)``.
        """
        seq = self._check(tokens)
        x = self.embed(tokens)  # (batch, seq, d_model)
        if hold_position is not None:
            if self.cfg.encoding != "sinusoidal":
                fail("hold_position", hold_position, "`None` for a {encoding} model",
                     encoding=self.cfg.encoding)
            hold_position = check_int(hold_position, "hold_position", 1, MAX_LENGTH)
        if self.cfg.encoding == "sinusoidal":
            pe = self.positional(seq)  # (seq, d_model)
            if hold_position is not None and seq > hold_position:
                pe = torch.cat([pe[:hold_position],
                                pe[hold_position - 1].expand(seq - hold_position, -1)])
            x = x + pe
        maps = []
        for block, (rot, bias, scale) in zip(self.blocks,
                                             self.layer_inputs(seq, theta, attention_factor,
                                                               window)):
            x, weights = block(x, rot, bias, scale, need_weights=return_attention)
            maps.append(weights)
        logits = self.unembed(self.ln_f(x))  # (batch, seq, vocab)
        return (logits, maps) if return_attention else logits

    def qk_before_rotation(self, tokens: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Per layer, q and k of every head before RoPE turns them, each
        ``(batch, heads, seq, d_head)`` (what Barbero et al. measure per pair)."""
        seq = self._check(tokens)
        x = self.embed(tokens)
        if self.cfg.encoding == "sinusoidal":
            x = x + self.positional(seq)
        out = []
        for block, (rot, bias, scale) in zip(self.blocks, self.layer_inputs(seq)):
            q, k, _ = block.qkv_heads(x)
            out.append((q, k))
            x, _ = block(x, rot, bias, scale)
        return out


def model_theta(cfg: TinyConfig) -> torch.Tensor:
    """The trained frequencies of a model's RoPE layers, ``(d_head/2,)`` float64:
    theta_i = base^(-2i/d_head); for p-RoPE 0 beyond the fastest fraction p."""
    if cfg.encoding == "p_rope":
        return p_rope_theta(cfg.d_head, cfg.base, cfg.p)  # (d_head/2,), 0 for unrotated pairs
    return rope_theta(cfg.d_head, cfg.base)  # (d_head/2,)


def rope_cos_sin(seq: int, theta: torch.Tensor, attention_factor: float = 1.0):
    """cos(m theta_i) and sin(m theta_i) times the attention factor, m = 0 ... seq-1,
    each ``(seq, d/2)`` float32 (theta = 0 gives cos 1, sin 0: an unrotated pair)."""
    cos, sin = cos_sin(range(seq), theta.to(torch.float64), torch.float32)  # (seq, d/2) each
    return cos * attention_factor, sin * attention_factor


# --- the tasks ---------------------------------------------------------------------------

def vocab_size(task: str) -> int:
    """Symbols of the task plus BOS: local 16 + 1; recall 16 keys + 16 values + 16 filler
    symbols + 1."""
    spec = TRAINING["tasks"][check_choice(task, "task", TASKS)]
    if task == "local":
        return spec["symbols"] + 1
    return 2 * spec["symbols"] + spec["filler"] + 1


def bos(task: str) -> int:
    """The BOS token: the last id of the task's vocabulary."""
    return vocab_size(task) - 1


def first_answered(task: str) -> int:
    """The first position that can have an answer: k + 1 (local); 2 pairs + 1 (recall,
    the store right after BOS)."""
    spec = TRAINING["tasks"][check_choice(task, "task", TASKS)]
    return spec["k"] + 1 if task == "local" else 2 * spec["pairs"] + 1


def shortest(task: str) -> int:
    """The shortest sequence of a task: one answer (local); BOS, the store and its
    queries (recall: 1 + 3 N)."""
    spec = TRAINING["tasks"][check_choice(task, "task", TASKS)]
    return spec["k"] + 2 if task == "local" else 1 + 3 * spec["pairs"]


def chance(task: str, kind: str = "any") -> float:
    """Accuracy of a guess that knows only what kind of symbol answers.

    kind "any": a uniform guess among the symbols an answer can be, 1/symbols (local:
    any of the 16 symbols; recall: any of the 16 value symbols). kind "stored" (recall
    only): a guess among the N values stored in this sequence, 1/pairs, the chance of
    a model that has found the store but not the key."""
    spec = TRAINING["tasks"][check_choice(task, "task", TASKS)]
    kind = check_choice(kind, "kind", ("any", "stored") if task == "recall" else ("any",))
    return 1 / spec["pairs"] if kind == "stored" else 1 / spec["symbols"]


def recall_sequences(depth: torch.Tensor, allowed: torch.Tensor,
                     generator: torch.Generator):
    """Recall sequences with the store at a given depth and the queries at random allowed
    positions.

    Every position holds a filler symbol (uniform over the F filler symbols 2S ... 2S+F-1)
    except: BOS at 0; the store k_1 v_1 ... k_N v_N at depth d ... d + 2N - 1 (keys drawn
    without replacement from 0 ... S-1, values likewise from S ... 2S-1); and N queries,
    each stored key once in a random order, at N distinct positions drawn uniformly from
    those ``allowed`` after the store, whose answer is the key's value.

    Args:
        depth: ``(batch,)`` int64, the store's first position d >= 1.
        allowed: ``(batch, length)`` bool, where a query may sit (only positions after
            the store count; at least N per row).
    Returns:
        ``(tokens, answers)``, each ``(batch, length)`` int64, answers -1 where none.
    """
    spec = TRAINING["tasks"]["recall"]
    symbols, pairs = spec["symbols"], spec["pairs"]
    batch, length = allowed.shape
    pos = torch.arange(length)
    after = pos.view(1, -1) >= (depth + 2 * pairs).view(-1, 1)  # (batch, length)
    allowed = allowed & after
    if bool((allowed.sum(1) < pairs).any()) or bool((depth < 1).any()):
        fail("allowed", int(allowed.sum(1).min()), "at least {n} positions after the store "
             "in every row", n=pairs)
    tokens = torch.randint(2 * symbols, 2 * symbols + spec["filler"], (batch, length),
                           generator=generator)
    tokens[:, 0] = bos("recall")
    answers = torch.full((batch, length), -1, dtype=torch.long)
    keys = torch.rand(batch, symbols, generator=generator).argsort(-1)[:, :pairs]  # (b, N)
    values = torch.rand(batch, symbols, generator=generator).argsort(-1)[:, :pairs] + symbols
    slots = depth.view(-1, 1) + 2 * torch.arange(pairs).view(1, -1)  # (b, N) key positions
    tokens.scatter_(1, slots, keys)
    tokens.scatter_(1, slots + 1, values)
    scores = torch.rand(batch, length, generator=generator).masked_fill(~allowed, 2.0)
    queries = scores.topk(pairs, dim=1, largest=False).indices.sort(dim=1).values  # (b, N)
    order = torch.rand(batch, pairs, generator=generator).argsort(-1)  # (b, N): key asked
    tokens.scatter_(1, queries, keys.gather(1, order))
    answers.scatter_(1, queries, values.gather(1, order))
    return tokens, answers


def task_batch(task: str, batch: int, length: int, generator: torch.Generator):
    """``batch`` sequences of ``length`` tokens of ``task`` and their answers
    (-1 where a position has none).

    local: tokens = BOS, x_1 ... x_{length-1} uniform over the symbols;
    answer[m] = tokens[m - k] for m >= k + 1.

    recall (:func:`recall_sequences`): the store at a depth d uniform over 1 ... length -
    3N (every depth that leaves room for the N queries after it), the queries at N
    positions uniform among those after the store.

    Returns:
        ``(tokens, answers)``, each ``(batch, length)`` int64.
    """
    task = check_choice(task, "task", TASKS)
    batch = check_int(batch, "batch", 1, MAX_BATCH)
    length = check_int(length, "length", shortest(task), MAX_LENGTH)
    spec = TRAINING["tasks"][task]
    if task == "recall":
        spare = length - shortest(task)  # filler tokens: 0 ... spare of them before the store
        depth = 1 + torch.randint(0, spare + 1, (batch,), generator=generator)  # (batch,)
        return recall_sequences(depth, torch.ones(batch, length, dtype=torch.bool), generator)
    tokens = torch.full((batch, length), bos(task), dtype=torch.long)
    answers = torch.full((batch, length), -1, dtype=torch.long)
    k = spec["k"]
    tokens[:, 1:] = torch.randint(0, spec["symbols"], (batch, length - 1), generator=generator)
    answers[:, k + 1:] = tokens[:, 1:length - k]
    return tokens, answers


def store_depth(tokens: torch.Tensor) -> torch.Tensor:
    """Recall: the store's first position d in each sequence (the first key), ``(batch,)``."""
    return (tokens < TRAINING["tasks"]["recall"]["symbols"]).int().argmax(1)


def answer_sources(task: str, tokens: torch.Tensor) -> torch.Tensor:
    """Where each answer can be read: the position n of the token that answers
    position m, ``(batch, seq)`` int64, -1 where m has no answer.

    local: n = m - k for m >= k + 1. recall: at a query (a key that occurred before),
    n = the position of that key in the store plus one, its value."""
    task = check_choice(task, "task", TASKS)
    batch, length = tokens.shape
    m = torch.arange(length)
    out = torch.full((batch, length), -1, dtype=torch.long)
    if task == "local":
        first = first_answered(task)
        out[:, first:] = m[first:] - TRAINING["tasks"]["local"]["k"]
        return out
    is_key = tokens < TRAINING["tasks"]["recall"]["symbols"]  # (batch, seq)
    earlier = (tokens[:, :, None] == tokens[:, None, :]) \
        & (m.view(-1, 1) > m.view(1, -1))  # (batch, m, n): the same token before m
    asked = is_key & earlier.any(-1)
    return torch.where(asked, earlier.int().argmax(-1) + 1, out)


def sequences(task: str, count: int, length: int, seed: int):
    """``count`` sequences of ``length`` tokens from a generator seeded with ``seed``:
    ``(tokens, answers)``, each ``(count, length)``."""
    return task_batch(task, count, length, torch.Generator().manual_seed(seed))


@torch.no_grad()
def accuracy(model: TinyTransformer, tokens: torch.Tensor, answers: torch.Tensor,
             **kwargs) -> float:
    """Fraction of answered positions (answer >= 0) where the argmax logit is the
    answer; ``kwargs`` go to the model (theta, attention_factor, window)."""
    logits = model(tokens, **kwargs)  # (b, seq, vocab)
    mask = answers >= 0
    return float((logits.argmax(-1) == answers)[mask].float().mean())


@torch.no_grad()
def check_scores(model: TinyTransformer, task: str, seed: int) -> tuple[float, float]:
    """Loss (mean cross-entropy per answer, nats; the training criterion) and
    accuracy at L_train on the fixed held-out check sequences of ``seed``."""
    tokens, answers = sequences(task, TRAINING["check_sequences"], TRAINING["length"],
                                CHECK_SEED + 100 * TASKS.index(task) + seed)
    logits = model(tokens)  # (b, L_train, vocab)
    loss = F.cross_entropy(logits.flatten(0, 1), answers.flatten(), ignore_index=-1)
    mask = answers >= 0
    return float(loss), float((logits.argmax(-1) == answers)[mask].float().mean())


# --- the evaluation ----------------------------------------------------------------------

def eval_length() -> int:
    """Tokens of an evaluated sequence: EVAL["factor"] L_train."""
    return EVAL["factor"] * TRAINING["length"]


def bin_edges(task: str) -> tuple[int, ...]:
    """Position bins [edge_b, edge_b+1): the answered positions within L_train, then
    L, 1.5 L, 2 L, 3 L, 4 L, 6 L, 8 L (for EVAL["factor"] = 8)."""
    length = TRAINING["length"]
    edges, n = [first_answered(task), length], length
    while n < eval_length():
        edges += [n * 3 // 2, 2 * n]
        n *= 2
    return tuple(e for e in edges if e <= eval_length())


def recall_cells() -> tuple[tuple[str, int, int], ...]:
    """The cells of the recall evaluation, ``(kind, a, b)``:

    * ``("train", 1, L_train)``: sequences drawn as in training (L_train tokens, the store
      at depth 1 ... L_train - 3N, the queries anywhere after it), then filler to the
      evaluated length: the reference, in distribution.
    * ``("depth", a, b)``: the store at a depth d uniform over a ... b - 1 (at most
      eval_length - 3N - 1), the queries 1 ... near - 1 tokens after its last token (the
      distances training shows): does the model find a store it never saw so deep?
    * ``("distance", a, b)``: the store at a depth 1 ... shallow - 1 (the depths training
      shows), the queries a ... b - 1 tokens after its last token: does it reach so far?
    """
    r = EVAL["recall"]
    depth, distance = r["depth_edges"], r["distance_edges"]
    return (("train", 1, TRAINING["length"]),
            *(("depth", a, b) for a, b in zip(depth[:-1], depth[1:])),
            *(("distance", a, b) for a, b in zip(distance[:-1], distance[1:])))


def recall_eval_sequences(generator: torch.Generator):
    """Every cell's EVAL["recall"]["per_cell"] sequences of eval_length tokens, cell after
    cell (:func:`recall_cells`): ``(tokens, answers)``, each ``(cells * per_cell, seq)``."""
    per, length = EVAL["recall"]["per_cell"], eval_length()
    spec, r = TRAINING["tasks"]["recall"], EVAL["recall"]
    last = 2 * spec["pairs"] - 1  # the store's last token, from its first
    pos = torch.arange(length).view(1, -1)
    out = []
    for kind, a, b in recall_cells():
        if kind == "train":
            tokens, answers = task_batch("recall", per, TRAINING["length"], generator)
            tail = length - TRAINING["length"]
            filler = torch.randint(2 * spec["symbols"], 2 * spec["symbols"] + spec["filler"],
                                   (per, tail), generator=generator)
            out.append((torch.cat([tokens, filler], 1),
                        torch.cat([answers, torch.full((per, tail), -1)], 1)))
            continue
        if kind == "depth":
            deepest = length - shortest("recall")  # room for the store and its queries
            depth = torch.randint(a, min(b, deepest + 1), (per,), generator=generator)
            near = (1, r["near"])
        else:
            depth = torch.randint(1, r["shallow"], (per,), generator=generator)
            near = (a, b)
        gap = pos - (depth + last).view(-1, 1)  # (per, seq): tokens after the store's end
        out.append(recall_sequences(depth, (gap >= near[0]) & (gap < near[1]), generator))
    return torch.cat([t for t, _a in out]), torch.cat([a for _t, a in out])


def eval_sequences(task: str, seed: int):
    """The fresh evaluation sequences of the models of ``seed``, of :func:`eval_length`
    tokens, never those of training or checks: local, EVAL["sequences"] of them; recall,
    :func:`recall_eval_sequences`. The same for every arm: models of one seed are compared
    on the same sequences."""
    generator = torch.Generator().manual_seed(EVAL_SEED + 100 * TASKS.index(task) + seed)
    if check_choice(task, "task", TASKS) == "recall":
        return recall_eval_sequences(generator)
    return task_batch(task, EVAL["sequences"], eval_length(), generator)


def recall_design(tokens: torch.Tensor, answers: torch.Tensor) -> dict[str, np.ndarray]:
    """Where each recall sequence put its store and its queries: "depth" ``(J,)``, the
    store's first position; "queries" ``(J, N)``, the query positions in order;
    "distance" ``(J, N)``, each query's distance from the store's last token,
    query - (depth + 2N - 1)."""
    pairs = TRAINING["tasks"]["recall"]["pairs"]
    depth = store_depth(tokens)  # (J,)
    queries = (answers >= 0).int().argsort(dim=1, descending=True, stable=True)[:, :pairs]
    queries = queries.sort(1).values  # (J, N)
    distance = queries - (depth + 2 * pairs - 1).view(-1, 1)
    return {"depth": depth.numpy(), "queries": queries.numpy(), "distance": distance.numpy()}


def slow_pairs_interpolated(cfg: TinyConfig) -> torch.Tensor:
    """Position interpolation of the pairs whose wavelength 2 pi / theta_i exceeds L_train
    only, theta_i / s; the faster pairs, which turn through every angle within L_train,
    as trained (a hard-edged form of YaRN's ramp), ``(d_head/2,)``."""
    theta = model_theta(cfg)  # (d_head/2,)
    slow = 2 * math.pi / theta > TRAINING["length"]
    return torch.where(slow, theta / EVAL["factor"], theta)


def inference_settings(cfg: TinyConfig, method: str) -> dict:
    """The forward arguments of an inference method (:data:`METHODS`).

    Any model: "none", as trained; "at_criterion", as trained (its weights are those of
    the run stopped at the criterion, or at the end where it never reached it). A
    sinusoidal model: "held", its signal held at PE[L_train - 1] from L_train on. A RoPE
    model: "window", every layer cut to the last L_train keys; "linear", "ntk", "yarn":
    rope_core.models.scaling's frequencies and attention factor for s = EVAL["factor"],
    original_max_position_embeddings = L_train, set once for a target context s L_train,
    as a model's config sets it (so they apply at L_train too); "yarn_no_factor": YaRN's
    frequencies with the attention factor 1; "pi_slow_pairs":
    :func:`slow_pairs_interpolated`.
    """
    method = check_choice(method, "method", METHODS)
    if method in ("none", "at_criterion"):
        return {}
    if method == "held":
        if cfg.encoding != "sinusoidal":
            fail("method", method, "{none} for a {encoding} model", none="'none'",
                 encoding=cfg.encoding)
        return {"hold_position": TRAINING["length"]}
    if cfg.encoding != "rope":
        fail("method", method, "{none} for a model without full RoPE ({encoding})",
             none="'none'", encoding=cfg.encoding)
    if method == "window":
        return {"window": TRAINING["length"]}
    if method == "pi_slow_pairs":
        return {"theta": slow_pairs_interpolated(cfg)}
    name = {"yarn_no_factor": "yarn"}.get(method, method)
    params = {"factor": float(EVAL["factor"])}
    if name == "yarn":
        params["original_max_position_embeddings"] = TRAINING["length"]
    theta, attention_factor = scaled_theta(cfg.d_head, cfg.base, name, **params)
    if method == "yarn_no_factor":
        attention_factor = 1.0
    return {"theta": theta, "attention_factor": attention_factor}


@torch.no_grad()
def predictions(model: TinyTransformer, tokens: torch.Tensor, method: str = "none",
                **overrides) -> torch.Tensor:
    """The argmax answer at every position, ``(batch, seq)`` int64, in chunks of
    EVAL["chunk"] sequences; ``overrides`` go to the model after the method's
    settings (an analysis: other frequencies, no attention factor, ...)."""
    settings = dict(inference_settings(model.cfg, method), **overrides)
    return torch.cat([model(tokens[start:start + EVAL["chunk"]], **settings).argmax(-1)
                      for start in range(0, tokens.shape[0], EVAL["chunk"])])  # (batch, seq)


def hits(model: TinyTransformer, tokens: torch.Tensor, answers: torch.Tensor,
         method: str = "none", **overrides) -> torch.Tensor:
    """Whether the argmax answer is right at every position, ``(batch, seq)`` bool
    (False where there is no answer); see :func:`predictions`."""
    return predictions(model, tokens, method, **overrides) == answers


def stored_values(task: str, tokens: torch.Tensor) -> torch.Tensor:
    """The recall task's N stored values of each sequence, ``(batch, N)``: the tokens at
    d + 1, d + 3, ..., d + 2N - 1 (d: :func:`store_depth`)."""
    if check_choice(task, "task", TASKS) != "recall":
        fail("task", task, "{recall}", recall="'recall'")
    pairs = TRAINING["tasks"]["recall"]["pairs"]
    slots = store_depth(tokens).view(-1, 1) + 1 + 2 * torch.arange(pairs).view(1, -1)
    return tokens.gather(1, slots)


def in_store(task: str, tokens: torch.Tensor, guesses: torch.Tensor) -> torch.Tensor:
    """Recall: whether each guess is one of its sequence's stored values (right or
    not), ``(batch, seq)`` bool."""
    return (guesses[..., None] == stored_values(task, tokens)[:, None, :]).any(-1)


def binned(right: torch.Tensor, task: str) -> np.ndarray:
    """Per sequence and position bin (:func:`bin_edges`), the fraction of answers
    right (or of any other per-position flag): ``right`` ``(J, seq)`` -> ``(J, bins)``
    float64. Every position from
    :func:`first_answered` on has an answer, so each bin has the same answers in
    every sequence (its width)."""
    edges = bin_edges(task)
    r = right.to(torch.float64)
    return np.stack([r[:, a:b].mean(1).numpy() for a, b in zip(edges[:-1], edges[1:])], axis=1)


def answers_per_bin(task: str) -> tuple[int, ...]:
    """Answers per sequence in each group (:func:`group_labels`): a local bin's width; N
    in every recall cell (each sequence lies in one cell)."""
    if check_choice(task, "task", TASKS) == "recall":
        return (TRAINING["tasks"]["recall"]["pairs"],) * len(recall_cells())
    edges = bin_edges(task)
    return tuple(b - a for a, b in zip(edges[:-1], edges[1:]))


def group_labels(task: str) -> tuple[str, ...]:
    """The groups a task's accuracy is reported in: local, the position bins "a-b"
    (b included); recall, the cells (:func:`recall_cells`): "train", "depth a-b",
    "distance a-b"."""
    return tuple(g["label"] for g in groups(task))


def groups(task: str) -> tuple[dict, ...]:
    """Each group of a task (:func:`group_labels`) with what it spans, as the CSVs write
    it: "label", "kind" ("position", or a recall cell's kind), "position" (local: "a-b",
    the answers' positions), "depth" (recall: "a-b", the store's first token), "distance"
    (recall: "a-b", the queries' distance from the store's last token), "" where a column
    does not apply, each range with its end included; "span" ``(a, b)``, the range along
    the axis a figure draws the group on (b excluded), and "answers", per sequence."""
    task = check_choice(task, "task", TASKS)
    if task == "local":
        edges = bin_edges(task)
        return tuple({"label": f"{a}-{b - 1}", "kind": "position", "position": f"{a}-{b - 1}",
                      "depth": "", "distance": "", "span": (a, b), "answers": b - a}
                     for a, b in zip(edges[:-1], edges[1:]))
    r, spec = EVAL["recall"], TRAINING["tasks"]["recall"]
    shallow, near = f"1-{r['shallow'] - 1}", f"1-{r['near'] - 1}"
    deepest = eval_length() - shortest(task)  # the deepest store that fits
    out = []
    for kind, a, b in recall_cells():
        if kind == "train":
            depth, distance, span = shallow, near, (1, r["near"])
        elif kind == "depth":
            depth, distance, span = f"{a}-{min(b, deepest + 1) - 1}", near, (a, b)
        else:
            depth, distance, span = shallow, f"{a}-{b - 1}", (a, b)
        label = "train" if kind == "train" else f"{kind} {a}-{b - 1}"
        if kind == "depth":
            label = f"depth {depth}"
        out.append({"label": label,
                    "kind": kind, "position": "", "depth": depth, "distance": distance,
                    "span": span, "answers": spec["pairs"]})
    return tuple(out)


def group_accuracies(task: str, hits: np.ndarray) -> list[np.ndarray]:
    """Each group's per-sequence accuracies from stored counts, ``[(S, J_g), ...]``.

    local: ``hits`` ``(S, J, bins)``, right answers per sequence and bin; group b is
    hits[..., b] / width_b (every sequence has answers in every bin). recall: ``hits``
    ``(S, J, N)``, 0 or 1 per query; cell c holds sequences c P ... (c + 1) P - 1 (P =
    EVAL["recall"]["per_cell"]), each the mean of its N queries."""
    hits = np.asarray(hits)
    if check_choice(task, "task", TASKS) == "local":
        width = answers_per_bin(task)
        return [hits[..., b] / width[b] for b in range(len(width))]
    per = EVAL["recall"]["per_cell"]
    return [hits[:, c * per:(c + 1) * per, :].mean(-1) for c in range(len(recall_cells()))]


# --- shipped models ----------------------------------------------------------------------

def arm_encoding(arm: str) -> str:
    """The position encoding of an arm (:data:`ARMS`)."""
    return ARMS[check_choice(arm, "arm", tuple(ARMS))][0]


def model_config(task: str, arm: str) -> TinyConfig:
    """An arm's model for a task: TRAINING["model"] with the arm's changes."""
    encoding, changes = ARMS[check_choice(arm, "arm", tuple(ARMS))]
    return TinyConfig(encoding=encoding, vocab=vocab_size(task),
                      **{**TRAINING["model"], **changes})


def weights_file(task: str, arm: str) -> str:
    """``<task>_<arm>.npz``, the weights of a task and arm (every method runs them),
    every seed's (:func:`save_weights`)."""
    return f"{task}_{arm}.npz"


def save_weights(path: Path | str, states: dict[int, dict[str, torch.Tensor]]) -> None:
    """Every seed's weights in one compressed NumPy archive, exactly in float16.

    All parameters of a seed, in the state dict's order, are one float16 row; the rows
    of all seeds are a matrix (seeds, parameters) whose high and low bytes are stored
    as two uint8 arrays ("high", "low"), deflated (``numpy.savez_compressed``): the
    high bytes (sign, exponent, two mantissa bits) of weights of similar size repeat,
    which a byte-wise compressor finds only when they lie together (a quarter smaller
    than the float16 values as they are). "seeds" holds the seeds, "layout" the
    parameter names and shapes (JSON). Read with :func:`read_weights`; no pickle."""
    seeds = sorted(states)
    names = list(states[seeds[0]])
    layout = [[name, list(states[seeds[0]][name].shape)] for name in names]
    rows = np.stack([torch.cat([states[seed][name].detach().to(torch.float16).flatten()
                                for name in names]).numpy() for seed in seeds])  # (S, P)
    planes = rows.astype("<f2").view(np.uint8).reshape(len(seeds), -1, 2)  # (S, P, 2)
    np.savez_compressed(Path(path), seeds=np.array(seeds, dtype=np.int64),
                        layout=np.array(json.dumps(layout)),
                        high=np.ascontiguousarray(planes[..., 1]),
                        low=np.ascontiguousarray(planes[..., 0]))


def read_weights(path: Path | str) -> tuple[list[int], list, np.ndarray]:
    """What :func:`save_weights` wrote: the seeds, the layout ``[[name, shape], ...]``
    and the float16 rows ``(seeds, parameters)``."""
    with np.load(Path(path), allow_pickle=False) as archive:
        seeds = archive["seeds"].tolist()
        layout = json.loads(str(archive["layout"]))
        high, low = archive["high"], archive["low"]  # (S, P) uint8 each
    rows = np.stack([low, high], axis=-1).reshape(len(seeds), -1).view("<f2")  # (S, P)
    return seeds, layout, rows


def model_from_row(cfg: TinyConfig, layout: list, row: np.ndarray) -> TinyTransformer:
    """A float32 model in eval mode whose parameters are one float16 row of
    :func:`read_weights` (copied into the model's own tensors: views into one long row
    would leave them unaligned, and the matrix products about a fifth slower)."""
    flat = torch.from_numpy(np.ascontiguousarray(row)).float()  # (P,)
    sizes = [math.prod(shape) for _name, shape in layout]
    model = TinyTransformer(cfg)
    model.load_state_dict({name: part.view(shape)
                           for (name, shape), part in zip(layout, flat.split(sizes))})
    return model.eval()


def stored_file(folder: Path | str, name: str) -> Path:
    """``folder / name``, a file the shipped models are read from (weights, ``models.json``,
    the stored evaluation). The default folder, :data:`WEIGHTS_DIR`, is ``tiny/weights`` of
    a RoPE Explorer checkout: rope_core installed on its own (``pip install``) carries no
    weights, so there the caller names a folder that holds them; without one the error
    says so (a RopeError naming ``folder``)."""
    if not isinstance(folder, (str, os.PathLike)):
        fail("folder", folder, "a path to a folder (str or pathlib.Path)")
    path = Path(folder) / name
    if not path.is_file():
        fail("folder", str(folder), "a folder holding {file}: the tiny models' files are in "
             "tiny/weights of a RoPE Explorer checkout, and rope_core installed on its own "
             "has none (pass the folder of a checkout)", file=name)
    return path


def load_models(task: str, arm: str, folder: Path | str = WEIGHTS_DIR,
                seeds=None) -> dict[int, TinyTransformer]:
    """The models of a task and arm by seed (all, or those in ``seeds``) from ``folder``
    (the shipped ones by default), float32, eval mode."""
    task = check_choice(task, "task", TASKS)
    arm = check_choice(arm, "arm", tuple(ARMS))
    stored, layout, rows = read_weights(stored_file(folder, weights_file(task, arm)))
    cfg = model_config(task, arm)
    return {int(seed): model_from_row(cfg, layout, row) for seed, row in zip(stored, rows)
            if seeds is None or seed in seeds}


def half_state(model: TinyTransformer) -> dict[str, torch.Tensor]:
    """A model's weights as shipped: float16 copies."""
    return {k: v.detach().to(torch.float16).clone() for k, v in model.state_dict().items()}


def round_to_shipped(model: TinyTransformer) -> TinyTransformer:
    """The model with its weights rounded to float16 and back, as loading gives it."""
    model.load_state_dict({k: v.float() for k, v in half_state(model).items()})
    return model.eval()


def read_record(folder: Path | str = WEIGHTS_DIR) -> dict:
    """``models.json``: the training settings and what each model's training did."""
    return json.loads(stored_file(folder, "models.json").read_text())


@torch.no_grad()
def attention_example(model: TinyTransformer, task: str, length: int,
                      seed: int = 0) -> torch.Tensor:
    """Every layer's attention weights on one sequence of ``length`` tokens:
    ``(layers, heads, length, length)``."""
    tokens, _ = sequences(task, 1, length, EXAMPLE_SEED + seed)
    _, maps = model(tokens, return_attention=True)
    return torch.stack([w[0] for w in maps])  # (layers, heads, seq, seq)


@torch.no_grad()
def pair_norms(model: TinyTransformer, task: str, seed: int = 0) -> torch.Tensor:
    """How strongly each RoPE pair is used (Barbero et al. 2024): the mean norm of
    the 2-vector of pair i of q and of k, before rotation (rotation keeps it),
    over 64 sequences of L_train tokens.

    ||q_i|| = sqrt(q_2i^2 + q_2i+1^2), averaged over sequences and positions.

    Returns:
        ``(layers, heads, 2, d_head/2)``: [..., 0, i] for q, [..., 1, i] for k.
    """
    tokens, _ = sequences(task, 64, TRAINING["length"], EXAMPLE_SEED + 1000 + seed)
    out = []
    for q, k in model.qk_before_rotation(tokens):  # (batch, heads, seq, d_head) each
        norms = [t.unflatten(-1, (-1, 2)).norm(dim=-1).mean(dim=(0, 2)) for t in (q, k)]
        out.append(torch.stack(norms, dim=1))  # (heads, 2, d_head/2)
    return torch.stack(out)  # (layers, heads, 2, d_head/2)


# --- the stored evaluation ---------------------------------------------------------------
# The evaluation of every model is deterministic given its weights and the fixed evaluation
# sequences: tiny/train.py evaluates the recorded (unshipped) models as it trains them and
# tiny/train.py --evaluate the shipped ones, and stores the integer counts here, with the
# SHA-256 of each weights file (and of each recorded model's weights) they came from; the
# page reads them.
EVALUATION_FILE = "evaluation.npz"
CONTROL_METHODS = ("window", "linear", "ntk", "yarn")  # the base-5 RoPE control, run so


def shipped_curves() -> tuple[tuple[str, str, str], ...]:
    """The curves of the shipped weights, ``(task, arm, method)``: per task, each main arm
    as trained, the RoPE model with each of :data:`ROPE_METHODS`, and the sinusoidal
    model held at PE[L_train - 1]."""
    return tuple(curve for t in TASKS
                 for curve in [(t, e, "none") for e in ENCODINGS]
                 + [(t, "rope", m) for m in ROPE_METHODS] + [(t, "sinusoidal", "held")])


def recorded_curves() -> tuple[tuple[str, str, str], ...]:
    """The curves of the models trained but not shipped, ``(task, arm, method)``: per
    task, each main arm's sensitivity run (at the criterion, every seed), each control
    (:data:`CONTROLS`) as trained, and the base-5 RoPE control with each of
    :data:`CONTROL_METHODS`."""
    return tuple(curve for t in TASKS
                 for curve in [(t, e, "at_criterion") for e in ENCODINGS]
                 + [(t, c, "none") for c, v in CONTROLS.items() if t in v[2]]
                 + [(t, "rope_base5", m) for m in CONTROL_METHODS
                    if t in CONTROLS["rope_base5"][2]])


def evaluated_curves() -> tuple[tuple[str, str, str], ...]:
    """Every curve of the stored evaluation: :func:`shipped_curves`, then
    :func:`recorded_curves`."""
    return shipped_curves() + recorded_curves()


@torch.no_grad()
def evaluation_counts(model: TinyTransformer, task: str, seed: int,
                      method: str = "none") -> dict[str, np.ndarray]:
    """One model's evaluation on the fresh sequences of ``seed`` (:func:`eval_sequences`,
    J of them, :func:`eval_length` tokens), as integer counts.

    local: "hits" ``(J, bins)``, right answers of each sequence in each position bin
    (:func:`bin_edges`; its accuracy there is hits / :func:`answers_per_bin`);
    "positions" ``(seq,)``, at each position the sequences answered right (0 before
    :func:`first_answered`). recall: "hits" ``(J, N)``, 1 where query n of sequence j is
    answered right (queries in order of position); "stored" ``(J, N)``, 1 where the
    answer is one of the sequence's stored values, right or not (:func:`in_store`).
    ``method=="at_criterion"`` evaluates as "none" (the weights differ, not the run).
    """
    tokens, answers = eval_sequences(task, seed)
    guesses = predictions(model, tokens, method)  # (J, seq)
    right = guesses == answers  # (J, seq); False where there is no answer
    if task == "recall":
        queries = torch.from_numpy(recall_design(tokens, answers)["queries"])  # (J, N)
        out = {"hits": right.gather(1, queries).numpy(),
               "stored": in_store(task, tokens, guesses).gather(1, queries).numpy()}
    else:
        edges = bin_edges(task)
        out = {"hits": np.stack([right[:, a:b].sum(1).numpy()
                                 for a, b in zip(edges[:-1], edges[1:])], axis=1),
               "positions": right.sum(0).numpy()}
    return {k: v.astype(np.int64) for k, v in out.items()}


def file_sha256(path: Path | str) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def state_sha256(state: dict[str, torch.Tensor]) -> str:
    """The SHA-256 of a model's float16 weights (:func:`half_state`), every tensor's
    bytes in the state dict's order: a recorded model's fingerprint."""
    digest = hashlib.sha256()
    for tensor in state.values():
        digest.update(tensor.detach().to(torch.float16).contiguous().numpy().tobytes())
    return digest.hexdigest()


def eval_design(seeds) -> dict[str, np.ndarray]:
    """The recall evaluation's design for each seed (:func:`recall_design`): "depth"
    ``(S, J)`` and "distance" ``(S, J, N)``."""
    designs = [recall_design(*eval_sequences("recall", seed)) for seed in seeds]
    return {k: np.stack([d[k] for d in designs]) for k in ("depth", "distance")}


def save_evaluation(path: Path | str, counts: dict, digests: dict[str, str],
                    norms: dict[str, dict[int, torch.Tensor]],
                    recorded: dict[tuple[str, str, str], dict[int, str]]) -> None:
    """Store :func:`evaluation_counts` of every curve and seed in one NumPy archive.

    ``counts``: ``{(task, arm, method): {seed: evaluation_counts(...)}}``, every curve
    with the same seeds. Per task, "<task>.hits" ``(curves, seeds, J, bins or N)``,
    "local.positions" ``(curves, seeds, seq)`` and "recall.stored", uint8 (each count is
    at most J or a bin's width); "recall.depth" ``(seeds, J)`` and "recall.distance"
    ``(seeds, J, N)``, the design (:func:`eval_design`); "curves" (JSON: each task's
    curves in order), "seeds", "weights_sha256" (JSON ``{file: hex}``: the shipped
    weights the counts came from) and "recorded_sha256" (JSON ``{"task arm method":
    {seed: hex}}``: :func:`state_sha256` of each recorded model). ``norms``: per task
    and seed, the RoPE model's :func:`pair_norms` ``(layers, heads, 2, pairs)``, stored
    as they are (float32) in "<task>.rope_pair_norms" ``(seeds, layers, heads, 2,
    pairs)``. The bytes are the same for the same values (fixed member dates), so an
    unchanged evaluation leaves the file unchanged. No pickle."""
    seeds = sorted(next(iter(counts.values())))
    by_task = {t: [c for c in counts if c[0] == t] for t in TASKS}
    design = eval_design(seeds)
    arrays = {"seeds": np.array(seeds, dtype=np.int64),
              "curves": np.array(json.dumps({t: [list(c[1:]) for c in cs]
                                             for t, cs in by_task.items()})),
              "weights_sha256": np.array(json.dumps(dict(sorted(digests.items())))),
              "recorded_sha256": np.array(json.dumps(
                  {" ".join(c): {str(k): v for k, v in sorted(by_seed.items())}
                   for c, by_seed in recorded.items()})),
              "recall.depth": design["depth"].astype(np.uint8),
              "recall.distance": design["distance"].astype(np.uint8)}
    for task, curves in by_task.items():
        for kind in ("hits", "positions", "stored"):
            if kind in counts[curves[0]][seeds[0]]:
                stack = np.stack([[counts[c][s][kind] for s in seeds] for c in curves])
                if stack.min() < 0 or stack.max() > 255:
                    fail(kind, int(stack.min() if stack.min() < 0 else stack.max()),
                         "integers from 0 to {high}", high=255)
                arrays[f"{task}.{kind}"] = stack.astype(np.uint8)
        arrays[f"{task}.rope_pair_norms"] = torch.stack([norms[task][s] for s in seeds]).numpy()
    with zipfile.ZipFile(Path(path), "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, buffer.getvalue())


def read_evaluation(folder: Path | str = WEIGHTS_DIR) -> dict:
    """What :func:`save_evaluation` wrote: ``{"seeds": [...], "weights_sha256": {...},
    "recorded_sha256": {(task, arm, method): {seed: hex}}, "curves": {(task, arm,
    method): {"hits": (seeds, J, bins or N), "positions" (local) or "stored" (recall):
    ...}}, "design": {"depth": (seeds, J), "distance": (seeds, J, N)}, "pair_norms":
    {task: (seeds, layers, heads, 2, pairs) float32}}``, the counts int64, curves in the
    order of :func:`evaluated_curves` where the file has them all."""
    with np.load(stored_file(folder, EVALUATION_FILE), allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    curves = {}
    for task, names in json.loads(str(arrays["curves"])).items():
        for i, (arm, method) in enumerate(names):
            curves[task, arm, method] = {
                kind: arrays[f"{task}.{kind}"][i].astype(np.int64)
                for kind in ("hits", "positions", "stored") if f"{task}.{kind}" in arrays}
    order = evaluated_curves()
    if set(curves) <= set(order):
        curves = {c: curves[c] for c in order if c in curves}
    recorded = {tuple(key.split(" ")): {int(k): v for k, v in by_seed.items()}
                for key, by_seed in json.loads(str(arrays["recorded_sha256"])).items()}
    return {"seeds": arrays["seeds"].tolist(), "curves": curves,
            "design": {k: arrays[f"recall.{k}"].astype(np.int64)
                       for k in ("depth", "distance")},
            "pair_norms": {t: arrays[f"{t}.rope_pair_norms"] for t in TASKS},
            "weights_sha256": json.loads(str(arrays["weights_sha256"])),
            "recorded_sha256": recorded}
