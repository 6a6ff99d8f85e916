"""rope_core.beyond.tiny_model and tiny/train.py: model, tasks, evaluation, weights."""

import copy
import json
import math
import os

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc
from rope_core.beyond import tiny_model as tm
from tiny import train as tiny_train

L = tm.TRAINING["length"]
# a quick configuration for CI: half the width, a high learning rate, a few steps
SMALL = dict(copy.deepcopy(tm.TRAINING), batch=16, warmup=5, lr=1e-2, check_every=10)
SMALL["model"].update(d_model=32, d_mlp=64, n_heads=1)


# --- the rotation and the encodings ------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(seq=st.integers(1, 12), pairs=st.integers(1, 8), base=st.floats(2.0, 1e6),
       seed=st.integers(0, 1000))
def test_rotate_pairs_is_apply_rope_interleaved(seq, pairs, base, seed):
    """The differentiable rotation equals rope_core.apply_rope (complex form)."""
    x = torch.randn(2, seq, 2 * pairs, generator=torch.Generator().manual_seed(seed),
                    dtype=torch.float64)
    theta = rc.theta(2 * pairs, base)
    cos, sin = rc.cos_sin(range(seq), theta)
    want = rc.apply_rope(x, range(seq), theta, layout="interleaved")
    assert torch.allclose(tm.rotate_pairs(x, cos, sin), want, atol=1e-12)


def test_rotation_is_differentiable():
    x = torch.randn(1, 4, 8, requires_grad=True)
    cos, sin = tm.rope_cos_sin(4, rc.theta(8, 100.0))
    tm.rotate_pairs(x, cos, sin).sum().backward()
    assert x.grad.shape == (1, 4, 8)


def test_heads_have_sixteen_pairs():
    cfg = tm.model_config("local", "rope")
    assert cfg.d_head // 2 >= 16


def zero_attention(model: tm.TinyTransformer) -> tm.TinyTransformer:
    """q = k = 0 in every layer: each layer's logits are its bias alone."""
    with torch.no_grad():
        for block in model.blocks:
            for p in block.qkv.parameters():
                p.zero_()
    return model.eval()


def test_alibi_model_adds_the_reference_slopes_times_distance():
    # 2 heads: Press et al.'s rule 2^(-8h/2), h = 1, 2 = 1/16, 1/256, times 512 / 16 = 32:
    # 2 and 1/8 (the main arm); the controls keep them unscaled, and 8 heads 1/2 ... 1/256
    model = zero_attention(tm.TinyTransformer(tm.model_config("local", "alibi")))
    assert model.slopes.tolist() == [2.0, 1 / 8]
    _, maps = model(torch.zeros(1, 5, dtype=torch.long), return_attention=True)
    for h, slope in enumerate([2.0, 1 / 8]):
        row = torch.tensor([math.exp(-slope * (4 - n)) for n in range(5)])
        assert torch.allclose(maps[0][0, h, 4], (row / row.sum()).float(), atol=1e-6)
    unscaled = tm.TinyTransformer(tm.model_config("local", "alibi_unscaled"))
    assert unscaled.slopes.tolist() == [1 / 16, 1 / 256]
    eight = tm.TinyTransformer(tm.model_config("recall", "alibi_8_heads"))
    assert eight.slopes.tolist() == [2.0 ** -h for h in range(1, 9)]
    assert eight.cfg.d_head == 8 and eight.cfg.n_heads == 8
    # the same parameters as every other arm: the same initial weights from one seed
    shapes = {k: v.shape for k, v in tm.TinyTransformer(tm.model_config("recall", "rope"))
              .state_dict().items()}
    assert {k: v.shape for k, v in eight.state_dict().items()} == shapes


def test_every_arm_of_a_seed_starts_from_the_same_weights():
    """torch.manual_seed(seed) before building: every arm (same parameter shapes) gets the
    same initial weights, so arms are compared paired by seed."""
    states = []
    for arm in tm.ARMS:
        torch.manual_seed(3)
        states.append(tm.TinyTransformer(tm.model_config("recall", arm)).state_dict())
    for state in states[1:]:
        assert all(torch.equal(a, b) for a, b in zip(state.values(), states[0].values()))


def test_the_controls_change_one_setting_each():
    base = tm.model_config("local", "rope").to_dict()
    for arm, (encoding, changes, tasks) in tm.CONTROLS.items():
        cfg = tm.model_config(tasks[0], arm).to_dict()
        main = tm.model_config(tasks[0], encoding).to_dict()
        differ = {k for k in cfg if cfg[k] != main[k]}
        assert differ == set(changes) - {k for k in changes if changes[k] == main[k]}, arm
        assert cfg["encoding"] == encoding and set(tasks) <= set(tm.TASKS)
    assert tm.model_config("recall", "rope_base5").base == 5.0
    assert tm.model_config("local", "irope_chunk4").chunk == 4
    assert base["base"] == 100.0


def test_base_5_leaves_as_many_pairs_unseen_as_llama():
    """Pairs whose wavelength 2 pi base^(i/16) exceeds L_train = 16: base 5 from i = 10 on
    (5^(10/16) = 2.73 > 16 / 2 pi = 2.546 > 5^(9/16) = 2.47): 6 of 16 = 37.5%; LLaMA (base
    10^4, d = 128, L = 2048): 10^(i/16) > 2048 / 2 pi = 325.9 from i = 41: 23 of 64 = 36%."""
    assert int((rc.wavelength(rc.theta(32, 5.0)) > 16).sum()) == 6
    assert int((rc.wavelength(rc.theta(128, 1e4)) > 2048).sum()) == 23
    assert int((rc.wavelength(rc.theta(32, 100.0)) > 16).sum()) == 12


