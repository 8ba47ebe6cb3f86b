// Package users serves POST /api/v1/users/ (SPEC §4): staff create users.
package users

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
	"github.com/reportingplatform/api/shared/password"
)

// UsersPath is the seed's path; the router also serves it without the trailing slash.
const UsersPath = "/api/v1/users/"

// maxAttempts bounds how often a create is sent again after DynamoDB cancelled its transaction for
// meeting another one on the same items.
const maxAttempts = 3

type handler struct {
	users domain.UserStore
	httpapi.Kit
}

// New returns the users function's HTTP handler.
func New(users domain.UserStore, log *slog.Logger, now func() time.Time) *httpapi.Router {
	kit, rt := httpapi.NewKit(users, log, now, UsersPath)
	h := &handler{users: users, Kit: kit}
	rt.Handle(http.MethodPost, UsersPath, h.create)
	return rt
}

// createResponse is the seed's User create response; it never carries a password.
type createResponse struct {
	ID        string  `json:"id"`
	Email     string  `json:"email"`
	FirstName *string `json:"first_name"`
	LastName  *string `json:"last_name"`
}

// create serves POST (SPEC §4): the session, then one TransactWriteItems of the user and its email
// claim. An Idempotency-Key (SPEC §9) is claimed between the two, before the password is hashed, and
// completed by the transaction.
func (h *handler) create(w http.ResponseWriter, r *http.Request) (err error) {
	caller, err := h.Auth.Authenticate(r)
	if err != nil {
		return err
	}
	if !caller.Privileged() {
		return domain.Forbidden()
	}
	body, err := httpapi.DecodeObject(r)
	if err != nil {
		return err
	}
	u, plain, err := readCreate(body)
	if err != nil {
		return err
	}
	key, err := h.Keys.Claim(r, caller.ID, body)
	if err != nil {
		return err
	}
	if id, status, ok := key.Replay(); ok {
		return h.replay(w, r, id, status)
	}
	defer key.Settle(r.Context(), &err)
	if u.PasswordHash, err = password.Hash(plain); err != nil {
		return err
	}
	now := h.Clock.Now()
	u.ID, u.IsActive = uuid.NewString(), true
	u.DateJoined, u.CreatedAt, u.UpdatedAt = now, now, now
	// A create meets another transaction on its items only when the same email is being created at
	// once (ECONFLICT): sent again, it finds the email taken or takes it.
	err = domain.RetryOnConflict(r.Context(), maxAttempts,
		func(int) error { return h.users.CreateUser(r.Context(), u, key.Done(u.ID)) })
	if errors.Is(err, domain.ErrEmailTaken) {
		return domain.FieldError("email", "user with this email already exists.")
	} else if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, created(u))
	return nil
}

// created is the create's answer. A user stored with a null name (by the fixture loader) shows "", as
// its login does.
func created(u domain.User) createResponse {
	return createResponse{ID: u.ID, Email: u.Email, FirstName: blankIfNull(u.FirstName), LastName: blankIfNull(u.LastName)}
}

func blankIfNull(s *string) *string {
	if s == nil {
		return new(string)
	}
	return s
}

// replay answers a create repeated with its Idempotency-Key (SPEC §9): the user it created, as it is
// now, with the status the create was answered.
func (h *handler) replay(w http.ResponseWriter, r *http.Request, id string, status int) error {
	u, err := h.users.User(r.Context(), id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, status, created(u))
	return nil
}

// readCreate validates the create request, reporting every failing field at once, and returns the new
// user (without id, hash or timestamps) and the plain password.
func readCreate(body *httpapi.Body) (domain.User, string, error) {
	email, emailOK := body.String("email", httpapi.Text{Required: true, MaxLength: domain.MaxEmailLength, Email: true})
	plain, plainOK := body.String("password", httpapi.Text{Required: true, NoTrim: true})
	confirm, confirmOK := body.String("confirm_password", httpapi.Text{Required: true, NoTrim: true})
	first, _ := body.String("first_name",
		httpapi.Text{AllowNull: true, AllowBlank: true, MaxLength: domain.MaxUserFirstName})
	last, _ := body.String("last_name", httpapi.Text{AllowNull: true, AllowBlank: true, MaxLength: domain.MaxUserLastName})
	if !body.Has("first_name") && !body.Has("last_name") {
		first, last = splitFullName(body)
	}
	var u domain.User
	if emailOK {
		u.Email = domain.NormalizeEmail(*email)
	}
	// A name not given, or null, is stored as Django's AbstractUser keeps one: blank, never null. So the
	// create's answer and every later read of the user (login) show the same "".
	u.FirstName, u.LastName = blankIfNull(first), blankIfNull(last)
	if plainOK && confirmOK && *plain != *confirm {
		body.Fail("confirm_password", "Passwords do not match.")
	}
	if plainOK {
		// Django's order (UserAttributeSimilarityValidator.DEFAULT_USER_ATTRIBUTES): the first that
		// matches is the one named.
		attrs := []password.Attribute{
			{Name: "first name", Value: domain.Deref(first)},
			{Name: "last name", Value: domain.Deref(last)},
			{Name: "email", Value: u.Email},
		}
		for _, msg := range password.Validate(*plain, attrs) {
			body.Fail("password", msg)
		}
	}
	if err := body.Err(); err != nil {
		return domain.User{}, "", err
	}
	return u, *plain, nil
}

// splitFullName applies SPEC §4's full_name rule: split at the first run of white space (Unicode's, as
// Python's str.split), first part to
// first_name, the rest to last_name, each checked against its limit with errors reported under full_name.
func splitFullName(body *httpapi.Body) (first, last *string) {
	full, ok := body.String("full_name", httpapi.Text{AllowBlank: true})
	if !ok || full == nil || *full == "" {
		return nil, nil
	}
	f, l := *full, ""
	if i := strings.IndexFunc(f, unicode.IsSpace); i >= 0 {
		f, l = f[:i], strings.TrimLeftFunc(f[i:], unicode.IsSpace)
	}
	if utf8.RuneCountInString(f) > domain.MaxUserFirstName {
		body.Fail("full_name", domain.MsgMaxLength(domain.MaxUserFirstName))
	}
	if utf8.RuneCountInString(l) > domain.MaxUserLastName {
		body.Fail("full_name", domain.MsgMaxLength(domain.MaxUserLastName))
	}
	return &f, &l
}
