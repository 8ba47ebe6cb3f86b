package dynamo_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// fxNow is the time of every write these tests make: stored timestamps then compare exactly.
var fxNow = time.Date(2026, 11, 20, 10, 0, 0, 123456000, time.UTC)

func fxState(t *testing.T, db *testkit.DB, refs dynamo.FixtureRefs) dynamo.FixtureState {
	t.Helper()
	st, err := db.Store.FixtureState(context.Background(), refs)
	if err != nil {
		t.Fatalf("FixtureState: %v", err)
	}
	return st
}

func fxMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func fxUser(email string) domain.User {
	return domain.User{
		ID: uuid.NewString(), Email: email, PasswordHash: "pbkdf2_sha256$1$salt$hash", FirstName: domain.Ptr("Ada"),
		IsActive: true, DateJoined: fxNow, CreatedAt: fxNow, UpdatedAt: fxNow,
	}
}

// fxAdministeredOrg loads a user, an organization "Acme" and the user's administrator membership of it.
func fxAdministeredOrg(t *testing.T, db *testkit.DB) (domain.User, domain.Organization, domain.Member) {
	t.Helper()
	ctx := context.Background()
	u := fxUser("ada-" + uuid.NewString()[:8] + "@example.com")
	fxMust(t, db.Store.PutUser(ctx, u, ""))
	org := domain.Organization{ID: uuid.NewString(), Name: "Acme"}
	fxMust(t, db.Store.PutOrganization(ctx, org, ""))
	m := domain.Member{ID: uuid.NewString(), OrganizationID: org.ID, UserID: u.ID, Role: domain.RoleAdministrator}
	fxMust(t, db.Store.PutMember(ctx, m, org.Name, nil))
	return u, org, m
}

func TestFixtureStateReadsWhatTheFixtureWritesFindsNothingElse(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	u, org, m := fxAdministeredOrg(t, db)
	pf := domain.Portfolio{ID: uuid.NewString(), OrganizationID: org.ID, Name: "Growth"}
	fxMust(t, db.Store.PutPortfolio(ctx, pf, ""))
	inv := domain.Invitation{
		ID: uuid.NewString(), Token: uuid.NewString(), OrganizationID: org.ID, InviterMemberID: m.ID, InviterUserID: u.ID,
		Email: "bob@example.com", PortfolioIDs: []string{pf.ID}, ExpiryDate: fxNow.Add(time.Hour), CreatedAt: fxNow,
		UpdatedAt: fxNow, Version: 1,
	}
	fxMust(t, db.Store.PutInvitation(ctx, inv, nil))
	obj := domain.CommentObject{ContentType: "report", ObjectID: uuid.NewString()}
	c := domain.Comment{
		ID: uuid.NewString(), OrganizationID: org.ID, CommenterID: u.ID, ContentType: obj.ContentType, ObjectID: obj.ObjectID,
		Tag: domain.Ptr("review"), Text: "Looks good", CreatedAt: fxNow, UpdatedAt: fxNow,
	}
	fxMust(t, db.Store.PutComments(ctx, []dynamo.FixtureComment{{Comment: c}}))

	missing := uuid.NewString()
	key := dynamo.MemberKey{OrganizationID: org.ID, UserID: u.ID}
	tag := dynamo.CommentTag{Object: obj, Tag: "review"}
	db.Calls.Reset()
	st := fxState(t, db, dynamo.FixtureRefs{
		UserIDs: []string{u.ID, missing}, Emails: []string{u.Email, "nobody@example.com"},
		OrganizationIDs: []string{org.ID, missing}, MemberIDs: []string{m.ID, missing},
		MemberKeys: []dynamo.MemberKey{key, {OrganizationID: missing, UserID: u.ID}}, PortfolioIDs: []string{pf.ID, missing},
		InvitationIDs: []string{inv.ID, missing}, CommentIDs: []string{c.ID, missing},
		Objects: []domain.CommentObject{obj, {ContentType: "report", ObjectID: missing}},
		Tags:    []dynamo.CommentTag{tag, {Object: obj, Tag: "other"}},
	})
	for _, op := range db.Calls.Ops() {
		if op != "Query" && op != "BatchGetItem" {
			t.Errorf("FixtureState made a %s call; want Query (GSI1) and BatchGetItem only", op)
		}
	}
	u.Memberships = []domain.Membership{{MemberID: m.ID, OrganizationID: org.ID, OrganizationName: org.Name, Role: m.Role}}
	c.Version = 1
	inv.Shown = &domain.InvitationShown{
		OrganizationName: org.Name, Inviter: domain.Person{FirstName: u.FirstName, LastName: u.LastName, Email: u.Email},
		Portfolios: []domain.Portfolio{{ID: pf.ID, Name: pf.Name}},
	}
	want := dynamo.FixtureState{
		Users: map[string]domain.User{u.ID: u}, EmailOwners: map[string]string{u.Email: u.ID},
		Organizations: map[string]domain.Organization{org.ID: org}, Members: map[string]domain.Member{m.ID: m},
		MembersByKey: map[dynamo.MemberKey]domain.Member{key: m}, Portfolios: map[string]domain.Portfolio{pf.ID: pf},
		Invitations: map[string]domain.Invitation{inv.ID: inv}, Comments: map[string]domain.Comment{c.ID: c},
		Objects: map[domain.CommentObject]domain.CommentCount{obj: {N: 1, OrganizationID: org.ID}},
		Tags:    map[dynamo.CommentTag]int{tag: 1},
	}
	if !reflect.DeepEqual(st, want) {
		t.Fatalf("state:\n got %+v\nwant %+v", st, want)
	}
}

