"""A tiny causal transformer with a pluggable position encoding, and its task.

The model (pure PyTorch, CPU) is small enough to train in seconds on one core and
to evaluate live in a page: token embedding, ``n_layers`` pre-norm blocks of
causal multi-head attention and a ReLU MLP, a final norm and an unembedding.
Where position enters depends on ``encoding``:

* ``"nope"``: nowhere; only the causal mask breaks the symmetry (Kazemnejad et
  al. 2023).
* ``"sinusoidal"``: PE[m] (:func:`~rope_core.sinusoidal.sinusoidal_pe`) added to
  the token embeddings (Vaswani et al. 2017).
* ``"rope"``: q and k of every head rotated by m theta_i,
  theta_i = base^(-2i/d_head) (Su et al. 2021), in the interleaved layout.
* ``"alibi"``: the bias -slope_h (m - n) added to the logit of query m and key n
  (Press et al. 2022), slopes :func:`~rope_core.alternatives.alibi_slopes`.
* ``"p_rope"``: RoPE on the highest-frequency fraction p of the pairs only, the
  other pairs unrotated (theta = 0, :func:`~rope_core.alternatives.p_rope_theta`;
  Barbero et al. 2024).
* ``"hybrid"``: RoPE in even layers (0, 2, ...), NoPE in odd ones, as Llama 4
  interleaves RoPE and NoPE layers.

The task (:func:`task_batch`): a sequence of random symbols; at every position
m >= k the answer is the symbol k places back, x[m - k]. It needs token order
and nothing else: the answer is a fixed relative offset, whatever the content.

At inference the RoPE layers can run with other frequencies (a context-extension
scaling from :mod:`rope_core.scaling`): ``theta`` and ``attention_factor``
of :meth:`TinyTransformer.forward`; the factor multiplies cos and sin, as in
Hugging Face's YaRN.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import nn

from ._checks import check_base, check_choice, check_int, check_positive_float, fail
from .alternatives import alibi_slopes, p_rope_theta
from .frequencies import theta as rope_theta
from .rotation import cos_sin
from .scaling import scaled_theta
from .sinusoidal import sinusoidal_pe

ENCODINGS = ("nope", "sinusoidal", "rope", "alibi", "p_rope", "hybrid")
MAX_LENGTH = 4096  # tokens of one evaluated sequence (a bounded demo)
MAX_BATCH = 4096
WEIGHTS_DIR = Path(__file__).resolve().parent.parent / "tiny" / "weights"

# How tiny/train.py trains every model (the same for all six encodings).
TRAINING = {
    "model": {"vocab": 16, "d_model": 64, "n_heads": 4, "n_layers": 2, "d_mlp": 256,
              "base": 10000.0, "p": 0.75},
    "length": 16,  # L_train, tokens per training sequence
    "k": 2,  # the answer at position m is the symbol at m - k
    "batch": 32,
    "steps": 4000,
    "lr": 3e-3,
    "warmup": 100,
    "weight_decay": 0.01,
    "seed": 0,  # initial weights
    "data_seed": 1,  # training sequences
}
EVAL_SEQUENCES = 8  # sequences of the live evaluation (of 8 L_train tokens: ~1000 answers)
HELDOUT_SEQUENCES = 64  # sequences of L_train tokens for the recorded accuracy
EVAL_SEED = 1000  # evaluation sequences' seed (training's is TRAINING["data_seed"])
# Context-extension methods applied to the RoPE model at inference (rope_core.scaling names)
INFERENCE_METHODS = ("none", "linear", "ntk", "yarn")


@dataclass(frozen=True)
class TinyConfig:
    """Sizes and position encoding of one tiny model (plain numbers, saved as JSON)."""

    encoding: str = "rope"
    vocab: int = 16
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_mlp: int = 256
    base: float = 10000.0  # RoPE and sinusoidal base
    p: float = 0.75  # p-RoPE: fraction of pairs kept rotating
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
        return "none"


def rotate_pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """RoPE in the interleaved layout, differentiable (apply_rope writes into an
    ``out=`` buffer, which autograd refuses):

        out_2i = x_2i cos - x_2i+1 sin,   out_2i+1 = x_2i sin + x_2i+1 cos.

    Args:
        x: ``(..., seq, d)``; cos, sin: ``(seq, d/2)`` in x's dtype.
    Returns:
        ``(..., seq, d)``.
    """
    pairs = x.unflatten(-1, (-1, 2))  # (..., seq, d/2, 2)
    a, b = pairs[..., 0], pairs[..., 1]  # (..., seq, d/2)
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)


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

    def forward(self, x, rot, bias):
        """x: ``(batch, seq, d_model)``; rot: None or (cos, sin) ``(seq, d_head/2)``;
        bias: ``(heads or 1, seq, seq)`` additive logits (causal mask included).
        Returns (x, attention weights ``(batch, heads, seq, seq)``)."""
        q, k, v = self.qkv_heads(x)  # (batch, heads, seq, d_head)
        if rot is not None:
            q, k = rotate_pairs(q, *rot), rotate_pairs(k, *rot)
        logits = q @ k.transpose(-1, -2) / math.sqrt(self.d_head) + bias  # (b, h, seq, seq)
        weights = logits.softmax(dim=-1)
        mixed = (weights @ v).transpose(1, 2).flatten(-2)  # (batch, seq, d_model)
        x = x + self.out(mixed)
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
        d_head = cfg.d_head
        self.register_buffer("theta", model_theta(cfg), persistent=False)  # (d_head/2,)
        self.register_buffer("slopes", alibi_slopes(cfg.n_heads).float(), persistent=False)
        self.d_head = d_head

    def positional(self, seq: int) -> torch.Tensor:
        """The sinusoidal table PE[0 ... seq-1], ``(seq, d_model)`` float32 (each row
        is the same whatever seq: its angles are formed in float64 one by one)."""
        return sinusoidal_pe(seq, self.cfg.d_model, self.cfg.base, dtype=torch.float32)

    def forward(self, tokens: torch.Tensor, *, theta: torch.Tensor | None = None,
                attention_factor: float = 1.0, return_attention: bool = False):
        """Logits for the next answer at every position.

        Args:
            tokens: ``(batch, seq)`` integers in [0, vocab).
            theta: ``(d_head/2,)`` frequencies for the RoPE layers instead of the
                trained ones (a context-extension scaling); None keeps them.
            attention_factor: multiplies cos and sin of the RoPE layers (so the
                logits by its square), YaRN's mscale; 1 otherwise.
            return_attention: also return every layer's weights.
        Returns:
            ``(batch, seq, vocab)`` logits, and with ``return_attention`` a list of
            ``n_layers`` tensors ``(batch, heads, seq, seq)``.
        """
        cfg = self.cfg
        if not isinstance(tokens, torch.Tensor) or tokens.ndim != 2 \
                or tokens.dtype.is_floating_point or tokens.dtype == torch.bool:
            fail("tokens", tokens, "an integer tensor of shape (batch, seq)")
        batch, seq = tokens.shape
        check_int(seq, "seq", 1, cfg.max_length)
        check_int(batch, "batch", 1, MAX_BATCH)
        if bool((tokens < 0).any()) or bool((tokens >= cfg.vocab).any()):
            fail("tokens", tokens, "integers from 0 to {high}", high=cfg.vocab - 1)
        attention_factor = check_positive_float(attention_factor, "attention_factor", 100.0)
        x = self.embed(tokens)  # (batch, seq, d_model)
        if cfg.encoding == "sinusoidal":
            x = x + self.positional(seq)
        causal = torch.full((seq, seq), float("-inf")).triu(1)  # (seq, seq)
        distance = torch.arange(seq).view(-1, 1) - torch.arange(seq).view(1, -1)  # m - n
        rot = None
        if any(cfg.layer_encoding(j) in ("rope", "p_rope") for j in range(cfg.n_layers)):
            if theta is None:
                theta = self.theta
            elif theta.shape != self.theta.shape:
                fail("theta", theta, "a tensor of d_head/2 = {half} frequencies",
                     half=self.theta.numel())
            rot = rope_cos_sin(seq, theta, attention_factor)
        maps = []
        for j, block in enumerate(self.blocks):
            kind = cfg.layer_encoding(j)
            bias = causal.unsqueeze(0)  # (1, seq, seq)
            if kind == "alibi":
                bias = bias - self.slopes.view(-1, 1, 1) * distance  # (heads, seq, seq)
            x, weights = block(x, rot if kind in ("rope", "p_rope") else None, bias)
            maps.append(weights)
        logits = self.unembed(self.ln_f(x))  # (batch, seq, vocab)
        return (logits, maps) if return_attention else logits

    def qk_before_rotation(self, tokens: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Per layer, q and k of every head before RoPE turns them, each
        ``(batch, heads, seq, d_head)`` (what Barbero et al. measure per pair)."""
        out = []
        x = self.embed(tokens)
        if self.cfg.encoding == "sinusoidal":
            x = x + self.positional(tokens.shape[1])
        seq = tokens.shape[1]
        causal = torch.full((seq, seq), float("-inf")).triu(1).unsqueeze(0)
        distance = torch.arange(seq).view(-1, 1) - torch.arange(seq).view(1, -1)
        rot = rope_cos_sin(seq, self.theta, 1.0)
        for j, block in enumerate(self.blocks):
            q, k, _ = block.qkv_heads(x)
            out.append((q, k))
            kind = self.cfg.layer_encoding(j)
            bias = causal - self.slopes.view(-1, 1, 1) * distance if kind == "alibi" else causal
            x, _ = block(x, rot if kind in ("rope", "p_rope") else None, bias)
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


