#!/usr/bin/env bash
# gpu-check.sh checks gpucost against a real NVIDIA GPU in under five minutes, and prints PASS,
# FAIL or SKIP per check (docs/gpu-check.md says what each one compares and why):
#
#   driver      nvidia-smi answers; PyTorch with CUDA is there for the workloads
#   nvml        gpucost agent --source nvml against nvidia-smi's own 1 s readings
#   nvidia-smi  gpucost agent --source nvidia-smi against the same readings
#   xml, pmon   gpucost import telemetry of nvidia-smi -q -x and nvidia-smi pmon -o DT recorded
#               under full load
#   profile     gpucost profile of a job alone on GPU 0
#   shared      gpucost profile of a light job beside a heavy one on the same GPU
#   run         examples/pytorch/train.py under gpucost run on CUDA: a notice mid-run, exit 75,
#               a resume into an empty checkpoint directory, the uninterrupted run's loss
#   jobs        gpucost report jobs over that run: productive time and lost work
#   container   the agent as the Dockerfile's image runs it: the binary in a root of its own with
#               glibc only, uid 65532, NVML and the device nodes injected as the NVIDIA container
#               runtime does (needs root for chroot and bind mounts)
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

# The workloads: a matmul loop at a duty cycle on GPU 0 (duty 1 is flat out), busy for duty ×
# period of every period (default 1 s).
cat >"$work/load.py" <<'EOF'
import sys, time, torch
secs, duty = float(sys.argv[1]), float(sys.argv[2])
period = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(a)
torch.cuda.synchronize()
t0 = time.time()
while time.time() - t0 < secs:
    s = time.time()
    while time.time() - s < duty * period:
        for _ in range(4): a @ b
        torch.cuda.synchronize()
    rest = period - (time.time() - s)
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
if want nvml || want nvidia-smi || want xml || want pmon; then
	log "collectors: 45 s of idle, full load and 30% duty on GPU 0, sampled by both agents and by nvidia-smi"
	# nvidia-smi's other outputs, recorded well inside the full-load phase (10 s to 30 s).
	(sleep 18; nvidia-smi -q -x -i 0 >"$work/smi.xml" 2>"$work/smi-xml.log"
		nvidia-smi pmon -i 0 -c 5 -o DT >"$work/pmon.txt" 2>"$work/pmon.log") &
	recorder=$!
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
	# The 30% phase cycles every 100 ms: at a 1 s cycle, samples taken once a second fall in
	# the same part of every cycle, and one H200 run read 98% from nvidia-smi and 1% from the
	# agents over the same seconds.
	"$py" "$work/load.py" 20 1.0 && "$py" "$work/load.py" 15 0.3 0.1
	sleep 2
	kill -TERM "${agents[@]}" "$ref" 2>/dev/null
	wait "${agents[@]}" "$ref" "$recorder" 2>/dev/null
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

# --- xml and pmon: nvidia-smi's other outputs through import telemetry ------------------------
if want xml; then
	rm -f "$work/xml.db"
	if "$gpucost" import telemetry --format nvidia-smi-xml --db "$work/xml.db" "$work/smi.xml" >"$work/import-xml.log" 2>&1 &&
		"$gpucost" report utilization --db "$work/xml.db" --since "$(date -u +%F)" -o json >"$work/util-xml.json" 2>>"$work/import-xml.log"; then
		got=$(json "$work/util-xml.json" "next(('%.1f' % g['util_mean']) for g in d['groups'] if g['key'] == '$uuid')" 2>/dev/null)
		if [ -n "$got" ] && [ "$got" != None ] && awk -v u="$got" 'BEGIN { exit !(u >= 50) }'; then
			result xml PASS "nvidia-smi -q -x under full load stored as $uuid at $got% utilisation"
		else
			result xml FAIL "nvidia-smi -q -x imported, but $uuid shows ${got:-nothing} (want ≥ 50% under full load): see $work/util-xml.json"
		fi
	else
		result xml FAIL "import of nvidia-smi -q -x failed: $(tail -1 "$work/import-xml.log")"
	fi
fi
if want pmon; then
	rm -f "$work/pmon.db"
	if ! grep -qv '^#' "$work/pmon.txt" 2>/dev/null; then
		result pmon SKIP "nvidia-smi pmon recorded no process lines here: $(head -c 200 "$work/pmon.log" "$work/pmon.txt" 2>/dev/null | tr '\n' ' ')"
	elif "$gpucost" import telemetry --format nvidia-smi-pmon --host gpu-check --db "$work/pmon.db" "$work/pmon.txt" >"$work/import-pmon.log" 2>&1 &&
		"$gpucost" report utilization --db "$work/pmon.db" --since "$(date -u +%F)" -o json >"$work/util-pmon.json" 2>>"$work/import-pmon.log"; then
		got=$(json "$work/util-pmon.json" "','.join('%s:%.1f' % (g['key'], g['util_mean']) for g in d['groups'])" 2>/dev/null)
		if [[ "$got" == *gpu0:* ]]; then
			result pmon PASS "nvidia-smi pmon -o DT under full load stored as ${got} (the processes' SM % summed)"
		else
			result pmon FAIL "nvidia-smi pmon imported, but no gpu0 samples (got [${got}]): see $work/pmon.txt"
		fi
	else
		result pmon FAIL "import of nvidia-smi pmon failed: $(tail -1 "$work/import-pmon.log")"
	fi
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

