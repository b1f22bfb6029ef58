#!/usr/bin/env python3
"""A minimal PyTorch training loop that is safe on spot machines under `gpucost run`.

It resumes from GPUCOST_RESUME_FROM, writes a checkpoint every --every steps into
GPUCOST_CHECKPOINT_DIR through a temporary file and a rename (so a half-written checkpoint is
never seen), and on SIGTERM (the runner's --notice-signal) saves at the next step boundary and
exits. The notice deadline, when there is one, is in the file GPUCOST_NOTICE_FILE names.
"""

import argparse
import os
import signal
import sys
import time

import torch
from torch import nn


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=10_000, help="steps to train")
    p.add_argument("--every", type=int, default=500, help="checkpoint every N steps")
    p.add_argument("--keep", type=int, default=2, help="checkpoints to keep locally")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
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


def save(ckpt_dir, step, model, opt, keep):
    """Write ckpt-<step>.pt atomically, then drop all but the newest `keep` checkpoints."""
    name = os.path.join(ckpt_dir, f"ckpt-{step:08d}.pt")
    tmp = os.path.join(ckpt_dir, f".ckpt-{step:08d}.pt.tmp")
    torch.save({"step": step, "model": model.state_dict(), "opt": opt.state_dict(),
                "rng": torch.get_rng_state()}, tmp)
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

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 1)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    step = 0
    if resume:
        state = torch.load(resume, map_location=device)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        torch.set_rng_state(state["rng"])
        step = state["step"]
        print(f"resumed from {resume} at step {step}", file=sys.stderr)

    target = torch.randn(64, 1, device=device)
    while step < args.steps:
        if Stop.requested:
            path = save(ckpt_dir, step, model, opt, args.keep)
            print(f"notice (deadline {notice_deadline()}): saved {path}, exiting", file=sys.stderr)
            return 0
        x = torch.randn(args.batch, 64, device=device)
        loss = nn.functional.mse_loss(model(x), x @ target)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        if step % args.every == 0 or step == args.steps:
            save(ckpt_dir, step, model, opt, args.keep)
            print(f"step {step} loss {loss.item():.4f} {time.strftime('%H:%M:%S')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
