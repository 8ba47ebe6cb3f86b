// Package dynamo is the DynamoDB single-table store of the service. It implements the store interfaces
// of package domain and knows nothing of HTTP. Keys are built in keys.go only; ACCESS_PATTERNS.md lists
// every access pattern with its key or index and operation. No operation scans the table.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/metrics"
)

// Store reads and writes the single table.
type Store struct {
	db    *dynamodb.Client
	table string
	// attempts is how often the client's retryer tries a call; a write whose answer was lost is sent
	// at most twice as often (send).
	attempts int
	metrics  *metrics.Recorder // nil: none recorded
	// deepInvitations, when set, stands for speculativeEntries and plainReadEntries in invitation
	// lists (WithDeepInvitationPages).
	deepInvitations int
}

var _ domain.UserStore = (*Store)(nil)

// New returns a store over table, using db for every call.
func New(db *dynamodb.Client, table string) *Store {
	return &Store{db: db, table: table, attempts: max(db.Options().Retryer.MaxAttempts(), 1)}
}

// WithDeepInvitationPages is another store over the same table whose numbered invitation pages deeper
// than n entries count first, and are placed by the counts by time once deeper than n from both ends
// (1,000 for both, otherwise): a test lowers it to reach the deep pages of every kind of list in a
// table of a few thousand invitations.
func (s *Store) WithDeepInvitationPages(n int) *Store {
	c := *s
	c.deepInvitations = n
	return &c
}

// deepInvitationEntries is how deep a numbered invitation page is before it counts first, and before,
// from both ends, it is placed by the counts by time.
func (s *Store) deepInvitationEntries() int {
	if s.deepInvitations > 0 {
		return s.deepInvitations
	}
	return speculativeEntries
}

// SetMetrics makes the store count the writes whose lost answer it settled or left open (SPEC §9).
func (s *Store) SetMetrics(m *metrics.Recorder) { s.metrics = m }

// getItem reads one item, strongly consistent unless o says otherwise; found is false when it does not
// exist.
func (s *Store) getItem(ctx context.Context, step string, k key,
	o readOptions) (map[string]types.AttributeValue, bool, error) {
	in := &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: k.av(), ConsistentRead: aws.Bool(!o.eventual)}
	if o.projection != nil {
		in.ProjectionExpression, in.ExpressionAttributeNames = &o.projection.expr, o.projection.names
	}
	out, err := s.db.GetItem(ctx, in)
	if err != nil {
		return nil, false, fail(step, err)
	}
	return out.Item, out.Item != nil, nil
}

