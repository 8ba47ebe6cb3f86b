// Command load is `make load`: mixed load against a running `make run` (or any deployment of the API).
// From -clients parallel clients for -duration, logged in as one demo user, it lists, reads, creates,
// edits (PATCH) and deletes comments of one object, each client on the comments it created, and records
// every answer's status and time. Afterwards it checks that no answer hid a write: the object's count
// equals what it was plus the creates answered 201 minus the deletes answered 204; a delete answered 503
// must not have deleted, and an edit answered 503 must not have changed the text. 503s themselves are
// allowed (SPEC §9: a store too slow for the budget), writes behind them are not. The one 503 that says
// the change may have been saved is followed up as a client would: a create (each carries an
// Idempotency-Key) is sent again with its key until it is answered for sure, a delete is read. It exits
// 1 when it finds a hidden write.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

type options struct {
	url, email, password, contentType, objectID string
	clients                                     int
	duration, settle                            time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.url, "url", "http://127.0.0.1:3000", "the API's base URL")
	flag.IntVar(&o.clients, "clients", 32, "parallel clients")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "how long the clients send")
	flag.DurationVar(&o.settle, "settle", 5*time.Second,
		"wait after the load before the checks, for writes still queued in a slow store to land")
	flag.StringVar(&o.email, "email", "grace@example.com", "the demo user the clients log in as")
	flag.StringVar(&o.password, "password", "demo-grace-2026", "their password")
	flag.StringVar(&o.contentType, "content-type", "report", "the object's content type")
	flag.StringVar(&o.objectID, "object", "8ae83b59-9621-58f7-ae8c-5a712269c424", "the object's id")
	flag.Parse()
	hidden, err := run(context.Background(), o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	if hidden {
		os.Exit(1)
	}
}

// The operations, and how often each is picked (out of their sum).
const (
	opList   = "list"
	opRead   = "read"
	opCreate = "create"
	opEdit   = "edit"
	opDelete = "delete"
)

var mix = []struct {
	op     string
	weight int
}{{opList, 30}, {opRead, 20}, {opCreate, 25}, {opEdit, 15}, {opDelete, 10}}

// result is one answer.
type result struct {
	op     string
	status int  // 0: no answer (a transport error)
	open   bool // a 503 that says the change may have been saved (SPEC §9)
	took   time.Duration
}

// comment is one a client created, with what a check at the end needs to know of it.
type comment struct {
	id string
	// unsure is the text of the comment's last edit when that edit was answered 503: the edit must not
	// have landed.
	unsure string
}

type api struct {
	http        *http.Client
	base, token string
	contentType string
	objectID    string
}

