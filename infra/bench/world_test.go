package bench_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/functions/comments"
	"github.com/reportingplatform/api/functions/invitations"
	"github.com/reportingplatform/api/functions/users"
	"github.com/reportingplatform/api/infra/bench"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/password"
	"golang.org/x/crypto/argon2"
)

// world is a fresh table with one organization's data, and the four functions in front of it.
type world struct {
	db     *testkit.DB
	client *dynamodb.Client
	rec    *bench.Recorder
	gw     http.Handler
	seq    int // numbers the bodies that must differ

	staff, alice, amy                domain.User // alice administers Acme and wrote comments; amy is a member
	staffToken, aliceToken, amyToken string
	acme, invitation, object         string
	globex                           string // alice administers it too: invitations are created and deleted there
	aliceComment, ownRead, edited    string // amy reads the first; alice reads the second, writes the third
	created                          string // the object that comments are created on (one comment loaded)
	tb                               testing.TB

	inviterToken string // of the Globex administrator who creates invitations (inviter)
	invited      int    // invitations the inviter created
}

// corsOrigin is the browser origin the API is deployed to allow (CorsAllowedOrigins).
const corsOrigin = "https://app.example.com"

const getItemPK = "BENCH#GETITEM" // the baseline's item, in the table's PK/SK (shared/dynamo/schema.go)

func newWorld(b *testing.B) *world {
	b.Helper()
	db := testkit.NewDB(b)
	rec := &bench.Recorder{}
	client := testkit.Client(b, testkit.Endpoint(b), rec.Register)
	// The invitation e-mail goes to an outbox, so that creating an invitation records email_sent as it
	// does in AWS (where SES takes the outbox's place).
	cfg := config.Config{TokenTTL: config.DefaultTokenTTL, InvitationTTL: config.DefaultInvitationTTL,
		CORSAllowedOrigins: []string{corsOrigin},
		OutboxDir:          b.TempDir(), InvitationURL: config.DefaultInvitationURL}
	handlers := map[string]http.Handler{}
	for id, h := range wiring.Handlers(dynamo.New(client, db.Table), testkit.Log(b), cfg, time.Now) {
		handlers[id] = h
	}
	w := &world{db: db, client: client, rec: rec, gw: testkit.Gateway(b, handlers), tb: b}
	w.staff = db.User(b, testkit.NewUser{Staff: true})
	w.alice = db.User(b, testkit.NewUser{FirstName: domain.Ptr("Alice"), LastName: domain.Ptr("Liddell")})
	w.amy = db.User(b, testkit.NewUser{FirstName: domain.Ptr("Amy"), LastName: domain.Ptr("Pond")})
	w.staffToken, w.aliceToken, w.amyToken = db.Token(b, w.staff, time.Hour), db.Token(b, w.alice,
		time.Hour), db.Token(b, w.amy, time.Hour)
	w.load(b, cfg)
	_, err := client.PutItem(context.Background(),
		&dynamodb.PutItemInput{TableName: aws.String(db.Table), Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: getItemPK}, "SK": &types.AttributeValueMemberS{Value: "ITEM"},
			"value": &types.AttributeValueMemberS{Value: "a small item"},
		}})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// load writes Acme: alice (administrator) and amy (member), two portfolios, 50 pending invitations by
