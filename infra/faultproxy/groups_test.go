package faultproxy_test

import (
	"sync"
	"testing"
)

// groups runs subtests, each with a copy of the demo table to itself, a few at once.
type groups struct {
	t     *testing.T
	demo  *demo
	queue chan func()
	wg    sync.WaitGroup
}

// groups starts the workers that run what add queues. Groups run as subtests of a few goroutines of
// their own, not t.Parallel, so that -parallel (2 on two cores) does not serialise cases that mostly
// wait, on backoff or a hang.
func (d *demo) groups(t *testing.T) *groups {
	g := &groups{t: t, demo: d, queue: make(chan func(), 64)}
	for range concurrently {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			for run := range g.queue {
				run()
			}
		}()
	}
	return g
}

// add queues run as the subtest name, with its own copy of the demo behind its own proxy.
func (g *groups) add(name string, run func(t *testing.T, a *api)) {
	g.queue <- func() { g.t.Run(name, func(t *testing.T) { run(t, g.demo.api(t)) }) }
}

// wait returns when every group queued has run; no more may be added.
func (g *groups) wait() {
	close(g.queue)
	g.wg.Wait()
}
