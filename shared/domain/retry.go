package domain

import (
	"context"
	"math/rand/v2"
	"time"
)

// RetryOnConflict runs attempt until it returns anything but ECONFLICT, at most attempts times. Writes
// that can race are conditional on a version (optimistic concurrency); an attempt that lost re-reads and
// re-applies its change, so concurrent changes of different fields both land and a change that is no
// longer valid answers as such. Between runs it waits a little, with jitter, so that contenders that
// collided do not collide again in lockstep. When every attempt lost, the last ECONFLICT is returned
// (the API answers it with 503 and Retry-After). attempt gets its number, from 1.
func RetryOnConflict(ctx context.Context, attempts int, attempt func(n int) error) error {
	for n := 1; ; n++ {
		err := attempt(n)
		if ErrorCode(err) != ECONFLICT || n >= attempts {
			return err
		}
		t := time.NewTimer(time.Duration(n)*5*time.Millisecond + rand.N(10*time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
