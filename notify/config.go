package notify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// targetsFile is the YAML layout ParseTargets reads:
//
//	targets:
//	  ops:     {webhook: {url: https://ops.example/hook, secret_env: OPS_HOOK_SECRET}}
//	  team-a:  {slack: {url_env: TEAM_A_SLACK_URL}}
//	  finance:
//	    email: {to: [finance@example.com], smtp: "smtp.example.com:587", from: gpucost@example.com,
//	            username: gpucost, password_env: SMTP_PASSWORD}
type targetsFile struct {
	Targets map[string]targetYAML `yaml:"targets"`
}

type targetYAML struct {
	Webhook *webhookYAML `yaml:"webhook"`
	Slack   *slackYAML   `yaml:"slack"`
	Email   *emailYAML   `yaml:"email"`
}

type webhookYAML struct {
	URL       string        `yaml:"url"`
	URLEnv    string        `yaml:"url_env"`
	Secret    string        `yaml:"secret"`
	SecretEnv string        `yaml:"secret_env"`
	Timeout   time.Duration `yaml:"timeout"`
}

type slackYAML struct {
	URL     string        `yaml:"url"`
	URLEnv  string        `yaml:"url_env"`
	Timeout time.Duration `yaml:"timeout"`
}

type emailYAML struct {
	To          []string      `yaml:"to"`
	From        string        `yaml:"from"`
	SMTP        string        `yaml:"smtp"`
	Username    string        `yaml:"username"`
	Password    string        `yaml:"password"`
	PasswordEnv string        `yaml:"password_env"`
	Timeout     time.Duration `yaml:"timeout"`
}

var targetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ParseTargets reads the targets file called name (for messages) and builds each Target.
// Secrets come from the environment variables the file names (url_env, secret_env,
// password_env), looked up with getenv; an inline secret, or a Slack url (which holds a token),
// is accepted with a warning. Unknown fields, bad values and unset variables are errors naming
// the file, line and field. Warnings name the same.
func ParseTargets(name string, data []byte, getenv func(string) string) (map[string]Target, []string, error) {
	var f targetsFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%s: no targets: write `targets:` with at least one target", name)
		}
		return nil, nil, fmt.Errorf("%s: %s", name, yamlMessage(err))
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root) // it decoded above, so it parses
	p := parser{file: name, root: &root, getenv: getenv}
	if len(f.Targets) == 0 {
		return nil, nil, p.errorf(nil, "targets", "no targets: add at least one under `targets:`")
	}
	out := make(map[string]Target, len(f.Targets))
	var errs []error
	for _, n := range sortedKeys(f.Targets) {
		t, err := p.target(n, f.Targets[n])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[n] = t
	}
	if len(errs) > 0 {
		return nil, p.warnings, errors.Join(errs...)
	}
	return out, p.warnings, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parser turns decoded YAML into Targets and places its messages on the file's lines.
type parser struct {
	file     string
	root     *yaml.Node
	getenv   func(string) string
	warnings []string
}

func (p *parser) target(n string, t targetYAML) (Target, error) {
	path := []string{"targets", n}
	if !targetName.MatchString(n) {
		return nil, p.errorf(path, "", "target name %q: use letters, digits, '.', '_' or '-' (at most 64)", n)
	}
	kinds := 0
	for _, set := range []bool{t.Webhook != nil, t.Slack != nil, t.Email != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, p.errorf(path, "", "set exactly one of webhook, slack or email")
	}
	switch {
	case t.Webhook != nil:
		return p.webhook(append(path, "webhook"), t.Webhook)
	case t.Slack != nil:
		return p.slack(append(path, "slack"), t.Slack)
	default:
		return p.email(append(path, "email"), t.Email)
	}
}

func (p *parser) webhook(path []string, w *webhookYAML) (Target, error) {
	u, err := p.secret(path, "url", w.URL, "url_env", w.URLEnv, false)
	if err != nil {
		return nil, err
	}
	if err := p.checkURL(path, u, w.URLEnv); err != nil {
		return nil, err
	}
	secret, err := p.secret(path, "secret", w.Secret, "secret_env", w.SecretEnv, true)
	if err != nil {
		return nil, err
	}
	return &Webhook{URL: u, Secret: secret, Timeout: w.Timeout}, nil
}

func (p *parser) slack(path []string, s *slackYAML) (Target, error) {
	u, err := p.secret(path, "url", s.URL, "url_env", s.URLEnv, true)
	if err != nil {
		return nil, err
	}
	if err := p.checkURL(path, u, s.URLEnv); err != nil {
		return nil, err
	}
	return &Slack{URL: u, Timeout: s.Timeout}, nil
}

