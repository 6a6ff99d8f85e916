"""Train the tiny models of the page "Trained tiny models" and ship their weights.

    python tiny/train.py                 # everything (every part below), then --evaluate
    python tiny/train.py --parts controls  # one part; the others' record is kept
    python tiny/train.py --evaluate      # evaluate the shipped models, write evaluation.npz
    python tiny/train.py --check         # evaluate every shipped model again and retrain a
                                         # sample of every part: every count must be equal
    python tiny/train.py --check controls  # retrain a whole part, compare every count
    python tiny/train.py --tasks recall --arms rope --seeds 0 --out /tmp/x   # a try

Pure PyTorch on the CPU, one thread, seeded: the same command gives the same
weights on the same machine and PyTorch version. Every model has the same sizes,
optimiser, learning rate, schedule and number of steps (rope_core.beyond.tiny_model
.TRAINING); within a task and seed every arm starts from the same initial weights
(torch.manual_seed(seed) before the model is built: every arm has the same parameter
shapes) and reads the same batches, so arms are compared paired by seed. Every
``check_every`` steps the held-out loss on fixed sequences of L_train tokens is measured;
the weights at the first check that reaches the criterion are kept aside (the sensitivity
run "at_criterion": the same run, stopped early; where no check reaches it, stopped at the
end of the budget, so its weights are the shipped ones) and evaluated for every seed.
The weights are shipped in float16 and every recorded accuracy is that of the float16
(shipped) weights.

The parts (``--parts``; CPU seconds of each in models.json's "cpu_seconds"):

* ``models``: every task, main arm (one per encoding) and seed. Shipped; every seed's
  sensitivity run (:func:`sensitivity_model`) is evaluated and recorded, not shipped.
* ``controls``: every task, control arm (rope_core.beyond.tiny_model.CONTROLS) and seed,
  trained exactly as the main arms; evaluated as trained (and the base-5 RoPE control
  with a window and the scalings); recorded, not shipped.

Recorded models are stored as the counts of their evaluation and the SHA-256 of their
float16 weights (evaluation.npz); ``--check <part>`` trains them again and compares both.
Every run that writes weights, and ``--evaluate`` alone, evaluates every shipped model as
the page shows it (rope_core.tiny_model.shipped_curves, every seed, on its fresh
evaluation sequences) and writes the integer counts, with the SHA-256 of each weights file,
to ``evaluation.npz`` (rope_core.tiny_model.save_evaluation): the page reads them instead
of evaluating some 200 forward passes in every server process.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from rope_core.beyond import tiny_model as tm  # noqa: E402

PARTS = ("models", "controls")
# --check (the sample): one main arm per task, a hybrid, a control of each kind that
# changes the model's shape or its frequencies (about 90 s with the evaluation); of the
# main arms' sensitivity runs, one stopped at the criterion (local RoPE seed 0, step 100)
# and one that never reached it (recall hybrid seed 3: the shipped weights)
CHECK_SAMPLE = {"models": [("local", "rope", 0), ("recall", "hybrid", 3)],
                "controls": [("recall", "rope_base5", 0), ("local", "alibi_8_heads", 2)]}


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


def _rounded(cfg: tm.TinyConfig, state: dict) -> tm.TinyTransformer:
    """A model with the float16 weights ``state`` (:func:`tm.half_state`), eval mode."""
    model = tm.TinyTransformer(cfg)
    model.load_state_dict({k: v.float() for k, v in state.items()})
    return model.eval()


@_one_thread
def train(task: str, arm: str, seed: int, settings: dict = tm.TRAINING, *,
          steps: int | None = None, log=None) -> tuple[tm.TinyTransformer, dict, dict | None]:
    """One model: AdamW, linear warm-up then cosine decay over ``steps`` (all of them,
    for every arm), cross-entropy on every answered position; a held-out check every
    ``check_every`` steps, whose first to reach the criterion keeps the weights aside.

    Returns the model (float16-rounded weights, eval mode), what happened (steps,
    criterion_step: the step of that first check or None, check_loss and check_accuracy
    of the shipped weights, final_loss, train_cpu_seconds) and the float16 weights at the
    criterion (:func:`tm.half_state`; None where no check reached it)."""
    start = time.process_time()
    torch.manual_seed(seed)
    cfg = tm.model_config(task, arm)
    if settings["model"] != tm.TRAINING["model"]:  # a try with other sizes (--heads)
        encoding, changes = tm.ARMS[arm]
        cfg = tm.TinyConfig(encoding=encoding, vocab=tm.vocab_size(task),
                            **{**settings["model"], **changes})
    model = tm.TinyTransformer(cfg)
    total = settings["steps"] if steps is None else steps
    opt = torch.optim.AdamW(model.parameters(), lr=settings["lr"],
                            weight_decay=settings["weight_decay"])
    data = torch.Generator().manual_seed(_seed_of(task, seed))
    at_criterion, criterion_step, loss = None, None, torch.tensor(math.nan)
    for step in range(1, total + 1):
        for group in opt.param_groups:
            group["lr"] = tm.learning_rate(step, total, settings)
        tokens, answers = tm.task_batch(task, settings["batch"], settings["length"], data)
        logits = model(tokens)  # (batch, L_train, vocab)
        loss = F.cross_entropy(logits.flatten(0, 1), answers.flatten(), ignore_index=-1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # checks read fixed sequences with a generator of their own and change nothing:
        # with or without them, the same steps
        if at_criterion is None and step % settings["check_every"] == 0:
            snapshot = tm.half_state(model)
            held_loss, acc = tm.check_scores(_rounded(cfg, snapshot), task, seed)
            if held_loss <= settings["criterion_loss"]:
                at_criterion, criterion_step = snapshot, step
                if log:
                    log(f"  {task} {arm} seed {seed}: criterion at step {step} (held-out "
                        f"loss {held_loss:.4f}, accuracy {acc:.4f})")
    tm.round_to_shipped(model)
    held_loss, acc = tm.check_scores(model, task, seed)
    info = {"steps": total, "criterion_step": criterion_step,
            "check_loss": round(held_loss, 6), "check_accuracy": round(acc, 6),
            "final_loss": round(loss.item(), 6),
            "train_cpu_seconds": round(time.process_time() - start, 1)}
    if at_criterion is not None:
        crit_loss, crit_acc = tm.check_scores(_rounded(cfg, at_criterion), task, seed)
        info.update(criterion_check_loss=round(crit_loss, 6),
                    criterion_check_accuracy=round(crit_acc, 6),
                    criterion_lr=round(tm.learning_rate(criterion_step, total, settings), 8))
    if log:
        log(f"  {task} {arm} seed {seed}: {info}")
    return model, info, at_criterion


def summary(task: str, counts: dict[int, dict]) -> list[float]:
    """Accuracy per group (seeds and sequences pooled) of one curve's counts."""
    hits = np.stack([c["hits"] for c in counts.values()])  # (S, J, bins or N)
    return [round(float(g.mean()), 4) for g in tm.group_accuracies(task, hits)]


