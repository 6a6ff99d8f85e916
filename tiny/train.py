"""Train the six tiny models of the page "Trained tiny models" and ship their weights.

    python tiny/train.py            # train all six, write tiny/weights/*.pt and tiny/models.json
    python tiny/train.py --check    # train again and compare with tiny/models.json
    python tiny/train.py --steps 20 --encodings rope --out /tmp/x   # a quick try

Pure PyTorch on the CPU, one thread, seeded: the same command gives the same
weights on the same machine and PyTorch version. One model per position encoding
(rope_core.tiny_model.ENCODINGS), same sizes, same data, same steps, same
optimiser: only the encoding differs. The task: the symbol k places back
(rope_core.tiny_model.task_batch), trained at length L_train.
"""

from __future__ import annotations

import argparse
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

TOLERANCE = 0.02  # --check: a retrained model's accuracy at L_train within this of the JSON


def train(encoding: str, settings: dict = tm.TRAINING, *, steps: int | None = None,
          log=None) -> tuple[tm.TinyTransformer, list[float]]:
    """One model trained from ``settings`` (tm.TRAINING): AdamW, linear warm-up
    then cosine decay, cross-entropy on every answered position.

    Returns the model (eval mode) and the loss of every step."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # deterministic; given back afterwards (a test runs this)
    try:
        return _train(encoding, settings, steps, log)
    finally:
        torch.set_num_threads(threads)


def _train(encoding: str, settings: dict, steps: int | None, log):
    torch.manual_seed(settings["seed"])
    cfg = tm.TinyConfig(encoding=encoding, **settings["model"])
    model = tm.TinyTransformer(cfg)
    steps = settings["steps"] if steps is None else steps
    opt = torch.optim.AdamW(model.parameters(), lr=settings["lr"],
                            weight_decay=settings["weight_decay"])
    data = torch.Generator().manual_seed(settings["data_seed"])
    losses = []
    for step in range(steps):
        warm = min(1.0, (step + 1) / settings["warmup"])
        for group in opt.param_groups:
            group["lr"] = settings["lr"] * warm * 0.5 * (1 + math.cos(math.pi * step / steps))
        tokens, answers = tm.task_batch(settings["batch"], settings["length"], settings["k"],
                                        cfg.vocab, data)
        logits = model(tokens)  # (batch, L_train, vocab)
        loss = F.cross_entropy(logits.flatten(0, 1), answers.flatten(), ignore_index=-1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if log and (step % 500 == 0 or step == steps - 1):
            log(f"  {encoding} step {step}: loss {loss.item():.4f}")
    return model.eval(), losses


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encodings", nargs="+", default=list(tm.ENCODINGS),
                        choices=tm.ENCODINGS)
    parser.add_argument("--steps", type=int, default=None, help="override (a quick try)")
    parser.add_argument("--out", type=Path, default=tm.WEIGHTS_DIR)
    parser.add_argument("--check", action="store_true",
                        help="retrain and compare accuracies with the shipped models.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # training and the recorded evaluation on one thread
    shipped = json.loads((tm.WEIGHTS_DIR / "models.json").read_text()) if args.check else None
    settings = dict(tm.TRAINING, steps=args.steps or tm.TRAINING["steps"])
    record = {"training": settings, "torch": torch.__version__, "models": {}}
    failures = 0
    for encoding in args.encodings:
        start = time.process_time()
        model, losses = train(encoding, steps=args.steps, log=print)
        cpu = time.process_time() - start
        acc = tm.heldout_accuracy(model)
        print(f"{encoding}: accuracy at L_train {acc:.4f}, final loss {losses[-1]:.4f}, "
              f"{cpu:.1f} s CPU")
        record["models"][encoding] = {"accuracy_at_L_train": round(acc, 6),
                                      "final_loss": round(losses[-1], 6),
                                      "train_cpu_seconds": round(cpu, 1)}
        if args.check:
            want = shipped["models"][encoding]["accuracy_at_L_train"]
            ok = abs(acc - want) <= TOLERANCE
            failures += not ok
            print(f"  shipped {want:.4f}: {'OK' if ok else 'DIFFERS'} (tolerance {TOLERANCE})")
        else:
            args.out.mkdir(parents=True, exist_ok=True)
            torch.save(model.state_dict(), args.out / f"{encoding}.pt")
    if not args.check:
        (args.out / "models.json").write_text(json.dumps(record, indent=2) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
