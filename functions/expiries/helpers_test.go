package expiries_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/functions/expiries"
	"github.com/reportingplatform/api/functions/invitations"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// ttl is the INVITATION_TTL of the tests.
const ttl = 7 * 24 * time.Hour

// world is a fresh table with one organization, its administrator (the inviter) and a staff user, the
// invitations function behind the API Gateway path, and a fixed clock both functions read.
type world struct {
	db    *testkit.DB
	gw    http.Handler
	now   time.Time
	org   string
	admin string // the inviter's member id
	staff string // a staff user's token
}

func newWorld(t *testing.T) *world {
	t.Helper()
	db := testkit.NewDB(t)
	w := &world{db: db, now: time.Now().UTC().Truncate(time.Microsecond), org: uuid.NewString(), admin: uuid.NewString()}
	w.gw = testkit.Gateway(t, map[string]http.Handler{
		"InvitationsFunction": invitations.New(db.Store, nil, testkit.Log(t), ttl, w.clock),
	})
	admin := db.User(t, testkit.NewUser{})
	w.staff = db.Token(t, db.User(t, testkit.NewUser{Staff: true}), time.Hour)
	db.Load(t, map[string]any{
		"organizations": []any{map[string]any{"id": w.org, "name": "Acme"}},
		"members":       []any{map[string]any{"id": w.admin, "organization_id": w.org, "user_id": admin.ID, "role": 2}},
	}, w.now, ttl)
	return w
}

func (w *world) clock() time.Time { return w.now }

// invitation loads an invitation of the given status and expiry to email (empty: an address of its
// own) and returns its id.
func (w *world) invitation(t *testing.T, status int, expiry time.Time, email string) string {
	t.Helper()
	id := uuid.NewString()
	if email == "" {
		email = "i-" + id[:8] + "@example.com"
	}
	w.db.Load(t, map[string]any{"invitations": []any{map[string]any{
		"id": id, "organization_id": w.org, "inviter_member_id": w.admin, "email": email,
		"role": 0, "status": status, "email_sent": true, "accessible_portfolio_ids": []string{},
		"expiry_date": expiry.Format(time.RFC3339Nano),
	}}}, w.now, ttl)
	return id
}

// stored reads an invitation as the table holds it.
func (w *world) stored(t *testing.T, id string) domain.Invitation {
	t.Helper()
	inv, err := w.db.Store.Invitation(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// get sends a GET as the staff user and returns its 200 body.
func (w *world) get(t *testing.T, path string) []byte {
	t.Helper()
	resp := testkit.Do(t, w.gw, testkit.Request{Method: http.MethodGet, Path: path, Token: w.staff})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Body)
	}
	return resp.Body
}

// handler is the expiries function over store, at the world's clock, logging into testkit's capture
// and into lines, which the test reads.
func (w *world) handler(t *testing.T, store *dynamo.Store, lines *logLines) *expiries.Handler {
	t.Helper()
	log := slog.New(slog.NewMultiHandler(testkit.Log(t).Handler(), slog.NewJSONHandler(lines, nil)))
	return expiries.New(store, log, w.clock)
}

// logLines keeps the JSON lines a handler logs.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// all decodes every line logged so far.
func (l *logLines) all(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a log line that is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// sampleEvent is events/ExpiriesFunction-scheduled.json, the Scheduled Event EventBridge sends.
func sampleEvent(t *testing.T) events.EventBridgeEvent {
	t.Helper()
	tpl, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(tpl), "events", "ExpiriesFunction-scheduled.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev events.EventBridgeEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.DetailType != "Scheduled Event" || ev.Source != "aws.events" || ev.ID == "" {
		t.Fatalf("the sample event is no Scheduled Event: %+v", ev)
	}
	return ev
}
