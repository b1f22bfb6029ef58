package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/queue/natsserver"
)

// runQueueCLI runs gpucost with args and stdin against the NATS server at url.
func runQueueCLI(t *testing.T, url, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{
		stdin:  strings.NewReader(stdin),
		stdout: &out,
		stderr: &errb,
		getenv: func(k string) string {
			if k == "GPUCOST_NATS" {
				return url
			}
			return ""
		},
		now: time.Now,
	}
	code := run(context.Background(), args, e)
	return code, out.String(), errb.String()
}

func TestQueueCommands(t *testing.T) {
	s, err := natsserver.Start(natsserver.Options{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	url := s.URL()
	items := `{"id":"a","text":"one"}` + "\n" + `{"id":2,"text":"two"}` + "\n" + "not json\n"

	code, out, errOut := runQueueCLI(t, url, items, "queue", "push", "--queue", "cli", "-")
	if code != exitOK || !strings.Contains(out, "│      3 │          0 │         1 │") || !strings.Contains(out, "stdin:3: not a JSON object") {
		t.Fatalf("queue push: exit %d\n%s%s", code, out, errOut)
	}
	results := t.TempDir()
	code, out, errOut = runQueueCLI(t, url, "", "queue", "work", "--queue", "cli", "--results", results,
		"--batch", "10", "--exit-when-empty", "--", "cat")
	if code != exitOK || !strings.Contains(out, "2 done, 0 already done, 0 retried, 1 dead-lettered") {
		t.Fatalf("queue work: exit %d\n%s%s", code, out, errOut)
	}
	wantResults := map[string]string{"a": `{"id":"a","text":"one"}` + "\n", "2": `{"id":2,"text":"two"}` + "\n"}
	code, out, errOut = runQueueCLI(t, url, "", "queue", "results", "--results", results)
	if code != exitOK || out != wantResults["a"]+wantResults["2"] || !strings.Contains(errOut, "2 results from 1 segments") {
		t.Errorf("queue results: exit %d, stdout %q, stderr %q; want both results in order, and 2 results from 1 segments", code, out, errOut)
	}
	code, out, errOut = runQueueCLI(t, url, "", "queue", "results", "--results", results, "--id", "2")
	if code != exitOK || out != wantResults["2"] {
		t.Errorf("queue results --id 2: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, wantResults["2"])
	}
	if code, _, errOut = runQueueCLI(t, url, "", "queue", "results", "--results", results, "--id", "zz"); code != exitNotFound {
		t.Errorf("queue results --id zz: exit %d, stderr %q; want %d", code, errOut, exitNotFound)
	}
	perItem := t.TempDir()
	if code, out, errOut = runQueueCLI(t, url, "", "queue", "results", "--results", results, "--to", perItem); code != exitOK {
		t.Errorf("queue results --to: exit %d\n%s%s", code, out, errOut)
	}
	for id, want := range wantResults {
		got, err := os.ReadFile(filepath.Join(perItem, id))
		if err != nil || string(got) != want {
			t.Errorf("queue results --to: %s = %q, %v; want %q", id, got, err, want)
		}
	}
	code, out, errOut = runQueueCLI(t, url, "", "queue", "dead", "--queue", "cli", "--output", "csv")
	if code != exitOK || !strings.Contains(out, "stdin:3,stdin:3: malformed item: not a JSON object") {
		t.Errorf("queue dead --output csv: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runQueueCLI(t, url, "", "queue", "status", "--queue", "cli", "--output", "json")
	var st struct {
		Pending, InFlight, Done, Dead uint64
		Rate                          float64
	}
	if code != exitOK || json.Unmarshal([]byte(out), &st) != nil || st.Done != 2 || st.Dead != 1 || st.Pending != 0 || st.Rate <= 0 {
		t.Errorf("queue status --output json: exit %d, %+v\n%s%s", code, st, out, errOut)
	}
}

func TestQueueCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", []string{"queue", "work", "--queue", "q", "--results", "x"}, exitInvalid, "requires at least 1 arg"},
		{"command without --", []string{"queue", "work", "--queue", "q", "--results", "x", "cat"}, exitInvalid, "after --"},
		{"no server", []string{"queue", "status", "--queue", "q", "--nats", "nats://127.0.0.1:1"}, exitUnavailable, "gpucost queue serve"},
	} {
		code, _, errOut := runQueueCLI(t, "", "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: gpucost %s: exit %d, stderr %q; want exit %d and %q", tc.name, strings.Join(tc.args, " "), code, errOut, tc.code, tc.want)
		}
	}
}

// A command that never exits is killed after --item-timeout, the item is dead-lettered with
// the reason once its deliveries are spent, the others complete, and status shows why.
func TestQueueWorkItemTimeout(t *testing.T) {
	s, err := natsserver.Start(natsserver.Options{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	url := s.URL()
	items := `{"id":"hung","hang":true}` + "\n" + `{"id":"a"}` + "\n" + `{"id":"b"}` + "\n"
	if code, out, errOut := runQueueCLI(t, url, items, "queue", "push", "--queue", "to", "-"); code != exitOK {
		t.Fatalf("queue push: exit %d\n%s%s", code, out, errOut)
	}
	job := `read -r line; case "$line" in *hang*) sleep 3600;; *) echo "$line";; esac`
	code, out, errOut := runQueueCLI(t, url, "", "queue", "work", "--queue", "to", "--results", t.TempDir(),
		"--item-timeout", "1s", "--max-deliveries", "1", "--exit-when-empty", "--", "sh", "-c", job)
	if code != exitOK || !strings.Contains(out, "2 done, 0 already done, 0 retried, 1 dead-lettered") {
		t.Fatalf("queue work --item-timeout 1s: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runQueueCLI(t, url, "", "queue", "status", "--queue", "to")
	if code != exitOK || !strings.Contains(out, "hung: timed out after 1s in 1 of 1 delivery") {
		t.Errorf("queue status: exit %d, want the dead item with its reason\n%s%s", code, out, errOut)
	}

	// The limit pushed with the items wins over the worker's (here none).
	if code, out, errOut := runQueueCLI(t, url, items, "queue", "push", "--queue", "to2", "--item-timeout", "1s", "-"); code != exitOK {
		t.Fatalf("queue push --item-timeout 1s: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runQueueCLI(t, url, "", "queue", "work", "--queue", "to2", "--results", t.TempDir(),
		"--max-deliveries", "1", "--exit-when-empty", "--", "sh", "-c", job)
	if code != exitOK || !strings.Contains(out, "2 done, 0 already done, 0 retried, 1 dead-lettered") {
		t.Fatalf("queue work of items pushed with --item-timeout 1s: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runQueueCLI(t, url, "", "queue", "dead", "--queue", "to2", "--output", "csv")
	if code != exitOK || !strings.Contains(out, "timed out after 1s in 1 of 1 delivery") {
		t.Errorf("queue dead: exit %d, want the hung item timed out\n%s%s", code, out, errOut)
	}
}
