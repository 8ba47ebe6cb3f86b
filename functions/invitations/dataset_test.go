package invitations_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// Dataset is a table of generated invitations and the callers who list them, with what the test knows
// of every invitation: the model that lists are compared against. Its invitations are spread over
// DatasetOrganizations organizations and three kinds of address: the callers' own, a few shared by
// several organizations, and many of one invitation each; every status, pending ones past their expiry,
// and groups created at one instant (ties broken by id).
type Dataset struct {
	Organizations []string // ids, DatasetOrganizations of them

	// Staff is staff, in no organization. Admin administers Organizations[0]. Multi is a member of
	// Organizations[1], [2] and [3] (roles 0, 1, 2). Invitee is in none; their address is invited by
	// several organizations. Dual is a member of Organizations[2] and [4]; their address is invited
	// by organizations they belong to and by others.
	Staff, Admin, Multi, Invitee, Dual Caller

	Shared      []string // addresses invited by several organizations
	Inviters    []string // member ids: an administrator of each organization, in Organizations' order
	Invitations []ModelInvitation

	// ExpiringBy is a time by which every pending invitation that expires within a day of the load's
	// clock has expired, and no other one that had not at the load's clock.
	ExpiringBy time.Time
}

// DatasetOrganizations is how many organizations a Dataset spreads its invitations over.
const DatasetOrganizations = 6

// Caller is a user of a Dataset with a token valid for a month.
type Caller struct {
	Name          string // for failure messages
	User          domain.User
	Token         string
	Organizations []string // ids of the caller's memberships
}

// ModelInvitation is what a Dataset knows of one invitation it loaded.
type ModelInvitation struct {
	ID, Organization, Email string
	Status, Role            int
	Created, Expiry         time.Time
}

// StatusAt is the invitation's status as read at now (SPEC §5): a pending one whose expiry_date has
// passed is expired.
func (m ModelInvitation) StatusAt(now time.Time) int {
	if m.Status == 0 && now.After(m.Expiry) {
		return 3
	}
	return m.Status
}

// organizationName is the name LoadDataset gave the organization of id.
func (d *Dataset) organizationName(id string) string {
	return fmt.Sprintf("Organization %d", slices.Index(d.Organizations, id))
}

// datasetBatch is about how many invitations share a creation time: the loader stamps a fixture's new
// invitations with one time, so each creation time is a fixture of its own.
const datasetBatch = 40

// LoadDataset creates the callers and organizations and loads n invitations through the fixture loader
// (SPEC §7), in fixtures whose creation times are a minute apart, before now. Invitations to a caller's
// address are about 2% each; shared addresses about 40%. Pending invitations: a quarter expired before
// now, a quarter expiring within a day of now (before ExpiringBy), the rest after that. The random
// choices are seeded: the same n gives the same shape (ids and tokens differ).
func LoadDataset(tb testing.TB, db *testkit.DB, now time.Time, n int) *Dataset {
	tb.Helper()
	return LoadDatasetOver(tb, db, now, n, time.Minute)
}

// LoadDatasetOver is LoadDataset with its creation times spacing apart instead of a minute: spread over
// a month and more, or one fixture per ten minutes.
func LoadDatasetOver(tb testing.TB, db *testkit.DB, now time.Time, n int, spacing time.Duration) *Dataset {
	tb.Helper()
	d := &Dataset{ExpiringBy: now.Add(24 * time.Hour)}
	names := make([]map[string]any, DatasetOrganizations)
	for o := range names {
		d.Organizations = append(d.Organizations, uuid.NewString())
		names[o] = map[string]any{"id": d.Organizations[o], "name": d.organizationName(d.Organizations[o])}
	}
	tag := uuid.NewString()[:8]
	user := func(local string, staff bool) domain.User {
		return db.User(tb, testkit.NewUser{Email: local + "-" + tag + "@Example.com", Staff: staff})
	}
	var members []any
	member := func(c *Caller, o, role int) string {
		id := uuid.NewString()
		members = append(members,
			map[string]any{"id": id, "organization_id": d.Organizations[o], "user_id": c.User.ID, "role": role})
		c.Organizations = append(c.Organizations, d.Organizations[o])
		return id
	}
	d.Staff = Caller{Name: "staff", User: user("Staff", true)}
	d.Admin = Caller{Name: "administrator", User: user("Admin", false)}
	d.Multi = Caller{Name: "member of three", User: user("Multi", false)}
	d.Invitee = Caller{Name: "invitee", User: user("Invitee", false)}
	d.Dual = Caller{Name: "member and invitee", User: user("Dual", false)}
	inviters := []string{member(&d.Admin, 0, 2)}
	for o := 1; o < DatasetOrganizations; o++ {
		inviter := Caller{User: user(fmt.Sprintf("inviter%d", o), false)}
		inviters = append(inviters, member(&inviter, o, 2))
	}
	member(&d.Multi, 1, 0)
	member(&d.Multi, 2, 1)
	member(&d.Multi, 3, 2)
	member(&d.Dual, 2, 0)
	member(&d.Dual, 4, 0)
	db.Load(tb, map[string]any{"organizations": names, "members": members}, now, ttl)
	for _, c := range []*Caller{&d.Staff, &d.Admin, &d.Multi, &d.Invitee, &d.Dual} {
		// Longer than any step a test takes the clock forward: the session is checked at the clock.
		c.Token = db.Token(tb, c.User, 30*24*time.Hour)
	}
	for k := range 12 {
		d.Shared = append(d.Shared, fmt.Sprintf("shared%d-%s@example.com", k, tag))
	}
	d.Invitations, d.Inviters = d.generate(n, now, spacing), inviters
	d.load(tb, db, inviters)
	return d
}

