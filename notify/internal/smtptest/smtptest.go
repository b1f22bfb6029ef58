// Package smtptest runs a small SMTP server on loopback for tests: EHLO/HELO, AUTH PLAIN,
// MAIL, RCPT, DATA, RSET, NOOP and QUIT, recording every message it accepts.
package smtptest

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
)

// Message is one mail the server accepted.
type Message struct {
	From     string
	To       []string
	Data     []byte // as received, dot-unstuffed, lines ending in CRLF
	Username string // from AUTH PLAIN, empty if none
	Password string
}

// Server is a running test SMTP server.
type Server struct {
	Addr string // 127.0.0.1:port
	// Users maps username to password; when non-nil the server offers AUTH PLAIN and refuses
	// MAIL before a successful AUTH.
	Users map[string]string
	// Reply, when set, may replace the server's answer to a command (upper-case verb, e.g.
	// "RCPT"): return a full reply such as "451 4.3.0 try later" or "" to answer normally.
	Reply func(verb string) string

	ln   net.Listener
	mu   sync.Mutex
	msgs []Message
	wg   sync.WaitGroup
}

// Start starts a server on 127.0.0.1 and stops it when the test ends.
func Start(t testing.TB, users map[string]string) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("smtptest: listen: %v", err)
	}
	s := &Server{Addr: ln.Addr().String(), Users: users, ln: ln}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

// Messages returns the accepted messages, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			s.session(textproto.NewConn(c))
		}()
	}
}

// session holds one connection's state.
type session struct {
	s      *Server
	c      *textproto.Conn
	authed bool
	msg    Message
}

func (s *Server) session(c *textproto.Conn) {
	ss := &session{s: s, c: c}
	ss.reply("220 smtptest ready")
	for {
		line, err := c.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		if s.Reply != nil {
			if r := s.Reply(verb); r != "" {
				ss.reply("%s", r)
				continue
			}
		}
		if !ss.handle(verb, arg) {
			return
		}
	}
}

func (ss *session) reply(format string, args ...any) {
	_ = ss.c.PrintfLine(format, args...)
}

// handle answers one command and reports whether the session goes on.
func (ss *session) handle(verb, arg string) bool {
	switch verb {
	case "EHLO":
		if ss.s.Users != nil {
			ss.reply("250-smtptest\r\n250-8BITMIME\r\n250 AUTH PLAIN")
		} else {
			ss.reply("250-smtptest\r\n250 8BITMIME")
		}
	case "HELO":
		ss.reply("250 smtptest")
	case "AUTH":
		ss.auth(arg)
	case "MAIL":
		if ss.s.Users != nil && !ss.authed {
			ss.reply("530 5.7.0 authentication required")
			return true
		}
		ss.msg = Message{From: addr(arg), Username: ss.msg.Username, Password: ss.msg.Password}
		ss.reply("250 2.1.0 ok")
	case "RCPT":
		ss.msg.To = append(ss.msg.To, addr(arg))
		ss.reply("250 2.1.5 ok")
	case "DATA":
		ss.data()
	case "RSET":
		ss.msg = Message{Username: ss.msg.Username, Password: ss.msg.Password}
		ss.reply("250 ok")
	case "NOOP":
		ss.reply("250 ok")
	case "QUIT":
		ss.reply("221 bye")
		return false
	default:
		ss.reply("502 5.5.2 command not implemented")
	}
	return true
}

func (ss *session) auth(arg string) {
	mech, resp, _ := strings.Cut(arg, " ")
	if !strings.EqualFold(mech, "PLAIN") || ss.s.Users == nil {
		ss.reply("504 5.5.4 mechanism not supported")
		return
	}
	if resp == "" {
		ss.reply("334 ")
		line, err := ss.c.ReadLine()
		if err != nil {
			return
		}
		resp = line
	}
	raw, err := base64.StdEncoding.DecodeString(resp)
	parts := strings.Split(string(raw), "\x00")
	if err != nil || len(parts) != 3 {
		ss.reply("501 5.5.2 bad AUTH PLAIN response")
		return
	}
	if want, ok := ss.s.Users[parts[1]]; !ok || want != parts[2] {
		ss.reply("535 5.7.8 authentication credentials invalid")
		return
	}
	ss.authed = true
	ss.msg.Username, ss.msg.Password = parts[1], parts[2]
	ss.reply("235 2.7.0 authenticated")
}

func (ss *session) data() {
	if ss.msg.From == "" || len(ss.msg.To) == 0 {
		ss.reply("503 5.5.1 need MAIL and RCPT first")
		return
	}
	ss.reply("354 end with <CRLF>.<CRLF>")
	lines, err := ss.c.ReadDotLines()
	if err != nil {
		return
	}
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%s\r\n", l)
	}
	ss.msg.Data = []byte(b.String())
	ss.s.mu.Lock()
	ss.s.msgs = append(ss.s.msgs, ss.msg)
	ss.s.mu.Unlock()
	ss.msg = Message{Username: ss.msg.Username, Password: ss.msg.Password}
	ss.reply("250 2.0.0 queued")
}

// addr pulls the address out of "FROM:<a@b> SIZE=1" or "TO:<a@b>".
func addr(arg string) string {
	i, j := strings.IndexByte(arg, '<'), strings.IndexByte(arg, '>')
	if i < 0 || j < i {
		return ""
	}
	return arg[i+1 : j]
}