# --- the task ----------------------------------------------------------------------------

def task_batch(batch: int, length: int, k: int, vocab: int, generator: torch.Generator):
    """``batch`` sequences of ``length`` uniform random symbols and their answers.

    answer[m] = tokens[m - k] for m >= k; -1 (no answer, ignored) for m < k.

    Returns:
        ``(tokens, answers)``, each ``(batch, length)`` int64.
    """
    batch = check_int(batch, "batch", 1, MAX_BATCH)
    length = check_int(length, "length", 1, MAX_LENGTH)
    k = check_int(k, "k", 1, length)
    tokens = torch.randint(0, vocab, (batch, length), generator=generator)  # (batch, length)
    answers = torch.full_like(tokens, -1)
    answers[:, k:] = tokens[:, :-k]
    return tokens, answers


@torch.no_grad()
def accuracy(model: TinyTransformer, tokens: torch.Tensor, answers: torch.Tensor, *,
             theta: torch.Tensor | None = None, attention_factor: float = 1.0) -> float:
    """Fraction of answered positions (answer >= 0) where the argmax logit is the answer."""
    logits = model(tokens, theta=theta, attention_factor=attention_factor)  # (b, seq, vocab)
    mask = answers >= 0
    return float((logits.argmax(-1) == answers)[mask].float().mean())


