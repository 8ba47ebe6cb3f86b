package invitations_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/infra/testkit"
)

// Invitations stored before a change of their item's shape: each still reads, lists and counts as one
// stored after it, at the price of one more round trip, until its next save brings it up to date.

// invitationKey is the stored invitation's key.
func invitationKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "INVITATION#" + id}, "SK": &types.AttributeValueMemberS{Value: "INVITATION"}}
}

// item is the stored invitation's item as it is.
func (w *world) item(t *testing.T, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := w.db.Client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(w.db.Table), Key: invitationKey(id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// rewrite changes a stored invitation's item as an older version of the service left it.
func (w *world) rewrite(t *testing.T, id, update string, values map[string]types.AttributeValue) {
	t.Helper()
	_, err := w.db.Client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:                 aws.String(w.db.Table),
		Key:                       invitationKey(id),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeValues: values,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestInvitationsWithoutACopyAreShownFromWhatTheyReferTo: an invitation stored before the copies existed
// reads exactly as one with a copy, at one more round trip, in a GET and in a list.
func TestInvitationsWithoutACopyAreShownFromWhatTheyReferTo(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{portfolios: []ref{w.zeta, w.alpha}})
	w.rewrite(t, id, "REMOVE shown", nil)
	if inv, err := w.db.Store.Invitation(context.Background(), id); err != nil || inv.Shown != nil {
		t.Fatalf("invitation still has a copy (%v): %+v", err, inv.Shown)
	}
	want := w.before(t, id)
	tok := w.token(t, w.member)
	w.db.Calls.Reset()
	w.db.Calls.SimulateLatency(testkit.BudgetLatency)
	w.get(t, tok, id).Expect(t, 200, want.JSON(t))
	if n := w.db.Calls.Sequential(); n != 2 {
		t.Fatalf("GET: %d sequential DynamoDB calls (%v), want 2", n, w.db.Calls)
	}
	resp := testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: listPath + "?organization=" + w.acme.ID, Token: tok})
	resp.Expect(t, 200, fmt.Sprintf(`{"count": 1, "next": null, "previous": null, "results": [%s]}`, want.JSON(t)))
}

// TestInvitationsIndexedBeforeGSI4ReachTheirInvitee: an invitation saved before GSI4 existed carries its
// address's key under GSI2 (keys only). The invitee's list still shows it, a create to the address in
// its organization still finds it pending, and its next save gives it its GSI4 key (keeping GSI2's,
// which every invitation carries until a later release drops it).
func TestInvitationsIndexedBeforeGSI4ReachTheirInvitee(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{org: w.globex})
	inv := w.before(t, id)
	stored := w.item(t, id)
	w.rewrite(t, id, "SET GSI2PK = :pk, GSI2SK = :sk REMOVE GSI4PK, GSI4SK", map[string]types.AttributeValue{
		":pk": stored["GSI4PK"], ":sk": stored["GSI4SK"],
	})
	list := func(budget int) {
		t.Helper()
		tok := w.token(t, w.invitee)
		w.db.Calls.Reset()
		w.db.Calls.SimulateLatency(testkit.BudgetLatency)
		resp := testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: listPath, Token: tok})
		resp.Expect(t, 200, fmt.Sprintf(`{"count": 1, "next": null, "previous": null, "results": [%s]}`, inv.JSON(t)))
		if n := w.db.Calls.Sequential(); n != budget {
			t.Fatalf("invitee's list: %d sequential DynamoDB calls (%v), want %d", n, w.db.Calls, budget)
		}
	}
	// The session; GSI4 ∥ GSI2; the item GSI2 named.
	list(3)
	w.post(t, w.token(t, w.globexAdmin), fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.globex.ID, w.invitee.Email)).
		Expect(t, 400, `{"email": ["This email already has a pending invitation to this organization."]}`)

	// A save (a role change by its administrator) moves it.
	w.patch(t, w.token(t, w.globexAdmin), id, `{"role": 1}`).Expect(t, 200, func() string {
		s := w.saved(inv)
		s.Role = 1
		return s.JSON(t)
	}())
	inv = w.before(t, id)
	list(1) // the process has seen the invitee's scope: GSI4 ∥ GSI2 with the session
	if stored = w.item(t, id); stored["GSI2PK"] == nil || stored["GSI4PK"] == nil {
		t.Fatalf("after its save the invitation has GSI2PK %v, GSI4PK %v; want both", stored["GSI2PK"], stored["GSI4PK"])
	}
}
