package domain

import "time"

// The invitation rate (SPEC §9, DRF's UserRateThrottle with scope invitations at 100/hour): a user
// creates at most InvitationsPerWindow invitations in a window of InvitationWindow that starts with the
// first of them; the next create is refused with 429 until the window ends. Only an invitation that is
// made counts: a refused create (400, 401, 429) does not, so a mistyped body never uses the quota up.
const (
	InvitationsPerWindow = 100
	InvitationWindow     = time.Hour
)

// InvitationQuota is the invitations one user created in the window that started with the first of
// them. The zero value is no window.
type InvitationQuota struct {
	Used int
	Ends time.Time
}

// Open reports whether the window still runs at now.
func (q InvitationQuota) Open(now time.Time) bool { return now.Before(q.Ends) }

// Wait is how long creating stays refused at now: 0 when another invitation may be made.
func (q InvitationQuota) Wait(now time.Time) time.Duration {
	if q.Open(now) && q.Used >= InvitationsPerWindow {
		return q.Ends.Sub(now)
	}
	return 0
}