def _print_groups(label: str, task: str, values) -> None:
    print(f"{label}: " + ", ".join(f"{g} {v:.3f}" for g, v in zip(tm.group_labels(task), values)))


# --- the parts ------------------------------------------------------------------------------

def part_models(args, settings, record, recorded) -> None:
    """Main arms: shipped weights, and every seed's sensitivity run (:func:`sensitivity_model`)
    evaluated and recorded (not shipped)."""
    record.setdefault("models", {})
    for task in args.tasks:
        for arm in [a for a in args.arms if a in tm.ENCODINGS]:
            states, infos, counts, digests = {}, {}, {}, {}
            for seed in args.seeds:
                model, info, crit = train(task, arm, seed, settings, log=print)
                states[seed], infos[str(seed)] = tm.half_state(model), info
                stopped = sensitivity_model(model, crit)
                counts[seed] = tm.evaluation_counts(stopped, task, seed, "at_criterion")
                digests[seed] = tm.state_sha256(tm.half_state(stopped))
            tm.save_weights(args.out / tm.weights_file(task, arm), states)
            record["models"].setdefault(task, {})[arm] = infos
            recorded[task, arm, "at_criterion"] = (counts, digests)
            reached = sum(info["criterion_step"] is not None for info in infos.values())
            _print_groups(f"{task} {arm} at the criterion ({reached} of {len(infos)} seeds "
                          "reached it; the others at the end of the budget)", task,
                          summary(task, counts))


def sensitivity_model(model: tm.TinyTransformer, crit: dict | None) -> tm.TinyTransformer:
    """The sensitivity run "at_criterion" of one seed: the run stopped at its first check
    that reached the criterion (the float16 weights ``crit`` kept there), or, where no check
    did, at the end of the budget: the shipped weights ``model`` themselves."""
    return model if crit is None else _rounded(model.cfg, crit)


def control_methods(arm: str) -> tuple[str, ...]:
    return ("none", *tm.CONTROL_METHODS) if arm == "rope_base5" else ("none",)


