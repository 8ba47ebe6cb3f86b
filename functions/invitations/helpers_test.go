package invitations_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/functions/invitations"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// ttl is the INVITATION_TTL of the tests.
const ttl = 7 * 24 * time.Hour

type ref struct{ ID, Name string }

// world is a fresh table with two organizations, their portfolios and people in every role an
// invitation rule distinguishes, behind the API Gateway path with the invitations and auth functions.
// The clock is fixed, so expiry dates in expected bodies are exact.
type world struct {
	db  *testkit.DB
	gw  http.Handler
	now time.Time

	acme, globex            ref
	zeta, alpha, mid, beta  ref // Acme's portfolios (named so that name order differs from file order), Globex's
	staff, superuser        domain.User
	admin, member, collab   domain.User // of Acme, roles 2, 0, 1
	globexAdmin, outsider   domain.User
	invitee                 domain.User // has an account; invitations are sent to their address in another case
	adminMember, globexMemb string      // member ids of the inviters

	mail *mailbox // what the invitations function handed over for delivery

	mu       sync.Mutex // guards the maps below: parallel subtests share a world
	tokens   map[string]string
	versions map[string]int64 // of each invitation as loaded
}

// mailbox is a domain.Mailer that keeps what it is handed, or refuses it while failing is set: the
// handler's side of the e-mail boundary (shared/mail's SES and outbox have their own tests).
type mailbox struct {
	mu      sync.Mutex
	sent    []domain.InvitationMail
	failing bool
}

func (m *mailbox) SendInvitation(_ context.Context, mail domain.InvitationMail) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failing {
		return errors.New("mailbox: refusing as asked")
	}
	m.sent = append(m.sent, mail)
	return nil
}

func (m *mailbox) all() []domain.InvitationMail {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]domain.InvitationMail(nil), m.sent...)
}

func (m *mailbox) fail(on bool) { m.mu.Lock(); m.failing = on; m.mu.Unlock() }

func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldOver(t, func(s *dynamo.Store) domain.InvitationStore { return s })
}

// newWorldOver is newWorld with the invitations function's store made by store from the table's.
func newWorldOver(t *testing.T, store func(*dynamo.Store) domain.InvitationStore) *world {
	t.Helper()
	return newWorldOn(t, testkit.NewDB(t), store)
}

// newWorldOn is newWorldOver on the table of db.
func newWorldOn(t *testing.T, db *testkit.DB, store func(*dynamo.Store) domain.InvitationStore) *world {
	t.Helper()
	w := &world{db: db, now: time.Now().UTC().Truncate(time.Microsecond), mail: &mailbox{},
		tokens: map[string]string{}, versions: map[string]int64{}}
	log := testkit.Log(t)
	clock := func() time.Time { return w.now }
	w.gw = testkit.Gateway(t, map[string]http.Handler{
		"InvitationsFunction": invitations.New(store(db.Store), w.mail, log, ttl, clock),
		"AuthFunction":        auth.New(db.Store, log, time.Hour, clock),
	})
	user := func(n testkit.NewUser) domain.User { return db.User(t, n) }
	w.staff, w.superuser = user(testkit.NewUser{Staff: true}), user(testkit.NewUser{Superuser: true})
	w.admin = user(testkit.NewUser{FirstName: domain.Ptr("Ada"), LastName: domain.Ptr("Admin")})
	w.member, w.collab, w.outsider = user(testkit.NewUser{}), user(testkit.NewUser{}), user(testkit.NewUser{})
	w.globexAdmin = user(testkit.NewUser{FirstName: domain.Ptr("Gus")}) // no last name: shown as ""
	w.invitee = user(testkit.NewUser{Email: "bob-" + uuid.NewString()[:8] + "@example.com"})
	w.acme, w.globex = ref{uuid.NewString(), "Acme"}, ref{uuid.NewString(), "Globex"}
	w.zeta, w.alpha, w.mid = ref{uuid.NewString(), "Zeta"}, ref{uuid.NewString(), "Alpha"}, ref{uuid.NewString(), "Mid"}
	w.beta = ref{uuid.NewString(), "Beta"}
	w.adminMember, w.globexMemb = uuid.NewString(), uuid.NewString()
	member := func(id string, org ref, u domain.User, role int) map[string]any {
		return map[string]any{"id": id, "organization_id": org.ID, "user_id": u.ID, "role": role}
	}
	portfolio := func(p, org ref) map[string]any {
		return map[string]any{"id": p.ID, "organization_id": org.ID, "name": p.Name}
	}
	w.load(t, map[string]any{
		"organizations": []any{map[string]any{"id": w.acme.ID, "name": w.acme.Name},
			map[string]any{"id": w.globex.ID, "name": w.globex.Name}},
		"members": []any{
			member(w.adminMember, w.acme, w.admin, 2), member(uuid.NewString(), w.acme, w.member, 0),
			member(uuid.NewString(), w.acme, w.collab, 1), member(w.globexMemb, w.globex, w.globexAdmin, 2),
		},
		"portfolios": []any{portfolio(w.zeta, w.acme), portfolio(w.alpha, w.acme), portfolio(w.mid, w.acme),
			portfolio(w.beta, w.globex)},
	})
	return w
}

// load writes a fixture (SPEC §7) through the fixture loader: the only way, besides the API, that
// organizations, members, portfolios and invitations reach the table.
func (w *world) load(t *testing.T, doc map[string]any) {
	t.Helper()
	w.db.Load(t, doc, w.now, ttl)
}

// token returns a valid token of u, made once per user.
func (w *world) token(t *testing.T, u domain.User) string {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if tok, ok := w.tokens[u.ID]; ok {
		return tok
	}
	tok := w.db.Token(t, u, time.Hour)
	w.tokens[u.ID] = tok
	return tok
}

