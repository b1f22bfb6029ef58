// Package notify delivers gpucost alerts to the people who asked for them: signed JSON webhooks,
// Slack-compatible incoming webhooks (Slack, Mattermost) and SMTP email.
//
// A Target sends one Message. A Dispatcher sends a Message to named targets with retries
// (exponential backoff with jitter, Retry-After honoured, 4xx other than 408 and 429 permanent),
// records every attempt in a DeliveryLog and skips a target that the log says already has the
// Message's Key, so one alert per threshold per period goes out once, even across restarts. Its
// async mode (Start, Enqueue) has a bounded queue that drops with a counted warning when full, so
// a slow or dead target never blocks the caller.
//
// Secrets never leave the package in text: webhook URLs are shown through Redact in every log
// line and error, and signing secrets and SMTP passwords are never formatted at all.
package notify