def part_controls(args, settings, record, recorded) -> None:
    """Control arms: trained as the main arms, evaluated, recorded (not shipped)."""
    record.setdefault("controls", {})
    for task in args.tasks:
        for arm in [a for a in args.arms if a in tm.CONTROLS and task in tm.CONTROLS[a][2]]:
            infos, counts, digests = {}, {m: {} for m in control_methods(arm)}, {}
            for seed in args.seeds:
                model, info, _crit = train(task, arm, seed, settings, log=print)
                infos[str(seed)] = info
                digests[seed] = tm.state_sha256(tm.half_state(model))
                for method in control_methods(arm):
                    counts[method][seed] = tm.evaluation_counts(model, task, seed, method)
            record["controls"].setdefault(task, {})[arm] = infos
            for method, by_seed in counts.items():
                recorded[task, arm, method] = (by_seed, digests)
                _print_groups(f"{task} {arm} {method}", task, summary(task, by_seed))


PART_FUNCTIONS = {"models": part_models, "controls": part_controls}


# --- the stored evaluation --------------------------------------------------------------------

def weights_digests(folder: Path = tm.WEIGHTS_DIR) -> dict[str, str]:
    """The SHA-256 of every weights file the shipped curves read."""
    files = sorted({tm.weights_file(task, arm) for task, arm, _m in tm.shipped_curves()})
    return {name: tm.file_sha256(Path(folder) / name) for name in files}


@_one_thread
def evaluate_shipped(folder: Path = tm.WEIGHTS_DIR, log=None) -> dict:
    """Every shipped curve's :func:`rope_core.tiny_model.evaluation_counts`, every seed:
    ``{(task, arm, method): {seed: counts}}`` (each weights file loaded once)."""
    out, loaded = {}, {}
    for curve in tm.shipped_curves():
        task, arm, method = curve
        name = tm.weights_file(task, arm)
        if name not in loaded:
            loaded.clear()
            loaded[name] = tm.load_models(task, arm, folder)
        out[curve] = {seed: tm.evaluation_counts(model, task, seed, method)
                      for seed, model in loaded[name].items()}
        if log:
            _print_groups(" ".join(curve), task, summary(task, out[curve]))
    return out


@_one_thread
def rope_pair_norms(folder: Path = tm.WEIGHTS_DIR) -> dict:
    """Per task and seed, the RoPE model's rope_core.tiny_model.pair_norms."""
    return {task: {seed: tm.pair_norms(model, task)
                   for seed, model in tm.load_models(task, "rope", folder).items()}
            for task in tm.TASKS}


RECORDED_FILE = "recorded.npz"


def save_recorded(folder: Path, recorded: dict) -> None:
    """Keep recorded curves (``{curve: (counts by seed, digests by seed)}``) in
    ``folder/recorded.npz``, with those already there, until an evaluation.npz takes them
    (a run of --parts controls into a folder without the shipped weights)."""
    merged = {**read_recorded(folder), **recorded}
    arrays = {"index": np.array(json.dumps(
        {" ".join(c): {str(s): d for s, d in digests.items()}
         for c, (_counts, digests) in merged.items()}))}
    for c, (counts, _digests) in merged.items():
        for seed, kinds in counts.items():
            for kind, values in kinds.items():
                arrays[f"{' '.join(c)}|{seed}|{kind}"] = values
    np.savez_compressed(Path(folder) / RECORDED_FILE, **arrays)


def read_recorded(folder: Path) -> dict:
    """What :func:`save_recorded` kept in ``folder`` (empty if nothing)."""
    path = Path(folder) / RECORDED_FILE
    if not path.exists():
        return {}
    with np.load(path, allow_pickle=False) as archive:
        index = json.loads(str(archive["index"]))
        out = {}
        for key, digests in index.items():
            counts: dict = {}
            for name in archive.files:
                if name.startswith(key + "|"):
                    _c, seed, kind = name.split("|")
                    counts.setdefault(int(seed), {})[kind] = archive[name]
            out[tuple(key.split(" "))] = ({s: counts[s] for s in sorted(counts)},
                                          {int(s): d for s, d in digests.items()})
    return out


def stored_recorded(folder: Path) -> dict:
    """The recorded curves of an existing evaluation.npz, then of recorded.npz:
    ``{curve: (counts, digests)}``."""
    if not (Path(folder) / tm.EVALUATION_FILE).exists():
        return read_recorded(folder)
    stored = tm.read_evaluation(folder)
    out = {}
    for curve in tm.recorded_curves():
        if curve in stored["curves"] and curve in stored["recorded_sha256"]:
            kinds = stored["curves"][curve]
            out[curve] = ({seed: {k: v[i] for k, v in kinds.items()}
                           for i, seed in enumerate(stored["seeds"])},
                          stored["recorded_sha256"][curve])
    return {**out, **read_recorded(folder)}