// alice (the one read and patched, and 49 more, so that the list has pages), and an object with 100
// comments by both, every other one tagged "t"; and Globex, which alice administers, where invitations
// are created and deleted (so that Acme's list keeps its size through the run).
func (w *world) load(b *testing.B, cfg config.Config) {
	b.Helper()
	acme, aliceMember, globex := uuid.NewString(), uuid.NewString(), uuid.NewString()
	folios := []string{uuid.NewString(), uuid.NewString()}
	w.acme, w.globex = acme, globex
	w.invitation, w.object, w.created = uuid.NewString(), uuid.NewString(), uuid.NewString()
	f := fixture.File{
		Organizations: []fixture.Organization{{ID: acme, Name: "Acme Analytics"}, {ID: globex, Name: "Globex"}},
		Members: []fixture.Member{
			{ID: aliceMember, OrganizationID: acme, UserID: w.alice.ID, Role: domain.Ptr(2)},
			{ID: uuid.NewString(), OrganizationID: globex, UserID: w.alice.ID, Role: domain.Ptr(2)},
			{ID: uuid.NewString(), OrganizationID: acme, UserID: w.amy.ID, Role: domain.Ptr(0)},
		},
		Portfolios: []fixture.Portfolio{
			{ID: folios[0], OrganizationID: acme, Name: "Growth"}, {ID: folios[1], OrganizationID: acme, Name: "Retention"},
		},
		Invitations: []fixture.Invitation{{ID: w.invitation, OrganizationID: acme, InviterMemberID: aliceMember,
			Email: "invitee@example.com", FirstName: domain.Ptr("Bob"), AccessiblePortfolioIDs: folios}},
	}
	for i := range 49 {
		f.Invitations = append(f.Invitations,
			fixture.Invitation{ID: uuid.NewString(), OrganizationID: acme, InviterMemberID: aliceMember,
				Email: fmt.Sprintf("invitee-%d@example.com", i), AccessiblePortfolioIDs: folios[:1]})
	}
	base := time.Now().UTC().Add(-time.Hour)
	for i := range 100 {
		c := fixture.Comment{ID: uuid.NewString(), OrganizationID: acme, CommenterID: w.alice.ID,
			ContentType: "report", ObjectID: w.object, Text: fmt.Sprintf("Comment %d on the quarterly report.", i),
			CreatedAt: domain.Ptr(base.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano))}
		if i%2 == 1 {
			c.CommenterID = w.amy.ID
		}
		if i%2 == 0 {
			c.Tag = domain.Ptr("t")
		}
		f.Comments = append(f.Comments, c)
	}
	w.aliceComment, w.ownRead, w.edited = f.Comments[0].ID, f.Comments[2].ID, f.Comments[4].ID
	f.Comments = append(f.Comments, fixture.Comment{ID: uuid.NewString(), OrganizationID: acme, CommenterID: w.alice.ID,
		ContentType: "report", ObjectID: w.created, Text: "The object new comments go to."})
	w.db.Load(b, f, time.Now(), cfg.InvitationTTL)
}

// next numbers a body that must differ from the previous ones.
func (w *world) next() int { w.seq++; return w.seq }

func (w *world) getItem() *operation {
	var in *dynamodb.GetItemInput // built at the first run: the operations are listed before the world is
	return &operation{name: "raw GetItem (baseline)", run: func() error {
		if in == nil {
			in = &dynamodb.GetItemInput{TableName: aws.String(w.db.Table), ConsistentRead: aws.Bool(true),
				Key: map[string]types.AttributeValue{
					"PK": &types.AttributeValueMemberS{Value: getItemPK}, "SK": &types.AttributeValueMemberS{Value: "ITEM"},
				}}
		}
		out, err := w.client.GetItem(context.Background(), in)
		if err == nil && out.Item == nil {
			err = fmt.Errorf("GetItem found no item")
		}
		return err
	}}
}

func (w *world) getInvitation() *operation {
	return &operation{name: "GET invitation", route: "GET " + invitations.InvitationPath, status: 200,
		request: func() testkit.Request {
			return testkit.Request{Method: "GET", Path: "/api/v1/organization-invitations/" + w.invitation + "/",
				Token: w.amyToken}
		}}
}

func (w *world) patchInvitation() *operation {
	return &operation{name: "PATCH invitation", route: "PATCH " + invitations.InvitationPath, status: 200,
		request: func() testkit.Request {
			return testkit.Request{Method: "PATCH", Path: "/api/v1/organization-invitations/" + w.invitation + "/",
				Token: w.aliceToken,
				Body:  fmt.Sprintf(`{"first_name": "Bob %d"}`, w.next())}
		}}
}

func (w *world) list(tagged bool) *operation {
	name, path := "comment list, page 1", "/api/v1/comments/?content_type=report&object_id="+w.object
	if tagged {
		name, path = "comment list, page 1, tag", path+"&tag=t"
	}
	return &operation{name: name, route: "GET " + comments.ListPath, status: 200, request: func() testkit.Request {
		return testkit.Request{Method: "GET", Path: path, Token: w.amyToken}
	}}
}

func (w *world) getComment(own bool) *operation {
	name, id, token := "GET comment, another's", w.aliceComment, w.amyToken
	if own {
		name, id, token = "GET comment, one's own", w.ownRead, w.aliceToken
	}
	return &operation{name: name, route: "GET " + comments.ItemPath, status: 200, request: func() testkit.Request {
		return testkit.Request{Method: "GET", Path: "/api/v1/comments/" + id + "/", Token: token}
	}}
}

func (w *world) putComment() *operation {
	return &operation{name: "PUT comment", route: "PUT " + comments.ItemPath, status: 200,
		request: func() testkit.Request {
			return testkit.Request{Method: "PUT", Path: "/api/v1/comments/" + w.edited + "/", Token: w.aliceToken,
				Body: fmt.Sprintf(`{"content_type": "report", "object_id": "%s", "text": "Replaced text %d."}`, w.object, w.next())}
		}}
}

