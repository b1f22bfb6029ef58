package nvidiasmi

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// loop is one nvidia-smi that prints every GPU's row every interval (--loop-ms) for as long as
// the Collector lives.
type loop struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer

	mu    sync.Mutex
	cur   []string // the lines of the round being printed
	done  []string // the lines of the last complete round
	last  int      // the index of the last row read
	ended bool     // nvidia-smi has exited
}

// startLoop starts nvidia-smi at path printing rows every interval.
func startLoop(path string, every time.Duration) (*loop, error) {
	l := &loop{last: -1}
	l.cmd = exec.Command(path, "--query-gpu="+QueryGPU, "--format=csv,noheader,nounits",
		"--loop-ms="+strconv.FormatInt(max(every.Milliseconds(), 1), 10))
	l.cmd.Stderr = &l.stderr
	stdout, err := l.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start nvidia-smi --loop-ms: %w", err)
	}
	if err := l.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start nvidia-smi --loop-ms: %w", err)
	}
	go l.read(stdout)
	return l, nil
}

// read takes nvidia-smi's lines as they come. A round ends where the GPU index stops rising.
func (l *loop) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		index := rowIndex(line)
		l.mu.Lock()
		if index >= 0 && index <= l.last && len(l.cur) > 0 {
			l.done, l.cur = l.cur, nil
		}
		if index >= 0 {
			l.last = index
		}
		l.cur = append(l.cur, line)
		l.mu.Unlock()
	}
	l.cmd.Wait()
	l.mu.Lock()
	l.ended = true
	l.mu.Unlock()
}

// rowIndex returns the GPU index of a --query-gpu row, -1 for any other line.
func rowIndex(line string) int {
	_, rest, ok := strings.Cut(line, ",")
	if !ok {
		return -1
	}
	field, _, _ := strings.Cut(rest, ",")
	n, err := strconv.Atoi(strings.TrimSpace(field))
	if err != nil {
		return -1
	}
	return n
}

// rows returns the output of the latest complete round, and false if there is none yet or
// nvidia-smi has exited. The round being printed counts once it has as many lines as the last.
func (l *loop) rows() ([]byte, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := l.done
	if len(l.cur) >= len(l.done) {
		lines = l.cur
	}
	if l.ended || len(l.done) == 0 {
		return nil, false
	}
	return []byte(strings.Join(lines, "\n")), true
}

// running reports whether nvidia-smi still runs.
func (l *loop) running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.ended
}

// stop ends nvidia-smi.
func (l *loop) stop() {
	if l.running() {
		l.cmd.Process.Kill()
	}
}
