package inventory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.csv")
	data := "resource_id,Host,instance_type,gpu_model,gpus,team,Cost Center\ni-0abc,gpu-node-7,p4d.24xlarge,a100 80gb,8,ml-platform,\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	es, err := ReadFile(path)
	if err != nil || len(es) != 1 {
		t.Fatalf("ReadFile = %+v, %v; want one entry", es, err)
	}
	e := es[0]
	if e.ResourceID != "i-0abc" || e.Host != "gpu-node-7" || e.GPUs != 8 || e.GPUModel == "" || e.GPUModel == "a100 80gb" ||
		len(e.Tags) != 1 || e.Tags["team"] != "ml-platform" {
		t.Errorf("ReadFile = %+v; want i-0abc on gpu-node-7, 8 canonical A100s, tagged team=ml-platform only", e)
	}
	for _, tc := range []struct{ data, want string }{
		{"resource_id,host\n,node\n", "fleet.csv:2:1: resource_id and host must not be empty"},
		{"resource_id,host,gpu_model\ni-1,h,B9000\n", `fleet.csv:2:3: gpu_model "B9000" is not a GPU the catalog knows`},
		{"resource_id,host,gpus\ni-1,h,-1\n", `fleet.csv:2:3: gpus "-1" is not a whole number of GPUs`},
		{"host\nh\n", "fleet.csv: line 1: no resource_id column"},
	} {
		if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path)
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "import ") {
			t.Errorf("ReadFile(%q) = %v; want EInvalid import … %q", tc.data, err, tc.want)
		}
	}
}

func TestIsColumn(t *testing.T) {
	for name, want := range map[string]bool{"resource_id": true, " GPU_Model ": true, "team": false, "": false} {
		if got := IsColumn(name); got != want {
			t.Errorf("IsColumn(%q) = %v, want %v", name, got, want)
		}
	}
}
