#!/usr/bin/env python3
"""A minimal PyTorch training loop that is safe on spot machines under `gpucost run`.

It resumes from GPUCOST_RESUME_FROM, writes a checkpoint every --every steps into
GPUCOST_CHECKPOINT_DIR through a temporary file and a rename (so a half-written checkpoint is
never seen), and on SIGTERM (the runner's --notice-signal) saves at the next step boundary and
exits 75. The notice deadline, when there is one, is in the file GPUCOST_NOTICE_FILE names.

A run is deterministic for a given --seed on CPU: the model, the target and every batch come
from seeded generators whose states are in the checkpoint, so a run that is interrupted and
resumed ends with exactly the loss of one that was not. The last line on stdout is
"final step N loss L", with L printed exactly (Python's repr of the float).
"""

import argparse
import os
import signal
import sys
import time

# cuBLAS needs this before CUDA starts for deterministic matrix products.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch  # noqa: E402
from torch import nn  # noqa: E402

EXIT_INTERRUPTED = 75  # what `gpucost run` exits with on a notice; the checkpoint is saved


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=10_000, help="steps to train")
    p.add_argument("--every", type=int, default=500, help="checkpoint every N steps")
    p.add_argument("--keep", type=int, default=2, help="checkpoints to keep locally")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--width", type=int, default=64, help="input features")
    p.add_argument("--hidden", type=int, default=256, help="hidden units")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0, help="seed of the model, the target and the data")
    p.add_argument("--step-delay", type=float, default=0.0,
                   help="seconds to sleep after each step, to try notices on a small CPU run")
    return p.parse_args()


class Stop:
    """Set by the notice signal; the loop checks it at every step boundary."""

    requested = False

    @classmethod
    def handler(cls, signum, frame):
        cls.requested = True


def notice_deadline():
    """Return the notice deadline the runner wrote, or None."""
    path = os.environ.get("GPUCOST_NOTICE_FILE", "")
    try:
        with open(path) as f:
            for line in f:
                name, _, value = line.strip().partition("=")
                if name == "GPUCOST_NOTICE_DEADLINE":
                    return value
    except OSError:
        pass
    return None


def rng_state(data):
    """Return every random state the run depends on, as CPU tensors."""
    state = {"cpu": torch.get_rng_state(), "data": data.get_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state, data):
    """Restore what rng_state saved. RNG states must be CPU ByteTensors, whatever the device:
    checkpoints are loaded with map_location="cpu" so a GPU run never moves them. A checkpoint
    from before the data generator was saved holds only the CPU state."""
    if torch.is_tensor(state):
        state = {"cpu": state, "data": data.get_state()}
    torch.set_rng_state(state["cpu"].cpu())
    data.set_state(state["data"].cpu())
    if torch.cuda.is_available() and "cuda" in state:
        torch.cuda.set_rng_state_all([s.cpu() for s in state["cuda"]])


def save(ckpt_dir, step, model, opt, data, keep):
    """Write ckpt-<step>.pt atomically, then drop all but the newest `keep` checkpoints."""
    name = os.path.join(ckpt_dir, f"ckpt-{step:08d}.pt")
    tmp = os.path.join(ckpt_dir, f".ckpt-{step:08d}.pt.tmp")
    torch.save({"step": step, "model": model.state_dict(), "opt": opt.state_dict(),
                "rng": rng_state(data)}, tmp)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, name)
    old = sorted(n for n in os.listdir(ckpt_dir) if n.startswith("ckpt-") and n.endswith(".pt"))
    for n in old[:-keep]:
        os.remove(os.path.join(ckpt_dir, n))
    return name


def main():
    args = parse_args()
    ckpt_dir = os.environ.get("GPUCOST_CHECKPOINT_DIR", "checkpoints")
    resume = os.environ.get("GPUCOST_RESUME_FROM", "")
    os.makedirs(ckpt_dir, exist_ok=True)
    signal.signal(signal.SIGTERM, Stop.handler)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.manual_seed(args.seed)  # seeds the CPU and every CUDA generator
    # The problem and the data come from their own CPU generator, drawn the same way on every
    # device, before anything is resumed: a resumed run trains on the same target.
    data = torch.Generator().manual_seed(args.seed + 1)
    target = torch.randn(args.width, 1, generator=data).to(device)
    model = nn.Sequential(nn.Linear(args.width, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 1)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    step = 0
    if resume:
        state = torch.load(resume, map_location="cpu")
        model.load_state_dict(state["model"])  # copies into the parameters on `device`
        opt.load_state_dict(state["opt"])  # moves the optimizer state to its parameters' device
        set_rng_state(state["rng"], data)
        step = state["step"]
        print(f"resumed from {resume} at step {step}", file=sys.stderr)

    loss = None
    while step < args.steps:
        if Stop.requested:
            path = save(ckpt_dir, step, model, opt, data, args.keep)
            print(f"notice (deadline {notice_deadline()}): saved {path} at step {step}, exiting", file=sys.stderr)
            return EXIT_INTERRUPTED
        x = torch.randn(args.batch, args.width, generator=data).to(device)
        loss = nn.functional.mse_loss(model(x), x @ target)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        if step % args.every == 0 or step == args.steps:
            save(ckpt_dir, step, model, opt, data, args.keep)
            print(f"step {step} loss {loss.item():.4f} {time.strftime('%H:%M:%S')}", file=sys.stderr)
        if args.step_delay > 0:
            time.sleep(args.step_delay)
    if loss is not None:
        print(f"final step {step} loss {loss.item()!r}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
