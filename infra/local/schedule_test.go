package main

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/service"
)

// make run runs template.yaml's scheduled functions as EventBridge does, and once at start: against
// the demo data, the first run of ExpiriesFunction records the demo's invitation past its expiry.
func TestMakeRunRecordsExpiriesAtStart(t *testing.T) {
	db := testkit.NewDB(t)
	db.LoadDemo(t, time.Now(), 7*24*time.Hour)
	runs := make(chan slog.Record, 4)
	env := service.Env{Log: slog.New(notify{testkit.Log(t).Handler(), runs}), Store: db.Store, Now: time.Now}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	list, err := schedules(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if want := []wiring.Schedule{{Function: "ExpiriesFunction", Expression: "rate(5 minutes)",
		Every: 5 * time.Minute}}; !slices.Equal(list, want) {
		t.Fatalf("schedules %+v, want %+v", list, want)
	}
	run := <-runs // the run at start
	attrs := map[string]any{}
	run.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.Any(); return true })
	if run.Message != "expiries" || run.Level != slog.LevelInfo || attrs["recorded"] != int64(1) {
		t.Fatalf("the run at start logged %s %q %v; want INFO expiries with recorded 1", run.Level, run.Message, attrs)
	}
	inv, err := db.Store.Invitation(ctx, "c4ee50f0-719f-5eb3-a674-f1bff9456397")
	if err != nil || inv.Status != domain.StatusExpired {
		t.Fatalf("the demo's invitation past its expiry after the run: status %d, %v; want 3 stored", inv.Status, err)
	}
}

// notify is a slog handler that also hands each record it logs to a channel.
type notify struct {
	slog.Handler
	records chan<- slog.Record
}

func (n notify) Handle(ctx context.Context, r slog.Record) error {
	n.records <- r.Clone()
	return n.Handler.Handle(ctx, r)
}

func (n notify) WithAttrs(attrs []slog.Attr) slog.Handler {
	return notify{n.Handler.WithAttrs(attrs), n.records}
}

func (n notify) WithGroup(name string) slog.Handler {
	return notify{n.Handler.WithGroup(name), n.records}
}
