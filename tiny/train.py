"""Train the tiny models of the page "Trained tiny models" and ship their weights.

    python tiny/train.py                 # everything: every task, encoding and seed, and
                                         # the fine-tuned position-interpolation models
    python tiny/train.py --check         # retrain a sample, compare with models.json
    python tiny/train.py --tasks recall --encodings rope --seeds 0 --out /tmp/x   # a try

Pure PyTorch on the CPU, one thread, seeded: the same command gives the same
weights on the same machine and PyTorch version. Every model has the same sizes,
optimiser, learning rate and schedule (rope_core.tiny_model.TRAINING); only the
position encoding, the task and the seed differ. Each trains until its accuracy
on fixed held-out sequences of L_train tokens reaches the criterion (checked every
``check_every`` steps) or the step cap; a model that misses the criterion is
kept and reported as such. The weights are shipped in float16 and every
recorded accuracy is that of the shipped (rounded) weights.

Position interpolation with a fine-tune (Chen et al. 2023): each RoPE model,
its frequencies divided by s, trained briefly on sequences of s L_train tokens
(``pi_fine_tune``).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from rope_core import tiny_model as tm  # noqa: E402

# --check: a retrained model's accuracy at L_train within CHECK_TOLERANCE of the record,
# its accuracy beyond L_train (all bins pooled) within BEYOND_TOLERANCE of the shipped
# model's. Same machine and PyTorch: identical. Elsewhere float rounding differs and a
# few answers may flip.
CHECK_TOLERANCE = 0.02
BEYOND_TOLERANCE = 0.05
CHECK_SAMPLE = [("local", "rope", 0), ("recall", "rope", 0), ("recall", "hybrid", 0)]


def _one_thread(fn):
    def run(*args, **kwargs):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # deterministic; given back afterwards (a test runs this)
        try:
            return fn(*args, **kwargs)
        finally:
            torch.set_num_threads(threads)
    return run


def _seed_of(task: str, seed: int) -> int:
    return tm.DATA_SEED + 100 * tm.TASKS.index(task) + seed


@_one_thread
def train(task: str, encoding: str, seed: int, settings: dict = tm.TRAINING, *,
          max_steps: int | None = None, log=None) -> tuple[tm.TinyTransformer, dict]:
    """One model: AdamW, linear warm-up then cosine decay over the step cap,
    cross-entropy on every answered position, stopped at the first check whose
    accuracy at L_train reaches the criterion.

    Returns the model (float16-rounded weights, eval mode) and what happened:
    steps, reached, check_loss and check_accuracy (of the shipped weights), final_loss,
    train_cpu_seconds."""
    start = time.process_time()
    torch.manual_seed(seed)
    model = tm.TinyTransformer(tm.TinyConfig(encoding=encoding, vocab=tm.vocab_size(task),
                                             **settings["model"]))
    cap = settings["max_steps"] if max_steps is None else max_steps
    opt = torch.optim.AdamW(model.parameters(), lr=settings["lr"],
                            weight_decay=settings["weight_decay"])
    data = torch.Generator().manual_seed(_seed_of(task, seed))
    reached, step, loss = False, 0, torch.tensor(math.nan)
    for step in range(1, cap + 1):
        warm = min(1.0, step / settings["warmup"])
        for group in opt.param_groups:
            group["lr"] = settings["lr"] * warm * 0.5 * (1 + math.cos(math.pi * (step - 1) / cap))
        tokens, answers = tm.task_batch(task, settings["batch"], settings["length"], data)
        logits = model(tokens)  # (batch, L_train, vocab)
        loss = F.cross_entropy(logits.flatten(0, 1), answers.flatten(), ignore_index=-1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % settings["check_every"] == 0 or step == cap:
            held_loss, acc = tm.check_scores(model.eval(), task, seed)
            model.train()
            if log:
                log(f"  {task} {encoding} seed {seed} step {step}: loss {loss.item():.4f}, "
                    f"held-out loss {held_loss:.4f}, accuracy at L_train {acc:.4f}")
            if held_loss <= settings["criterion_loss"]:
                reached = True
                break
    tm.round_to_shipped(model)
    held_loss, acc = tm.check_scores(model, task, seed)
    info = {"steps": step, "reached": reached, "check_loss": round(held_loss, 6),
            "check_accuracy": round(acc, 6), "final_loss": round(loss.item(), 6),
            "train_cpu_seconds": round(time.process_time() - start, 1)}
    return model, info


@_one_thread
def fine_tune_pi(model: tm.TinyTransformer, task: str, seed: int,
                 settings: dict = tm.TRAINING, *, steps: int | None = None,
                 log=None) -> tuple[tm.TinyTransformer, dict]:
    """Position interpolation as Chen et al. (2023) apply it: theta / s, then a short
    fine-tune on sequences of s L_train tokens (AdamW, betas 0.9 and 0.95, no weight
    decay, linear warm-up, then a constant learning rate).

    Returns a fine-tuned copy (float16-rounded, eval mode) and steps, accuracy at
    s L_train on the check sequences' seed, train_cpu_seconds."""
    start = time.process_time()
    ft = settings["pi_fine_tune"]
    steps = ft["steps"] if steps is None else steps
    tuned = copy.deepcopy(model).train()
    theta = tm.model_theta(tuned.cfg) / ft["factor"]  # (d_head/2,)
    length = ft["factor"] * settings["length"]
    opt = torch.optim.AdamW(tuned.parameters(), lr=ft["lr"], betas=(0.9, 0.95), weight_decay=0.0)
    data = torch.Generator().manual_seed(_seed_of(task, seed) + 50)
    loss = torch.tensor(math.nan)
    for step in range(1, steps + 1):
        for group in opt.param_groups:  # from 10% of the rate up, then constant
            group["lr"] = ft["lr"] * min(1.0, 0.1 + 0.9 * (step - 1) / ft["warmup"])
        tokens, answers = tm.task_batch(task, ft["batch"], length, data)
        logits = tuned(tokens, theta=theta)
        loss = F.cross_entropy(logits.flatten(0, 1), answers.flatten(), ignore_index=-1)
        opt.zero_grad()
        loss.backward()
        opt.step()
    tm.round_to_shipped(tuned)
    tokens, answers = tm.sequences(task, settings["check_sequences"], length,
                                   tm.CHECK_SEED + 100 * tm.TASKS.index(task) + seed + 50)
    acc = tm.accuracy(tuned, tokens, answers, theta=theta)
    if log:
        log(f"  {task} PI fine-tune seed {seed}: {steps} steps, loss {loss.item():.4f}, "
            f"accuracy at {length} tokens {acc:.4f}")
    return tuned, {"steps": steps, "accuracy_at_length": round(acc, 6), "length": length,
                   "final_loss": round(loss.item(), 6),
                   "train_cpu_seconds": round(time.process_time() - start, 1)}