# --- shipped models and their live evaluation --------------------------------------------

def eval_lengths(factor: int = 8) -> tuple[int, ...]:
    """L_train ... factor L_train: L, 1.5 L, 2 L, 3 L, 4 L, 6 L, 8 L, ... (tokens)."""
    length = TRAINING["length"]
    out, n = [], length
    while n <= factor * length:
        out += [n, n * 3 // 2]
        n *= 2
    return tuple(x for x in out if x <= factor * length)


def eval_set(length: int, batch: int = EVAL_SEQUENCES, seed: int = EVAL_SEED):
    """Fixed evaluation sequences (never those of training, whose generator is
    seeded with TRAINING["data_seed"]): ``(tokens, answers)``, each ``(batch, length)``."""
    length = check_int(length, "length", TRAINING["k"] + 1, MAX_LENGTH)
    g = torch.Generator().manual_seed(seed)
    return task_batch(batch, length, TRAINING["k"], TRAINING["model"]["vocab"], g)


def inference_theta(cfg: TinyConfig, method: str, factor: float = 1.0):
    """Frequencies and attention factor for the RoPE layers at inference.

    ``"none"``: the trained theta, attention factor 1. Otherwise rope_core.scaling's
    method with s = ``factor`` and original_max_position_embeddings = L_train, set
    once for a target context s L_train, as a model's config sets it.

    Returns ``((d_head/2,) float64, float)``.
    """
    method = check_choice(method, "method", INFERENCE_METHODS)
    factor = check_positive_float(factor, "factor", 1000.0)
    if method == "none":
        return model_theta(cfg), 1.0
    if cfg.encoding not in ("rope", "hybrid"):
        fail("method", method, "{none} for a model without full RoPE ({encoding})",
             none="'none'", encoding=cfg.encoding)
    params = {"factor": max(1.0, factor)}
    if method == "yarn":
        params["original_max_position_embeddings"] = TRAINING["length"]
    return scaled_theta(cfg.d_head, cfg.base, method, **params)


def heldout_accuracy(model: TinyTransformer) -> float:
    """Accuracy at L_train on HELDOUT_SEQUENCES fixed sequences (seed EVAL_SEED + 1):
    the number tiny/train.py records for each shipped model."""
    tokens, answers = eval_set(TRAINING["length"], HELDOUT_SEQUENCES, EVAL_SEED + 1)
    return accuracy(model, tokens, answers)


@torch.no_grad()
def length_curve(model: TinyTransformer, lengths, method: str = "none") -> list[float]:
    """Accuracy at each evaluation length n, from one pass over the evaluation set.

    The model is causal, so its answers on the first n tokens of a longer sequence
    are its answers on those n tokens alone: the accuracy at length n counts the
    answered positions m = k ... n-1 of the EVAL_SEQUENCES sequences of length
    max(lengths). ``method`` scales the RoPE layers with s = max(lengths) / L_train
    (see :func:`inference_theta`), the same s at every n.

    Returns:
        one accuracy per length, in the order of ``lengths``.
    """
    lengths = [check_int(n, "lengths", TRAINING["k"] + 1, MAX_LENGTH) for n in lengths]
    if not lengths:
        fail("lengths", lengths, "a non-empty sequence of integers")
    longest = max(lengths)
    tokens, answers = eval_set(longest)  # (batch, longest)
    theta, factor = inference_theta(model.cfg, method, longest / TRAINING["length"])
    logits = model(tokens, theta=theta, attention_factor=factor)  # (batch, longest, vocab)
    hits = (logits.argmax(-1) == answers).float()  # (batch, longest)
    answered = (answers >= 0).float()
    hits_to, answered_to = hits.sum(0).cumsum(0), answered.sum(0).cumsum(0)  # (longest,)
    return [float(hits_to[n - 1] / answered_to[n - 1]) for n in lengths]


def load_model(encoding: str, folder: Path | str = WEIGHTS_DIR) -> TinyTransformer:
    """A shipped model: its sizes from ``folder/models.json``, its weights from
    ``folder/<encoding>.pt`` (a state dict, read with ``weights_only=True``)."""
    encoding = check_choice(encoding, "encoding", ENCODINGS)
    folder = Path(folder)
    settings = json.loads((folder / "models.json").read_text())["training"]
    model = TinyTransformer(TinyConfig(encoding=encoding, **settings["model"]))
    state = torch.load(folder / f"{encoding}.pt", map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    return model.eval()


@torch.no_grad()
def attention_example(model: TinyTransformer, length: int, seed: int = 0) -> torch.Tensor:
    """Every layer's attention weights on one evaluation sequence of ``length``:
    ``(layers, heads, length, length)``."""
    tokens, _ = eval_set(length, batch=1, seed=EVAL_SEED + 100_000 + seed)
    _, maps = model(tokens, return_attention=True)
    return torch.stack([w[0] for w in maps])  # (layers, heads, seq, seq)


@torch.no_grad()
def pair_norms(model: TinyTransformer, length: int | None = None) -> torch.Tensor:
    """How strongly each RoPE pair is used (Barbero et al. 2024): the mean norm of
    the 2-vector of pair i of q and of k, before rotation (rotation keeps it),
    over the evaluation set of ``length`` (L_train by default).

    ||q_i|| = sqrt(q_2i^2 + q_2i+1^2), averaged over sequences and positions.

    Returns:
        ``(layers, heads, 2, d_head/2)``: [..., 0, i] for q, [..., 1, i] for k.
    """
    tokens, _ = eval_set(TRAINING["length"] if length is None else length)
    out = []
    for q, k in model.qk_before_rotation(tokens):  # (batch, heads, seq, d_head) each
        norms = [t.unflatten(-1, (-1, 2)).norm(dim=-1).mean(dim=(0, 2)) for t in (q, k)]
        out.append(torch.stack(norms, dim=1))  # (heads, 2, d_head/2)
    return torch.stack(out)  # (layers, heads, 2, d_head/2)