func (p *parser) email(path []string, e *emailYAML) (Target, error) {
	if len(e.To) == 0 {
		return nil, p.errorf(path, "to", "list at least one recipient address")
	}
	for i, a := range e.To {
		if _, err := mail.ParseAddress(a); err != nil {
			return nil, p.errorf(append(path, "to"), fmt.Sprint(i), "%q is not an email address: %v", a, err)
		}
	}
	if _, err := mail.ParseAddress(e.From); err != nil {
		return nil, p.errorf(path, "from", "%q is not an email address: %v", e.From, err)
	}
	if host, port, err := net.SplitHostPort(e.SMTP); err != nil || host == "" || port == "" {
		return nil, p.errorf(path, "smtp", "%q: want host:port, such as smtp.example.com:587", e.SMTP)
	}
	var password string
	if e.Username != "" {
		var err error
		if password, err = p.secret(path, "password", e.Password, "password_env", e.PasswordEnv, true); err != nil {
			return nil, err
		}
	} else if e.Password != "" || e.PasswordEnv != "" {
		return nil, p.errorf(path, "username", "a password needs a username")
	}
	return &Email{Addr: e.SMTP, From: e.From, To: e.To, Username: e.Username, Password: password, Timeout: e.Timeout}, nil
}

// secret returns the inline value or the value of the named environment variable; exactly one
// must be given. An inline value of a field that holds a secret draws a warning.
func (p *parser) secret(path []string, field, inline, envField, env string, sensitive bool) (string, error) {
	switch {
	case inline != "" && env != "":
		return "", p.errorf(path, field, "set %s or %s, not both", field, envField)
	case env != "":
		v := p.getenv(env)
		if v == "" {
			return "", p.errorf(path, envField, "environment variable %s is not set or empty", env)
		}
		return v, nil
	case inline != "":
		if sensitive {
			p.warnings = append(p.warnings, fmt.Sprintf("%s: %s: the secret is written in the file; prefer %s naming an environment variable",
				p.where(append(path, field)), strings.Join(append(path, field), "."), envField))
		}
		return inline, nil
	default:
		return "", p.errorf(path, field, "set %s or %s", field, envField)
	}
}

func (p *parser) checkURL(path []string, u, fromEnv string) error {
	field := "url"
	if fromEnv != "" {
		field = "url_env"
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" {
		return p.errorf(path, field, "%s is not an http(s) URL", Redact(u))
	}
	return nil
}

// errorf returns an error naming the file, the line of path.field (or of the nearest node that
// exists) and the field.
func (p *parser) errorf(path []string, field, format string, args ...any) error {
	full := path
	if field != "" {
		full = append(append([]string(nil), path...), field)
	}
	return fmt.Errorf("%s: %s: %s", p.where(full), strings.Join(full, "."), fmt.Sprintf(format, args...))
}

// where returns "file:line" for the deepest node of path that exists.
func (p *parser) where(path []string) string {
	n := p.root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, key := range path {
		n = child(n, key)
		if n == nil {
			break
		}
		line = n.Line
	}
	return fmt.Sprintf("%s:%d", p.file, line)
}

// child returns the value under key in a mapping, or the element at index key in a sequence.
func child(n *yaml.Node, key string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		var i int
		if _, err := fmt.Sscan(key, &i); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}

var (
	notFoundType = regexp.MustCompile(`field (\S+) not found in type notify\.(\w+)`)
	typeNames    = map[string]string{
		"targetsFile": "the file (known: targets)",
		"targetYAML":  "a target (known: webhook, slack, email)",
		"webhookYAML": "webhook (known: url, url_env, secret, secret_env, timeout)",
		"slackYAML":   "slack (known: url, url_env, timeout)",
		"emailYAML":   "email (known: to, from, smtp, username, password, password_env, timeout)",
	}
)

// yamlMessage rewords the YAML decoder's errors for people: "field x not found in type
// notify.webhookYAML" becomes "unknown field x in webhook".
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	msg = strings.ReplaceAll(msg, "\n  ", "; ")
	return notFoundType.ReplaceAllStringFunc(msg, func(s string) string {
		m := notFoundType.FindStringSubmatch(s)
		where := typeNames[m[2]]
		if where == "" {
			where = m[2]
		}
		return fmt.Sprintf("unknown field %s in %s", m[1], where)
	})
}
