// Package config reads the service's settings from the environment, once, in main.
package config

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config holds every setting SPEC §8 names.
type Config struct {
	TableName        string        // TABLE_NAME: the single DynamoDB table
	DynamoDBEndpoint string        // DYNAMODB_ENDPOINT: empty means AWS; set for DynamoDB Local
	TokenTTL         time.Duration // TOKEN_TTL: login token lifetime, default 24h
	InvitationTTL    time.Duration // INVITATION_TTL: invitation validity from its last save, default 7 days
	APIAddr          string        // API_ADDR: where the local server listens, default 127.0.0.1:3000
	LogFormat        string        // LOG_FORMAT: "json" (the default in Lambda) or "text"
	// CORS_ALLOWED_ORIGINS: comma-separated browser origins allowed to call the API, in the form a
	// browser sends them; empty (the default) for no CORS at all.
	CORSAllowedOrigins []string
	// The invitation e-mail (SPEC §10): SENDER_EMAIL, the SES identity it is sent from; OUTBOX_DIR, a
	// directory that takes the e-mails as .eml files instead (make run); INVITATION_URL, the link it
	// carries, "{token}" replaced by the invitation's token.
	SenderEmail   string
	OutboxDir     string
	InvitationURL string
}

// Defaults of SPEC §8.
const (
	DefaultTableName     = "reporting-platform"
	DefaultTokenTTL      = 24 * time.Hour
	DefaultInvitationTTL = 7 * 24 * time.Hour
	DefaultAPIAddr       = "127.0.0.1:3000"
	// DefaultInvitationURL is where an invitee accepts: the client application's page, which a
	// deployment names (template parameter InvitationUrl).
	DefaultInvitationURL = "https://app.example.com/invitations/accept?token={token}"
)

// FromEnv reads the environment. An unparsable duration is an error, not a silent default: a typo in
// a deployment should stop the function at cold start, not change token lifetimes.
func FromEnv() (Config, error) {
	c := Config{
		TableName:        getenv("TABLE_NAME", DefaultTableName),
		DynamoDBEndpoint: os.Getenv("DYNAMODB_ENDPOINT"),
		APIAddr:          getenv("API_ADDR", DefaultAPIAddr),
		LogFormat:        getenv("LOG_FORMAT", "json"),
		SenderEmail:      os.Getenv("SENDER_EMAIL"),
		OutboxDir:        os.Getenv("OUTBOX_DIR"),
		InvitationURL:    getenv("INVITATION_URL", DefaultInvitationURL),
	}
	var err error
	if c.TokenTTL, err = duration("TOKEN_TTL", DefaultTokenTTL); err != nil {
		return Config{}, err
	}
	if c.InvitationTTL, err = duration("INVITATION_TTL", DefaultInvitationTTL); err != nil {
		return Config{}, err
	}
	if c.CORSAllowedOrigins, err = origins("CORS_ALLOWED_ORIGINS"); err != nil {
		return Config{}, err
	}
	if err := invitationLink(c.InvitationURL); err != nil {
		return Config{}, fmt.Errorf("config: INVITATION_URL=%q %w", c.InvitationURL, err)
	}
	return c, nil
}

// invitationLink refuses a link the invitee could not use: an http(s) address with a host, and {token}
// after the host (in the path, query or fragment), since without it every e-mail would carry the same
// link and no invitation. template.yaml's InvitationUrl pattern states the same rule, so CloudFormation
// refuses what would stop the function here (TestInvitationMailTemplate).
func invitationLink(link string) error {
	rest, ok := strings.CutPrefix(link, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(link, "http://")
	}
	end := strings.IndexAny(rest, "/?#")
	switch {
	case !ok || end <= 0 || strings.ContainsAny(rest[:end], "{}") || strings.ContainsAny(link, " \t\n\v\f\r"):
		return fmt.Errorf("is not an http(s) address with a host, such as %s", DefaultInvitationURL)
	case !strings.Contains(rest[end:], "{token}"):
		return fmt.Errorf("has no {token} after the host for the invitation's token")
	}
	return nil
}

func getenv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func duration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("config: %s=%q is not a positive Go duration such as 24h", name, v)
	}
	return d, nil
}

// origins reads a comma-separated list of origins (scheme://host[:port], nothing after). Blank entries
// are dropped. Each is returned as a browser serialises its Origin header (scheme and host lower-case,
// no default port), since the router compares them exactly with what browsers send; anything else
// (a path, even "/", a query, credentials, another scheme) is an error: it could never match.
func origins(name string) ([]string, error) {
	var out []string
	for _, entry := range strings.Split(os.Getenv(name), ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		o, err := origin(entry)
		if err != nil {
			return nil, fmt.Errorf("config: %s: %q is not an origin such as https://app.example.com: %w", name, entry, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func origin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "http" && scheme != "https":
		return "", fmt.Errorf("scheme %q, want http or https", u.Scheme)
	case u.Opaque != "" || u.Host == "":
		return "", fmt.Errorf("no host")
	case u.User != nil:
		return "", fmt.Errorf("credentials in the origin")
	case u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#"):
		return "", fmt.Errorf("a path, query or fragment after the host")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" {
		return "", fmt.Errorf("no host")
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6 literal
	} else if strings.Trim(host, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" {
		// No wildcard ("*.example.com"); an internationalised name is sent in its punycode (xn--) form.
		return "", fmt.Errorf("host %q: want letters, digits, dots and hyphens", host)
	}
	if strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("empty port")
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("port %q", port)
		}
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = "" // the scheme's default: browsers leave it out
		} else {
			port = strconv.Itoa(n)
		}
	}
	if port != "" {
		return scheme + "://" + host + ":" + port, nil
	}
	return scheme + "://" + host, nil
}
