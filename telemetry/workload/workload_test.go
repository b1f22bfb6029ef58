package workload

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseCgroup(t *testing.T) {
	for _, c := range []struct {
		name, cgroup string
		want         Workload
	}{
		{"kubernetes, cgroup v2, systemd, containerd",
			"0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod7c1e6a52_3f0b_4d8e_9a61_2b5c8d0e4f13.slice/cri-containerd-4f1c2b9e8d7a6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b.scope\n",
			Workload{PodUID: "7c1e6a52-3f0b-4d8e-9a61-2b5c8d0e4f13", ContainerID: "4f1c2b9e8d7a6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b"}},
		{"kubernetes, cgroup v1, cgroupfs, docker",
			"12:memory:/kubepods/besteffort/pod0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d/e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9\n1:name=systemd:/\n",
			Workload{PodUID: "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d", ContainerID: "e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9"}},
		{"docker without kubernetes",
			"0::/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n",
			Workload{ContainerID: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}},
		{"slurm, cgroup v1", "5:devices:/slurm/uid_1000/job_4242/step_0\n", Workload{Job: "4242"}},
		{"slurm, cgroup v2", "0::/system.slice/slurmstepd.scope/job_4243/step_batch/user/task_0\n", Workload{Job: "4243"}},
		{"a login session", "0::/user.slice/user-1000.slice/session-3.scope\n", Workload{}},
		{"not a cgroup file", "hello\n\x00\xff", Workload{}},
	} {
		if got := ParseCgroup([]byte(c.cgroup)); got != c.want {
			t.Errorf("%s: ParseCgroup = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestParseEnviron(t *testing.T) {
	for env, want := range map[string]string{
		"PATH=/bin\x00SLURM_JOB_ID=4242\x00":                "4242",
		"GPUCOST_JOB=eval-nightly\x00SLURM_JOB_ID=4242\x00": "eval-nightly",
		"SLURM_JOB_ID=4242\x00GPUCOST_JOB=eval-nightly":     "eval-nightly",
		"GPUCOST_JOB=\x00SLURM_JOB_ID=7\x00":                "7",
		"PATH=/bin\x00HOME=/root\x00":                       "",
		"":                                                  "",
	} {
		if got := ParseEnviron([]byte(env)); got != want {
			t.Errorf("ParseEnviron(%q) = %q, want %q", env, got, want)
		}
	}
}

func TestLabels(t *testing.T) {
	got := Labels([]Workload{{Job: "4243"}, {Job: "eval-nightly"}, {Job: "4243"}, {PodUID: "p", ContainerID: "c"}}).String()
	if want := "container_id=c,job=4243+eval-nightly,pod_uid=p"; got != want {
		t.Errorf("Labels = %q, want %q", got, want)
	}
	if l := Labels([]Workload{{}, {}}); l != nil {
		t.Errorf("Labels of unknown workloads = %v, want nil", l)
	}
}

func TestOf(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "51002")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "cgroup"), []byte("5:devices:/slurm/uid_1000/job_4242/step_0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "environ"), []byte("GPUCOST_JOB=train-llm\x00"), 0o644)
	if got := Of(root, 51002); got != (Workload{Job: "train-llm"}) {
		t.Errorf("Of(51002) = %+v, want job train-llm (GPUCOST_JOB wins over the cgroup's Slurm job)", got)
	}
	if got := Of(root, 99999); got != (Workload{}) {
		t.Errorf("Of(an exited process) = %+v, want nothing", got)
	}
}

func FuzzParseCgroup(f *testing.F) {
	f.Add([]byte("0::/kubepods.slice/kubepods-pod7c1e6a52_3f0b_4d8e_9a61_2b5c8d0e4f13.slice/cri-containerd-4f1c2b9e8d7a6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b.scope\n"))
	f.Add([]byte("5:devices:/slurm/uid_1000/job_4242/step_0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w := ParseCgroup(data)
		if len(w.ContainerID) != 0 && len(w.ContainerID) != 64 || len(w.PodUID) != 0 && len(w.PodUID) != 36 {
			t.Fatalf("ParseCgroup = %+v", w)
		}
	})
}

func FuzzParseEnviron(f *testing.F) {
	f.Add([]byte("GPUCOST_JOB=eval\x00SLURM_JOB_ID=4242\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if job := ParseEnviron(data); len(job) > len(data) {
			t.Fatalf("ParseEnviron = %q from %q", job, data)
		}
	})
}
