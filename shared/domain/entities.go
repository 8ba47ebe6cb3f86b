package domain

import (
	"strings"
	"time"
)

// Role is a member's role in an organization; the values are the seed's.
type Role int

const (
	RoleMember        Role = 0
	RoleCollaborator  Role = 1
	RoleAdministrator Role = 2
)

// Valid reports whether r is one of the seed's roles.
func (r Role) Valid() bool { return r >= RoleMember && r <= RoleAdministrator }

// Name is the role in words, as the invitation e-mail says it (the API itself speaks numbers); "" for
// a value that is no role.
func (r Role) Name() string {
	switch r {
	case RoleMember:
		return "member"
	case RoleCollaborator:
		return "collaborator"
	case RoleAdministrator:
		return "administrator"
	}
	return ""
}

// User is an account. PasswordHash is in Django's format and never leaves the service.
// Memberships are kept on the user record so that authentication reads the caller's organizations in the
// same call that checks the token.
type User struct {
	ID           string
	Email        string
	PasswordHash string
	FirstName    *string
	LastName     *string
	IsStaff      bool
	IsSuperuser  bool
	IsActive     bool
	LastLogin    *time.Time
	DateJoined   time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Memberships  []Membership
}

// Privileged reports whether u is "staff" in SPEC's sense: is_staff or is_superuser.
func (u *User) Privileged() bool { return u.IsStaff || u.IsSuperuser }

// MembershipOf returns u's membership of organization orgID.
func (u *User) MembershipOf(orgID string) (Membership, bool) {
	for _, m := range u.Memberships {
		if m.OrganizationID == orgID {
			return m, true
		}
	}
	return Membership{}, false
}

// FullName is Django's get_full_name: first and last name joined by a space, trimmed.
func (u *User) FullName() string { return FullName(u.FirstName, u.LastName) }

// FullName is get_full_name's rule for any first and last name (an invitee's, say).
func FullName(first, last *string) string {
	return strings.TrimSpace(Deref(first) + " " + Deref(last))
}

// Membership is one organization a user belongs to, as the user record holds it.
type Membership struct {
	MemberID         string
	OrganizationID   string
	OrganizationName string
	Role             Role
}

// Organization owns members, portfolios, invitations and commented objects.
type Organization struct {
	ID   string
	Name string
}

// Member is a user's membership seen from the organization.
type Member struct {
	ID             string
	OrganizationID string
	UserID         string
	Role           Role
}

// Portfolio belongs to one organization; invitations grant access to some of them.
type Portfolio struct {
	ID             string
	OrganizationID string
	Name           string
}

// Token is a stored login token. Only the SHA-256 of the token string is kept.
type Token struct {
	Hash      string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Deref returns *p, or "" for nil.
func Deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }

// TimeLayout is how the service writes timestamps, in JSON and in the table: RFC 3339 in UTC with
// microseconds, as DRF does. Fixed width, so that stored timestamps sort as strings.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// FormatTime writes t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads a TimeLayout timestamp, and any RFC 3339 one.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return Stamp(t), nil
}

// Stamp is t as the service stores and shows times: UTC, to the microsecond (DRF's precision), so that
// what is compared is what is written.
func Stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Clock is the service's one clock: a time source (time.Now in production, a fixed one in tests) read as
// the service stores times. Handlers take "now" from it and nowhere else.
type Clock func() time.Time

// Now is the current time, stamped.
func (c Clock) Now() time.Time { return Stamp(c()) }
