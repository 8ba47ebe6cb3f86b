package dynamo_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
)

// TestContinuationKeyIsMadeOnceForTheTable: the first read of a table's continuation key makes it (32
// bytes); every store on the table, creators that race on a fresh table included, gets the same key
// afterwards, and another table has a key of its own.
func TestContinuationKeyIsMadeOnceForTheTable(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	const racers = 8
	keys := make([][]byte, racers)
	var wg sync.WaitGroup
	for i := range racers {
		store, _ := db.View(t)
		wg.Go(func() {
			var err error
			if keys[i], err = store.ContinuationKey(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	again, err := db.Store.ContinuationKey(ctx)
	must(t, err)
	if len(again) != 32 {
		t.Fatalf("a key of %d bytes", len(again))
	}
	for i, k := range keys {
		if !bytes.Equal(k, again) {
			t.Fatalf("racer %d got %x, the table holds %x", i, k, again)
		}
	}
	db.Calls.Reset()
	if _, err := db.Store.ContinuationKey(ctx); err != nil {
		t.Fatal(err)
	}
	if ops := db.Calls.Ops(); len(ops) != 1 || ops[0] != "GetItem" {
		t.Fatalf("reading an existing key made %v, want one GetItem", ops)
	}
	other, err := testkit.NewDB(t).Store.ContinuationKey(ctx)
	must(t, err)
	if bytes.Equal(other, again) {
		t.Fatal("two tables share a key")
	}
}