// spec describes an invitation to load. Zero values: Acme (invited by its administrator), the invitee's
// address in upper case, pending, role 0, no portfolios, a week to go.
type spec struct {
	org        ref
	email      string
	status     int
	role       int
	portfolios []ref
	first      *string
	last       *string
	emailSent  bool
	expiry     time.Time
}

// invitation loads one invitation and returns its id.
func (w *world) invitation(t *testing.T, s spec) string {
	t.Helper()
	if s.org == (ref{}) {
		s.org = w.acme
	}
	inviter := w.adminMember
	if s.org == w.globex {
		inviter = w.globexMemb
	}
	if s.email == "" {
		s.email = upper(w.invitee.Email)
	}
	if s.expiry.IsZero() {
		s.expiry = w.now.Add(ttl)
	}
	ids := []string{}
	for _, p := range s.portfolios {
		ids = append(ids, p.ID)
	}
	id := uuid.NewString()
	w.load(t, map[string]any{"invitations": []any{map[string]any{
		"id": id, "organization_id": s.org.ID, "inviter_member_id": inviter, "email": s.email,
		"first_name": s.first, "last_name": s.last, "role": s.role, "status": s.status, "email_sent": s.emailSent,
		"accessible_portfolio_ids": ids, "expiry_date": s.expiry.Format(time.RFC3339Nano),
	}}})
	inv, err := w.db.Store.Invitation(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	w.versions[id] = inv.Version
	w.mu.Unlock()
	return id
}

func upper(email string) string { return string(bytes.ToUpper([]byte(email))) }

// shape is the read shape a test expects, field by field; JSON renders it in the seed's order.
type shape struct {
	ID           string        `json:"id"`
	Token        string        `json:"token"`
	ExpiryDate   string        `json:"expiry_date"`
	Organization orgShape      `json:"organization"`
	Inviter      inviterShape  `json:"inviter_member"`
	Email        string        `json:"email"`
	EmailSent    bool          `json:"email_sent"`
	Portfolios   []portfolioJS `json:"accessible_portfolios"`
	Status       int           `json:"status"`
	FirstName    *string       `json:"first_name"`
	LastName     *string       `json:"last_name"`
	Role         int           `json:"role"`
}

type orgShape struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type inviterShape struct {
	ID        string `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Email     string `json:"email"`
}

type portfolioJS struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func (s shape) JSON(t *testing.T) string { return testkit.MustJSON(t, s) }

// withPortfolios sets the expected portfolios, in name order.
func (s *shape) withPortfolios(ps ...ref) {
	s.Portfolios = []portfolioJS{}
	for _, p := range ps {
		s.Portfolios = append(s.Portfolios, portfolioJS(p))
	}
	sort.Slice(s.Portfolios, func(i, j int) bool { return s.Portfolios[i].Name < s.Portfolios[j].Name })
}

// before is the shape of a stored invitation as a reader sees it now, built from the test's own
// knowledge of organizations, inviters and portfolios: what a later response is compared against.
func (w *world) before(t *testing.T, id string) shape {
	t.Helper()
	inv, err := w.db.Store.Invitation(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	s := shape{
		ID: inv.ID, Token: inv.Token, ExpiryDate: domain.FormatTime(inv.ExpiryDate), Email: inv.Email,
		EmailSent: inv.EmailSent, Status: int(inv.EffectiveStatus(w.now)), FirstName: inv.FirstName,
		LastName: inv.LastName, Role: int(inv.Role),
	}
	switch inv.OrganizationID {
	case w.acme.ID:
		s.Organization = orgShape{w.acme.ID, w.acme.Name}
	case w.globex.ID:
		s.Organization = orgShape{w.globex.ID, w.globex.Name}
	}
	switch inv.InviterMemberID {
	case w.adminMember:
		s.Inviter = inviterShape{w.adminMember, "Ada", "Admin", w.admin.Email}
	case w.globexMemb:
		s.Inviter = inviterShape{w.globexMemb, "Gus", "", w.globexAdmin.Email}
	}
	byID := map[string]ref{}
	for _, p := range []ref{w.zeta, w.alpha, w.mid, w.beta} {
		byID[p.ID] = p
	}
	var ps []ref
	for _, pid := range inv.PortfolioIDs {
		ps = append(ps, byID[pid])
	}
	s.withPortfolios(ps...)
	return s
}

// saved is s as a successful PATCH at the world's clock leaves it: a new expiry date.
func (w *world) saved(s shape) shape {
	s.ExpiryDate = domain.FormatTime(w.now.Add(ttl))
	return s
}

func (w *world) get(t *testing.T, token, id string) testkit.Response {
	t.Helper()
	return testkit.Do(t, w.gw,
		testkit.Request{Method: "GET", Path: "/api/v1/organization-invitations/" + id + "/", Token: token})
}

func (w *world) patch(t *testing.T, token, id, body string) testkit.Response {
	t.Helper()
	return testkit.Do(t, w.gw,
		testkit.Request{Method: "PATCH", Path: "/api/v1/organization-invitations/" + id + "/", Token: token, Body: body})
}

// unchanged asserts that a refused request wrote nothing: the stored version is the one loaded and a
// staff read shows what was there before.
func (w *world) unchanged(t *testing.T, id string, before shape) {
	t.Helper()
	inv, err := w.db.Store.Invitation(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	loaded := w.versions[id]
	w.mu.Unlock()
	if inv.Version != loaded {
		t.Fatalf("a refused PATCH wrote the invitation (version %d, loaded %d)", inv.Version, loaded)
	}
	w.get(t, w.token(t, w.staff), id).Expect(t, 200, before.JSON(t))
}
