//go:build unix

package notice_test

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot/notice"
)

func TestSignal(t *testing.T) {
	// Hold SIGUSR1 here too, so a signal sent before the watcher listens cannot end the test.
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, syscall.SIGUSR1)
	defer signal.Stop(guard)

	clk := newClock(t0)
	out, _ := watching(t, &notice.Signal{Signals: []os.Signal{syscall.SIGUSR1}, Grace: 45 * time.Second, Now: clk.Now})
	var n notice.Notice
	for got := false; !got; {
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatalf("kill -USR1 self: %v", err)
		}
		select {
		case n = <-out:
			got = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	want := notice.Notice{Kind: notice.Terminate, Source: "signal", Seen: t0, Deadline: t0.Add(45 * time.Second), Detail: "received user defined signal 1"}
	if n != want {
		t.Errorf("after SIGUSR1: notice %+v, want %+v", n, want)
	}
}

func TestSignalDefaults(t *testing.T) {
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, syscall.SIGTERM)
	defer signal.Stop(guard)

	out, _ := watching(t, &notice.Signal{})
	for got := false; !got; {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatalf("kill -TERM self: %v", err)
		}
		select {
		case n := <-out:
			if n.Deadline.Sub(n.Seen) != notice.DefaultGrace || n.Detail != "received terminated" {
				t.Errorf("after SIGTERM: notice %+v, want the default %v grace", n, notice.DefaultGrace)
			}
			got = true
		case <-time.After(10 * time.Millisecond):
		}
	}
}