func TestPutUserKeepsTheEmailClaimInStep(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	other := db.User(t, testkit.NewUser{Email: "taken@example.com", Hash: "pbkdf2_sha256$1$s$h"})

	tests := []struct {
		name     string
		email    func(previous string) string
		wantCode domain.Code // "" = success
		oldGone  bool        // the previous email no longer finds the user
	}{
		{name: "same email in another case keeps the claim", email: strings.ToUpper},
		{name: "new email moves the claim",
			email: func(string) string { return "l-" + uuid.NewString()[:8] + "@example.com" }, oldGone: true},
		{name: "another user's email is refused", email: func(string) string { return "Taken@example.com" },
			wantCode: domain.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := fxUser("ada-" + uuid.NewString()[:8] + "@example.com")
			fxMust(t, db.Store.PutUser(ctx, u, ""))
			org := domain.Organization{ID: uuid.NewString(), Name: "Acme"}
			fxMust(t, db.Store.PutOrganization(ctx, org, ""))
			m := domain.Member{ID: uuid.NewString(), OrganizationID: org.ID, UserID: u.ID}
			fxMust(t, db.Store.PutMember(ctx, m, org.Name, nil))

			next := u
			next.Email, next.FirstName, next.UpdatedAt = tt.email(u.Email), nil, fxNow.Add(time.Hour)
			next.DateJoined, next.CreatedAt = fxNow.Add(time.Hour), fxNow.Add(time.Hour) // the stored ones stay
			err := db.Store.PutUser(ctx, next, u.Email)
			if tt.wantCode != "" {
				if domain.ErrorCode(err) != tt.wantCode {
					t.Fatalf("err = %v, want %s", err, tt.wantCode)
				}
				if got, err := db.UserByEmail(t, "taken@example.com"); err != nil || got.ID != other.ID {
					t.Fatalf("taken@ now finds %v, %v; want the other user", got.ID, err)
				}
				if got, err := db.UserByEmail(t, u.Email); err != nil || got.Email != u.Email || got.FirstName == nil {
					t.Fatalf("the refused write changed the user: %+v, %v", got, err)
				}
				return
			}
			fxMust(t, err)
			got, err := db.UserByEmail(t, next.Email)
			fxMust(t, err)
			want := next
			want.DateJoined, want.CreatedAt = fxNow, fxNow
			want.Memberships = []domain.Membership{{MemberID: m.ID, OrganizationID: org.ID, OrganizationName: "Acme"}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("user:\n got %+v\nwant %+v", got, want)
			}
			if _, err := db.UserByEmail(t, u.Email); tt.oldGone && domain.ErrorCode(err) != domain.ENOTFOUND {
				t.Fatalf("old email %s: %v, want ENOTFOUND", u.Email, err)
			}
		})
	}
}

