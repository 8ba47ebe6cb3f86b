package invitations_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
)

// Invitations stored before a change of their item's shape, or read before the table has the index a
// change added: each still reads and lists as usual, at the price of more round trips.

// TestInvitationsWithoutACopyAreShownFromWhatTheyReferTo: an invitation stored before the copies existed
// reads exactly as one with a copy, at one more round trip, in a GET and in a list.
func TestInvitationsWithoutACopyAreShownFromWhatTheyReferTo(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{portfolios: []ref{w.zeta, w.alpha}})
	// As the service stored it before the copies.
	_, err := w.db.Client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:        aws.String(w.db.Table),
		Key:              map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "INVITATION#" + id}, "SK": &types.AttributeValueMemberS{Value: "INVITATION"}},
		UpdateExpression: aws.String("REMOVE shown"),
	})
	if err != nil {
		t.Fatal(err)
	}
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

// TestInvitationsToAnAddressWhileGSI4IsBuilt: CloudFormation starts an added index and goes on with the
// stack, so after the deploy that adds GSI4 the functions run while DynamoDB still builds it and
// refuses to query it. Here the table has no GSI4 (DynamoDB's other refusal): the invitee's list and a
// create's pending check still find the invitations to the address, through GSI2's keys and the items.
func TestInvitationsToAnAddressWhileGSI4IsBuilt(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{org: w.globex})
	inv := w.before(t, id)
	w.db.DropIndex(t, "GSI4")
	tok := w.token(t, w.invitee)
	w.db.Calls.Reset()
	w.db.Calls.SimulateLatency(testkit.BudgetLatency)
	resp := testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: listPath, Token: tok})
	resp.Expect(t, 200, fmt.Sprintf(`{"count": 1, "next": null, "previous": null, "results": [%s]}`, inv.JSON(t)))
	// The session; GSI4, refused; GSI2's keys; the items.
	if n := w.db.Calls.Sequential(); n != 4 {
		t.Fatalf("invitee's list without GSI4: %d sequential DynamoDB calls (%v), want 4", n, w.db.Calls)
	}
	admin := w.token(t, w.globexAdmin)
	w.post(t, admin, fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.globex.ID, w.invitee.Email)).
		Expect(t, 400, `{"email": ["This email already has a pending invitation to this organization."]}`)
	if r := w.post(t, admin, fmt.Sprintf(`{"organization_id": %q, "email": "new-%s@example.com"}`, w.globex.ID, uuid.NewString()[:8])); r.Status != 201 {
		t.Fatalf("create without GSI4: %d %s", r.Status, r.Body)
	}
}