func run(ctx context.Context, o options, out io.Writer) (hidden bool, err error) {
	a := &api{http: &http.Client{Timeout: 30 * time.Second}, base: o.url, contentType: o.contentType,
		objectID: o.objectID}
	if err := a.login(ctx, o.email, o.password); err != nil {
		return false, err
	}
	before, err := a.count(ctx)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(out, "%d clients for %s against %s, as %s, on %s %s (count %d)\n", o.clients, o.duration, o.url,
		o.email, o.contentType, o.objectID, before)

	var (
		mu       sync.Mutex
		results  []result
		live     []*comment // created, not deleted
		deleted  []*comment // deletes answered 503: must still exist
		opened   []*comment // deletes answered the 503 that says they may have been done: read to find out
		created  int        // creates answered 201, at once or on a retry with their Idempotency-Key
		removed  int        // deletes answered 204
		settled  int        // creates answered "may have been saved", then 201 on the retry with their key
		wg       sync.WaitGroup
		deadline = time.Now().Add(o.duration)
	)
	for c := range o.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []*comment
			for n := 0; time.Now().Before(deadline); n++ {
				op := pick(len(mine))
				var target *comment
				if op == opRead || op == opEdit || op == opDelete {
					target = mine[rand.IntN(len(mine))]
				}
				r, id, text := a.do(ctx, op, target, fmt.Sprintf("load client %d, request %d", c, n))
				if op == opCreate && r.open {
					// As the 503 says: the same create again, with its key, tells what became of it.
					if id = a.settle(ctx, text); id != "" {
						mu.Lock()
						settled++
						mu.Unlock()
						r.status = http.StatusCreated
					}
				}
				mu.Lock()
				results = append(results, r)
				switch {
				case op == opCreate && r.status == http.StatusCreated:
					created++
					cm := &comment{id: id}
					mine, live = append(mine, cm), append(live, cm)
				case op == opEdit && r.status == http.StatusServiceUnavailable && !r.open:
					target.unsure = text
				case op == opEdit && r.open:
					target.unsure = "" // may or may not have changed the text, as the answer said
				case op == opEdit && r.status == http.StatusOK:
					target.unsure = ""
				case op == opDelete && r.status == http.StatusNoContent:
					removed++
				case op == opDelete && r.open:
					opened = append(opened, target)
				case op == opDelete && r.status == http.StatusServiceUnavailable:
					deleted = append(deleted, target)
				}
				if op == opDelete && (r.status == http.StatusNoContent || r.status == http.StatusServiceUnavailable) {
					mine = slices.DeleteFunc(mine, func(x *comment) bool { return x == target })
					live = slices.DeleteFunc(live, func(x *comment) bool { return x == target })
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	report(out, results, o.duration)

	time.Sleep(o.settle)
	after, err := a.count(ctx)
	if err != nil {
		return false, err
	}
	openDeleted, err := a.gone(ctx, opened)
	if err != nil {
		return false, err
	}
	removed += openDeleted
	hiddenDeletes, err := a.gone(ctx, deleted)
	if err != nil {
		return false, err
	}
	var hiddenEdits int
	for _, cm := range live {
		if cm.unsure == "" {
			continue
		}
		status, text, err := a.get(ctx, cm.id)
		if err != nil {
			return false, err
		}
		if status == http.StatusOK && text == cm.unsure {
			hiddenEdits++
		}
	}
	want := before + created - removed
	fmt.Fprintf(out, "\ncreates answered \"may have been saved\", then 201 on the retry with their key: %d\n", settled)
	fmt.Fprintf(out, "deletes answered \"may have been saved\": %d, of which done: %d (read back, counted as 204)\n",
		len(opened), openDeleted)
	fmt.Fprintf(out, "count: %d before, %d creates answered 201, %d deletes answered 204: want %d, have %d\n",
		before, created, removed, want, after)
	hidden = after != want
	if hidden {
		// A delete answered 503 that deleted lowers the count: the creates behind 503s are the rest.
		fmt.Fprintf(out, "HIDDEN WRITES: the count differs by %+d from what the answers said "+
			"(creates answered otherwise that created: %d)\n", after-want, after-want+hiddenDeletes)
	}
	fmt.Fprintf(out, "deletes answered 503 that deleted: %d of %d; edits answered 503 that changed the text: %d\n",
		hiddenDeletes, len(deleted), hiddenEdits)
	if hiddenDeletes > 0 || hiddenEdits > 0 {
		hidden = true
	}
	if hidden {
		fmt.Fprintln(out, "FAIL: answers hid writes")
	} else {
		fmt.Fprintln(out, "ok: every write is as its answer said")
	}
	return hidden, nil
}

// pick draws an operation from mix; one that needs a comment of the client's own is a create while it
// has none.
func pick(own int) string {
	total := 0
	for _, m := range mix {
		total += m.weight
	}
	n := rand.IntN(total)
	for _, m := range mix {
		if n < m.weight {
			if own == 0 && (m.op == opRead || m.op == opEdit || m.op == opDelete) {
				return opCreate
			}
			return m.op
		}
		n -= m.weight
	}
	return opList
}

// do sends one operation; for a create it returns the new comment's id, for an edit the text it sent.
func (a *api) do(ctx context.Context, op string, target *comment, text string) (result, string, string) {
	var (
		method, path string
		body         any
		want         int
	)
	switch op {
	case opList:
		method, path = http.MethodGet, "/api/v1/comments/?content_type="+a.contentType+"&object_id="+a.objectID
	case opRead:
		method, path = http.MethodGet, "/api/v1/comments/"+target.id+"/"
	case opCreate:
		method, path = http.MethodPost, "/api/v1/comments/"
		body = map[string]string{"content_type": a.contentType, "object_id": a.objectID, "text": text, "tag": "load"}
		want = http.StatusCreated
	case opEdit:
		method, path = http.MethodPatch, "/api/v1/comments/"+target.id+"/"
		body = map[string]string{"text": text}
	case opDelete:
		method, path = http.MethodDelete, "/api/v1/comments/"+target.id+"/"
	}
	key := ""
	if op == opCreate {
		key = keyOf(text)
	}
	start := time.Now()
	status, raw, err := a.sendKeyed(ctx, method, path, body, key)
	r := result{op: op, status: status, took: time.Since(start), open: isOpen(status, raw)}
	if err != nil {
		r.status = 0
	}
	var id string
	if want != 0 && status == want {
		var created struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(raw, &created)
		id = created.ID
	}
	return r, id, text
}

// keyOf is the Idempotency-Key of the create of text, which is unique: the text, its spaces made dashes
// (a key is visible ASCII).
func keyOf(text string) string { return strings.ReplaceAll(text, " ", "-") }

// isOpen tells SPEC §9's 503 for a write that DynamoDB answered none of the copies of.
func isOpen(status int, body []byte) bool {
	return status == http.StatusServiceUnavailable && bytes.Contains(body, []byte("may have been saved"))
}

// settle sends the create of text again with its Idempotency-Key, as a client told "may have been saved"
// does, until it is answered for sure: the id of the comment it made (201), or "" when it made none (a
// plain 503: the key was given back, so neither the first create nor this one wrote). A 409 (the first
// still holds its key) or the same open 503 again is asked again a second later, for as long as a key's
// lease can last and more.
func (a *api) settle(ctx context.Context, text string) string {
	body := map[string]string{"content_type": a.contentType, "object_id": a.objectID, "text": text, "tag": "load"}
	for range 90 {
		status, raw, err := a.sendKeyed(ctx, http.MethodPost, "/api/v1/comments/", body, keyOf(text))
		switch {
		case err == nil && status == http.StatusCreated:
			var created struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(raw, &created)
			return created.ID
		case err == nil && status == http.StatusServiceUnavailable && !isOpen(status, raw):
			return ""
		}
		time.Sleep(time.Second)
	}
	return ""
}

func (a *api) send(ctx context.Context, method, path string, body any) (int, []byte, error) {
	return a.sendKeyed(ctx, method, path, body, "")
}

// sendKeyed sends a request, with an Idempotency-Key when key is not empty.
func (a *api) sendKeyed(ctx context.Context, method, path string, body any, key string) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

func (a *api) login(ctx context.Context, email, password string) error {
	status, raw, err := a.send(ctx, http.MethodPost, "/api/v1/auth/login",
		map[string]string{"username": email, "password": password})
	if err != nil {
		return fmt.Errorf("login: %w (is make run serving %s?)", err, a.base)
	}
	var answer struct {
		Token string `json:"token"`
	}
	if status != http.StatusCreated || json.Unmarshal(raw, &answer) != nil || answer.Token == "" {
		return fmt.Errorf("login as %s answered %d %s", email, status, raw)
	}
	a.token = answer.Token
	return nil
}

// count is the object's count, from its list's first page; retried while the store is too slow.
func (a *api) count(ctx context.Context) (int, error) {
	for attempt := 1; ; attempt++ {
		status, raw, err := a.send(ctx, http.MethodGet,
			"/api/v1/comments/?page_size=1&content_type="+a.contentType+"&object_id="+a.objectID, nil)
		var list struct {
			Count *int `json:"count"`
		}
		if err == nil && status == http.StatusOK && json.Unmarshal(raw, &list) == nil && list.Count != nil {
			return *list.Count, nil
		}
		if attempt == 10 {
			return 0, errors.Join(fmt.Errorf("count: the list answered %d %s", status, raw), err)
		}
		time.Sleep(time.Second)
	}
}

// gone is how many of comments read back 404.
func (a *api) gone(ctx context.Context, comments []*comment) (int, error) {
	n := 0
	for _, cm := range comments {
		status, _, err := a.get(ctx, cm.id)
		if err != nil {
			return 0, err
		}
		if status == http.StatusNotFound {
			n++
		}
	}
	return n, nil
}

// get is a comment's status and text, retried while the store is too slow.
func (a *api) get(ctx context.Context, id string) (int, string, error) {
	for attempt := 1; ; attempt++ {
		status, raw, err := a.send(ctx, http.MethodGet, "/api/v1/comments/"+id+"/", nil)
		if err == nil && status != http.StatusServiceUnavailable {
			var c struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(raw, &c)
			return status, c.Text, nil
		}
		if attempt == 10 {
			return 0, "", errors.Join(fmt.Errorf("read comment %s: answered %d %s", id, status, raw), err)
		}
		time.Sleep(time.Second)
	}
}

// report prints, per operation and in all, the answers by status and the p50 and p95 times.
func report(out io.Writer, results []result, d time.Duration) {
	fmt.Fprintf(out, "\n%-8s %8s %8s %8s  %s\n", "OP", "SENT", "P50", "P95", "ANSWERS")
	ops := []string{opList, opRead, opCreate, opEdit, opDelete, "all"}
	for _, op := range ops {
		var took []time.Duration
		statuses := map[int]int{}
		for _, r := range results {
			if op == "all" || r.op == op {
				took = append(took, r.took)
				if r.open {
					statuses[-1]++ // listed as "503 open"
					continue
				}
				statuses[r.status]++
			}
		}
		if len(took) == 0 {
			continue
		}
		sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
		var codes []int
		for c := range statuses {
			codes = append(codes, c)
		}
		sort.Ints(codes)
		var answers bytes.Buffer
		for _, c := range codes {
			label := fmt.Sprint(c)
			switch c {
			case 0:
				label = "no answer"
			case -1:
				label = "503open"
			}
			fmt.Fprintf(&answers, "%s×%d ", label, statuses[c])
		}
		fmt.Fprintf(out, "%-8s %8d %8s %8s  %s\n", op, len(took), percentile(took, 50), percentile(took, 95),
			answers.String())
	}
	fmt.Fprintf(out, "%.0f requests/s\n", float64(len(results))/d.Seconds())
}

func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)].Round(time.Millisecond)
}