def test_p_rope_keeps_the_fastest_fraction_and_leaves_the_rest_unrotated():
    cfg = tm.model_config("recall", "p_rope")  # d_head 32: 16 pairs, p = 0.75 keeps 12
    theta = tm.model_theta(cfg)
    assert theta[:12].tolist() == [100.0 ** (-2 * i / 32) for i in range(12)]
    assert theta[12:].tolist() == [0.0] * 4
    cos, sin = tm.rope_cos_sin(5, theta)
    assert torch.all(cos[:, 12:] == 1) and torch.all(sin[:, 12:] == 0)


def test_hybrid_alternates_and_irope_follows_llama4_config():
    from transformers import Llama4TextConfig

    hybrid = tm.model_config("local", "hybrid")
    assert [hybrid.layer_encoding(j) for j in range(4)] == ["rope", "none", "rope", "none"]
    assert [hybrid.layer_attention(j) for j in range(4)] == ["full"] * 4
    irope = tm.model_config("local", "irope")
    # transformers' Llama 4: no_rope_layers[j] = 1 means RoPE; RoPE layers are chunked
    llama4 = Llama4TextConfig(num_hidden_layers=4, attention_chunk_size=irope.chunk)
    assert [irope.layer_encoding(j) == "rope" for j in range(4)] == \
        [bool(v) for v in llama4.no_rope_layers]
    assert [irope.layer_attention(j) for j in range(4)] == \
        ["chunked" if t == "chunked_attention" else "full" for t in llama4.layer_types]
    assert [irope.layer_temperature(j) for j in range(4)] == [False, False, False, True]
    assert tm.TinyConfig(encoding="sinusoidal").layer_encoding(0) == "none"