// getDecoded reads the item at k as getItem does and decodes it; ENOTFOUND when it does not exist.
func getDecoded[T any](ctx context.Context, s *Store, step string, k key, o readOptions,
	decode func(map[string]types.AttributeValue) (T, error)) (T, error) {
	item, found, err := s.getItem(ctx, step, k, o)
	if err == nil && !found {
		err = domain.NotFound()
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(item)
}

// decodeFound decodes into out, under its reference, each item of refs that was found.
func decodeFound[R comparable, V any](out map[R]V, refs []R, keyOf func(R) key,
	items map[key]map[string]types.AttributeValue,
	decode func(map[string]types.AttributeValue) (V, error)) error {
	for _, r := range refs {
		if item := items[keyOf(r)]; item != nil {
			v, err := decode(item)
			if err != nil {
				return err
			}
			out[r] = v
		}
	}
	return nil
}

// batchGet reads any number of items strongly consistent, in one round trip (see batchRead).
func (s *Store) batchGet(ctx context.Context, step string,
	keys []key) (map[key]map[string]types.AttributeValue, error) {
	return s.batchRead(ctx, step, keys, readOptions{})
}

// projection is a ProjectionExpression with its attribute names: what a read brings back.
type projection struct {
	expr  string
	names map[string]string // placeholder → attribute; read concurrently, never written after projectionOf
}

// projectionOf names the attributes a read brings back. Its placeholders (#p0, #p1, …) cannot meet the
// expression package's (#0, #1, …), so a Query's key condition and a projection go out together.
func projectionOf(attrs ...string) projection {
	p := projection{names: make(map[string]string, len(attrs))}
	placeholders := make([]string, len(attrs))
	for i, a := range attrs {
		placeholders[i] = fmt.Sprintf("#p%d", i)
		p.names[placeholders[i]] = a
	}
	p.expr = strings.Join(placeholders, ", ")
	return p
}

// with returns names (a condition's) and the projection's together.
func (p projection) with(names map[string]string) map[string]string {
	all := make(map[string]string, len(names)+len(p.names))
	maps.Copy(all, names)
	maps.Copy(all, p.names)
	return all
}

// readOptions tunes batchRead: eventually consistent reads cost half, and a projection keeps what is
// not needed (password hashes, say) in the table.
type readOptions struct {
	eventual   bool
	projection *projection
}

// batchRead reads items by key in one round trip: the chunks of 100 keys BatchGetItem allows go out
// together, and each retries its unprocessed keys with backoff. Missing items are absent from the result.
func (s *Store) batchRead(ctx context.Context, step string, keys []key,
	o readOptions) (map[key]map[string]types.AttributeValue, error) {
	var unique []map[string]types.AttributeValue
	seen := make(map[key]bool, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			unique = append(unique, k.av())
		}
	}
	var chunks [][]map[string]types.AttributeValue
	for len(unique) > 0 {
		n := min(len(unique), 100)
		chunks, unique = append(chunks, unique[:n]), unique[n:]
	}
	var (
		mu       sync.Mutex
		found    = make(map[key]map[string]types.AttributeValue, len(keys))
		firstErr error
	)
	inParallel(len(chunks), func(i int) {
		items, err := s.batchChunk(ctx, step, chunks[i], o)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && firstErr == nil {
			firstErr = err
		}
		for _, item := range items {
			found[itemKey(item)] = item
		}
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return found, nil
}

// inParallel runs f(0), …, f(n-1) at once and returns when all have. The last runs on the calling
// goroutine, so the usual single call costs no goroutine: handing a result back from one means waking
// the waiting goroutine on a busy core, and a new goroutine grows its stack by copying through the
// SDK's deep middleware chain; both show in every operation's own time (docs/PERFORMANCE.md).
func inParallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n - 1 {
		wg.Add(1)
		go func() { defer wg.Done(); f(i) }()
	}
	if n > 0 {
		f(n - 1)
	}
	wg.Wait()
}

func (s *Store) batchChunk(ctx context.Context, step string, pending []map[string]types.AttributeValue,
	o readOptions) ([]map[string]types.AttributeValue, error) {
	var found []map[string]types.AttributeValue
	for attempt := 0; len(pending) > 0; attempt++ {
		req := types.KeysAndAttributes{Keys: pending, ConsistentRead: aws.Bool(!o.eventual)}
		if o.projection != nil {
			req.ProjectionExpression, req.ExpressionAttributeNames = &o.projection.expr, o.projection.names
		}
		out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
			RequestItems: map[string]types.KeysAndAttributes{s.table: req},
			// Free to ask for; the cost tests read it.
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		if err != nil {
			return nil, fail(step, err)
		}
		found = append(found, out.Responses[s.table]...)
		pending = out.UnprocessedKeys[s.table].Keys
		if len(pending) == 0 {
			break
		}
		if attempt >= 8 {
			return nil, fail(step, &domain.Error{Code: domain.EUNAVAILABLE, Detail: "unprocessed keys after retries"})
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return nil, fail(step, err)
		}
	}
	return found, nil
}

func itemKey(item map[string]types.AttributeValue) key {
	return key{PK: stringAttr(item, attrPK), SK: stringAttr(item, attrSK)}
}

func stringAttr(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func backoff(attempt int) time.Duration { return time.Duration(10<<attempt) * time.Millisecond }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// cancelled reports, for a failed TransactWriteItems, which items had their condition fail.
type cancelled struct {
	failed map[int]bool
	err    error
}

func (c *cancelled) Error() string { return c.err.Error() }
func (c *cancelled) Unwrap() error { return c.err }

// transact runs one TransactWriteItems, sent again with its token when its answer is lost (send). A cancellation
// because of conditions comes back as *cancelled so the caller can tell which condition failed; other
// cancellations (a concurrent transaction on the same items) come back as ECONFLICT.
func (s *Store) transact(ctx context.Context, step string, items []types.TransactWriteItem) error {
	for i := range items {
		setTable(&items[i], s.table)
	}
	w, err := newWrite(items)
	if err != nil {
		return fail(step, err)
	}
	return s.send(ctx, step, w)
}

func setTable(item *types.TransactWriteItem, table string) {
	switch {
	case item.Put != nil:
		item.Put.TableName = aws.String(table)
	case item.Update != nil:
		item.Update.TableName = aws.String(table)
	case item.Delete != nil:
		item.Delete.TableName = aws.String(table)
	case item.ConditionCheck != nil:
		item.ConditionCheck.TableName = aws.String(table)
	}
}

// conditionFailed reports whether err is a transaction cancelled by the condition of item i.
func conditionFailed(err error, i int) bool {
	var c *cancelled
	return errors.As(err, &c) && c.failed[i]
}
