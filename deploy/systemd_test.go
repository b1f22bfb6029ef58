package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// unit is a systemd unit file's settings: key → values, in order, across sections.
type unit map[string][]string

func readUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: %q is not KEY=VALUE", path, line)
		}
		u[k] = append(u[k], v)
	}
	return u
}

// TestSystemdUnits checks the units' hardening, and that gpucost parses the flags of their
// ExecStart (the variables set to the unit's defaults and an agent.env's, %d to a folder);
// with systemd-analyze on PATH, that systemd accepts each unit, its ExecStart pointed at a
// built gpucost.
func TestSystemdUnits(t *testing.T) {
	bin := filepath.Join(staticBinaries(t), "gpucost")
	for _, name := range []string{"gpucost-server.service", "gpucost-agent.service"} {
		path := filepath.Join("systemd", name)
		u := readUnit(t, path)
		for key, want := range map[string]string{"DynamicUser": "yes", "NoNewPrivileges": "yes", "ProtectSystem": "strict",
			"ProtectHome": "yes", "PrivateTmp": "yes", "CapabilityBoundingSet": "", "RestrictSUIDSGID": "yes", "ProtectKernelModules": "yes"} {
			if got := u[key]; len(got) != 1 || got[0] != want {
				t.Errorf("%s: %s=%q, want %q", name, key, got, want)
			}
		}
		if len(u["ExecStart"]) != 1 {
			t.Fatalf("%s: ExecStart %q, want one", name, u["ExecStart"])
		}
		vars := map[string]string{"GPUCOST_SERVER": "https://gpucost.example.com"}
		for _, e := range u["Environment"] {
			k, v, _ := strings.Cut(e, "=")
			vars[k] = v
		}
		exec1 := regexp.MustCompile(`\$\{?([A-Z_]+)\}?`).ReplaceAllStringFunc(u["ExecStart"][0], func(m string) string {
			return vars[strings.Trim(m, "${}")]
		})
		exec1 = strings.ReplaceAll(exec1, "%d", t.TempDir())
		fields := strings.Fields(exec1)
		if fields[0] != "/usr/local/bin/gpucost" {
			t.Errorf("%s: ExecStart runs %s, want /usr/local/bin/gpucost", name, fields[0])
		}
		cmd := exec.Command(bin, append(fields[1:], "--help")...)
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: gpucost %s --help: %v\n%s", name, strings.Join(fields[1:], " "), err, out)
		}
		verifyUnit(t, path, bin)
	}
}

// verifyUnit runs systemd-analyze verify on a copy of the unit whose ExecStart runs bin.
func verifyUnit(t *testing.T, path, bin string) {
	t.Helper()
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Logf("systemd-analyze is not installed: %s not verified by systemd", path)
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(cp, []byte(strings.ReplaceAll(string(b), "ExecStart=/usr/local/bin/gpucost", "ExecStart="+bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", cp).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", path, err, out)
	}
}