func TestPutMemberMovesTheMembership(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	acme := domain.Organization{ID: uuid.NewString(), Name: "Acme"}
	globex := domain.Organization{ID: uuid.NewString(), Name: "Globex"}
	fxMust(t, db.Store.PutOrganization(ctx, acme, ""))
	fxMust(t, db.Store.PutOrganization(ctx, globex, ""))
	orgName := map[string]string{acme.ID: acme.Name, globex.ID: globex.Name}

	tests := []struct {
		name      string
		otherUser bool // the member moves to another user
		otherOrg  bool // the member moves to another organization
	}{
		{name: "same user and organization, new role"},
		{name: "to another organization", otherOrg: true},
		{name: "to another user", otherUser: true},
		{name: "to another user and organization", otherUser: true, otherOrg: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, second := db.User(t, testkit.NewUser{Hash: "pbkdf2_sha256$1$s$h"}), db.User(t,
				testkit.NewUser{Hash: "pbkdf2_sha256$1$s$h"})
			before := domain.Member{ID: uuid.NewString(), OrganizationID: acme.ID, UserID: first.ID, Role: domain.RoleMember}
			fxMust(t, db.Store.PutMember(ctx, before, acme.Name, nil))
			after := before
			after.Role = domain.RoleAdministrator
			if tt.otherOrg {
				after.OrganizationID = globex.ID
			}
			if tt.otherUser {
				after.UserID = second.ID
			}
			fxMust(t, db.Store.PutMember(ctx, after, orgName[after.OrganizationID], &before))

			oldKey := dynamo.MemberKey{OrganizationID: before.OrganizationID, UserID: before.UserID}
			newKey := dynamo.MemberKey{OrganizationID: after.OrganizationID, UserID: after.UserID}
			st := fxState(t, db, dynamo.FixtureRefs{
				MemberIDs: []string{after.ID}, MemberKeys: []dynamo.MemberKey{oldKey, newKey},
				UserIDs: []string{first.ID, second.ID},
			})
			wantByKey := map[dynamo.MemberKey]domain.Member{newKey: after}
			if !reflect.DeepEqual(st.Members, map[string]domain.Member{after.ID: after}) ||
				!reflect.DeepEqual(st.MembersByKey, wantByKey) {
				t.Fatalf("members by id %+v, by key %+v; want only %+v", st.Members, st.MembersByKey, after)
			}
			wantShip := []domain.Membership{{MemberID: after.ID, OrganizationID: after.OrganizationID,
				OrganizationName: orgName[after.OrganizationID], Role: domain.RoleAdministrator}}
			for _, u := range []domain.User{first, second} {
				got := st.Users[u.ID].Memberships
				if u.ID == after.UserID && !reflect.DeepEqual(got, wantShip) {
					t.Errorf("memberships of the member's user = %+v, want %+v", got, wantShip)
				}
				if u.ID != after.UserID && len(got) != 0 {
					t.Errorf("memberships of the other user = %+v, want none", got)
				}
			}
		})
	}

	t.Run("another member of the same user and organization is refused", func(t *testing.T) {
		u := db.User(t, testkit.NewUser{Hash: "pbkdf2_sha256$1$s$h"})
		m := domain.Member{ID: uuid.NewString(), OrganizationID: acme.ID, UserID: u.ID}
		fxMust(t, db.Store.PutMember(ctx, m, acme.Name, nil))
		dup := domain.Member{ID: uuid.NewString(), OrganizationID: acme.ID, UserID: u.ID, Role: domain.RoleAdministrator}
		if err := db.Store.PutMember(ctx, dup, acme.Name, nil); domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("err = %v, want EINVALID", err)
		}
		st := fxState(t, db, dynamo.FixtureRefs{MemberIDs: []string{m.ID, dup.ID}, UserIDs: []string{u.ID}})
		if len(st.Members) != 1 || st.Members[m.ID] != m || st.Users[u.ID].Memberships[0].MemberID != m.ID {
			t.Fatalf("state after refusal: %+v, user %+v", st.Members, st.Users[u.ID])
		}
	})
}

