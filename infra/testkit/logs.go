package testkit

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/smithy-go/logging"
	"github.com/reportingplatform/api/shared/httpapi"
)

// logCapture keeps every line the test binary logs, for Main to search for secrets.
type logCapture struct {
	mu      sync.Mutex
	lines   []string
	bytes   int
	dropped int       // lines beyond maxCapture, counted but not kept
	echo    io.Writer // TEST_LOG set: every line also goes to stderr
}

// maxCapture bounds what is kept: far above what `make test` logs, it only stops a long
// fuzzing run through the whole API from growing without end.
const maxCapture = 256 << 20

// Write takes one or more whole lines (a slog handler writes one record a call).
func (c *logCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, line := range bytes.Split(bytes.TrimSuffix(p, []byte("\n")), []byte("\n")) {
		if c.bytes+len(line) > maxCapture {
			c.dropped++
			continue
		}
		c.lines = append(c.lines, string(line))
		c.bytes += len(line) + 1
	}
	if c.echo != nil {
		_, _ = c.echo.Write(p)
	}
	return len(p), nil
}

func (c *logCapture) snapshot() (lines []string, size, dropped int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...), c.bytes, c.dropped
}

var (
	captured = newCapture()
	// logger is the service's logger in its Lambda format (JSON), writing into captured.
	logger = httpapi.NewLogger(captured, "json")
	// sdkLogger receives what the AWS SDK would log (testkit's DynamoDB clients).
	sdkLogger = logging.LoggerFunc(func(c logging.Classification, format string, v ...any) {
		_, _ = fmt.Fprintf(captured, "SDK %s %s\n", c, fmt.Sprintf(format, v...))
	})
	mainRunning atomic.Bool
)

func newCapture() *logCapture {
	c := &logCapture{}
	if os.Getenv("TEST_LOG") != "" {
		c.echo = os.Stderr
	}
	return c
}

// Log returns the logger every handler under test gets: the production format (JSON, as in Lambda)
// into a capture that Main searches for secrets when the tests end. Set TEST_LOG=1 to also see the lines
// on stderr. It fails the test when the package has no TestMain calling Main, whose check would then
// never run.
func Log(tb testing.TB) *slog.Logger {
	tb.Helper()
	if !mainRunning.Load() {
		tb.Fatal("testkit.Log: the test package needs `func TestMain(m *testing.M) { testkit.Main(m) }`")
	}
	return logger
}

// Main runs the tests of a package (call it from TestMain) with slog's default logger, and through it
// the log package's, writing into the capture as Log does; then it searches every captured line for
// every secret the tests registered (see secretSet), prints a one-line summary and each leak (masked)
// to stderr, and exits non-zero when there is one.
func Main(m *testing.M) {
	mainRunning.Store(true)
	slog.SetDefault(logger)
	code := m.Run()
	lines, size, dropped := captured.snapshot()
	leaks := findLeaks(lines, secrets)
	fmt.Fprintf(os.Stderr, "testkit: searched %d log lines (%d bytes) for %s and their pieces: %d leaks\n",
		len(lines), size, secrets.summary(), len(leaks))
	if dropped > 0 {
		fmt.Fprintf(os.Stderr, "testkit: %d further log lines, beyond %d MiB, were not kept and not searched\n",
			dropped, maxCapture>>20)
	}
	for i, l := range leaks {
		if i == 20 {
			fmt.Fprintf(os.Stderr, "testkit: … and %d more\n", len(leaks)-i)
			break
		}
		fmt.Fprintf(os.Stderr, "testkit: SECRET IN LOG: %s\n", l)
	}
	if len(leaks) > 0 && code == 0 {
		fmt.Fprintln(os.Stderr, "FAIL: a secret appears in the logs (SPEC §9)")
		code = 1
	}
	os.Exit(code)
}
