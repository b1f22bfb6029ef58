#!/usr/bin/env bash
# gpu-check.sh checks gpucost against a real NVIDIA GPU in under five minutes, and prints PASS,
# FAIL or SKIP per check (docs/gpu-check.md says what each one compares and why):
#
#   driver      nvidia-smi answers; PyTorch with CUDA is there for the workloads
#   nvml        gpucost agent --source nvml against nvidia-smi's own 1 s readings
#   nvidia-smi  gpucost agent --source nvidia-smi against the same readings
#   profile     gpucost profile of a job alone on GPU 0
#   shared      gpucost profile of a light job beside a heavy one on the same GPU
#   run         examples/pytorch/train.py under gpucost run on CUDA: a notice mid-run, exit 75,
#               a resume into an empty checkpoint directory, the uninterrupted run's loss
#   jobs        gpucost report jobs over that run: productive time and lost work
#
# Usage:
#   scripts/gpu-check.sh                 # builds gpucost with go, runs every check on GPU 0
#   GPUCOST=/usr/local/bin/gpucost scripts/gpu-check.sh
#   scripts/gpu-check.sh nvml profile    # only these checks
#
# Exit status: 0 every check run passed, 1 a check failed, 3 no NVIDIA GPU (nothing to check).
# Work files stay in $GPU_CHECK_DIR (default a new temporary directory) for a look afterwards.
set -u -o pipefail

cd "$(dirname "$0")/.."
repo=$PWD
work=${GPU_CHECK_DIR:-$(mktemp -d -t gpucost-gpu-check.XXXXXX)}
mkdir -p "$work"
py=${PYTHON:-python3}
failed=0
declare -a summary=()

