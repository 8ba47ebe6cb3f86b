package main

import (
	"context"
	"fmt"
	"time"

	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/service"
)

// schedules starts, for each Schedule event of template.yaml, a goroutine that runs the function's
// handler as EventBridge would: once at start, so that what is due is done at once, then at the
// template's rate until ctx ends. Each run logs its own line (what it recorded).
func schedules(ctx context.Context, env service.Env) ([]wiring.Schedule, error) {
	templatePath, err := gateway.FindTemplate()
	if err != nil {
		return nil, err
	}
	list, err := wiring.LoadSchedules(templatePath)
	if err != nil {
		return nil, err
	}
	handlers := wiring.Scheduled(env.Store, env.Log, env.Now)
	for _, s := range list {
		h, ok := handlers[s.Function]
		if !ok {
			return nil, fmt.Errorf("template.yaml schedules %s, which infra/wiring does not wire", s.Function)
		}
		go func() {
			tick := time.NewTicker(s.Every)
			defer tick.Stop()
			for {
				// A failed run is logged by the handler; the next one does its work.
				_, _ = h.Handle(ctx, wiring.ScheduledEvent(s.Function, env.Now()))
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
	}
	return list, nil
}
