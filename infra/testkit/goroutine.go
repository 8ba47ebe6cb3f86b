package testkit

import (
	"runtime"
	"testing"
)

// InGoroutine lets testkit.Do and other helpers run on goroutines of a test: a failed assertion is
// reported with Errorf (safe from any goroutine) and ends only that goroutine, where Fatalf would end
// the test from the wrong goroutine.
func InGoroutine(tb testing.TB) testing.TB { return goroutineTB{tb} }

type goroutineTB struct{ testing.TB }

func (g goroutineTB) Fatalf(format string, args ...any) {
	g.TB.Helper()
	g.TB.Errorf(format, args...)
	runtime.Goexit()
}

func (g goroutineTB) Fatal(args ...any) {
	g.TB.Helper()
	g.TB.Error(args...)
	runtime.Goexit()
}
