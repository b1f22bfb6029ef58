package promtext

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// GoCollector writes the go_* families client_golang's Go collector gave: goroutines, threads,
// the Go version, garbage collection pauses and the memory statistics.
func GoCollector() Collector {
	return CollectorFunc(func(w *Writer) {
		w.Family("go_goroutines", "gauge", "Number of goroutines that currently exist.")
		w.Sample("go_goroutines", float64(runtime.NumGoroutine()))
		threads, _ := runtime.ThreadCreateProfile(nil)
		w.Family("go_threads", "gauge", "Number of OS threads created.")
		w.Sample("go_threads", float64(threads))
		w.Family("go_info", "gauge", "Information about the Go environment.")
		w.Sample("go_info", 1, "version", runtime.Version())
		w.Family("go_sched_gomaxprocs_threads", "gauge", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously.")
		w.Sample("go_sched_gomaxprocs_threads", float64(runtime.GOMAXPROCS(0)))

		var gc debug.GCStats
		gc.PauseQuantiles = make([]time.Duration, 5)
		debug.ReadGCStats(&gc)
		w.Family("go_gc_duration_seconds", "summary", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.")
		for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
			w.Sample("go_gc_duration_seconds", gc.PauseQuantiles[i].Seconds(), "quantile", q)
		}
		w.Sample("go_gc_duration_seconds_sum", gc.PauseTotal.Seconds())
		w.Sample("go_gc_duration_seconds_count", float64(gc.NumGC))

		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		for _, s := range []struct {
			name, typ, help string
			v               uint64
		}{
			{"alloc_bytes", "gauge", "Number of bytes allocated in heap and currently in use.", m.Alloc},
			{"alloc_bytes_total", "counter", "Total number of bytes allocated in heap until now, even if released already.", m.TotalAlloc},
			{"buck_hash_sys_bytes", "gauge", "Number of bytes used by the profiling bucket hash table.", m.BuckHashSys},
			{"frees_total", "counter", "Total number of heap objects frees.", m.Frees},
			{"gc_sys_bytes", "gauge", "Number of bytes used for garbage collection system metadata.", m.GCSys},
			{"heap_alloc_bytes", "gauge", "Number of heap bytes allocated and currently in use.", m.HeapAlloc},
			{"heap_idle_bytes", "gauge", "Number of heap bytes waiting to be used.", m.HeapIdle},
			{"heap_inuse_bytes", "gauge", "Number of heap bytes that are in use.", m.HeapInuse},
			{"heap_objects", "gauge", "Number of currently allocated objects.", m.HeapObjects},
			{"heap_released_bytes", "gauge", "Number of heap bytes released to OS.", m.HeapReleased},
			{"heap_sys_bytes", "gauge", "Number of heap bytes obtained from system.", m.HeapSys},
			{"mallocs_total", "counter", "Total number of heap objects allocated.", m.Mallocs},
			{"mcache_inuse_bytes", "gauge", "Number of bytes in use by mcache structures.", m.MCacheInuse},
			{"mcache_sys_bytes", "gauge", "Number of bytes used for mcache structures obtained from system.", m.MCacheSys},
			{"mspan_inuse_bytes", "gauge", "Number of bytes in use by mspan structures.", m.MSpanInuse},
			{"mspan_sys_bytes", "gauge", "Number of bytes used for mspan structures obtained from system.", m.MSpanSys},
			{"next_gc_bytes", "gauge", "Number of heap bytes when next garbage collection will take place.", m.NextGC},
			{"other_sys_bytes", "gauge", "Number of bytes used for other system allocations.", m.OtherSys},
			{"stack_inuse_bytes", "gauge", "Number of bytes obtained from system for stack allocator in non-CGO environments.", m.StackInuse},
			{"stack_sys_bytes", "gauge", "Number of bytes obtained from system for stack allocator.", m.StackSys},
			{"sys_bytes", "gauge", "Number of bytes obtained from system.", m.Sys},
		} {
			w.Family("go_memstats_"+s.name, s.typ, s.help)
			w.Sample("go_memstats_"+s.name, float64(s.v))
		}
		w.Family("go_memstats_last_gc_time_seconds", "gauge", "Number of seconds since 1970 of last garbage collection.")
		w.Sample("go_memstats_last_gc_time_seconds", float64(m.LastGC)/1e9)
	})
}

// ProcessCollector writes the process_* families client_golang's process collector gave, from
// /proc/self; where /proc is missing (not Linux) it writes only the start time.
func ProcessCollector() Collector {
	start := processStart()
	return CollectorFunc(func(w *Writer) {
		w.Family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.")
		w.Sample("process_start_time_seconds", start)
		st, err := os.ReadFile("/proc/self/stat")
		if err != nil {
			return
		}
		f := statFields(st)
		if len(f) < 22 {
			return
		}
		num := func(i int) float64 { v, _ := strconv.ParseFloat(f[i], 64); return v }
		w.Family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.")
		w.Sample("process_cpu_seconds_total", (num(11)+num(12))/clockTicks)
		w.Family("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.")
		w.Sample("process_virtual_memory_bytes", num(20))
		w.Family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.")
		w.Sample("process_resident_memory_bytes", num(21)*float64(os.Getpagesize()))
		if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
			w.Family("process_open_fds", "gauge", "Number of open file descriptors.")
			w.Sample("process_open_fds", float64(len(fds)))
		}
		if max, ok := maxFDs(); ok {
			w.Family("process_max_fds", "gauge", "Maximum number of open file descriptors.")
			w.Sample("process_max_fds", max)
		}
	})
}

// clockTicks is USER_HZ, the unit of /proc/self/stat's CPU times: 100 on every Linux gpucost
// runs on.
const clockTicks = 100

// statFields returns the fields of /proc/self/stat after the command name (which may hold
// blanks), numbered from 0 for the state.
func statFields(st []byte) []string {
	if i := bytes.LastIndexByte(st, ')'); i >= 0 {
		st = st[i+1:]
	}
	return strings.Fields(string(st))
}

// processStart returns the process's start time in Unix seconds, from /proc when it can.
func processStart() float64 {
	now := float64(time.Now().UnixNano()) / 1e9
	st, err1 := os.ReadFile("/proc/self/stat")
	up, err2 := os.ReadFile("/proc/uptime")
	f := statFields(st)
	if err1 != nil || err2 != nil || len(f) < 20 {
		return now
	}
	started, err1 := strconv.ParseFloat(f[19], 64) // clock ticks after boot
	uptime, err2 := strconv.ParseFloat(strings.Fields(string(up) + " 0")[0], 64)
	if err1 != nil || err2 != nil {
		return now
	}
	return now - uptime + started/clockTicks
}

// maxFDs reads the soft limit of open files from /proc/self/limits.
func maxFDs() (float64, bool) {
	b, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					return v, true
				}
			}
		}
	}
	return 0, false
}
