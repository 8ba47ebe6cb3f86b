package httpapi

import (
	"io"
	"log/slog"
)

// NewLogger returns the service's logger: JSON in Lambda (CloudWatch parses it), text locally.
func NewLogger(w io.Writer, format string) *slog.Logger {
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, nil))
	}
	return slog.New(slog.NewJSONHandler(w, nil))
}