func TestPutOrganizationRenameFollowsIntoMemberships(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	org := domain.Organization{ID: uuid.NewString(), Name: "Acme"}
	fxMust(t, db.Store.PutOrganization(ctx, org, ""))
	var users []domain.User
	for range 3 {
		u := db.User(t, testkit.NewUser{Hash: "pbkdf2_sha256$1$s$h"})
		fxMust(t,
			db.Store.PutMember(ctx, domain.Member{ID: uuid.NewString(), OrganizationID: org.ID, UserID: u.ID}, org.Name, nil))
		users = append(users, u)
	}
	for _, tt := range []struct {
		name, rename string
		wantOps      []string
	}{
		{name: "same name: one write, no query", rename: "Acme", wantOps: []string{"UpdateItem"}},
		{name: "new name: every member's profile follows", rename: "Acme Analytics",
			wantOps: []string{"UpdateItem", "Query", "UpdateItem", "UpdateItem", "UpdateItem"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db.Calls.Reset()
			fxMust(t, db.Store.PutOrganization(ctx, domain.Organization{ID: org.ID, Name: tt.rename}, org.Name))
			if got := db.Calls.Ops(); !reflect.DeepEqual(got, tt.wantOps) {
				t.Errorf("calls %v, want %v", got, tt.wantOps)
			}
			for _, u := range users {
				got, err := db.Store.User(ctx, u.ID)
				fxMust(t, err)
				if len(got.Memberships) != 1 || got.Memberships[0].OrganizationName != tt.rename {
					t.Errorf("memberships of %s = %+v, want org_name %q", u.ID, got.Memberships, tt.rename)
				}
			}
			st := fxState(t, db, dynamo.FixtureRefs{OrganizationIDs: []string{org.ID}})
			if st.Organizations[org.ID].Name != tt.rename {
				t.Errorf("organization name %q, want %q", st.Organizations[org.ID].Name, tt.rename)
			}
		})
	}
}

func TestPutPortfolioMovesBetweenOrganizations(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	pf := domain.Portfolio{ID: uuid.NewString(), OrganizationID: uuid.NewString(), Name: "Growth"}
	fxMust(t, db.Store.PutPortfolio(ctx, pf, ""))
	moved := domain.Portfolio{ID: pf.ID, OrganizationID: uuid.NewString(), Name: "Income"}
	fxMust(t, db.Store.PutPortfolio(ctx, moved, pf.OrganizationID))
	db.Calls.Reset()
	st := fxState(t, db, dynamo.FixtureRefs{PortfolioIDs: []string{pf.ID}})
	if !reflect.DeepEqual(st.Portfolios, map[string]domain.Portfolio{pf.ID: moved}) {
		t.Fatalf("portfolios %+v, want only %+v", st.Portfolios, moved)
	}
}

func TestPutInvitationIsConditionalOnTheStoredVersion(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	inv := domain.Invitation{
		ID: uuid.NewString(), Token: uuid.NewString(), OrganizationID: uuid.NewString(), InviterMemberID: uuid.NewString(),
		InviterUserID: uuid.NewString(), Email: "bob@example.com", ExpiryDate: fxNow, CreatedAt: fxNow,
		UpdatedAt: fxNow, Version: 1,
	}
	fxMust(t, db.Store.PutInvitation(ctx, inv, nil))
	stale := inv
	stale.Version = 7
	for _, tt := range []struct {
		name     string
		previous *domain.Invitation
		wantCode domain.Code
	}{
		{name: "create over an existing one", previous: nil, wantCode: domain.ECONFLICT},
		{name: "stale version", previous: &stale, wantCode: domain.ECONFLICT},
		{name: "the version read", previous: &inv},
	} {
		t.Run(tt.name, func(t *testing.T) {
			next := inv
			next.Version, next.Status = 2, domain.StatusAccepted
			err := db.Store.PutInvitation(ctx, next, tt.previous)
			if domain.ErrorCode(err) != tt.wantCode && !(tt.wantCode == "" && err == nil) {
				t.Fatalf("err = %v, want %q", err, tt.wantCode)
			}
		})
	}
	st := fxState(t, db, dynamo.FixtureRefs{InvitationIDs: []string{inv.ID}})
	if got := st.Invitations[inv.ID]; got.Version != 2 || got.Status != domain.StatusAccepted {
		t.Fatalf("invitation %+v, want version 2 accepted", got)
	}
	// The refused writes counted nothing; the one that landed moved the count from pending to accepted.
	list := domain.InvitationList{Sources: []domain.InvitationSource{{OrganizationID: inv.OrganizationID}}}
	c, err := db.Store.CountInvitations(ctx, list, fxNow)
	fxMust(t, err)
	if want := (domain.StatusCounts{0, 1, 0, 0, 0}); c.Total != 1 || c.Listed[0] != want {
		t.Fatalf("counts %d %v, want 1 %v", c.Total, c.Listed, want)
	}
}

// fxCounters is what the counters of the objects and tags named say, and the comments' replies and
// versions: everything PutComments must keep exact.
type fxCounters struct {
	Objects  map[domain.CommentObject]domain.CommentCount
	Tags     map[dynamo.CommentTag]int
	Replies  map[string]int
	Versions map[string]int64
}