log() { printf '%s  %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
result() { # result CHECK PASS|FAIL|SKIP DETAIL
	printf '%-11s %-4s %s\n' "$1" "$2" "$3"
	summary+=("$(printf '%-11s %-4s %s' "$1" "$2" "$3")")
	[ "$2" = FAIL ] && failed=1
	return 0
}
want() { # want CHECK: true when the check was asked for (all when none was named)
	[ ${#checks[@]} -eq 0 ] && return 0
	local c
	for c in "${checks[@]}"; do [ "$c" = "$1" ] && return 0; done
	return 1
}
checks=("$@")

# The workloads: a matmul loop at a duty cycle on GPU 0 (duty 1 is flat out).
cat >"$work/load.py" <<'EOF'
import sys, time, torch
secs, duty = float(sys.argv[1]), float(sys.argv[2])
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(a)
torch.cuda.synchronize()
t0 = time.time()
while time.time() - t0 < secs:
    s = time.time()
    while time.time() - s < duty:
        for _ in range(4): a @ b
        torch.cuda.synchronize()
    rest = 1.0 - (time.time() - s)
    if rest > 0: time.sleep(rest)
EOF

# --- driver ---------------------------------------------------------------------------------
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
	result driver SKIP "no NVIDIA GPU here (nvidia-smi missing or failing): nothing to check"
	exit 3
fi
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0 | tr -d ' ')
gpuname=$(nvidia-smi --query-gpu=name,driver_version,mig.mode.current --format=csv,noheader -i 0)
if ! "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
	result driver FAIL "GPU 0 $uuid ($gpuname), but $py has no PyTorch with CUDA: pip install torch"
	printf '%s\n' "${summary[@]}" >"$work/summary.txt"
	exit 1
fi
result driver PASS "GPU 0 $uuid ($gpuname); work files in $work"
export CUDA_VISIBLE_DEVICES=0

gpucost=${GPUCOST:-}
if [ -z "$gpucost" ]; then
	log "building gpucost"
	gpucost=$work/gpucost
	if ! go build -o "$gpucost" ./cmd/gpucost 2>"$work/build.log"; then
		result build FAIL "go build ./cmd/gpucost failed: see $work/build.log"
		exit 1
	fi
fi

# json FILE EXPR: evaluates the Python expression EXPR over the JSON document in FILE as d.
json() { "$py" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# --- nvml and nvidia-smi: the collectors against nvidia-smi's own readings --------------------
if want nvml || want nvidia-smi; then
	log "collectors: 45 s of idle, full load and 30% duty on GPU 0, sampled by both agents and by nvidia-smi"
	nvidia-smi -i 0 --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits \
		-lms 1000 >"$work/reference.csv" &
	ref=$!
	agents=()
	for src in nvml nvidia-smi; do
		rm -f "$work/$src.db"
		"$gpucost" agent --source "$src" --interval 1s --flush 5s --db "$work/$src.db" 2>"$work/agent-$src.log" &
		agents+=($!)
	done
	sleep 10
	"$py" "$work/load.py" 20 1.0 && "$py" "$work/load.py" 15 0.3
	sleep 2
	kill -TERM "${agents[@]}" "$ref" 2>/dev/null
	wait "${agents[@]}" "$ref" 2>/dev/null
	refmean=$(awk -F', *' '{s += $2; n++} END {if (n) printf "%.2f", s / n}' "$work/reference.csv")
	refpeak=$(awk -F', *' '$3 > m {m = $3} END {printf "%.0f", m}' "$work/reference.csv")
	for src in nvml nvidia-smi; do
		want "$src" || continue
		out=$work/util-$src.json
		if ! "$gpucost" report utilization --db "$work/$src.db" --since "$(date -u +%F)" -o json >"$out" 2>"$work/report-$src.log"; then
			result "$src" FAIL "report utilization over the agent's store failed: $(tail -1 "$work/report-$src.log")"
			continue
		fi
		got=$(json "$out" "next((round(g['util_mean'], 2), round(g['mem_peak_mib'])) for g in d['groups'] if g['key'] == '$uuid')" 2>/dev/null)
		if [ -z "$got" ] || [ "$got" = None ]; then
			result "$src" FAIL "no samples of $uuid in the agent's store (see $work/agent-$src.log)"
			continue
		fi
		read -r mean peak < <(tr -d '(),' <<<"$got")
		verdict=$(awk -v m="$mean" -v r="$refmean" -v p="$peak" -v rp="$refpeak" 'BEGIN {
			d = m - r; if (d < 0) d = -d
			pd = p - rp; if (pd < 0) pd = -pd
			print (d <= 5 && pd <= 0.05 * rp + 512) ? "PASS" : "FAIL" }')
		result "$src" "$verdict" "mean utilisation $mean% against nvidia-smi's $refmean% (within 5 points); VRAM peak $peak MiB against $refpeak MiB"
	done
fi

# --- profile: a job alone ---------------------------------------------------------------------
if want profile; then
	log "profile: 15 s flat out, alone"
	out=$work/profile-alone.json
	"$gpucost" profile --source nvml --interval 500ms -o json -- "$py" "$work/load.py" 15 1.0 >"$out" 2>"$work/profile-alone.log"
	got=$(json "$out" "'%s %s %.1f %s' % (d.get('attribution', 'none'), d['verdict'].replace(' ', '_'), d['util_mean'], ','.join(d['gpus']))" 2>/dev/null)
	read -r attribution verdict mean gpus <<<"$got"
	if [ "$attribution" = process ] && [ "$verdict" = well_utilized ] && [ "$gpus" = "$uuid" ]; then
		result profile PASS "alone: its own $mean% mean, well utilized, on $gpus only"
	else
		result profile FAIL "alone: attribution ${attribution:-none}, verdict ${verdict:-none}, $mean% mean, GPUs ${gpus:-none}; want its own processes' figures, well utilized, on $uuid (see $out)"
	fi
fi

# --- shared: a light job beside a heavy one ---------------------------------------------------
if want shared; then
	log "shared: a 10% duty job profiled beside a flat-out one on the same GPU"
	"$py" "$work/load.py" 30 1.0 &
	hog=$!
	sleep 5
	out=$work/profile-shared.json
	"$gpucost" profile --source nvml --interval 500ms -o json -- "$py" "$work/load.py" 15 0.1 >"$out" 2>"$work/profile-shared.log"
	wait "$hog"
	got=$(json "$out" "'%s %s %.1f %s' % (d.get('attribution', 'none'), d['verdict'].replace(' ', '_'), d['util_mean'], ','.join(str(o['pid']) for o in d.get('others') or []))" 2>/dev/null)
	read -r attribution verdict mean others <<<"$got"
	if [ "$attribution" = process ] && [ "$verdict" != well_utilized ] && [[ ",$others," == *",$hog,"* ]]; then
		result shared PASS "its own share $mean% ($verdict); names the other process, pid $hog"
	else
		result shared FAIL "attribution ${attribution:-none}, verdict ${verdict:-none}, $mean% mean, others [${others}]; want the job's own share, not well utilized, and pid $hog named (see $out)"
	fi
fi

# --- run and jobs: the example under gpucost run, with a notice and a resume -------------------
if want run || want jobs; then
	train=("$py" "$repo/examples/pytorch/train.py" --steps 3000 --every 250 --seed 7 --step-delay 0.005)
	store=$work/jobs
	rm -rf "$store" "$work/ckpt-"*
	log "run: the example uninterrupted, then with a notice after its first checkpoint, then resumed"
	"$gpucost" run --name gpu-check-ref --checkpoint-dir "$work/ckpt-ref" --store "file://$store" --cloud none --max-restarts 0 \
		--instance-type gpu-check --price 1.00 -- "${train[@]}" >"$work/run-ref.out" 2>"$work/run-ref.log"
	ref=$?
	"$gpucost" run --name gpu-check --checkpoint-dir "$work/ckpt-1" --store "file://$store" --cloud none --max-restarts 0 \
		--grace 60s --instance-type gpu-check --price 1.00 -- "${train[@]}" >"$work/run-1.out" 2>"$work/run-1.log" &
	runner=$!
	for _ in $(seq 600); do
		[ -e "$work/ckpt-1/ckpt-00000250.pt" ] && break
		kill -0 "$runner" 2>/dev/null || break
		sleep 0.1
	done
	sleep 1.5
	kill -TERM "$runner" 2>/dev/null
	wait "$runner"
	first=$?
	"$gpucost" run --name gpu-check --checkpoint-dir "$work/ckpt-2" --store "file://$store" --cloud none --max-restarts 0 \
		--instance-type gpu-check --price 1.00 -- "${train[@]}" >"$work/run-2.out" 2>"$work/run-2.log"
	second=$?
	want_loss=$(sed -n 's/^final step [0-9]* loss //p' "$work/run-ref.out")
	got_loss=$(sed -n 's/^final step [0-9]* loss //p' "$work/run-2.out")
	resumed=$(grep -o 'resumed from [^ ]* at step [0-9]*' "$work/run-2.log" | tail -1)
	if want run; then
		if [ "$ref" -eq 0 ] && [ "$first" -eq 75 ] && [ "$second" -eq 0 ] && [ -n "$resumed" ] && [ -n "$want_loss" ] && [ "$got_loss" = "$want_loss" ]; then
			result run PASS "notice → exit 75, then $resumed, final loss $got_loss equal to the uninterrupted run's"
		else
			result run FAIL "uninterrupted exit $ref, noticed exit $first (want 75), resumed exit $second (${resumed:-did not resume}); loss ${got_loss:-none} against ${want_loss:-none} (see $work/run-*.log)"
		fi
	fi
	if want jobs; then
		out=$work/jobs.json
		if "$gpucost" report jobs --store "file://$store" --job gpu-check -o json >"$out" 2>"$work/jobs.log"; then
			got=$(json "$out" "(lambda j: '%.1f %.1f %d' % (j['productive_s'], j['lost_work_s'], j['interruptions']))(d[0] if isinstance(d, list) else d)" 2>/dev/null)
			read -r productive lost interruptions <<<"$got"
			verdict=$(awk -v p="${productive:-0}" -v l="${lost:-0}" -v i="${interruptions:-0}" 'BEGIN { print (p > 0 && l >= 0 && l <= 10 && i == 1) ? "PASS" : "FAIL" }')
			result jobs "$verdict" "productive ${productive:-?} s, lost work ${lost:-?} s (the example saves on the notice: want at most 10 s), interruptions ${interruptions:-?} (want 1)"
		else
			result jobs FAIL "report jobs failed: $(tail -1 "$work/jobs.log")"
		fi
	fi
fi

printf '%s\n' "${summary[@]}" >"$work/summary.txt"
exit "$failed"