def write_evaluation(folder: Path = tm.WEIGHTS_DIR, recorded: dict | None = None) -> Path:
    """Evaluate the shipped models in ``folder`` and write evaluation.npz with them and the
    recorded curves (``recorded``, else those the file already holds)."""
    start = time.process_time()
    counts = evaluate_shipped(folder, log=print)
    recorded = {**stored_recorded(folder), **(recorded or {})}
    for curve in tm.recorded_curves():
        if curve in recorded:
            counts[curve] = recorded[curve][0]
    path = Path(folder) / tm.EVALUATION_FILE
    tm.save_evaluation(path, counts, weights_digests(folder), rope_pair_norms(folder),
                       {c: recorded[c][1] for c in tm.recorded_curves() if c in recorded})
    (Path(folder) / RECORDED_FILE).unlink(missing_ok=True)  # evaluation.npz holds them now
    print(f"evaluation: {len(counts)} curves, {time.process_time() - start:.1f} s of CPU, "
          f"written to {path}")
    return path


# --- checks --------------------------------------------------------------------------------

def _same_counts(got: dict, want: dict, seeds) -> bool:
    """Every count of one curve equal: ``got`` by seed, ``want`` the stored arrays."""
    return all(np.array_equal(np.stack([got[s][kind] for s in seeds]), want[kind])
               for kind in want)


def check_evaluation(folder: Path = tm.WEIGHTS_DIR) -> int:
    """Evaluate every shipped model again and compare every count and the RoPE models' pair
    norms with evaluation.npz (exactly), each weights file's SHA-256 with the one recorded
    there, and the recall design with the evaluation sequences. Returns the number of
    curves, files or arrays that differ."""
    stored = tm.read_evaluation(folder)
    failures = 0
    for name, digest in weights_digests(folder).items():
        if stored["weights_sha256"].get(name) != digest:
            failures += 1
            print(f"{name}: SHA-256 differs from the one evaluation.npz records: DIFFERS")
    design = tm.eval_design(stored["seeds"])
    same = all(np.array_equal(design[k], stored["design"][k]) for k in design)
    failures += not same
    print(f"recall design (store depths, query distances): {'identical' if same else 'DIFFERS'}")
    for task, by_seed in rope_pair_norms(folder).items():
        same = np.array_equal(torch.stack(list(by_seed.values())).numpy(),
                              stored["pair_norms"][task])
        failures += not same
        print(f"pair norms {task} rope: {'identical' if same else 'DIFFERS'}")
    for curve, by_seed in evaluate_shipped(folder).items():
        want = stored["curves"].get(curve)
        same = want is not None and list(by_seed) == stored["seeds"] and \
            _same_counts(by_seed, want, stored["seeds"])
        failures += not same
        print(f"evaluation {' '.join(curve)}: {'identical' if same else 'DIFFERS'}")
    return failures


