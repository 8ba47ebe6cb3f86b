package dynamo_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// invitationWorld is one organization with a portfolio, an administrator who invited someone, and the
// invitee's account, written through the store's fixture methods.
type invitationWorld struct {
	db        *testkit.DB
	org       domain.Organization
	other     domain.Organization
	portfolio domain.Portfolio
	elsewhere domain.Portfolio // a portfolio of the other organization
	inviter   domain.User
	invitee   domain.User
	inv       domain.Invitation
}

func newInvitationWorld(t *testing.T) invitationWorld {
	t.Helper()
	ctx := context.Background()
	db := testkit.NewDB(t)
	w := invitationWorld{
		db:      db,
		org:     domain.Organization{ID: uuid.NewString(), Name: "Acme"},
		other:   domain.Organization{ID: uuid.NewString(), Name: "Globex"},
		inviter: db.User(t, testkit.NewUser{}),
		invitee: db.User(t, testkit.NewUser{Email: "Invitee-" + uuid.NewString()[:8] + "@Example.com"}),
	}
	w.portfolio = domain.Portfolio{ID: uuid.NewString(), OrganizationID: w.org.ID, Name: "Growth"}
	w.elsewhere = domain.Portfolio{ID: uuid.NewString(), OrganizationID: w.other.ID, Name: "Elsewhere"}
	must(t, db.Store.PutOrganization(ctx, w.org, ""))
	must(t, db.Store.PutOrganization(ctx, w.other, ""))
	must(t, db.Store.PutPortfolio(ctx, w.portfolio, ""))
	must(t, db.Store.PutPortfolio(ctx, w.elsewhere, ""))
	inviterMember := domain.Member{ID: uuid.NewString(), OrganizationID: w.org.ID, UserID: w.inviter.ID,
		Role: domain.RoleAdministrator}
	must(t, db.Store.PutMember(ctx, inviterMember, w.org.Name, nil))
	now := time.Now().UTC().Truncate(time.Microsecond)
	w.inv = domain.Invitation{
		ID: uuid.NewString(), Token: uuid.NewString(), OrganizationID: w.org.ID, InviterMemberID: inviterMember.ID,
		InviterUserID: w.inviter.ID, Email: w.invitee.Email, Role: domain.RoleCollaborator,
		PortfolioIDs: []string{w.portfolio.ID}, ExpiryDate: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now, Version: 1,
	}
	must(t, db.Store.PutInvitation(ctx, w.inv, nil))
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestInvitationReadsWhatWasStored(t *testing.T) {
	w := newInvitationWorld(t)
	got, err := w.db.Store.Invitation(context.Background(), w.inv.ID)
	must(t, err)
	if got.ID != w.inv.ID || got.Email != w.inv.Email || got.Version != 1 || !got.ExpiryDate.Equal(w.inv.ExpiryDate) ||
		!slices.Equal(got.PortfolioIDs, w.inv.PortfolioIDs) || got.FirstName != nil || got.Role != domain.RoleCollaborator {
		t.Fatalf("read %+v, stored %+v", got, w.inv)
	}
	if _, err := w.db.Store.Invitation(context.Background(), uuid.NewString()); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("unknown invitation: %v, want ENOTFOUND", err)
	}
}

func TestInvitationRefsFindsOnlyPortfoliosOfTheNamedOrganization(t *testing.T) {
	w := newInvitationWorld(t)
	w.db.Calls.Reset()
	refs, err := w.db.Store.InvitationRefs(context.Background(), domain.InvitationRefsQuery{
		OrganizationIDs: []string{w.org.ID, uuid.NewString()},
		UserIDs:         []string{w.inviter.ID},
		PortfolioOrgID:  w.org.ID,
		PortfolioIDs:    []string{w.portfolio.ID, w.elsewhere.ID},
		Email:           "  " + w.invitee.Email + " ", // a claim is found whatever the case and the white space
	})
	must(t, err)
	if ops := w.db.Calls.Ops(); !slices.Equal(ops, []string{"BatchGetItem"}) {
		t.Fatalf("calls %v, want one BatchGetItem", ops)
	}
	if len(refs.Organizations) != 1 || refs.Organizations[w.org.ID] != w.org {
		t.Fatalf("organizations %v", refs.Organizations)
	}
	if refs.Users[w.inviter.ID].Email != w.inviter.Email || len(refs.Users) != 1 {
		t.Fatalf("users %v", refs.Users)
	}
	if len(refs.Portfolios) != 1 || refs.Portfolios[w.portfolio.ID] != w.portfolio {
		t.Fatalf("portfolios %v: one of another organization must not be found", refs.Portfolios)
	}
	if refs.EmailUserID != w.invitee.ID {
		t.Fatalf("email owner %q, want %q", refs.EmailUserID, w.invitee.ID)
	}
	none, err := w.db.Store.InvitationRefs(context.Background(), domain.InvitationRefsQuery{Email: "nobody@example.com"})
	must(t, err)
	if none.EmailUserID != "" {
		t.Fatalf("owner of an unclaimed email: %q", none.EmailUserID)
	}
}