# --- container: the agent as the image runs it, NVML injected ---------------------------------
# The Dockerfile's image is the cgo binary on a glibc-only base, run as 65532; the NVIDIA
# container runtime mounts the GPUs' device nodes and libnvidia-ml.so.1 into it. This builds
# that root here (the binary, the C library it links, /etc/passwd), checks that the agent there
# cannot find NVML before the injection and finds the same GPU after it.
if want container; then
	root=$work/rootfs
	if [ "$(id -u)" != 0 ] || ! command -v chroot >/dev/null; then
		result container SKIP "needs root and chroot to build the image's root filesystem"
	else
		log "container: the agent in a glibc-only root as uid 65532, before and after NVML is injected"
		# A root left by an earlier run may still have the host's /dev, /proc and /sys mounted in
		# it: unmount them first, and never let rm cross into another file system.
		for m in dev proc sys; do mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"; done
		rm -rf --one-file-system "$root" && mkdir -p "$root"/{tmp,dev,proc,sys,etc,usr/lib/x86_64-linux-gnu}
		chmod 1777 "$root/tmp"
		cp "$gpucost" "$root/gpucost"
		# The C library as a glibc base image holds it: what gpucost links and what NVML needs.
		nvml=$(ldconfig -p | awk '/libnvidia-ml\.so\.1 / {print $NF; exit}')
		for lib in $(ldd "$gpucost" ${nvml:+"$nvml"} | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $1 !~ /:$/ {print $1}' | sort -u); do
			case $lib in *nvidia*) continue ;; esac
			cp -L --parents "$lib" "$root"
		done
		echo 'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$root/etc/passwd"
		mounted=()
		for m in dev proc sys; do mount --bind "/$m" "$root/$m" 2>>"$work/container.log" && mounted+=("$root/$m"); done
		# Where bind mounts are refused, the device nodes themselves, as the runtime creates them.
		[ -e "$root/dev/null" ] || cp -a /dev/null /dev/nvidia* "$root/dev/" 2>>"$work/container.log"
		# stop PID: TERM, then KILL after 10 s; its exit status. chroot execs gpucost in the
		# process it was started as, so TERM reaches the agent.
		stop() {
			kill -TERM "$1" 2>/dev/null
			for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
			kill -KILL "$1" 2>/dev/null
			wait "$1"
		}
		in_image() { chroot --userspec=65532:65532 "$root" /gpucost "$@"; }
		chroot --userspec=65532:65532 "$root" /gpucost agent --source nvml --interval 1s --flush 1s --db /tmp/before.db >"$work/container-before.log" 2>&1 &
		pid=$!
		sleep 4
		stop "$pid"
		before=$?
		if [ -z "$nvml" ]; then
			result container FAIL "the host's libnvidia-ml.so.1 is not in ldconfig's cache: nothing to inject"
		else
			cp -L "$nvml" "$root/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"
			ldconfig -r "$root" 2>>"$work/container.log" # the runtime's update-ldcache hook
			in_image version >"$work/container-version.txt" 2>&1
			chroot --userspec=65532:65532 "$root" /gpucost agent --source nvml --interval 1s --flush 1s --db /tmp/agent.db >"$work/container-agent.log" 2>&1 &
			pid=$!
			sleep 6
			stop "$pid"
			after=$?
			out=$work/container-util.json
			"$gpucost" report utilization --db "$root/tmp/agent.db" --since "$(date -u +%F)" -o json >"$out" 2>>"$work/container.log"
			got=$(json "$out" "','.join(g['key'] for g in d['groups'])" 2>/dev/null)
			if [ "$before" -ne 0 ] && [ "$after" -eq 0 ] && [[ ",$got," == *",$uuid,"* ]]; then
				result container PASS "without NVML the agent exits $before ($(grep -m1 -io 'nvml[^"]*' "$work/container-before.log" | cut -c1-90)); injected, as uid 65532 in a glibc-only root, it stored $uuid"
			else
				result container FAIL "before injection exit $before (want non-zero), after exit $after (want 0), GPUs stored [${got}] (want $uuid): see $work/container-*.log"
				{ ldd "$nvml"; find "$root" -path "$root/proc" -prune -o -path "$root/sys" -prune -o -path "$root/dev" -prune -o -print; ls -la "$root/dev" | head -20
					LD_DEBUG=libs timeout 3 chroot --userspec=65532:65532 "$root" /gpucost agent --source nvml --interval 1s --db /tmp/debug.db; } >>"$work/container-debug.log" 2>&1
			fi
		fi
		for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null; done
	fi
fi

printf '%s\n' "${summary[@]}" >"$work/summary.txt"
exit "$failed"