// generate draws the n invitations, creation times included.
func (d *Dataset) generate(n int, now time.Time, spacing time.Duration) []ModelInvitation {
	rng := rand.New(rand.NewPCG(24, uint64(n)))
	own := []string{d.Invitee.User.Email, d.Dual.User.Email, d.Admin.User.Email, d.Multi.User.Email}
	batches := (n + datasetBatch - 1) / datasetBatch
	invs := make([]ModelInvitation, n)
	for i := range invs {
		inv := ModelInvitation{
			ID: uuid.NewString(), Organization: d.Organizations[rng.IntN(DatasetOrganizations)],
			Role: rng.IntN(3), Status: []int{0, 0, 0, 0, 1, 1, 2, 3, 4, 4}[rng.IntN(10)],
			// Batches are created spacing apart, oldest first; which batch is drawn, so an organization's
			// invitations interleave with the others'.
			Created: domain.Stamp(now.Add(-time.Hour - time.Duration(rng.IntN(batches))*spacing)),
		}
		switch r := rng.IntN(100); {
		case r < 8:
			inv.Email = own[r%len(own)]
		case r < 48:
			inv.Email = d.Shared[rng.IntN(len(d.Shared))]
		default:
			inv.Email = fmt.Sprintf("solo%d-%s", i, d.Shared[0])
		}
		inv.Email = []func(string) string{strings.ToLower, strings.ToUpper,
			func(s string) string { return s }}[rng.IntN(3)](inv.Email)
		// Whole seconds off now, never on it: whether an expiry equal to the clock has passed is not what
		// this data is for.
		switch rng.IntN(4) {
		case 0:
			inv.Expiry = now.Add(-time.Duration(1+rng.IntN(100*3600)) * time.Second)
		case 1:
			inv.Expiry = now.Add(time.Duration(1+rng.IntN(24*3600-2)) * time.Second)
		default:
			inv.Expiry = now.Add(24*time.Hour + time.Duration(1+rng.IntN(7*24*3600))*time.Second)
		}
		inv.Expiry = domain.Stamp(inv.Expiry)
		invs[i] = inv
	}
	return invs
}

// load writes the invitations through the loader, one fixture per creation time, one after another,
// in bulk (testkit.Bulk): tens of thousands in seconds, as the loader builds them.
func (d *Dataset) load(tb testing.TB, db *testkit.DB, inviters []string) {
	tb.Helper()
	byCreated := map[time.Time][]any{}
	for _, inv := range d.Invitations {
		o := slices.Index(d.Organizations, inv.Organization)
		byCreated[inv.Created] = append(byCreated[inv.Created], map[string]any{
			"id": inv.ID, "organization_id": inv.Organization, "inviter_member_id": inviters[o], "email": inv.Email,
			"role": inv.Role, "status": inv.Status, "expiry_date": inv.Expiry.Format(time.RFC3339Nano),
		})
	}
	bulk := db.Bulk()
	for created, invs := range byCreated {
		bulk.Load(map[string]any{"invitations": invs}, created, ttl)
	}
	bulk.Write(tb)
}

// Callers are the Dataset's callers.
func (d *Dataset) Callers() []Caller { return []Caller{d.Staff, d.Admin, d.Multi, d.Invitee, d.Dual} }

// ListQuery is a list's filters (SPEC §10): empty, and Status -1, are no filter.
type ListQuery struct {
	Organization string
	Status       int
	Email        string
}

// Values is the query string of q.
func (q ListQuery) Values() url.Values {
	v := url.Values{}
	if q.Organization != "" {
		v.Set("organization", q.Organization)
	}
	if q.Status >= 0 {
		v.Set("status", strconv.Itoa(q.Status))
	}
	if q.Email != "" {
		v.Set("email", q.Email)
	}
	return v
}

// sameAddress is the model of SPEC §2's comparison of addresses: ASCII letters match in either case,
// every other character only itself (strings.EqualFold would also match the Kelvin sign with k).
func sameAddress(a, b string) bool {
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if 'A' <= r && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}, s)
	}
	return fold(a) == fold(b)
}

// List is the model of c's list: the invitations c may read (SPEC §3: staff all; members of the
// invitation's organization; the invitee, by address in any case) that q keeps at now (the status as
// read then), newest first, ties by id (§10).
func (d *Dataset) List(c Caller, q ListQuery, now time.Time) []ModelInvitation {
	var out []ModelInvitation
	for _, inv := range d.Invitations {
		readable := c.User.IsStaff || c.User.IsSuperuser || slices.Contains(c.Organizations, inv.Organization) ||
			sameAddress(inv.Email, c.User.Email)
		if readable && (q.Organization == "" || inv.Organization == q.Organization) &&
			(q.Status < 0 || inv.StatusAt(now) == q.Status) && (q.Email == "" || sameAddress(inv.Email, q.Email)) {
			out = append(out, inv)
		}
	}
	slices.SortFunc(out, func(a, b ModelInvitation) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
