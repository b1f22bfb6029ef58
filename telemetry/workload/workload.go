// Package workload finds the workload a process belongs to — its Kubernetes pod and container,
// or its batch job — from the process's cgroup and environment under /proc, so that GPU
// collectors can attribute a GPU to the work that uses it.
package workload

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
)

// Labels that attribute a GPU to the processes on it, besides gpucost.LabelJob.
const (
	LabelPodUID      = "pod_uid"
	LabelContainerID = "container_id"
)

// Workload is what a process's cgroup and environment say about who runs it. Empty fields are
// unknown.
type Workload struct {
	PodUID      string // Kubernetes pod UID
	ContainerID string // 64 hex digits
	Job         string // GPUCOST_JOB, or the Slurm job ID
}

var (
	// podUIDPattern finds a Kubernetes pod UID in a cgroup path: ".../pod<uid>/..." (cgroupfs
	// driver) or "...-pod<uid with _ for ->.slice" (systemd driver).
	podUIDPattern = regexp.MustCompile(`pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})`)
	// containerPattern finds a container ID: 64 hex digits as the last path element, perhaps
	// inside "docker-….scope", "cri-containerd-….scope" or "crio-….scope".
	containerPattern = regexp.MustCompile(`/(?:[a-z-]+-)?([0-9a-f]{64})(?:\.scope)?$`)
	// slurmJobPattern finds a Slurm job in its cgroup: ".../job_1234/step_0".
	slurmJobPattern = regexp.MustCompile(`/job_([0-9]+)(?:/|$)`)
)

// Of reads /proc/<pid>/cgroup and environ under procRoot ("" means /proc). A process that has
// exited or cannot be read belongs to no known workload.
func Of(procRoot string, pid int) Workload {
	if procRoot == "" {
		procRoot = "/proc"
	}
	dir := filepath.Join(procRoot, strconv.Itoa(pid))
	var w Workload
	if data, err := os.ReadFile(filepath.Join(dir, "cgroup")); err == nil {
		w = ParseCgroup(data)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "environ")); err == nil {
		if job := ParseEnviron(data); job != "" {
			w.Job = job
		}
	}
	return w
}

// ParseCgroup finds the pod UID, container ID and Slurm job in the text of /proc/<pid>/cgroup,
// whose lines are "hierarchy-ID:controllers:path" (cgroup v1) or "0::path" (v2).
func ParseCgroup(data []byte) Workload {
	var w Workload
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		parts := bytes.SplitN(line, []byte(":"), 3)
		if len(parts) != 3 {
			continue
		}
		path := string(parts[2])
		if m := podUIDPattern.FindStringSubmatch(path); m != nil && w.PodUID == "" {
			w.PodUID = strings.ReplaceAll(m[1], "_", "-")
		}
		if m := containerPattern.FindStringSubmatch(path); m != nil && w.ContainerID == "" {
			w.ContainerID = m[1]
		}
		if m := slurmJobPattern.FindStringSubmatch(path); m != nil && w.Job == "" {
			w.Job = m[1]
		}
	}
	return w
}

// ParseEnviron returns the job the text of /proc/<pid>/environ names: GPUCOST_JOB, set by
// whoever starts the job, or else Slurm's SLURM_JOB_ID.
func ParseEnviron(data []byte) string {
	var slurm string
	for kv := range bytes.SplitSeq(data, []byte{0}) {
		k, v, _ := bytes.Cut(kv, []byte("="))
		switch string(k) {
		case "GPUCOST_JOB":
			if len(v) > 0 {
				return string(v)
			}
		case "SLURM_JOB_ID":
			slurm = string(v)
		}
	}
	return slurm
}

// Labels returns the labels of the workloads using one GPU: each label's values joined, sorted,
// with "+" when several pods or jobs share the GPU. It returns nil for none.
func Labels(ws []Workload) gpucost.Labels {
	var labels gpucost.Labels
	add := func(key string, get func(Workload) string) {
		var vals []string
		for _, w := range ws {
			if v := get(w); v != "" && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			return
		}
		slices.Sort(vals)
		if labels == nil {
			labels = gpucost.Labels{}
		}
		labels[key] = strings.Join(vals, "+")
	}
	add(LabelPodUID, func(w Workload) string { return w.PodUID })
	add(LabelContainerID, func(w Workload) string { return w.ContainerID })
	add(gpucost.LabelJob, func(w Workload) string { return w.Job })
	return labels
}
