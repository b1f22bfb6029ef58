package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Slack posts a Message to a Slack incoming webhook, or to any receiver that takes the same
// payload (Mattermost, Rocket.Chat). The URL holds the token, so it is shown only through Redact.
type Slack struct {
	URL     string
	Client  *http.Client
	Timeout time.Duration // per request; 10 s when zero
}

var _ Target = (*Slack)(nil)

// slackPayload is the incoming-webhook body: top-level text for notifications and clients
// without formatting, and one legacy attachment with title, link and fields, which both Slack
// and Mattermost render (Mattermost ignores Block Kit blocks, so none are sent).
type slackPayload struct {
	Text        string            `json:"text"`
	Attachments []slackAttachment `json:"attachments,omitempty"`
}

type slackAttachment struct {
	Fallback  string       `json:"fallback"`
	Color     string       `json:"color"`
	Title     string       `json:"title"`
	TitleLink string       `json:"title_link,omitempty"`
	Text      string       `json:"text,omitempty"`
	Fields    []slackField `json:"fields,omitempty"`
	Footer    string       `json:"footer"`
	Ts        int64        `json:"ts,omitempty"`
}

type slackField struct {
	Title string `json:"title"`
	Value string `json:"value"`
	Short bool   `json:"short"`
}

// Send posts m. Slack answers 200 "ok", or 400/403/404/410 with a reason that no retry fixes.
func (s *Slack) Send(ctx context.Context, m Message) error {
	body, err := SlackPayload(m)
	if err != nil {
		return Permanent(err)
	}
	hdr := http.Header{}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("User-Agent", "gpucost-notify")
	return post(ctx, s.Client, s.URL, s.Timeout, hdr, body, time.Now())
}

// SlackPayload renders m as a Slack-compatible incoming-webhook JSON body.
func SlackPayload(m Message) ([]byte, error) {
	subject := slackEscape(m.Subject)
	text := "*" + subject + "*"
	if m.Link != "" {
		text = fmt.Sprintf("*<%s|%s>*", slackEscape(m.Link), subject)
	}
	a := slackAttachment{
		Fallback:  m.Subject,
		Color:     severityColor(m.Severity),
		Title:     m.Subject,
		TitleLink: m.Link,
		Text:      slackEscape(m.Text),
		Footer:    "gpucost " + m.Kind,
	}
	if !m.At.IsZero() {
		a.Ts = m.At.Unix()
	}
	for _, f := range m.Fields {
		a.Fields = append(a.Fields, slackField{Title: f.Name, Value: slackEscape(f.Value), Short: len(f.Value) <= 40})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // Slack wants &lt; itself, not \u0026lt;
	enc.SetIndent("", "  ")
	if err := enc.Encode(slackPayload{Text: text, Attachments: []slackAttachment{a}}); err != nil {
		return nil, fmt.Errorf("encode slack payload: %w", err)
	}
	return b.Bytes(), nil
}

// slackEscape escapes the three characters Slack's mrkdwn reserves for links and mentions.
func slackEscape(s string) string { return slackEscaper.Replace(s) }

var slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func severityColor(s Severity) string {
	switch s {
	case SeverityCritical:
		return "#d0021b"
	case SeverityWarning:
		return "#f5a623"
	default:
		return "#4a90d9"
	}
}