func fxReadCounters(t *testing.T, db *testkit.DB, objects []domain.CommentObject, tags []dynamo.CommentTag,
	ids []string) fxCounters {
	t.Helper()
	st := fxState(t, db, dynamo.FixtureRefs{Objects: objects, Tags: tags, CommentIDs: ids})
	got := fxCounters{Objects: st.Objects, Tags: st.Tags, Replies: map[string]int{}, Versions: map[string]int64{}}
	for id, c := range st.Comments {
		got.Replies[id], got.Versions[id] = c.Replies, c.Version
	}
	return got
}

func TestPutCommentsKeepsCountersExact(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	org, commenter := uuid.NewString(), uuid.NewString()
	x := domain.CommentObject{ContentType: "report", ObjectID: uuid.NewString()}
	y := domain.CommentObject{ContentType: "report_attitude", ObjectID: uuid.NewString()}
	comment := func(o domain.CommentObject, tag string, parent *domain.Comment, text string) domain.Comment {
		c := domain.Comment{
			ID: uuid.NewString(), OrganizationID: org, CommenterID: commenter, ContentType: o.ContentType,
			ObjectID: o.ObjectID, Text: text, CreatedAt: fxNow, UpdatedAt: fxNow,
		}
		if tag != "" {
			c.Tag = &tag
		}
		if parent != nil {
			c.ParentID = &parent.ID
		}
		return c
	}
	tagOf := func(o domain.CommentObject, tag string) dynamo.CommentTag {
		return dynamo.CommentTag{Object: o, Tag: tag}
	}
	objects := []domain.CommentObject{x, y}
	tags := []dynamo.CommentTag{tagOf(x, "a"), tagOf(x, "b"), tagOf(y, "a"), tagOf(y, "b")}

	// 60 comments on x: a root and 59 replies to it, tagged a, b or nothing in turn. They take three
	// transactions (25 a transaction), the root's reply count spread over all three.
	root := comment(x, "", nil, "root")
	writes := []dynamo.FixtureComment{{Comment: root}}
	ids := []string{root.ID}
	for i := range 59 {
		c := comment(x, []string{"a", "b", ""}[i%3], &root, fmt.Sprint("reply ", i))
		writes = append(writes, dynamo.FixtureComment{Comment: c})
		ids = append(ids, c.ID)
	}
	yRoot := comment(y, "", nil, "y root")
	ids = append(ids, yRoot.ID)
	db.Calls.Reset()
	fxMust(t, db.Store.PutComments(ctx, append(writes, dynamo.FixtureComment{Comment: yRoot})))
	if got := len(db.Calls.Ops()); got != 4 {
		t.Errorf("61 comments on two objects took %d calls %v, want 4 transactions", got, db.Calls.Ops())
	}
	stored := fxState(t, db, dynamo.FixtureRefs{CommentIDs: ids}).Comments
	mover := stored[ids[1]] // reply 0: tag a, parent root, on x

	steps := []struct {
		name   string
		writes func() []dynamo.FixtureComment
		want   fxCounters
	}{
		{
			name:   "new comments",
			writes: func() []dynamo.FixtureComment { return nil },
			want: fxCounters{
				Objects: map[domain.CommentObject]domain.CommentCount{x: {N: 60, OrganizationID: org},
					y: {N: 1, OrganizationID: org}},
				Tags:    map[dynamo.CommentTag]int{tagOf(x, "a"): 20, tagOf(x, "b"): 20},
				Replies: map[string]int{root.ID: 59, mover.ID: 0, yRoot.ID: 0},
			},
		},
		{
			name: "a replaced comment moves object, tag and parent",
			writes: func() []dynamo.FixtureComment {
				next := comment(y, "b", &yRoot, "moved")
				next.ID = mover.ID
				return []dynamo.FixtureComment{{Comment: next, Previous: &mover}}
			},
			want: fxCounters{
				Objects: map[domain.CommentObject]domain.CommentCount{x: {N: 59, OrganizationID: org},
					y: {N: 2, OrganizationID: org}},
				Tags:    map[dynamo.CommentTag]int{tagOf(x, "a"): 19, tagOf(x, "b"): 20, tagOf(y, "b"): 1},
				Replies: map[string]int{root.ID: 58, mover.ID: 0, yRoot.ID: 1},
			},
		},
		{
			name: "replacing in place changes no counter and keeps the replies",
			writes: func() []dynamo.FixtureComment {
				cur := fxState(t, db, dynamo.FixtureRefs{CommentIDs: []string{yRoot.ID, root.ID}}).Comments
				a, b := cur[yRoot.ID], cur[root.ID]
				a2, b2 := a, b
				a2.Text, b2.Text = "edited", "edited"
				return []dynamo.FixtureComment{{Comment: a2, Previous: &a}, {Comment: b2, Previous: &b}}
			},
			want: fxCounters{
				Objects: map[domain.CommentObject]domain.CommentCount{x: {N: 59, OrganizationID: org},
					y: {N: 2, OrganizationID: org}},
				Tags:    map[dynamo.CommentTag]int{tagOf(x, "a"): 19, tagOf(x, "b"): 20, tagOf(y, "b"): 1},
				Replies: map[string]int{root.ID: 58, mover.ID: 0, yRoot.ID: 1},
			},
		},
	}
	versions := map[string]int64{root.ID: 1, mover.ID: 1, yRoot.ID: 1}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			w := step.writes()
			fxMust(t, db.Store.PutComments(ctx, w))
			for _, fc := range w {
				versions[fc.Comment.ID]++
			}
			got := fxReadCounters(t, db, objects, tags, []string{root.ID, mover.ID, yRoot.ID})
			step.want.Versions = versions
			if !reflect.DeepEqual(got, step.want) {
				t.Fatalf("counters:\n got %+v\nwant %+v", got, step.want)
			}
		})
	}

	t.Run("a stale version writes nothing", func(t *testing.T) {
		before := fxReadCounters(t, db, objects, tags, []string{root.ID, mover.ID, yRoot.ID})
		stale := stored[root.ID] // version 1, stored is 2 by now
		next := stale
		next.ObjectID = uuid.NewString()
		err := db.Store.PutComments(ctx, []dynamo.FixtureComment{{Comment: next, Previous: &stale}})
		if domain.ErrorCode(err) != domain.ECONFLICT {
			t.Fatalf("err = %v, want ECONFLICT", err)
		}
		if after := fxReadCounters(t, db, objects, tags,
			[]string{root.ID, mover.ID, yRoot.ID}); !reflect.DeepEqual(after, before) {
			t.Fatalf("counters changed:\n got %+v\nwant %+v", after, before)
		}
	})
}