def beyond_accuracy(model: tm.TinyTransformer, task: str, seed: int, method: str = "none") -> float:
    """Accuracy on positions L_train ... on the evaluation sequences of ``seed``."""
    tokens, answers = tm.eval_sequences(task, seed)
    right = tm.hits(model, tokens, answers, method)
    return float(right[:, tm.TRAINING["length"]:].float().mean())


def check(pairs) -> int:
    """Retrain ``pairs`` (task, encoding, seed) and compare with the shipped record
    and models. Returns the number of differences beyond the tolerances."""
    record = tm.read_record()
    failures = 0
    for task, encoding, seed in pairs:
        model, info = train(task, encoding, seed, log=print)
        want = record["models"][task][encoding][str(seed)]
        shipped = tm.load_models(task, encoding)[seed]
        got_beyond = beyond_accuracy(model, task, seed)
        want_beyond = beyond_accuracy(shipped, task, seed)
        ok = (abs(info["check_accuracy"] - want["check_accuracy"]) <= CHECK_TOLERANCE
              and abs(got_beyond - want_beyond) <= BEYOND_TOLERANCE)
        failures += not ok
        print(f"{task} {encoding} seed {seed}: steps {info['steps']} (shipped {want['steps']}), "
              f"accuracy at L_train {info['check_accuracy']:.4f} (shipped "
              f"{want['check_accuracy']:.4f}, tolerance {CHECK_TOLERANCE}), beyond L_train "
              f"{got_beyond:.4f} (shipped {want_beyond:.4f}, tolerance {BEYOND_TOLERANCE}): "
              f"{'OK' if ok else 'DIFFERS'}")
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=list(tm.TASKS), choices=tm.TASKS)
    parser.add_argument("--encodings", nargs="+", default=list(tm.ENCODINGS),
                        choices=tm.ENCODINGS)
    parser.add_argument("--seeds", nargs="+", type=int, default=tm.TRAINING["seeds"])
    parser.add_argument("--max-steps", type=int, default=None, help="override the cap (a try)")
    parser.add_argument("--heads", type=int, default=None,
                        help="override the number of heads (a try; needs --out elsewhere)")
    parser.add_argument("--out", type=Path, default=tm.WEIGHTS_DIR)
    parser.add_argument("--check", action="store_true",
                        help="retrain a sample ({}) and compare with the shipped "
                        "models".format(", ".join(f"{t} {e} seed {s}"
                                                  for t, e, s in CHECK_SAMPLE)))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # training and the recorded evaluation on one thread
    if args.check:
        return 1 if check(CHECK_SAMPLE) else 0
    settings = copy.deepcopy(tm.TRAINING)
    if args.heads is not None:
        if args.out.resolve() == tm.WEIGHTS_DIR.resolve():
            parser.error("--heads trains models the page cannot load: give --out elsewhere")
        settings["model"]["n_heads"] = args.heads
    start = time.process_time()
    record = {"training": settings, "eval": tm.EVAL, "torch": torch.__version__,
              "models": {}, "pi_finetuned": {}}
    args.out.mkdir(parents=True, exist_ok=True)
    for task in args.tasks:
        record["models"][task] = {}
        for encoding in args.encodings:
            states, infos = {}, {}
            for seed in args.seeds:
                model, info = train(task, encoding, seed, settings, max_steps=args.max_steps,
                                    log=print)
                right = tm.hits(model, *tm.eval_sequences(task, seed))
                edges, bins = tm.bin_edges(task), tm.binned(right, task).mean(0)
                print(f"{task} {encoding} seed {seed}: {info}; accuracy per position bin: "
                      + ", ".join(f"{a}-{b - 1} {v:.3f}"
                                  for a, b, v in zip(edges[:-1], edges[1:], bins)))
                states[seed], infos[str(seed)] = tm.half_state(model), info
                if encoding == "rope":
                    tuned, ft = fine_tune_pi(model, task, seed, settings, log=print)
                    record["pi_finetuned"].setdefault(task, {})[str(seed)] = ft
                    record["pi_finetuned"][task].setdefault("_states", {})[seed] = \
                        tm.half_state(tuned)
            torch.save(states, args.out / tm.weights_file(task, encoding))
            record["models"][task][encoding] = infos
        if task in record["pi_finetuned"]:
            torch.save(record["pi_finetuned"][task].pop("_states"),
                       args.out / tm.weights_file(task, "rope", finetuned=True))
    record["train_cpu_seconds_total"] = round(time.process_time() - start, 1)
    (args.out / "models.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"CPU time: {record['train_cpu_seconds_total']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
