package awscreds

import (
	"bufio"
	"errors"
	"os"
	"strings"
)

// section is one [name] of an AWS shared config or credentials file, its keys lower-cased.
type section map[string]string

// readINI reads the sections of an AWS shared file. A missing file is no sections and no error.
// Indented lines under a key with an empty value (a nested block such as "s3 =") are skipped,
// and so are comments starting with # or ;.
func readINI(path string) (map[string]section, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]section{}
	var cur section
	nested := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if nested && (raw[0] == ' ' || raw[0] == '\t') {
			continue
		}
		nested = false
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			name := strings.Join(strings.Fields(line[1:len(line)-1]), " ")
			if cur = out[name]; cur == nil {
				cur = section{}
				out[name] = cur
			}
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || cur == nil {
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if v == "" {
			nested = true
			continue
		}
		cur[k] = v
	}
	return out, sc.Err()
}