def test_irope_chunks_and_temperature():
    """RoPE layers see only their chunk; the NoPE layer sees everything, its queries
    scaled by 1 + 0.1 ln(1 + floor((m + 1) / 8)) (transformers' Llama4TextAttention)."""
    model = tm.TinyTransformer(tm.model_config("local", "irope")).eval()
    tokens = torch.randint(0, 16, (1, 24), generator=torch.Generator().manual_seed(0))
    _, maps = model(tokens, return_attention=True)
    m = torch.arange(24).view(-1, 1)
    n = torch.arange(24).view(1, -1)
    for j in range(3):
        outside = (m // 8 != n // 8) & (n <= m)
        assert torch.all(maps[j][0][:, outside] == 0)
        assert torch.all(maps[j][0][:, (m // 8 == n // 8) & (n <= m)] > 0)
    assert torch.all(maps[3][0][:, n <= m] > 0)
    scale = model.layer_inputs(24)[3][2].view(-1)
    want = [1 + 0.1 * math.log1p(math.floor((p + 1) / 8)) for p in range(24)]
    assert torch.allclose(scale, torch.tensor(want), atol=1e-7)
    assert all(model.layer_inputs(24)[j][2] is None for j in range(3))
    small = tm.TinyTransformer(tm.model_config("local", "irope_chunk4")).eval()
    _, maps = small(tokens, return_attention=True)
    assert torch.all(maps[0][0][:, (m // 4 != n // 4) & (n <= m)] == 0)


@pytest.mark.parametrize("encoding", tm.ENCODINGS)
def test_fused_attention_equals_the_explicit_softmax(encoding):
    """The evaluation's scaled_dot_product_attention path gives the logits of the
    explicit softmax(q k^T / sqrt(d) + bias) v path, with and without a window."""
    torch.manual_seed(1)
    model = tm.TinyTransformer(tm.model_config("recall", encoding)).eval()
    tokens, _ = tm.sequences("recall", 3, 40, 5)
    with torch.no_grad():
        for window in (None, 16):
            if window and encoding != "rope":
                continue
            fused = model(tokens, window=window)
            explicit, _maps = model(tokens, window=window, return_attention=True)
            assert torch.allclose(fused, explicit, atol=1e-5)


def test_window_limits_every_layer_to_the_last_keys():
    model = tm.TinyTransformer(tm.model_config("local", "rope")).eval()
    tokens, _ = tm.sequences("local", 1, 30, 0)
    _, maps = model(tokens, window=L, return_attention=True)
    m = torch.arange(30).view(-1, 1)
    n = torch.arange(30).view(1, -1)
    for w in maps:
        assert torch.all(w[0][:, m - n >= L] == 0)
        assert torch.all(w[0][:, (m - n < L) & (n <= m)] > 0)


def test_bad_arguments_raise_rope_errors():
    with pytest.raises(rc.RopeError, match="encoding"):
        tm.TinyConfig(encoding="xpos")
    with pytest.raises(rc.RopeError, match="d_model"):
        tm.TinyConfig(d_model=36, n_heads=4)
    model = tm.TinyTransformer(tm.model_config("local", "rope"))
    with pytest.raises(rc.RopeError, match="tokens"):
        model(torch.full((1, 4), 17))
    with pytest.raises(rc.RopeError, match="seq"):
        model(torch.zeros(1, tm.MAX_LENGTH + 1, dtype=torch.long))
    with pytest.raises(rc.RopeError, match="window"):
        model(torch.zeros(1, 4, dtype=torch.long), window=0)
    with pytest.raises(rc.RopeError, match="method"):
        tm.inference_settings(tm.model_config("local", "alibi"), "yarn")
    with pytest.raises(rc.RopeError, match="task"):
        tm.task_batch("copy", 1, 16, torch.Generator())
    with pytest.raises(rc.RopeError, match="length"):
        tm.task_batch("recall", 1, 9, torch.Generator())  # no query after the store


# --- the tasks --------------------------------------------------------------------------

def test_local_answers_are_the_symbol_k_back_after_bos():
    tokens, answers = tm.task_batch("local", 3, 10, torch.Generator().manual_seed(0))
    assert (tokens[:, 0] == tm.bos("local")).all() and (tokens[:, 1:] < 16).all()
    assert answers[:, :3].eq(-1).all()
    for m in range(3, 10):
        assert torch.equal(answers[:, m], tokens[:, m - 2])
    assert torch.equal(tm.answer_sources("local", tokens)[0, 3:], torch.arange(1, 8))


def test_recall_keys_occur_twice_and_answers_lie_only_in_the_store():
    """Filler everywhere but BOS, the store (N distinct keys then values, interleaved) at
    depth 1 ... length - 3N, and N queries after it, each stored key once: every key occurs
    exactly twice, every value once, and each answer is the value stored after its key,
    which answer_sources points to."""
    length, pairs = 40, tm.TRAINING["tasks"]["recall"]["pairs"]
    tokens, answers = tm.task_batch("recall", 50, length, torch.Generator().manual_seed(3))
    sources = tm.answer_sources("recall", tokens)
    depths = set()
    for b in range(50):
        row = tokens[b].tolist()
        assert row[0] == tm.bos("recall")
        d = next(i for i, t in enumerate(row) if t < 16)  # the first key
        depths.add(d)
        store = row[d:d + 2 * pairs]
        keys, values = store[0::2], store[1::2]
        assert all(k < 16 for k in keys) and all(16 <= v < 32 for v in values)
        assert len(set(keys)) == pairs and len(set(values)) == pairs
        assert 1 <= d <= length - 3 * pairs
        rest = [t for i, t in enumerate(row) if i and not d <= i < d + 2 * pairs]
        assert all(32 <= t < 48 for t in rest if t not in keys)  # filler: never a key
        queries = [m for m in range(length) if answers[b, m] >= 0]
        assert len(queries) == pairs and all(m >= d + 2 * pairs for m in queries)
        assert sorted(row[m] for m in queries) == sorted(keys)  # each key asked once
        for m in queries:
            value = values[keys.index(row[m])]
            assert int(answers[b, m]) == value and row.count(value) == 1
            assert int(sources[b, m]) == d + 2 * keys.index(row[m]) + 1
        assert all(sources[b, m] == -1 for m in range(length) if m not in queries)
        for k in keys:
            assert row.count(k) == 2
    assert len(depths) > 10  # the store moves
    assert tm.first_answered("recall") == 2 * pairs + 1 and tm.shortest("recall") == 1 + 3 * pairs
    assert torch.equal(tm.store_depth(tokens), torch.tensor(
        [next(i for i, t in enumerate(r) if t < 16) for r in tokens.tolist()]))


def test_the_recall_evaluation_cells_by_hand():
    """Cell after cell, EVAL["recall"]["per_cell"] sequences each: as in training (then
    filler); the store at the cell's depth with queries 1 ... near - 1 after its last token;
    the store at depth 1 ... shallow - 1 with queries at the cell's distance. Found here by
    scanning the tokens."""
    r, per = tm.EVAL["recall"], tm.EVAL["recall"]["per_cell"]
    tokens, answers = tm.eval_sequences("recall", 2)
    cells = tm.recall_cells()
    assert tokens.shape == (len(cells) * per, tm.eval_length())
    design = tm.recall_design(tokens, answers)
    for c, (kind, a, b) in enumerate(cells):
        for j in range(c * per, (c + 1) * per):
            row = tokens[j].tolist()
            d = next(i for i, t in enumerate(row) if t < 16)
            queries = [m for m in range(len(row)) if answers[j, m] >= 0]
            gaps = [m - (d + 5) for m in queries]  # from the store's last token (N = 3)
            assert design["depth"][j] == d and design["distance"][j].tolist() == gaps
            if kind == "train":
                assert 1 <= d <= 7 and max(queries) < 16 and 1 <= min(gaps)
            elif kind == "depth":
                assert a <= d < min(b, tm.eval_length() - 9)  # the deepest: 118
                assert all(1 <= g < r["near"] for g in gaps)
            else:
                assert 1 <= d < r["shallow"] and all(a <= g < b for g in gaps)
    assert tm.group_labels("recall")[:3] == ("train", "depth 8-15", "depth 16-23")
    assert tm.group_labels("recall")[-1] == "distance 96-121"


def test_chance_levels_are_a_guess_among_the_values_or_among_the_stored_ones():
    """A guess that knows the answer is one of the 16 value symbols: 1/16; one that also
    knows the sequence's 3 stored values: 1/3. Local: one of 16 symbols."""
    assert tm.chance("local") == 1 / 16 and tm.chance("recall") == 1 / 16
    assert tm.chance("recall", "stored") == 1 / 3
    with pytest.raises(rc.RopeError, match="kind"):
        tm.chance("local", "stored")
    # a model that always answers the first stored value: right 1/3 of the time on
    # average, every guess in the store; a uniform guess over 16 values: 1/16
    tokens, answers = tm.sequences("recall", 4000, 40, 7)
    first = tm.stored_values("recall", tokens)[:, :1].expand(-1, 40)  # (4000, 40)
    mask = answers >= 0
    assert abs(float((first == answers)[mask].float().mean()) - 1 / 3) < 0.015
    assert bool(tm.in_store("recall", tokens, first)[mask].all())
    uniform = torch.randint(16, 32, answers.shape, generator=torch.Generator().manual_seed(1))
    assert abs(float((uniform == answers)[mask].float().mean()) - 1 / 16) < 0.005
    assert abs(float(tm.in_store("recall", tokens, uniform)[mask].float().mean()) - 3 / 16) < 0.01


def test_training_checks_and_evaluation_never_share_sequences():
    seeds = {name: {base + 100 * t + s for t in range(len(tm.TASKS))
                    for s in tm.TRAINING["seeds"]}
             for name, base in (("data", tm.DATA_SEED), ("check", tm.CHECK_SEED),
                                ("eval", tm.EVAL_SEED), ("example", tm.EXAMPLE_SEED))}
    all_seeds = [s for v in seeds.values() for s in v]
    assert len(all_seeds) == len(set(all_seeds))
    tokens, _ = tm.eval_sequences("local", 0)
    assert tokens.shape == (tm.EVAL["sequences"], 8 * L)
    # every arm of a seed is evaluated on the same sequences
    assert torch.equal(tm.eval_sequences("recall", 1)[0], tm.eval_sequences("recall", 1)[0])


# --- the evaluation, against hand-built models --------------------------------------------

def look_back_model(k: int, encoding: str = "rope", scale: float = 8.0) -> tm.TinyTransformer:
    """One layer, one hard-wired RoPE head that reads the token k places back.

    q and k are constant (biases only): q0 = scale per pair, k0_i = q0_i e^{i k theta_i},
    so q_m . k_n = scale^2 sum_i cos((n - m + k) theta_i), largest at n = m - k.
    v copies the normalised embedding (tokens one-hot in the first coordinates), the MLP
    adds nothing, and the unembedding reads those coordinates: the answer is the token
    the head reads."""
    cfg = tm.TinyConfig(encoding=encoding, vocab=17, n_layers=1, n_heads=1, d_model=32,
                        d_mlp=4, base=tm.TRAINING["model"]["base"])
    model = tm.TinyTransformer(cfg)
    d, vocab = cfg.d_model, cfg.vocab
    theta = tm.model_theta(cfg)  # (16,)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.embed.weight.copy_(torch.eye(vocab, d))
        block = model.blocks[0]
        block.ln1.weight.fill_(1.0)
        block.ln2.weight.fill_(1.0)
        model.ln_f.weight.fill_(1.0)
        angle = k * theta  # (16,)
        q0 = torch.zeros(d)
        k0 = torch.zeros(d)
        q0[0::2] = scale
        k0[0::2] = scale * torch.cos(angle)
        k0[1::2] = scale * torch.sin(angle)
        block.qkv.bias[:d] = q0
        block.qkv.bias[d:2 * d] = k0
        block.qkv.weight[2 * d:] = 10 * torch.eye(d)  # v = 10 LN(x)
        block.out.weight.copy_(torch.eye(d))
        model.unembed.weight.copy_(torch.eye(vocab, d))
    return model.eval()


def test_a_hand_built_look_back_head_is_right_in_every_bin():
    """The evaluation of a head wired to read k back: accuracy 1 in every bin, as
    trained, with a sliding window of L_train keys, on the evaluation sequences."""
    k = tm.TRAINING["tasks"]["local"]["k"]
    model = look_back_model(k)
    tokens, answers = tm.eval_sequences("local", 0)
    for method in ("none", "window"):
        right = tm.hits(model, tokens, answers, method)
        assert (tm.binned(right, "local") == 1.0).all()
    with torch.no_grad():
        _, maps = model(tokens[:2], return_attention=True)
    w = maps[0][:, 0]  # (2, seq, seq)
    assert all(float(w[b, m, m - k]) > 0.99 for b in range(2) for m in range(k, 8 * L))


def test_binned_accuracy_by_hand():
    # 2 sequences of 128 positions; local bins 3-15, 16-23, 24-31, 32-47, 48-63, 64-95,
    # 96-127; sequence 0 right everywhere from 3 on, sequence 1 right only at 16 ... 19
    right = torch.zeros(2, 128, dtype=torch.bool)
    right[0, 3:] = True
    right[1, 16:20] = True
    out = tm.binned(right, "local")
    assert tm.bin_edges("local") == (3, 16, 24, 32, 48, 64, 96, 128)
    assert tm.answers_per_bin("local") == (13, 8, 8, 16, 16, 32, 32)
    assert out[0].tolist() == [1.0] * 7
    assert out[1].tolist() == [0.0, 0.5, 0, 0, 0, 0, 0]


def test_group_accuracies_by_hand():
    import numpy as np

    hits = np.zeros((2, 3, 7), dtype=np.int64)  # local: (seeds, J, bins)
    hits[1, 2, 6] = 16  # half of bin 96-127 (32 answers)
    got = tm.group_accuracies("local", hits)
    assert len(got) == 7 and got[6].tolist() == [[0, 0, 0], [0, 0, 0.5]]
    per, cells = tm.EVAL["recall"]["per_cell"], len(tm.recall_cells())
    flags = np.zeros((2, per * cells, 3), dtype=np.int64)  # recall: (seeds, J, N)
    flags[0, per, :2] = 1  # the first sequence of cell 1: 2 of its 3 queries right
    got = tm.group_accuracies("recall", flags)
    assert len(got) == cells and got[1].shape == (2, per)
    assert got[1][0, 0] == 2 / 3 and got[1].sum() == 2 / 3 and got[0].sum() == 0
    assert tm.answers_per_bin("recall") == (3,) * cells


def test_hits_in_chunks_equal_one_pass():
    torch.manual_seed(2)
    model = tm.TinyTransformer(tm.model_config("recall", "rope")).eval()
    tokens, answers = tm.sequences("recall", 70, 32, 1)
    with torch.no_grad():
        whole = model(tokens).argmax(-1) == answers
    assert torch.equal(tm.hits(model, tokens, answers), whole)


def test_inference_settings_are_rope_cores():
    cfg = tm.model_config("local", "rope")
    plain = tm.model_theta(cfg)
    assert tm.inference_settings(cfg, "none") == {}
    assert tm.inference_settings(cfg, "window") == {"window": L}
    linear = tm.inference_settings(cfg, "linear")
    assert torch.allclose(linear["theta"], plain / 8) and linear["attention_factor"] == 1.0
    ntk = tm.inference_settings(cfg, "ntk")["theta"]  # base' = base 8^(32/30)
    i = torch.arange(16, dtype=torch.float64)
    assert torch.allclose(ntk, (100 * 8 ** (32 / 30)) ** (-2 * i / 32))
    assert math.isclose(tm.inference_settings(cfg, "yarn")["attention_factor"],
                        0.1 * math.log(8) + 1)
    no_factor = tm.inference_settings(cfg, "yarn_no_factor")
    assert torch.equal(no_factor["theta"], tm.inference_settings(cfg, "yarn")["theta"])
    assert no_factor["attention_factor"] == 1.0
    assert torch.equal(tm.inference_settings(cfg, "pi_slow_pairs")["theta"],
                       tm.slow_pairs_interpolated(cfg))
    assert tm.inference_settings(cfg, "at_criterion") == {}
    assert tm.inference_settings(tm.model_config("local", "sinusoidal"), "held") == \
        {"hold_position": L}
    with pytest.raises(rc.RopeError, match="method"):
        tm.inference_settings(cfg, "held")


def test_pair_norms_are_the_norms_of_each_pair():
    model = tm.TinyTransformer(tm.model_config("local", "rope")).eval()
    norms = tm.pair_norms(model, "local")
    assert norms.shape == (4, 2, 2, 16)
    tokens, _ = tm.sequences("local", 64, L, tm.EXAMPLE_SEED + 1000)
    with torch.no_grad():
        q, _k, _v = model.blocks[0].qkv_heads(model.embed(tokens))
    want = torch.sqrt(q[..., 0::2] ** 2 + q[..., 1::2] ** 2).mean(dim=(0, 2))  # (heads, 16)
    assert torch.allclose(norms[0, :, 0], want, atol=1e-6)


# --- training ----------------------------------------------------------------------------

def test_the_learning_rate_by_hand():
    """Warm-up over 100 steps, then (1 + cos(pi (step - 1) / steps)) / 2 of the peak."""
    lr, steps = tm.TRAINING["lr"], tm.TRAINING["steps"]
    assert math.isclose(tm.learning_rate(1, steps), lr / 100 * (1 + math.cos(0)) / 2)
    assert math.isclose(tm.learning_rate(100, steps),
                        lr * (1 + math.cos(math.pi * 99 / steps)) / 2)
    assert math.isclose(tm.learning_rate(steps // 2 + 1, steps), lr / 2)
    assert tm.learning_rate(steps, steps) < 1e-4 * lr


def test_a_few_training_steps_lower_the_loss_and_are_deterministic():
    """CI's training: a few steps of the real loop, seeded, one thread."""
    model, info, _crit = tiny_train.train("recall", "irope", 0, SMALL, steps=40)
    again, info2, _crit2 = tiny_train.train("recall", "irope", 0, SMALL, steps=40)
    assert info["check_loss"] == info2["check_loss"]  # bit for bit
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(),
                                                 again.state_dict().values()))
    assert info["check_loss"] < math.log(49) - 0.5  # below a uniform guess over 49 tokens
    assert info["steps"] == 40 and not model.training
    assert all(v.dtype == torch.float32 for v in model.state_dict().values())
    assert all(torch.equal(v, v.half().float()) for v in model.state_dict().values())


def test_the_criterion_keeps_the_weights_of_its_first_check_and_changes_nothing():
    """A criterion met at the first check keeps the weights of that step aside (their
    held-out loss is the one recorded) and the run goes on to the end: the final weights
    are those of a run whose criterion is never met."""
    easy = dict(SMALL, criterion_loss=100.0)
    never = dict(SMALL, criterion_loss=-1.0)
    model, info, crit = tiny_train.train("local", "rope", 0, easy, steps=30)
    plain, info2, none = tiny_train.train("local", "rope", 0, never, steps=30)
    assert none is None and info2["criterion_step"] is None
    assert info["criterion_step"] == SMALL["check_every"] and info["steps"] == 30
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(),
                                                 plain.state_dict().values()))
    kept = tiny_train._rounded(model.cfg, crit)
    loss, _acc = tm.check_scores(kept, "local", 0)
    assert round(loss, 6) == info["criterion_check_loss"]
    assert not torch.equal(kept.embed.weight, model.embed.weight)
    # the sensitivity run: these weights where a check reached the criterion, else the run
    # stopped at the end of the budget (the final weights themselves)
    stopped = tiny_train.sensitivity_model(model, crit)
    assert tm.state_sha256(tm.half_state(stopped)) == tm.state_sha256(crit)
    assert tiny_train.sensitivity_model(plain, none) is plain


# --- the shipped weights ------------------------------------------------------------------

def test_shipped_weights_load_and_give_the_recorded_scores():
    record = tm.read_record()
    as_json = lambda d: json.loads(json.dumps(d))  # noqa: E731 (tuples come back as lists)
    assert record["training"] == as_json(tm.TRAINING) and record["eval"] == as_json(tm.EVAL)
    shipped = sorted(p.name for p in tm.WEIGHTS_DIR.iterdir()
                     if p.name not in ("models.json", tm.EVALUATION_FILE))
    assert shipped == sorted({tm.weights_file(t, a) for t, a, _m in tm.shipped_curves()})
    size = sum(p.stat().st_size for p in tm.WEIGHTS_DIR.iterdir())
    assert size <= 25_000_000  # 25 MB, models.json and evaluation.npz included
    answers = tm.TRAINING["check_sequences"] * (L - 3)  # local has the most answers
    for task in tm.TASKS:
        for encoding in tm.ENCODINGS:
            models = tm.load_models(task, encoding)
            assert sorted(models) == tm.TRAINING["seeds"]
            for seed, model in models.items():
                want = record["models"][task][encoding][str(seed)]
                assert want["steps"] == tm.TRAINING["steps"]  # every model, the same steps
                _loss, acc = tm.check_scores(model, task, seed)
                # two answers may flip on another CPU
                assert abs(acc - want["check_accuracy"]) <= 2 / answers, (task, encoding)
    for task in tm.TASKS:
        for arm, (_e, _c, tasks) in tm.CONTROLS.items():
            assert (arm in record["controls"].get(task, {})) == (task in tasks)
    assert record["train_cpu_seconds_total"] == pytest.approx(
        sum(record["cpu_seconds"].values()), abs=0.11)
    assert record["train_cpu_seconds_total"] <= 60 * 60  # the budget


@pytest.mark.skipif(not os.environ.get("ROPE_TINY_RETRAIN"),
                    reason="retrains a sample of the models (minutes): set ROPE_TINY_RETRAIN=1")
def test_training_script_reproduces_the_shipped_models():
    assert tiny_train.main(["--check"]) == 0


def test_weights_round_trip_exactly_in_float16(tmp_path):
    """save_weights / read_weights: every seed's float16 values back bit for bit, the
    layout and the seeds kept, no pickle needed."""
    states = {}
    for seed in (3, 1):
        torch.manual_seed(seed)
        model = tm.TinyTransformer(tm.model_config("recall", "irope"))
        states[seed] = tm.half_state(model)
    path = tmp_path / "w.npz"
    tm.save_weights(path, states)
    seeds, layout, rows = tm.read_weights(path)
    assert seeds == [1, 3] and [name for name, _shape in layout] == list(states[1])
    for seed, row in zip(seeds, rows):
        model = tm.model_from_row(tm.model_config("recall", "irope"), layout, row)
        for name, value in model.state_dict().items():
            assert torch.equal(value, states[seed][name].float()), name
    import numpy as np

    with np.load(path, allow_pickle=False) as archive:  # plain arrays only
        assert {archive[k].dtype.kind for k in archive.files} <= {"u", "i", "U"}


def test_load_models_reads_the_seeds_asked_for():
    assert tm.weights_file("local", "rope") == "local_rope.npz"
    plain = tm.load_models("local", "rope", seeds=(2,))
    assert list(plain) == [2] and plain[2].cfg == tm.model_config("local", "rope")


def test_holding_the_sinusoidal_position_repeats_the_last_row():
    """hold_position = 16: positions 16, 17, ... get PE[15]; the logits up to 15 unchanged
    and those past it equal to a model whose table has PE[15] in those rows."""
    torch.manual_seed(0)
    model = tm.TinyTransformer(tm.model_config("recall", "sinusoidal")).eval()
    tokens, _ = tm.sequences("recall", 2, 24, 3)
    with torch.no_grad():
        plain, held = model(tokens), model(tokens, hold_position=L)
        x = model.embed(tokens) + model.positional(L)[torch.clamp(torch.arange(24), max=L - 1)]
        for block, (rot, bias, scale) in zip(model.blocks, model.layer_inputs(24)):
            x, _ = block(x, rot, bias, scale)
        want = model.unembed(model.ln_f(x))
    assert torch.equal(held[:, :L], plain[:, :L])
    assert torch.allclose(held, want, atol=1e-6)
    with pytest.raises(rc.RopeError, match="hold_position"):
        tm.TinyTransformer(tm.model_config("recall", "rope"))(tokens, hold_position=L)


def test_slow_pair_interpolation_divides_only_pairs_longer_than_l_train():
    """Wavelength 2 pi 100^(i/16) > 16 from i = 4 on (100^(4/16) = 3.16 > 16 / 2 pi =
    2.55 > 100^(3/16) = 2.37): pairs 0-3 as trained, 4-15 divided by 8."""
    cfg = tm.model_config("recall", "rope")
    theta = tm.model_theta(cfg)
    got = tm.slow_pairs_interpolated(cfg)
    assert torch.equal(got[:4], theta[:4]) and torch.allclose(got[4:], theta[4:] / 8)


def test_the_check_sample_covers_every_part():
    """--check retrains a main arm of each task and a control that changes the model's
    shape (8 heads) and one that changes its frequencies (base 5)."""
    sample = tiny_train.CHECK_SAMPLE
    assert {t for t, _a, _s in sample["models"]} == set(tm.TASKS)
    assert {a for _t, a, _s in sample["controls"]} == {"rope_base5", "alibi_8_heads"}
    for t, a, _s in sample["controls"]:
        assert t in tm.CONTROLS[a][2]


# --- the stored evaluation (tiny/weights/evaluation.npz) -----------------------------------
# A sample re-evaluated here, each model of one seed on its fresh sequences: per task three
# encodings or methods, every seed among them, a window, scalings, chunked attention, a NoPE
# layer, the held sinusoid.
EVALUATION_SAMPLE = [("local", "rope", "none", 0), ("local", "irope", "none", 1),
                     ("local", "rope", "yarn", 2), ("recall", "hybrid", "none", 3),
                     ("recall", "rope", "window", 4), ("recall", "rope", "pi_slow_pairs", 0),
                     ("recall", "sinusoidal", "held", 1)]


@pytest.mark.parametrize("task, arm, method, seed", EVALUATION_SAMPLE)
def test_the_stored_evaluation_equals_a_live_one(task, arm, method, seed):
    """The counts the page reads are those of the shipped model run here: its argmax
    against the answer, counted by hand (local: per position bin and per position; recall:
    at each query, in order, right and among the sequence's values), exactly."""
    import numpy as np

    stored = tm.read_evaluation()
    row = stored["seeds"].index(seed)
    want = {kind: value[row] for kind, value in stored["curves"][task, arm, method].items()}
    model = tm.load_models(task, arm, seeds=(seed,))[seed]
    tokens, answers = tm.eval_sequences(task, seed)
    settings_ = tm.inference_settings(model.cfg, method)
    with torch.no_grad():
        guesses = model(tokens, **settings_).argmax(-1)  # (J, seq), all at once
    right = (guesses == answers).numpy()  # (J, seq)
    if task == "local":
        edges = tm.bin_edges(task)
        got = {"hits": np.stack([right[:, a:b].sum(1) for a, b in zip(edges[:-1], edges[1:])],
                                1), "positions": right.sum(0)}
    else:
        queries = [np.nonzero(r >= 0)[0] for r in answers.numpy()]  # N positions each
        values = [set(t for t in r if 16 <= t < 32) for r in tokens.tolist()]
        got = {"hits": np.stack([right[j, q] for j, q in enumerate(queries)]),
               "stored": np.stack([[int(guesses[j, m]) in values[j] for m in q]
                                   for j, q in enumerate(queries)])}
    assert set(got) == set(want)
    for kind in got:
        assert np.array_equal(got[kind], want[kind]), kind
    assert np.array_equal(want["hits"], tm.evaluation_counts(model, task, seed, method)["hits"])


def test_the_stored_pair_norms_equal_a_live_one():
    import numpy as np

    stored = tm.read_evaluation()["pair_norms"]["recall"]
    model = tm.load_models("recall", "rope", seeds=(3,))[3]
    assert np.allclose(stored[3], tm.pair_norms(model, "recall").numpy(), rtol=1e-6, atol=0)


def test_the_evaluation_was_made_from_the_shipped_weights():
    """Each weights file the shipped curves read has the SHA-256 the evaluation file
    recorded when it was written: a weights file changed without `tiny/train.py
    --evaluate` fails here. Every curve, seed and count is there, within its bounds, and
    every recorded curve has the fingerprint of each seed's weights."""
    import hashlib

    import numpy as np

    stored = tm.read_evaluation()
    files = {tm.weights_file(t, a) for t, a, _m in tm.shipped_curves()}
    assert set(stored["weights_sha256"]) == files
    for name in sorted(files):
        digest = hashlib.sha256((tm.WEIGHTS_DIR / name).read_bytes()).hexdigest()
        assert stored["weights_sha256"][name] == digest, (
            f"{name} changed since tiny/weights/{tm.EVALUATION_FILE} was written: run "
            "python tiny/train.py --evaluate")
    recorded = [c for c in tm.recorded_curves() if c in stored["curves"]]
    assert tuple(stored["curves"]) == tm.shipped_curves() + tuple(recorded)
    assert set(tm.recorded_curves()) == set(recorded)  # every sensitivity run too
    assert set(stored["recorded_sha256"]) == set(recorded)
    assert stored["seeds"] == tm.TRAINING["seeds"]
    seeds = len(tm.TRAINING["seeds"])
    for curve in recorded:
        assert sorted(stored["recorded_sha256"][curve]) == tm.TRAINING["seeds"]
    for (task, _a, _m), counts in stored["curves"].items():
        if task == "local":
            width = np.array(tm.answers_per_bin(task))
            assert counts["hits"].shape == (seeds, tm.EVAL["sequences"], len(width))
            assert ((counts["hits"] >= 0) & (counts["hits"] <= width)).all()
            assert counts["positions"].shape == (seeds, tm.eval_length())
            assert (counts["positions"][:, :tm.first_answered(task)] == 0).all()
            # the same right answers counted two ways
            assert np.array_equal(counts["hits"].sum(1).sum(1), counts["positions"].sum(1))
            assert "stored" not in counts
        else:
            j = tm.EVAL["recall"]["per_cell"] * len(tm.recall_cells())
            assert counts["hits"].shape == counts["stored"].shape == (seeds, j, 3)
            assert set(np.unique(counts["hits"])) <= {0, 1}
            assert (counts["hits"] <= counts["stored"]).all()  # a right answer is stored
    design = tm.eval_design(stored["seeds"])
    assert all(np.array_equal(design[k], stored["design"][k]) for k in design)
    for task in tm.TASKS:
        assert stored["pair_norms"][task].shape == (seeds, 4, 2, 2, 16)


def test_every_seed_has_a_sensitivity_run_and_those_never_stopped_are_the_shipped_ones():
    """The sensitivity run ("at_criterion") is recorded for every main arm, task and seed:
    where models.json says no check reached the criterion, its fingerprint is that of the
    shipped weights and its counts are those of the shipped curve; where one did (a step
    before the last), the weights differ from the shipped ones."""
    import numpy as np

    stored, record = tm.read_evaluation(), tm.read_record()
    ended = 0
    for task in tm.TASKS:
        for arm in tm.ENCODINGS:
            digests = stored["recorded_sha256"][task, arm, "at_criterion"]
            shipped = {seed: tm.state_sha256(tm.half_state(model))
                       for seed, model in tm.load_models(task, arm).items()}
            stopped = stored["curves"][task, arm, "at_criterion"]
            trained = stored["curves"][task, arm, "none"]
            for row, seed in enumerate(stored["seeds"]):
                step = record["models"][task][arm][str(seed)]["criterion_step"]
                if step is None:
                    ended += 1
                    assert digests[seed] == shipped[seed], (task, arm, seed)
                    assert all(np.array_equal(stopped[k][row], trained[k][row])
                               for k in trained)
                else:
                    assert step < tm.TRAINING["steps"] and digests[seed] != shipped[seed]
    assert 0 < ended < len(tm.TASKS) * len(tm.ENCODINGS) * len(stored["seeds"])


def test_evaluation_round_trip_is_exact_and_reproducible(tmp_path):
    """save_evaluation / read_evaluation: every count back, the same bytes for the same
    counts (an unchanged evaluation leaves the shipped file unchanged), no pickle."""
    import numpy as np

    rng = np.random.default_rng(0)
    counts = {}
    j = tm.EVAL["recall"]["per_cell"] * len(tm.recall_cells())
    for task, arm, method in tm.evaluated_curves():
        width = np.array(tm.answers_per_bin(task))
        counts[task, arm, method] = {
            seed: (dict(hits=rng.integers(0, width + 1, (3, len(width))),
                        positions=rng.integers(0, 4, tm.eval_length()))
                   if task == "local" else
                   dict(hits=rng.integers(0, 2, (j, 3)), stored=rng.integers(0, 2, (j, 3))))
            for seed in (2, 0)}
    norms = {t: {s: torch.rand(4, 2, 2, 16) for s in (0, 2)} for t in tm.TASKS}
    digests = {"b.npz": "00ff", "a.npz": "ab12"}
    recorded = {c: {0: "aa", 2: "bb"} for c in tm.recorded_curves()}
    tm.save_evaluation(tmp_path / tm.EVALUATION_FILE, counts, digests, norms, recorded)
    back = tm.read_evaluation(tmp_path)
    assert back["seeds"] == [0, 2] and back["weights_sha256"] == digests
    assert back["recorded_sha256"] == recorded
    assert tuple(back["curves"]) == tm.evaluated_curves()
    for curve, by_seed in counts.items():
        for kind in by_seed[0]:
            assert np.array_equal(back["curves"][curve][kind],
                                  np.stack([by_seed[0][kind], by_seed[2][kind]])), curve
    for t in tm.TASKS:
        assert np.array_equal(back["pair_norms"][t], torch.stack([norms[t][0], norms[t][2]]))
    first = (tmp_path / tm.EVALUATION_FILE).read_bytes()
    tm.save_evaluation(tmp_path / tm.EVALUATION_FILE, counts, digests, norms, recorded)
    assert (tmp_path / tm.EVALUATION_FILE).read_bytes() == first
    with np.load(tmp_path / tm.EVALUATION_FILE, allow_pickle=False) as archive:
        assert {archive[k].dtype.kind for k in archive.files} <= {"u", "i", "U", "f"}


def test_recorded_curves_kept_aside_come_back(tmp_path):
    """tiny/train.py keeps the recorded curves of a run without the shipped weights in
    recorded.npz (save_recorded / read_recorded): every count and digest back."""
    import numpy as np

    curve = ("recall", "rope_base5", "yarn")
    counts = {s: {"hits": np.eye(3, dtype=np.int64), "stored": np.ones((3, 3), np.int64)}
              for s in (0, 1)}
    tiny_train.save_recorded(tmp_path, {curve: (counts, {0: "x", 1: "y"})})
    back = tiny_train.read_recorded(tmp_path)
    assert list(back) == [curve] and back[curve][1] == {0: "x", 1: "y"}
    assert all(np.array_equal(back[curve][0][s][k], counts[s][k]) for s in (0, 1)
               for k in counts[0])