// TestRefreshInvitationCopiesWritesOnlyWhatChanged: a refresh reads an organization's invitations and
// what they refer to, writes only the copies that differ, and grows their version so that an API save
// that read the old names retries.
func TestRefreshInvitationCopiesWritesOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	u, org, m := fxAdministeredOrg(t, db)
	inv := domain.Invitation{
		ID: uuid.NewString(), Token: uuid.NewString(), OrganizationID: org.ID, InviterMemberID: m.ID, InviterUserID: u.ID,
		Email: "bob@example.com", ExpiryDate: fxNow.Add(time.Hour), CreatedAt: fxNow, UpdatedAt: fxNow, Version: 1,
	}
	fxMust(t, db.Store.PutInvitation(ctx, inv, nil))
	for _, tt := range []struct {
		name, orgName string
		wantOps       []string
		wantVersion   int64
	}{
		// An organization without invitations comes first: nothing to read for it, and the next is refreshed.
		// Each organization's invitation ids, then its invitations, then what they refer to.
		{name: "nothing changed: no write", orgName: "Acme",
			wantOps: []string{"Query", "Query", "BatchGetItem", "BatchGetItem"}, wantVersion: 1},
		{name: "renamed: one write", orgName: "Acme Analytics",
			wantOps: []string{"Query", "Query", "BatchGetItem", "BatchGetItem", "UpdateItem"}, wantVersion: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fxMust(t, db.Store.PutOrganization(ctx, domain.Organization{ID: org.ID, Name: tt.orgName}, org.Name))
			db.Calls.Reset()
			fxMust(t, db.Store.RefreshInvitationCopies(ctx, []string{uuid.NewString(), org.ID}))
			if got := db.Calls.Ops(); !reflect.DeepEqual(got, tt.wantOps) {
				t.Errorf("calls %v, want %v", got, tt.wantOps)
			}
			got, err := db.Store.Invitation(ctx, inv.ID)
			fxMust(t, err)
			want := &domain.InvitationShown{OrganizationName: tt.orgName,
				Inviter:    domain.Person{Email: u.Email, FirstName: u.FirstName, LastName: u.LastName},
				Portfolios: []domain.Portfolio{}}
			if got.Version != tt.wantVersion || !got.Shown.Equal(want) {
				t.Errorf("version %d, shown %+v; want %d, %+v", got.Version, got.Shown, tt.wantVersion, want)
			}
		})
	}
}