def check_trained(part: str, pairs, args, settings) -> int:
    """Train ``pairs`` (task, arm, seed) of a part again and compare with what is stored:
    a main arm's weights with the shipped ones (bit for bit), its sensitivity run's
    SHA-256 and counts; a control's weights' SHA-256 and counts. Returns the number of
    differences."""
    stored, record = tm.read_evaluation(), tm.read_record()
    seeds = stored["seeds"]
    failures = 0
    for task, arm, seed in pairs:
        model, info, crit = train(task, arm, seed, settings)
        row = seeds.index(seed)
        if part == "models":
            shipped = tm.load_models(task, arm, seeds=(seed,))[seed]
            same = tm.state_sha256(tm.half_state(model)) == \
                tm.state_sha256(tm.half_state(shipped))
            # the sensitivity run: stopped at the criterion, or at the end where no check
            # reached it
            stopped = sensitivity_model(model, crit)
            runs = {"at_criterion": (stopped, tm.state_sha256(tm.half_state(stopped)))}
            want_info = record["models"][task][arm][str(seed)]
        else:
            same = tm.state_sha256(tm.half_state(model)) == \
                stored["recorded_sha256"][task, arm, "none"][seed]
            runs = {m: (model, None) for m in control_methods(arm)}
            want_info = record["controls"][task][arm][str(seed)]
        failures += not same
        print(f"{task} {arm} seed {seed}: weights {'identical' if same else 'DIFFER'}; "
              f"criterion step {info['criterion_step']} (recorded "
              f"{want_info['criterion_step']})")
        for method, (net, digest) in runs.items():
            want = stored["curves"][task, arm, method]
            got = tm.evaluation_counts(net, task, seed, method)
            ok = all(np.array_equal(got[k], want[k][row]) for k in want)
            if digest is not None:
                ok = ok and digest == stored["recorded_sha256"][task, arm, method][seed]
            failures += not ok
            print(f"  evaluation {task} {arm} {method} seed {seed}: "
                  f"{'identical' if ok else 'DIFFERS'}")
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS)
    parser.add_argument("--tasks", nargs="+", default=list(tm.TASKS), choices=tm.TASKS)
    parser.add_argument("--arms", nargs="+", default=list(tm.ARMS), choices=list(tm.ARMS))
    parser.add_argument("--seeds", nargs="+", type=int, default=tm.TRAINING["seeds"])
    parser.add_argument("--steps", type=int, default=None,
                        help="override the steps of training (a try)")
    parser.add_argument("--out", type=Path, default=tm.WEIGHTS_DIR)
    parser.add_argument("--check", nargs="?", const="sample", default=None,
                        choices=["sample", "evaluation", *PARTS],
                        help="evaluate every shipped model again and retrain a sample "
                        "({}): every count must equal evaluation.npz's; 'evaluation' only "
                        "the first; a part: retrain all of it and compare".format(
                            ", ".join(f"{t} {a} seed {s}" for pairs in CHECK_SAMPLE.values()
                                      for t, a, s in pairs)))
    parser.add_argument("--evaluate", action="store_true",
                        help="only evaluate the models in --out and write evaluation.npz")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # training and the recorded evaluation on one thread
    settings = copy.deepcopy(tm.TRAINING)
    if args.steps is not None:
        if args.out.resolve() == tm.WEIGHTS_DIR.resolve():
            parser.error("--steps trains models the evaluation does not describe: give --out")
        settings["steps"] = args.steps
    if args.check is not None:
        start = time.process_time()
        if args.check in ("models", "controls"):
            pairs = [(t, a, s) for t in args.tasks for a in args.arms for s in args.seeds
                     if (a in tm.ENCODINGS) == (args.check == "models")
                     and (a in tm.ENCODINGS or t in tm.CONTROLS[a][2])]
            failures = check_trained(args.check, pairs, args, settings)
        else:
            failures = check_evaluation(args.out)
            if args.check == "sample":
                for part, pairs in CHECK_SAMPLE.items():
                    failures += check_trained(part, pairs, args, settings)
        print(f"{'OK' if not failures else f'{failures} DIFFER'}; "
              f"{time.process_time() - start:.1f} s of CPU")
        return 1 if failures else 0
    if args.evaluate:
        write_evaluation(args.out)
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    mine: dict = {}
    recorded: dict = {}
    cpu = {}
    for part in PARTS:
        if part in args.parts:
            start = time.process_time()
            PART_FUNCTIONS[part](args, settings, mine, recorded)
            cpu[part] = round(time.process_time() - start, 1)
            print(f"{part}: {cpu[part]} s of CPU")
    merge_record(args.out, mine, cpu, settings)
    if recorded:
        save_recorded(args.out, recorded)
    if all((args.out / tm.weights_file(t, a)).exists() for t, a, _m in tm.shipped_curves()):
        write_evaluation(args.out)  # the weights changed: so may the evaluation
    return 0


def merge_record(folder: Path, mine: dict, cpu: dict, settings: dict) -> dict:
    """Write this run's parts into ``folder/models.json``, read again just before (another
    run may have written other parts meanwhile): each task and arm this run trained
    replaces its entry, the rest is kept."""
    path = Path(folder) / "models.json"
    record = json.loads(path.read_text()) if path.exists() else {}
    record.update(training=settings, eval=tm.EVAL, torch=torch.__version__)
    for key, by_task in mine.items():
        for task, entries in by_task.items():
            record.setdefault(key, {}).setdefault(task, {}).update(entries)
    record["cpu_seconds"] = {p: v for p, v in {**record.get("cpu_seconds", {}), **cpu}.items()}
    record["train_cpu_seconds_total"] = round(sum(record["cpu_seconds"].values()), 1)
    path.write_text(json.dumps(record, indent=2) + "\n")
    print(f"CPU time of the parts recorded: {record['cpu_seconds']}, "
          f"{record['train_cpu_seconds_total']} s in all")
    return record


if __name__ == "__main__":
    sys.exit(main())
