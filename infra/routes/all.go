package routes

// Shorthands of Who's columns.
const (
	y, no403, no404, none, no400 = Allowed, Forbidden, NotFound, EmptyList, Rejected
)

const (
	invitations = "/api/v1/organization-invitations/"
	comments    = "/api/v1/comments/"
	newPassword = `"password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"`
)

// All are the routes of template.yaml's functions, in the order the tests of every route run them:
// what a later route changes (a logout revokes its token) comes after what it would disturb. Who's
// columns: outsider, invitee, member, collaborator, administrator, commenter, staff, superuser.
var All = []Route{{
	// SPEC §4: staff and superusers create users.
	Method: "POST", Pattern: "/api/v1/users/", Function: "UsersFunction", Hashes: true,
	Who: []Outcome{no403, no403, no403, no403, no403, no403, y, y},
	Sample: Request{As: "staff", Path: "/api/v1/users/", Status: 201,
		Body: `{"email": "new-{n}@example.com", ` + newPassword + `}`},
	Event: "UsersFunction-post-create.json",
}, {
	// SPEC §10: the invitee, members of its organization and staff; to others it does not exist.
	Method: "GET", Pattern: invitations + "{id}/", Function: "InvitationsFunction",
	Who:    []Outcome{no404, y, y, y, y, y, y, y},
	Sample: Request{As: "staff", Path: invitations + "{invitation}/", Status: 200},
	Event:  "InvitationsFunction-get-detail.json",
}, {
	// SPEC §10: administrators of its organization and staff change it; the invitee only answers it.
	Method: "PATCH", Pattern: invitations + "{id}/", Function: "InvitationsFunction",
	Who:    []Outcome{no404, no403, no403, no403, y, no403, y, y},
	Sample: Request{As: "staff", Path: invitations + "{invitation}/", Body: `{"first_name": "Alan {n}"}`, Status: 200},
	Event:  "InvitationsFunction-patch-update.json",
}, {
	// SPEC §10: the invitations to the caller's address, and those of the organizations it is a member of.
	Method: "GET", Pattern: invitations, Function: "InvitationsFunction",
	Who:    []Outcome{none, y, y, y, y, y, y, y},
	Sample: Request{As: "staff", Path: invitations, Status: 200},
	Event:  "InvitationsFunction-get-list.json",
}, {
	// SPEC §10: administrators of the organization, and staff who are members of it; to everyone else
	// the organization does not exist.
	Method: "POST", Pattern: invitations, Function: "InvitationsFunction",
	Who:      []Outcome{no400, no400, no400, no400, y, no400, no400, no400},
	Rejected: `{"organization_id": ["Invalid pk \"{organization}\" - object does not exist."]}`,
	Sample: Request{As: "administrator", Path: invitations, Status: 201,
		Body: `{"organization_id": "{organization}", "email": "guest-{n}@example.com"}`},
	Event: "InvitationsFunction-post-create.json",
}, {
	// SPEC §10: administrators of its organization and staff.
	Method: "DELETE", Pattern: invitations + "{id}/", Function: "InvitationsFunction",
	Who:    []Outcome{no404, no404, no403, no403, y, no403, y, y},
	Sample: Request{As: "staff", Path: invitations + "{new invitation}/", Status: 204},
	Event:  "InvitationsFunction-delete.json",
}, {
	// SPEC §10: members of the object's organization and staff.
	Method: "GET", Pattern: comments, Function: "CommentsFunction",
	Who:    []Outcome{none, none, y, y, y, y, y, y},
	Sample: Request{As: "staff", Path: comments + "?content_type=report&object_id={report}", Status: 200},
	Event:  "CommentsFunction-get-list.json",
}, {
	Method: "GET", Pattern: comments + "{id}/", Function: "CommentsFunction",
	Who:    []Outcome{no404, no404, y, y, y, y, y, y},
	Sample: Request{As: "staff", Path: comments + "{comment}/", Status: 200},
	Event:  "CommentsFunction-get-detail.json",
}, {
	// SPEC §10: the commenter and staff change a comment.
	Method: "PUT", Pattern: comments + "{id}/", Function: "CommentsFunction",
	Who: []Outcome{no404, no404, no403, no403, no403, y, y, y},
	Sample: Request{As: "staff", Path: comments + "{comment}/", Status: 200,
		Body: `{"content_type": "report", "object_id": "{report}", "text": "Replaced {n}."}`},
	Event: "CommentsFunction-put-replace.json",
}, {
	Method: "PATCH", Pattern: comments + "{id}/", Function: "CommentsFunction",
	Who:    []Outcome{no404, no404, no403, no403, no403, y, y, y},
	Sample: Request{As: "staff", Path: comments + "{comment}/", Body: `{"text": "Edited {n}."}`, Status: 200},
	Event:  "CommentsFunction-patch-update.json",
}, {
	// SPEC §10: members of the object's organization and staff; to anyone else the object does not exist.
	Method: "POST", Pattern: comments, Function: "CommentsFunction",
	Who:      []Outcome{no400, no400, y, y, y, y, y, y},
	Rejected: `{"object_id": ["Invalid pk \"{report}\" - object does not exist."]}`,
	Sample: Request{As: "staff", Path: comments, Status: 201,
		Body: `{"content_type": "report", "object_id": "{report}", "text": "New comment {n}."}`},
	Event: "CommentsFunction-post-create.json",
}, {
	// SPEC §10: the commenter, administrators of its organization, staff.
	Method: "DELETE", Pattern: comments + "{id}/", Function: "CommentsFunction",
	Who:    []Outcome{no404, no404, no403, no403, y, y, y, y},
	Sample: Request{As: "staff", Path: comments + "{new comment}/", Status: 204},
	Event:  "CommentsFunction-delete.json",
}, {
	// It revokes the token it sends: last of those that need one.
	Method: "POST", Pattern: "/api/v1/auth/logout", Function: "AuthFunction", Revokes: true,
	Who:    []Outcome{y, y, y, y, y, y, y, y},
	Sample: Request{As: "staff", Path: "/api/v1/auth/logout", Status: 204},
	Event:  "AuthFunction-post-logout.json",
}, {
	Method: "POST", Pattern: "/api/v1/auth/login", Function: "AuthFunction", Open: true, Hashes: true,
	Sample: Request{Path: "/api/v1/auth/login", Status: 201,
		Body: `{"username": "{staff email}", "password": "{staff password}"}`},
	Event: "AuthFunction-post-login.json",
}, {
	// SPEC §10's schema and docs page, with the page's files: read once, no store.
	Method: "GET", Pattern: "/api/schema/", Function: "DocsFunction", Open: true, NoStore: true,
	Sample: Request{Path: "/api/schema/", Status: 200},
	Event:  "DocsFunction-get-schema.json",
}, {
	Method: "GET", Pattern: "/api/docs/", Function: "DocsFunction", Open: true, NoStore: true,
	Sample: Request{Path: "/api/docs/", Status: 200},
	Event:  "DocsFunction-get-page.json",
}, {
	Method: "GET", Pattern: "/api/docs/{asset}", Function: "DocsFunction", Open: true, NoStore: true,
	Sample: Request{Path: "/api/docs/swagger-ui.css", Status: 200},
	Event:  "DocsFunction-get-asset.json",
}}