func (w *world) patchComment() *operation {
	return &operation{name: "PATCH comment", route: "PATCH " + comments.ItemPath, status: 200,
		request: func() testkit.Request {
			return testkit.Request{Method: "PATCH", Path: "/api/v1/comments/" + w.edited + "/", Token: w.aliceToken,
				Body: fmt.Sprintf(`{"text": "Edited text %d."}`, w.next())}
		}}
}

// preflight is a browser's CORS preflight before a PATCH of a comment: answered by the router
// without authentication or DynamoDB.
func (w *world) preflight() *operation {
	return &operation{name: "CORS preflight", status: 204, undeclared: true, request: func() testkit.Request {
		return testkit.Request{Method: "OPTIONS", Path: "/api/v1/comments/" + w.edited + "/", Header: map[string]string{
			"Origin": corsOrigin, "Access-Control-Request-Method": "PATCH",
			"Access-Control-Request-Headers": "authorization, content-type",
		}}
	}}
}

// hash is one argon2id key derivation at the parameters password.Hash uses, without its salt
// generation and encoding: what a login's password check costs at least.
func (w *world) hash() *operation {
	salt := make([]byte, password.ArgonSaltLen)
	_, _ = rand.Read(salt)
	plain := []byte(testkit.DefaultPassword)
	return &operation{name: "argon2id hash (baseline)", run: func() error {
		argon2.IDKey(plain, salt, password.ArgonTime, password.ArgonMemoryKiB, password.ArgonThreads, password.ArgonKeyLen)
		return nil
	}}
}

func (w *world) login() *operation {
	body := fmt.Sprintf(`{"username": "%s", "password": "%s"}`, w.alice.Email, testkit.DefaultPassword)
	return &operation{name: "login", route: "POST " + auth.LoginPath, status: 201, request: func() testkit.Request {
		return testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: body}
	}}
}

// failedLogin is a login refused for one reason (SPEC §9, "Login timing"): account gives the email and
// password of the next request. A new account (made untimed, before the clock starts) every half of
// LoginFailuresPerEmail requests and a new source address every request keep every window below its
// limit, so that each request is refused, never throttled: half, because a claim whose answer a busy
// machine delays past the client's attempt timeout is sent again by the SDK and counts twice.
func (w *world) failedLogin(name string, account func(n int) (email, password string)) *operation {
	var n int
	var email, plain string
	return &operation{name: "failed login, " + name, route: "POST " + auth.LoginPath, status: 400,
		request: func() testkit.Request {
			if n%(domain.LoginFailuresPerEmail/2) == 0 {
				email, plain = account(n)
			}
			n++
			body := fmt.Sprintf(`{"username": "%s", "password": "%s"}`, email, plain)
			return testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: body,
				RemoteAddr: fmt.Sprintf("10.%d.%d.%d:4000", n>>16&255, n>>8&255, n&255)}
		}}
}

// failedLogins are the four ways a login fails, which must take the same time.
func (w *world) failedLogins() []*operation {
	user := func(u testkit.NewUser, plain string) func(int) (string, string) {
		return func(int) (string, string) { return w.db.User(w.tb, u).Email, plain }
	}
	return []*operation{
		w.failedLogin("unknown email", func(n int) (string, string) {
			return fmt.Sprintf("nobody-%d-%s@example.com", n, uuid.NewString()[:8]), testkit.DefaultPassword
		}),
		w.failedLogin("wrong password", user(testkit.NewUser{}, "not the password")),
		w.failedLogin("inactive account", user(testkit.NewUser{Inactive: true}, testkit.DefaultPassword)),
		w.failedLogin("unusable password", user(testkit.NewUser{Hash: "!" + uuid.NewString()}, testkit.DefaultPassword)),
	}
}

func (w *world) createUser() *operation {
	return &operation{name: "create user", route: "POST " + users.UsersPath, status: 201, request: func() testkit.Request {
		return testkit.Request{Method: "POST", Path: "/api/v1/users/", Token: w.staffToken,
			Body: fmt.Sprintf(`{"email": "new-%d@example.com", "password": "Vq8#mLp2zR", "confirm_password": `+
				`"Vq8#mLp2zR"}`, w.next())}
	}}
}

// The operations of SPEC §10. Those that remove something get it made in request(), which runs before
// the clock starts and before the recorder is reset, through the API (checked against openapi.yaml).

