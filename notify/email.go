package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"strings"
	"time"
)

// Email sends a Message as a plain-text UTF-8 mail through an SMTP server. It upgrades with
// STARTTLS whenever the server offers it (implicit TLS on port 465), and net/smtp's PLAIN auth
// refuses to send the password except over TLS or to a loopback server.
type Email struct {
	Addr     string // SMTP server, host:port
	From     string
	To       []string
	Username string // empty: no AUTH
	Password string
	Host     string           // TLS server name and AUTH host; the host of Addr when empty
	HELO     string           // name to greet with; "localhost" when empty
	TLS      *tls.Config      // nil: system roots with ServerName Host
	Timeout  time.Duration    // for the whole SMTP session; 10 s when zero
	Now      func() time.Time // the Date header; time.Now when nil
}

var _ Target = (*Email)(nil)

// Send delivers m to every address in To in one SMTP transaction.
func (e *Email) Send(ctx context.Context, m Message) error {
	from, to, err := e.addresses()
	if err != nil {
		return Permanent(err)
	}
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	msg, err := Compose(m, from, to, now())
	if err != nil {
		return Permanent(err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeoutOr(e.Timeout))
	defer cancel()
	if err := e.deliver(ctx, from.Address, to, msg); err != nil {
		return scrub(fmt.Errorf("send mail via %s: %w", e.Addr, err), "", e.Password)
	}
	return nil
}

func (e *Email) addresses() (*mail.Address, []*mail.Address, error) {
	from, err := mail.ParseAddress(e.From)
	if err != nil {
		return nil, nil, fmt.Errorf("email from %q: %w", e.From, err)
	}
	if len(e.To) == 0 {
		return nil, nil, errors.New("email: no recipients")
	}
	to := make([]*mail.Address, 0, len(e.To))
	for _, s := range e.To {
		a, err := mail.ParseAddress(s)
		if err != nil {
			return nil, nil, fmt.Errorf("email to %q: %w", s, err)
		}
		to = append(to, a)
	}
	return from, to, nil
}

func (e *Email) host() string {
	if e.Host != "" {
		return e.Host
	}
	h, _, err := net.SplitHostPort(e.Addr)
	if err != nil {
		return e.Addr
	}
	return h
}

// deliver runs one SMTP session; ctx's deadline bounds every read and write.
func (e *Email) deliver(ctx context.Context, from string, to []*mail.Address, msg []byte) error {
	host := e.host()
	cfg := e.TLS
	if cfg == nil {
		cfg = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", e.Addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	_, port, _ := net.SplitHostPort(e.Addr)
	if port == "465" {
		conn = tls.Client(conn, cfg)
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return err
	}
	defer c.Close()
	return e.transact(c, cfg, from, to, msg)
}

func (e *Email) transact(c *smtp.Client, cfg *tls.Config, from string, to []*mail.Address, msg []byte) error {
	helo := e.HELO
	if helo == "" {
		helo = "localhost"
	}
	if err := c.Hello(helo); err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(cfg); err != nil {
			return fmt.Errorf("starttls: %w", err)
		}
	}
	if e.Username != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return Permanent(errors.New("server offers no AUTH; remove username or use a server that does"))
		}
		if err := c.Auth(smtp.PlainAuth("", e.Username, e.Password, e.host())); err != nil {
			return authError(err)
		}
	}
	if err := c.Mail(from); err != nil {
		return fmt.Errorf("mail from: %w", err)
	}
	for _, a := range to {
		if err := c.Rcpt(a.Address); err != nil {
			return fmt.Errorf("rcpt to %s: %w", a.Address, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("end data: %w", err)
	}
	return c.Quit()
}

// authError keeps the server's code (535 is permanent) and makes net/smtp's own refusals, such
// as "unencrypted connection", permanent: they are configuration, not weather.
func authError(err error) error {
	if statusOf(err) != 0 {
		return fmt.Errorf("auth: %w", err)
	}
	return Permanent(fmt.Errorf("auth: %w (PLAIN needs TLS or a loopback server)", err))
}

// Compose renders m as an RFC 5322 message: MIME headers, Date, Message-ID and a text/plain
// UTF-8 body in quoted-printable, lines ending in CRLF.
func Compose(m Message, from *mail.Address, to []*mail.Address, now time.Time) ([]byte, error) {
	var b bytes.Buffer
	rcpts := make([]string, len(to))
	for i, a := range to {
		rcpts[i] = a.String()
	}
	date := m.At
	if date.IsZero() {
		date = now
	}
	hdr := [][2]string{
		{"From", from.String()},
		{"To", strings.Join(rcpts, ", ")},
		{"Subject", mime.QEncoding.Encode("utf-8", oneLine(m.Subject))},
		{"Date", now.Format(time.RFC1123Z)},
		{"Message-ID", messageID(m.Key, date, from.Address)},
		{"MIME-Version", "1.0"},
		{"Content-Type", "text/plain; charset=UTF-8"},
		{"Content-Transfer-Encoding", "quoted-printable"},
		{"Auto-Submitted", "auto-generated"}, // RFC 3834: no vacation replies
	}
	if m.Kind != "" {
		hdr = append(hdr, [2]string{"X-Gpucost-Kind", mime.QEncoding.Encode("utf-8", oneLine(m.Kind))})
	}
	for _, h := range hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(emailBody(m))); err != nil {
		return nil, fmt.Errorf("encode mail body: %w", err)
	}
	if err := qp.Close(); err != nil {
		return nil, fmt.Errorf("encode mail body: %w", err)
	}
	return b.Bytes(), nil
}

func emailBody(m Message) string {
	var s strings.Builder
	s.WriteString(m.Text)
	if len(m.Fields) > 0 {
		s.WriteString("\n\n")
		for _, f := range m.Fields {
			fmt.Fprintf(&s, "%s: %s\n", f.Name, f.Value)
		}
	}
	if m.Link != "" {
		fmt.Fprintf(&s, "\n%s\n", m.Link)
	}
	return s.String()
}

// messageID is stable for a keyed alert, so a mail re-sent after a lost reply can be recognised
// as the same one; an unkeyed message gets a random id.
func messageID(key string, at time.Time, from string) string {
	domain := "gpucost.invalid"
	if i := strings.LastIndexByte(from, '@'); i >= 0 && i < len(from)-1 {
		domain = from[i+1:]
	}
	var id []byte
	if key != "" {
		sum := sha256.Sum256([]byte(key + "\x00" + at.UTC().Format(time.RFC3339Nano)))
		id = sum[:16]
	} else {
		id = make([]byte, 16)
		_, _ = rand.Read(id)
	}
	return "<" + hex.EncodeToString(id) + "@" + domain + ">"
}

// oneLine keeps a header value on one line, so no input can add a header.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\r' || r == '\n' }), " ")
}
