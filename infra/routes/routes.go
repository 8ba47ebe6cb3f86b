// Package routes is the one list of the API's routes that the tests of every route take their cases
// from: the authorization matrix, the IAM policy steps, the forged-token requests, the store faults,
// the benchmark and the events of `sam local invoke`. A route is an entry of All: its method, path,
// function, who may call it and a sample request; each list derives its request from the sample, and
// keeps beside it, keyed by the route's Name, only what is its own (an exact body to expect, a count of
// writes, the largest query). TestEveryServedRouteIsListed fails for a route template.yaml serves that
// All lacks, and for an entry no function serves. Test support: nothing deployed imports it.
package routes

//go:generate go run ./eventgen

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/reportingplatform/api/infra/testkit"
)

// Outcome is what SPEC §3 gives one caller class holding a valid token for a route's sample request
// on the objects of an organization it has that class's relation to.
type Outcome int

const (
	Allowed   Outcome = iota // the sample's Status
	Forbidden                // 403
	NotFound                 // 404
	EmptyList                // 200, count 0: none of the caller's business
	Rejected                 // 400 with the route's Rejected body: an object the caller may not know of
)

// Users are the caller classes that hold a valid token, in the order of Route.Who: a user of no
// organization, one invited to it, a member (role 0), a collaborator (1), an administrator (2), the
// member who wrote the comment, staff and a superuser, neither of them a member.
var Users = []string{"outsider", "invitee", "member", "collaborator", "administrator", "commenter", "staff",
	"superuser"}

// Route is one route of a function of template.yaml.
type Route struct {
	Method   string
	Pattern  string // as the function's router serves it, e.g. "/api/v1/comments/{id}/"
	Function string // template.yaml's logical id
	// Open: it needs no token (SPEC §1). Otherwise Who gives each of Users' answer to Sample (SPEC §3),
	// and the requests without a valid token get SPEC §2's 401s.
	Open bool
	Who  []Outcome
	// Rejected is the 400 body of the Rejected outcome, with Sample's placeholders.
	Rejected string
	NoStore  bool // it never calls the store: no store fault reaches it, no IAM action, no round trip
	Hashes   bool // it runs argon2id (login, a new user's password)
	Revokes  bool // it revokes the token it is sent: each of its requests needs a new one
	Sample   Request
	// Event is its file in events/ for `sam local invoke`, which TestEventFilesCoverEveryRoute holds to
	// it; `go generate ./infra/routes` writes it from Sample when it is missing.
	Event string
}

// Name is how the lists name a route: "METHOD pattern", as wiring.Route's Name.
func (r Route) Name() string { return r.Method + " " + r.Pattern }

// Request is a request of a route that succeeds with Status, on any data with the objects it names: its
// path and body name them by placeholders, "{name}", which each test's World fills.
//
//	{organization}       an organization the caller As administers (or, staff, may read)
//	{report}             a report of that organization with comments
//	{comment}            a comment on it, which the caller may change
//	{invitation}         a pending invitation of it, which the caller may change
//	{new comment}        a comment made for the request to remove, one each time
//	{new invitation}     an invitation made for the request to remove, one each time
//	{n}                  a number no request has used before, for what must be new (an email)
//	{staff email}        the staff user's address and password, for a login
//	{staff password}
type Request struct {
	As     string // the caller class, of Users, whose token it sends; "" sends none
	Path   string // with the query, if any
	Body   string
	Status int
}

// World fills a Request's placeholders with a test's data, and gives the token of a caller class:
// NewToken a new one, for a route that Revokes it. A world without Token sends none (its test sends
// tokens of its own).
type World struct {
	Value    func(name string) (string, bool)
	Token    func(caller string) string
	NewToken func(caller string) string
}

var placeholder = regexp.MustCompile(`\{([a-z][a-z ]*)\}`)

// Fill is s with every placeholder replaced by w's value; an error names the first w has none for.
func (w World) Fill(s string) (string, error) {
	var missing string
	out := placeholder.ReplaceAllStringFunc(s, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := w.Value(name)
		if !ok && missing == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("{%s} has no value in this test's world: give it one", missing)
	}
	return out, nil
}

// In is the request r's sample makes in w, with the token of its caller class.
func (r Route) In(w World) (testkit.Request, error) {
	path, err := w.Fill(r.Sample.Path)
	if err != nil {
		return testkit.Request{}, fmt.Errorf("%s: %w", r.Name(), err)
	}
	body, err := w.Fill(r.Sample.Body)
	if err != nil {
		return testkit.Request{}, fmt.Errorf("%s: %w", r.Name(), err)
	}
	req := testkit.Request{Method: r.Method, Path: path, Body: body}
	switch {
	case r.Sample.As == "" || w.Token == nil:
	case r.Revokes && w.NewToken == nil:
		return testkit.Request{}, fmt.Errorf("%s revokes its token, and this test's world makes no new one", r.Name())
	case r.Revokes:
		req.Token = w.NewToken(r.Sample.As)
	default:
		req.Token = w.Token(r.Sample.As)
	}
	return req, nil
}

// Lookup is the route named name.
func Lookup(name string) (Route, bool) {
	i := slices.IndexFunc(All, func(r Route) bool { return r.Name() == name })
	if i < 0 {
		return Route{}, false
	}
	return All[i], true
}

// Protected are the routes that need a token, in All's order.
func Protected() []Route {
	return slices.DeleteFunc(slices.Clone(All), func(r Route) bool { return r.Open })
}

// Unknown are the names among a list's own entries that name no route of All: what a list keyed by
// route reports as stale.
func Unknown(names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := Lookup(n); !ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Of is the route of All a request of method to path goes to (the path without its query).
func Of(method, path string) (Route, bool) {
	path, _, _ = strings.Cut(path, "?")
	want := segments(path)
	for _, r := range All {
		if r.Method != method {
			continue
		}
		got := segments(r.Pattern)
		if len(got) != len(want) {
			continue
		}
		match := true
		for i, s := range got {
			if !(strings.HasPrefix(s, "{") && want[i] != "") && s != want[i] {
				match = false
			}
		}
		if match {
			return r, true
		}
	}
	return Route{}, false
}

func segments(p string) []string {
	return strings.Split(strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/"), "/")
}