func TestSaveInvitationIsConditionalOnTheVersionRead(t *testing.T) {
	w := newInvitationWorld(t)
	ctx := context.Background()
	next := w.inv
	next.FirstName, next.Status, next.PortfolioIDs = domain.Ptr("Bob"), domain.StatusRevoked, nil
	next.OrganizationID = w.other.ID
	must(t, w.db.Store.SaveInvitation(ctx, w.inv, next, nil))

	got, err := w.db.Store.Invitation(ctx, w.inv.ID)
	must(t, err)
	if got.Version != 2 || domain.Deref(got.FirstName) != "Bob" || got.Status != domain.StatusRevoked ||
		len(got.PortfolioIDs) != 0 || got.OrganizationID != w.other.ID || got.Token != w.inv.Token {
		t.Fatalf("after save: %+v", got)
	}

	stale := w.inv // still version 1
	stale.LastName = domain.Ptr("Lost")
	if err := w.db.Store.SaveInvitation(ctx, stale, stale, nil); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("save of a stale version: %v, want ECONFLICT", err)
	}
	again, err := w.db.Store.Invitation(ctx, w.inv.ID)
	must(t, err)
	if again.Version != 2 || again.LastName != nil {
		t.Fatalf("a refused save changed the invitation: %+v", again)
	}

	gone := w.inv
	gone.ID = uuid.NewString()
	if err := w.db.Store.SaveInvitation(ctx, gone, gone, nil); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("save of an invitation that does not exist: %v, want ECONFLICT", err)
	}
	if _, err := w.db.Store.Invitation(ctx, gone.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a refused save created an invitation: %v", err)
	}
}

func TestSaveInvitationWithJoinMakesAMemberOnceAndKeepsAnExistingMembership(t *testing.T) {
	w := newInvitationWorld(t)
	ctx := context.Background()
	accepted := w.inv
	accepted.Status = domain.StatusAccepted
	first := domain.Member{ID: uuid.NewString(), OrganizationID: w.org.ID, UserID: w.invitee.ID,
		Role: domain.RoleCollaborator}
	must(t,
		w.db.Store.SaveInvitation(ctx, w.inv, accepted, &domain.NewMembership{Member: first, OrganizationName: w.org.Name}))

	assertMember := func(want domain.Member) {
		t.Helper()
		u, err := w.db.Store.User(ctx, w.invitee.ID)
		must(t, err)
		m, ok := u.MembershipOf(w.org.ID)
		if !ok || m.MemberID != want.ID || m.Role != want.Role || m.OrganizationName != w.org.Name ||
			len(u.Memberships) != 1 {
			t.Fatalf("memberships on the user %+v, want member %+v", u.Memberships, want)
		}
		key := dynamo.MemberKey{OrganizationID: w.org.ID, UserID: w.invitee.ID}
		st, err := w.db.Store.FixtureState(ctx,
			dynamo.FixtureRefs{MemberKeys: []dynamo.MemberKey{key}, MemberIDs: []string{want.ID}})
		must(t, err)
		if st.MembersByKey[key] != want || st.Members[want.ID] != want {
			t.Fatalf("member item %+v (by id %+v), want %+v", st.MembersByKey[key], st.Members[want.ID], want)
		}
	}
	assertMember(first)

	// A second acceptance (of another invitation, with another role) must not replace the membership.
	accepted.Version = 2
	second := domain.Member{ID: uuid.NewString(), OrganizationID: w.org.ID, UserID: w.invitee.ID,
		Role: domain.RoleAdministrator}
	must(t,
		w.db.Store.SaveInvitation(ctx, accepted, accepted,
			&domain.NewMembership{Member: second, OrganizationName: w.org.Name}))
	assertMember(first)
}

func TestSaveInvitationWithJoinWritesNothingWhenTheVersionIsStale(t *testing.T) {
	w := newInvitationWorld(t)
	ctx := context.Background()
	bump := w.inv
	must(t, w.db.Store.SaveInvitation(ctx, bump, bump, nil))

	stale := w.inv
	stale.Status = domain.StatusAccepted
	m := domain.Member{ID: uuid.NewString(), OrganizationID: w.org.ID, UserID: w.invitee.ID, Role: domain.RoleMember}
	err := w.db.Store.SaveInvitation(ctx, w.inv, stale, &domain.NewMembership{Member: m, OrganizationName: w.org.Name})
	if domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("stale acceptance: %v, want ECONFLICT", err)
	}
	u, err := w.db.Store.User(ctx, w.invitee.ID)
	must(t, err)
	if len(u.Memberships) != 0 {
		t.Fatalf("a refused acceptance made a member: %+v", u.Memberships)
	}
}

// TestInvitationsByIDReadsChunksInParallel: BatchGetItem takes 100 keys, so 230 ids go out as three
// calls at once (one round trip), and the answer keeps the order of the ids, leaving out one that
// does not exist.
func TestInvitationsByIDReadsChunksInParallel(t *testing.T) {
	w := newInvitationWorld(t)
	ctx := context.Background()
	var ids []string
	for i := range 230 {
		inv := w.inv
		inv.ID, inv.Token = uuid.NewString(), uuid.NewString()
		inv.CreatedAt = inv.CreatedAt.Add(time.Duration(i) * time.Second)
		must(t, w.db.Store.PutInvitation(ctx, inv, nil))
		ids = append(ids, inv.ID)
	}
	slices.Reverse(ids)
	ids = slices.Insert(ids, 150, uuid.NewString()) // never stored
	store, calls := w.db.View(t)
	calls.SimulateLatency(testkit.BudgetLatency)
	got, err := store.InvitationsByID(ctx, ids)
	must(t, err)
	var gotIDs []string
	for _, inv := range got {
		gotIDs = append(gotIDs, inv.ID)
	}
	want := slices.Delete(slices.Clone(ids), 150, 151)
	if !slices.Equal(gotIDs, want) {
		t.Fatalf("read %d invitations, want the %d stored in the order asked (first difference at %d)", len(gotIDs),
			len(want), firstDifference(gotIDs, want))
	}
	if ops, seq := calls.Ops(), calls.Sequential(); len(ops) != 3 || seq != 1 {
		t.Fatalf("calls %v in %d sequential round trips, want 3 BatchGetItems in 1", ops, seq)
	}
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
