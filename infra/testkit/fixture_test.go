package testkit

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestBulkWritesWhatTheLoaderWrites: the same fixtures, loaded into one table by Load and into another
// by Bulk, leave the same invitation items and the same counts, attribute for attribute, but for the
// invitations' tokens, which the loader draws afresh for each new invitation: invitations of several
// organizations, statuses, addresses (shared by organizations, in different cases, and of one
// invitation each), names, portfolios and expiries, in fixtures of two creation times, more than fit one
// transaction; then some of them loaded again with another status, which replaces them.
func TestBulkWritesWhatTheLoaderWrites(t *testing.T) {
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	orgs, inviters, users, portfolios := make([]any, 3), make([]string, 3), make([]any, 3), make([]any, 2)
	var members []any
	for i := range orgs {
		org, user := uuid.NewString(), uuid.NewString()
		orgs[i] = map[string]any{"id": org, "name": fmt.Sprintf("Organization %d", i)}
		users[i] = map[string]any{"id": user, "email": fmt.Sprintf("inviter%d-%s@example.com", i, user[:8]),
			"first_name": fmt.Sprintf("Inviter %d", i)}
		inviters[i] = uuid.NewString()
		members = append(members, map[string]any{"id": inviters[i], "organization_id": org, "user_id": user, "role": 2})
	}
	for i := range portfolios {
		portfolios[i] = map[string]any{"id": uuid.NewString(), "organization_id": orgs[0].(map[string]any)["id"],
			"name": fmt.Sprintf("Portfolio %d", i)}
	}
	setup := map[string]any{"users": users, "organizations": orgs, "members": members, "portfolios": portfolios}
	invitation := func(i, status int) map[string]any {
		o := i % 3
		inv := map[string]any{"id": fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			"organization_id": orgs[o].(map[string]any)["id"], "inviter_member_id": inviters[o],
			"email": fmt.Sprintf("solo%d@example.com", i), "role": i % 3, "status": status, "email_sent": i%2 == 0}
		switch i % 4 {
		case 0:
			inv["email"] = []string{"shared@example.com", "SHARED@Example.com", "Shared@example.COM"}[i%3]
		case 1:
			inv["first_name"], inv["last_name"] = "First", "Last"
			inv["expiry_date"] = now.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)
		}
		if o == 0 && i%5 == 0 {
			inv["accessible_portfolio_ids"] = []string{portfolios[i%2].(map[string]any)["id"].(string)}
		}
		return inv
	}
	batches := [2][]any{}
	for i := range 150 {
		batches[i%2] = append(batches[i%2], invitation(i, i%5))
	}
	var again []any // loaded a second time, with another status
	for i := 0; i < 150; i += 13 {
		again = append(again, invitation(i, (i+1)%5))
	}

	loaded, bulk := NewDB(t), NewDB(t)
	loaded.Load(t, setup, now, time.Hour)
	bulk.Load(t, setup, now, time.Hour)
	for b, invs := range batches {
		loaded.Load(t, map[string]any{"invitations": invs}, now.Add(time.Duration(b)*time.Minute), time.Hour)
	}
	b := bulk.Bulk()
	for i, invs := range batches {
		b.Load(map[string]any{"invitations": invs}, now.Add(time.Duration(i)*time.Minute), time.Hour)
	}
	b.Write(t)
	loaded.Load(t, map[string]any{"invitations": again}, now.Add(time.Hour), time.Hour)
	b = bulk.Bulk()
	b.Load(map[string]any{"invitations": again}, now.Add(time.Hour), time.Hour)
	b.Write(t)

	want, got := loaded.Items(t, "INVITATION"), bulk.Items(t, "INVITATION")
	counts := 0
	tokens := map[any]bool{}
	for k, item := range got {
		if strings.HasPrefix(k, "INVITATIONCOUNT#") {
			counts++
			continue
		}
		if tok, _ := item["token"].(string); tok == "" || tokens[tok] {
			t.Errorf("%s: token %q, blank or another invitation's", k, tok)
		}
		tokens[item["token"]] = true
		delete(item, "token")
		delete(want[k], "token")
	}
	if len(tokens) != 150 || counts < 10 {
		t.Fatalf("%d invitations and %d count items, want 150 and more than 10", len(tokens), counts)
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("%s: bulk wrote\n  %v\nthe loader\n  %v", k, got[k], want[k])
		}
	}
	for k := range got {
		if want[k] == nil {
			t.Errorf("%s: bulk wrote it, the loader did not: %v", k, got[k])
		}
	}
}