func (w *world) createComment() *operation {
	return &operation{name: "POST comment", route: "POST " + comments.ListPath, status: 201,
		request: func() testkit.Request {
			return testkit.Request{Method: "POST", Path: "/api/v1/comments/", Token: w.aliceToken,
				Body: fmt.Sprintf(`{"content_type": "report", "object_id": "%s", "text": "New comment %d.", "tag": "t"}`,
					w.created, w.next())}
		}}
}

func (w *world) deleteComment() *operation {
	return w.deleteOf("DELETE comment", "DELETE "+comments.ItemPath, w.createComment())
}

func (w *world) listInvitations() *operation {
	return &operation{name: "invitation list, page 1 of 50", route: "GET " + invitations.InvitationsPath,
		status: 200, request: func() testkit.Request {
			return testkit.Request{Method: "GET", Path: "/api/v1/organization-invitations/", Token: w.amyToken}
		}}
}

// listAllInvitations is staff's list of every invitation: Acme's 50, as the POSTs below delete theirs.
func (w *world) listAllInvitations() *operation {
	return &operation{name: "invitation list as staff, page 1 of 50",
		route: "GET " + invitations.InvitationsPath, status: 200, request: func() testkit.Request {
			return testkit.Request{Method: "GET", Path: "/api/v1/organization-invitations/", Token: w.staffToken}
		}}
}

// inviter is the token the next invitation is created with: alice's, then, each time its holder has
// created the hundred an hour allows (SPEC §9), a new administrator of Globex's, made untimed.
func (w *world) inviter() string {
	switch {
	case w.inviterToken == "":
		w.inviterToken = w.aliceToken
	case w.invited == domain.InvitationsPerWindow:
		admin := w.db.User(w.tb, testkit.NewUser{FirstName: domain.Ptr("Gus")})
		w.db.Load(w.tb, fixture.File{Members: []fixture.Member{
			{ID: uuid.NewString(), OrganizationID: w.globex, UserID: admin.ID, Role: domain.Ptr(2)},
		}}, time.Now(), config.DefaultInvitationTTL)
		w.inviterToken, w.invited = w.db.Token(w.tb, admin, time.Hour), 0
	}
	w.invited++
	return w.inviterToken
}

func (w *world) createInvitation() *operation {
	return &operation{name: "POST invitation", route: "POST " + invitations.InvitationsPath, status: 201,
		request: func() testkit.Request {
			return testkit.Request{Method: "POST", Path: "/api/v1/organization-invitations/", Token: w.inviter(),
				Body: fmt.Sprintf(`{"organization_id": "%s", "email": "guest-%d@example.com", "role": 1}`, w.globex, w.next())}
		}, cleanup: func(post testkit.Request, answer []byte) {
			del := w.deletion(post, answer)
			if resp := testkit.Do(w.tb, w.gw, del); resp.Status != 204 {
				w.tb.Fatalf("%s %s: %d %s", del.Method, del.Path, resp.Status, resp.Body)
			}
		}}
}

func (w *world) deleteInvitation() *operation {
	return w.deleteOf("DELETE invitation", "DELETE "+invitations.InvitationPath, w.createInvitation())
}

func (w *world) logout() *operation {
	return &operation{name: "logout", route: "POST " + auth.LogoutPath, status: 204, request: func() testkit.Request {
		return testkit.Request{Method: "POST", Path: "/api/v1/auth/logout", Token: w.db.Token(w.tb, w.amy, time.Hour)}
	}}
}

// deleteOf deletes, as the same caller, what create made just before: the POST goes out untimed in
// request(), through testkit.Do (checked against openapi.yaml), and the DELETE names its id under the
// collection it was posted to.
func (w *world) deleteOf(name, route string, create *operation) *operation {
	return &operation{name: name, route: route, status: 204, request: func() testkit.Request {
		post := create.request()
		resp := testkit.Do(w.tb, w.gw, post)
		if resp.Status != create.status {
			w.tb.Fatalf("%s %s: %d %s", post.Method, post.Path, resp.Status, resp.Body)
		}
		return w.deletion(post, resp.Body)
	}}
}

// deletion is the DELETE, as the same caller, of what post created: the id its answer names, under the
// collection it was posted to.
func (w *world) deletion(post testkit.Request, answer []byte) testkit.Request {
	var created struct{ ID string }
	if err := json.Unmarshal(answer, &created); err != nil || created.ID == "" {
		w.tb.Fatalf("%s %s answered %s", post.Method, post.Path, answer)
	}
	return testkit.Request{Method: "DELETE", Path: post.Path + created.ID + "/", Token: post.Token}
}
