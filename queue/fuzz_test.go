package queue

import (
	"bytes"
	"testing"
)

// FuzzSplitLines feeds splitLines what a batch command might print. The command's stdout is
// outside input: splitLines must never panic, must leave the output as it was, and must either
// return exactly n lines, each ending in its one line break, that put back together are the
// output (plus the line break a last unterminated line was given), or refuse with an error when
// the output does not hold n lines.
func FuzzSplitLines(f *testing.F) {
	f.Add([]byte("{\"ok\":1}\n{\"ok\":2}\n"), uint16(2))
	f.Add([]byte("a\nb"), uint16(2))
	f.Add([]byte("a\n\n\n"), uint16(2))
	f.Add([]byte(""), uint16(0))
	f.Fuzz(func(t *testing.T, out []byte, n16 uint16) {
		if len(out) > 64<<10 {
			return
		}
		n := int(n16) // len(tasks): never negative
		orig := bytes.Clone(out)
		want := bytes.Count(out, []byte{'\n'})
		if len(out) > 0 && out[len(out)-1] != '\n' {
			want++ // the last line, unterminated
		}
		lines, err := splitLines(out, n)
		if !bytes.Equal(out, orig) {
			t.Fatalf("splitLines(%q, %d) changed its input to %q", orig, n, out)
		}
		if want != n {
			if err == nil {
				t.Fatalf("splitLines(%q, %d) = %d lines, want an error: the output has %d lines", out, n, len(lines), want)
			}
			return
		}
		if err != nil {
			t.Fatalf("splitLines(%q, %d) = %v, want %d lines", out, n, err, n)
		}
		if len(lines) != n {
			t.Fatalf("splitLines(%q, %d) = %d lines", out, n, len(lines))
		}
		joined := bytes.Join(lines, nil)
		wantJoined := out
		if len(out) > 0 && out[len(out)-1] != '\n' {
			wantJoined = append(bytes.Clone(out), '\n')
		}
		if !bytes.Equal(joined, wantJoined) {
			t.Fatalf("splitLines(%q, %d) joined = %q, want %q", out, n, joined, wantJoined)
		}
		for i, l := range lines {
			if len(l) == 0 || l[len(l)-1] != '\n' || bytes.IndexByte(l, '\n') != len(l)-1 {
				t.Fatalf("splitLines(%q, %d)[%d] = %q, want one line ending in its line break", out, n, i, l)
			}
		}
	})
}
