package expiries_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

const listPath = "/api/v1/organization-invitations/"

// cursorValue is a link's continuation (base64url).
var cursorValue = regexp.MustCompile(`cursor=[A-Za-z0-9_-]+`)

// opaqueCursors is body with each link's continuation replaced by C. A continuation carries, besides the
// page's position, how many entries each stored status held around it (SPEC §6: what the next page
// reads from each), and recording an expiry moves an entry from one stored status to another without
// changing what the list shows: the links lead to the same pages (the walk tests follow them).
func opaqueCursors(body []byte) []byte { return cursorValue.ReplaceAll(body, []byte("cursor=C")) }

// listIDs is a list page's count and ids, in order.
func listIDs(t *testing.T, body []byte) (int, []string) {
	t.Helper()
	var page struct {
		Count   int `json:"count"`
		Results []struct {
			ID     string `json:"id"`
			Status int    `json:"status"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range page.Results {
		ids = append(ids, r.ID)
	}
	return page.Count, ids
}

// A run records every pending invitation past its expiry, and only those, as status 3 with the counts
// it moves, changing nothing an invitation or a list shows: the lists were exact before it (they read
// the unrecorded expiries keys only) and are after it (from the counts alone). A second run finds
// nothing to record.
func TestARunRecordsThePendingInvitationsPastTheirExpiry(t *testing.T) {
	w := newWorld(t)
	// One address, in its own letter case, has invitations in every state: its counts move too.
	const shared = "Shared.Person@Example.COM"
	var expired []string
	for i, ago := range []time.Duration{time.Minute, time.Hour, 30 * 24 * time.Hour} {
		expired = append(expired, w.invitation(t, 0, w.now.Add(-ago), []string{shared, "", ""}[i]))
	}
	pending := []string{w.invitation(t, 0, w.now.Add(time.Hour), shared), w.invitation(t, 0, w.now.Add(ttl), "")}
	accepted := w.invitation(t, 1, w.now.Add(-time.Hour), shared)    // final: not pending, not listed as expired
	recorded := w.invitation(t, 3, w.now.Add(-48*time.Hour), shared) // stored 3 already
	ids := slices.Concat(expired, pending, []string{accepted, recorded})

	lists := []string{listPath + "?status=0", listPath + "?status=3", listPath + "?status=1", listPath,
		listPath + "?status=3&page_size=2&page=2"}
	for _, q := range []string{"", "&status=0", "&status=3"} {
		lists = append(lists, listPath+"?email=shared.person@example.com"+q,
			listPath+"?organization="+w.org+"&email="+shared+q)
	}
	lists = append(lists, listPath+"?organization="+w.org+"&status=3", listPath+"?organization="+w.org+"&status=0")
	before := map[string][]byte{}
	for _, p := range slices.Concat(lists, detailPaths(ids)) {
		before[p] = w.get(t, p)
	}
	storedBefore := map[string]domain.Invitation{}
	for _, id := range ids {
		storedBefore[id] = w.stored(t, id)
	}
	if n, got := listIDs(t, before[listPath+"?status=3"]); n != 4 || len(got) != 4 || slices.Contains(got, accepted) {
		t.Fatalf("?status=3 before the run: count %d, ids %v; want the 3 past their expiry and the one stored 3", n, got)
	}
	if n, got := listIDs(t, before[listPath+"?status=0"]); n != 2 || !sameSet(got, pending) {
		t.Fatalf("?status=0 before the run: count %d, ids %v; want %v", n, got, pending)
	}
	if n, got := listIDs(t, before[listPath+"?email=shared.person@example.com&status=3"]); n != 2 ||
		!sameSet(got, []string{expired[0], recorded}) {
		t.Fatalf("the address's ?status=3 before the run: count %d, ids %v; want %v", n, got, []string{expired[0], recorded})
	}

	store, calls := w.db.View(t)
	calls.SimulateLatency(20 * time.Millisecond) // so that calls made in parallel would reliably overlap
	var lines logLines
	h := w.handler(t, store, &lines)
	res, err := h.Handle(context.Background(), sampleEvent(t))
	if err != nil || res.Recorded != 3 {
		t.Fatalf("run: %+v, %v; want 3 recorded", res, err)
	}
	// One GSI5 query, then the expiries' transactions one after another: each changes the count of
	// everyone's invitations, and DynamoDB cancels transactions that meet on an item.
	if ops := calls.Ops(); len(ops) != 4 || ops[0] != "Query" || calls.Count("TransactWriteItems") != 3 ||
		calls.Sequential() != 4 {
		t.Errorf("the run's calls: %v, %d sequential; want a Query, then 3 TransactWriteItems in turn", ops,
			calls.Sequential())
	}
	logged := lines.all(t)
	if len(logged) != 1 || logged[0]["msg"] != "expiries" || logged[0]["level"] != "INFO" ||
		logged[0]["recorded"] != 3.0 ||
		logged[0]["event_id"] != sampleEvent(t).ID || logged[0]["request_id"] != sampleEvent(t).ID {
		t.Errorf("logged %v; want one INFO line \"expiries\" with recorded 3 and the event's id", logged)
	}

	for _, id := range ids {
		got, was := w.stored(t, id), storedBefore[id]
		wantStatus, wantVersion := was.Status, was.Version
		if slices.Contains(expired, id) {
			wantStatus, wantVersion = domain.StatusExpired, was.Version+1
		}
		if got.Status != wantStatus || got.Version != wantVersion || !got.ExpiryDate.Equal(was.ExpiryDate) ||
			!got.UpdatedAt.Equal(was.UpdatedAt) {
			t.Errorf("%s stored: status %d version %d expiry %v updated %v; want status %d version %d and "+
				"expiry_date, updated_at as before (%v, %v)",
				id, got.Status, got.Version, got.ExpiryDate, got.UpdatedAt, wantStatus, wantVersion, was.ExpiryDate, was.UpdatedAt)
		}
	}
	for _, p := range slices.Concat(lists, detailPaths(ids)) {
		if got := w.get(t, p); !bytes.Equal(opaqueCursors(got), opaqueCursors(before[p])) {
			t.Errorf("GET %s changed with the run:\nbefore %s\nafter  %s", p, before[p], got)
		}
	}
	// The lists now read no unrecorded expiry: GSI5 has none past now.
	calls.Reset()
	lines = logLines{}
	res, err = h.Handle(context.Background(), sampleEvent(t))
	if err != nil || res.Recorded != 0 {
		t.Fatalf("second run: %+v, %v; want 0 recorded", res, err)
	}
	if ops := calls.Ops(); !slices.Equal(ops, []string{"Query"}) {
		t.Errorf("second run's calls: %v; want the GSI5 query alone", ops)
	}
	if logged := lines.all(t); len(logged) != 1 || logged[0]["recorded"] != 0.0 || logged[0]["level"] != "INFO" {
		t.Errorf("second run logged %v; want one INFO line with recorded 0", logged)
	}
}

// An invitation saved between the run's read of GSI5 and its write keeps what the save wrote: the
// save stored 3 itself (SPEC §5) with its new expiry_date, and the run's condition (pending, with the
// expiry it read) fails, so it records nothing and moves no count twice.
func TestARunLeavesAnInvitationSavedMeanwhileToTheSave(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, 0, w.now.Add(-time.Hour), "")
	store, calls := w.db.View(t)
	var lines logLines
	h := w.handler(t, store, &lines)
	h.SetBudget(time.Minute) // the run waits on the save below; a busy machine is not what this tests

	arrived, release := calls.Hold("TransactWriteItems")
	type outcome struct {
		n   int
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := h.Handle(context.Background(), sampleEvent(t))
		done <- outcome{res.Recorded, err}
	}()
	<-arrived
	resp := testkit.Do(t, w.gw,
		testkit.Request{Method: http.MethodPatch, Path: listPath + id + "/", Token: w.staff, Body: `{"first_name": "Saved"}`})
	if resp.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", resp.Status, resp.Body)
	}
	saved := w.stored(t, id)
	release()
	got := <-done
	if got.err != nil || got.n != 0 {
		t.Fatalf("run: %d recorded, %v; want 0, no error", got.n, got.err)
	}
	after := w.stored(t, id)
	if after.Status != domain.StatusExpired || after.Version != saved.Version || !after.ExpiryDate.Equal(w.now.Add(ttl)) ||
		after.FirstName == nil || *after.FirstName != "Saved" {
		t.Errorf("stored after the run: %+v; want the save's (status 3, version %d, expiry now + TTL, first "+
			"name Saved)", after, saved.Version)
	}
	detail := w.get(t, listPath+id+"/")
	var shown struct {
		Status    int    `json:"status"`
		FirstName string `json:"first_name"`
	}
	if err := json.Unmarshal(detail, &shown); err != nil || shown.Status != 3 || shown.FirstName != "Saved" {
		t.Errorf("GET after the run: %s; want status 3 and the saved first name", detail)
	}
	// The counts moved once, by the save: ?status=3 lists it once, ?status=0 not at all.
	if n, ids := listIDs(t, w.get(t, listPath+"?status=3")); n != 1 || !slices.Equal(ids, []string{id}) {
		t.Errorf("?status=3: count %d, ids %v; want exactly %s", n, ids, id)
	}
	if n, ids := listIDs(t, w.get(t, listPath+"?status=0")); n != 0 || len(ids) != 0 {
		t.Errorf("?status=0: count %d, ids %v; want none", n, ids)
	}
}

func detailPaths(ids []string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, listPath+id+"/")
	}
	return out
}

func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}
