package nvidiasmi

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestReadXMLH200 reads the nvidia-smi -q -x report captured on an H200 shared by two
// processes: figures as the file gives them.
func TestReadXMLH200(t *testing.T) {
	f, err := os.Open("testdata/h200-shared/nvidia-smi-q.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logs, st, err := Reader{Host: "h200"}.ReadXML(f, "nvidia-smi-q.xml")
	if err != nil || st.Skipped != 0 || st.Samples != 1 || len(logs) != 1 {
		t.Fatalf("ReadXML = %d reports, %+v, %v; want 1 report of 1 sample, none skipped", len(logs), st, err)
	}
	log := logs[0]
	at := time.Date(2026, 11, 27, 4, 11, 2, 0, time.UTC)
	if !log.Time.Equal(at) || log.Driver != "580.159.04" || len(log.Samples) != 1 {
		t.Fatalf("ReadXML = %v, driver %q, %d samples; want %v, 580.159.04, 1", log.Time, log.Driver, len(log.Samples), at)
	}
	s := log.Samples[0]
	want := gpucost.GPU{UUID: "GPU-394b5914-a0f6-bd86-685c-15226d72588b", Host: "h200", Model: "NVIDIA H200", Index: 0}
	if s.GPU != want || !s.Time.Equal(at) || s.Util != 99 || s.MemUsedMiB != 1793 || s.MemTotalMiB != 143771 || s.PowerW != 693.84 || s.TempC != 55 {
		t.Errorf("ReadXML sample = %+v; want the H200 at 99%%, 1793 of 143771 MiB, 693.84 W (average_power_draw), 55 °C", s)
	}
	wantProcs := []Process{
		{Time: at, GPU: want.UUID, PID: 434, Type: "C", Name: "python3", UsedMiB: 1002},
		{Time: at, GPU: want.UUID, PID: 435, Type: "C", Name: "python3", UsedMiB: 776},
	}
	if fmt.Sprint(log.Processes) != fmt.Sprint(wantProcs) {
		t.Errorf("ReadXML processes = %+v; want %+v", log.Processes, wantProcs)
	}
}

// migXML is nvidia-smi -q -x of a MIG-enabled A100 with two instances, the second with its
// UUID, and a process on each, in the shape of nvsmi_device_v12.dtd.
const migXML = `<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
	<timestamp>Mon Nov  2 10:00:00 2026</timestamp>
	<driver_version>550.54.15</driver_version>
	<gpu id="00000000:07:00.0">
		<product_name>NVIDIA A100-SXM4-80GB</product_name>
		<mig_mode><current_mig>Enabled</current_mig></mig_mode>
		<mig_devices>
			<mig_device>
				<index>0</index>
				<gpu_instance_id>1</gpu_instance_id>
				<compute_instance_id>0</compute_instance_id>
				<fb_memory_usage><total>40192 MiB</total><reserved>0 MiB</reserved><used>1200 MiB</used><free>38992 MiB</free></fb_memory_usage>
			</mig_device>
			<mig_device>
				<index>1</index>
				<gpu_instance_id>5</gpu_instance_id>
				<compute_instance_id>0</compute_instance_id>
				<uuid>MIG-8f0e2a4c-0000-5b1f-9a2e-1c2d3e4f5a6b</uuid>
				<fb_memory_usage><total>19968 MiB</total><used>N/A</used></fb_memory_usage>
			</mig_device>
		</mig_devices>
		<uuid>GPU-a100</uuid>
		<fb_memory_usage><total>81920 MiB</total><used>N/A</used></fb_memory_usage>
		<utilization><gpu_util>N/A</gpu_util></utilization>
		<power_readings><power_draw>88.10 W</power_draw></power_readings>
		<temperature><gpu_temp>33 C</gpu_temp></temperature>
		<processes>
			<process_info><gpu_instance_id>1</gpu_instance_id><compute_instance_id>0</compute_instance_id><pid>77</pid><type>C</type><process_name>/usr/bin/python3</process_name><used_memory>1180 MiB</used_memory></process_info>
			<process_info><gpu_instance_id>5</gpu_instance_id><compute_instance_id>0</compute_instance_id><pid>78</pid><type>C</type><process_name>trainer</process_name><used_memory>N/A</used_memory></process_info>
			<process_info><pid>x</pid></process_info>
		</processes>
	</gpu>
</nvidia_smi_log>
`

// TestReadXMLMIG reads a sample for the GPU and one for each MIG instance, and places each
// process on its instance.
func TestReadXMLMIG(t *testing.T) {
	logs, st, err := Reader{Host: "n"}.ReadXML(strings.NewReader(migXML), "mig.xml")
	if err != nil || len(logs) != 1 {
		t.Fatalf("ReadXML = %d reports, %v; want 1", len(logs), err)
	}
	log := logs[0]
	if len(log.Samples) != 3 || st.Skipped != 1 || len(log.Processes) != 2 {
		t.Fatalf("ReadXML = %d samples, %d processes, %+v, %v; want 3, 2, the bad pid skipped", len(log.Samples), len(log.Processes), st, err)
	}
	g, m1, m5 := log.Samples[0], log.Samples[1], log.Samples[2]
	if g.GPU.UUID != "GPU-a100" || !gpucost.IsAbsent(g.Util) || !gpucost.IsAbsent(g.MemUsedMiB) || g.MemTotalMiB != 81920 || g.PowerW != 88.1 || g.TempC != 33 {
		t.Errorf("GPU sample = %+v; want no utilisation or memory used (MIG), 81920 MiB, 88.1 W, 33 °C", g)
	}
	if m1.GPU != (gpucost.GPU{UUID: "GPU-a100/1", Host: "n", Model: "NVIDIA A100-SXM4-80GB", Index: 0, Parent: "GPU-a100"}) ||
		m1.MemUsedMiB != 1200 || m1.MemTotalMiB != 40192 || !gpucost.IsAbsent(m1.Util) {
		t.Errorf("MIG instance 1 = %+v; want GPU-a100/1 (as dcgm names it), 1200 of 40192 MiB", m1)
	}
	if m5.GPU.UUID != "MIG-8f0e2a4c-0000-5b1f-9a2e-1c2d3e4f5a6b" || m5.GPU.Parent != "GPU-a100" || !gpucost.IsAbsent(m5.MemUsedMiB) || m5.MemTotalMiB != 19968 {
		t.Errorf("MIG instance 5 = %+v; want its own UUID, 19968 MiB", m5)
	}
	p77, p78 := log.Processes[0], log.Processes[1]
	if p77.GPU != "GPU-a100/1" || p77.PID != 77 || p77.Name != "/usr/bin/python3" || p77.UsedMiB != 1180 ||
		p78.GPU != m5.GPU.UUID || p78.PID != 78 || !gpucost.IsAbsent(p78.UsedMiB) {
		t.Errorf("processes = %+v; want pid 77 on GPU-a100/1 with 1180 MiB, pid 78 on the second instance", log.Processes)
	}
	if !log.Time.Equal(time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("time %v; want 2026-11-02 10:00 UTC", log.Time)
	}
}

// TestReadXMLRefuses names what is wrong with a file that is not a usable report.
func TestReadXMLRefuses(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"not xml", "timestamp, index\n", "bad.xml is not nvidia-smi -q -x output"},
		{"no time", "<nvidia_smi_log><gpu><uuid>GPU-1</uuid></gpu></nvidia_smi_log>", `bad.xml: report 1: <timestamp> "" is not a time like`},
		{"no gpu", "<nvidia_smi_log><timestamp>Mon Nov  2 10:00:00 2026</timestamp></nvidia_smi_log>", "bad.xml: report 1 holds no GPU"},
	} {
		_, _, err := Reader{}.ReadXML(strings.NewReader(tc.text), "bad.xml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("ReadXML(%s) = %v; want an %s error starting %q", tc.name, err, gpucost.EInvalid, tc.want)
		}
	}
}

// TestReadXMLReports reads the reports nvidia-smi -q -x -l writes one after another, and skips
// a last one cut short.
func TestReadXMLReports(t *testing.T) {
	data, err := os.ReadFile("testdata/h200-shared/nvidia-smi-q.xml")
	if err != nil {
		t.Fatal(err)
	}
	second := strings.Replace(string(data), "04:11:02", "04:11:07", 1)
	cut := second[:len(second)/2]
	logs, st, err := Reader{}.ReadXML(strings.NewReader(string(data)+second+cut), "l5.xml")
	if err != nil || len(logs) != 2 || st.Samples != 2 || st.Skipped != 1 || !strings.Contains(st.Skips[0].Reason, "report 3 is cut short") {
		t.Fatalf("ReadXML(2½ reports) = %d reports, %+v, %v; want 2, the cut third skipped", len(logs), st, err)
	}
	if d := logs[1].Time.Sub(logs[0].Time); d != 5*time.Second || logs[1].Samples[0].Util != 99 {
		t.Errorf("second report %v after the first, %+v; want 5s, 99%%", d, logs[1].Samples[0])
	}
}
