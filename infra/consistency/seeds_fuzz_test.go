package consistency_test

import "strings"

// More demo ids (infra/demo-data/demo.json).
const (
	demoDataset          = "17dedbc2-f20a-51d3-9422-2613af2f9947" // a datasetconfiguration of Globex Research
	demoInvitationFinal  = "5450b3a4-e982-55fe-a93b-26bc82169424" // alan's revoked invitation to Globex Research
	demoInvitationOther  = "b011416f-c25d-5625-9215-5885fc06430c" // newcomer's pending invitation to Acme
	demoCommentOfMember  = "556cb320-3dfa-59fa-a656-03dbcbf02d99" // edsger's, on demoReport, with a reply
	demoReplyOfMember    = "df0ee2a2-81e1-54d9-b6fc-81f87da734c8" // edsger's reply to 880446b0
	demoCommentOfGlobex  = "0eed9bb5-0bcb-58b2-9017-aeac241ba9e1" // on demoDataset
	demoPortfolioAcme    = "f513f2cb-24db-5da0-92eb-722df0e62779"
	demoPortfolioGlobex  = "1b902149-7af5-5e31-bdf6-cbb9a61219b4"
	demoOrganizationAcme = "1463dfec-18c0-58cd-9c54-03d6320cc136"
)

// fuzzRoutes are the paths an input starts from: every route of template.yaml in both slash forms, on
// objects each caller can and cannot see, with the stage in front, and paths next to the routes. New
// ones go at the end: the corpus names routes by index.
var fuzzRoutes = []string{
	"/api/v1/auth/login",
	"/api/v1/auth/login/",
	"/api/v1/users/",
	"/api/v1/users",
	"/api/v1/organization-invitations/" + demoInvitation + "/",
	"/api/v1/organization-invitations/" + demoInvitationFinal + "/",
	"/api/v1/organization-invitations/" + demoInvitationOther,
	"/api/v1/organization-invitations/" + unknownID + "/",
	"/api/v1/comments/",
	"/api/v1/comments",
	"/api/v1/comments/" + demoComment + "/",
	"/api/v1/comments/" + demoCommentOfMember + "/",
	"/api/v1/comments/" + demoReplyOfMember,
	"/api/v1/comments/" + demoCommentOfGlobex + "/",
	"/api/v1/comments/" + unknownID + "/",
	"/Prod/api/v1/comments/",
	"/Prod/api/v1/organization-invitations/" + demoInvitation,
	"/",
	"/api/v1/",
	"/api/v1/organization-invitations/",
}

// Indexes into fuzzRoutes, for the seeds.
const (
	rLogin, rLoginSlash, rUsers, rUsersNoSlash                   = 0, 1, 2, 3
	rInvitation, rInvitationFinal, rInvitationOther, rInvUnknown = 4, 5, 6, 7
	rComments, rCommentsNoSlash, rComment, rCommentOfMember      = 8, 9, 10, 11
	rReplyOfMember, rCommentOfGlobex, rCommentUnknown            = 12, 13, 14
	rStagedComments, rStagedInvitation, rRoot, rAPI, rInvList    = 15, 16, 17, 18, 19
)

type apiSeed struct {
	method        string
	route, caller uint8
	suffix, query string
	contentType   string
	authorization string // "{token}" stands for the caller's token
	body          string
}

const jsonCT = "application/json"

var listQuery = "content_type=report&object_id=" + demoReport

// apiSeeds reach every handler's successes and refusals, so that the fuzzer starts from requests that
// get deep rather than from 404s.
var apiSeeds = []apiSeed{
	// Login: a success (201, undone afterwards), a refusal (400 and a failed-login window), bodies.
	{"POST", rLogin, callerNone, "", "", jsonCT, "", `{"username": "admin@example.com", "password": "demo-admin-2026"}`},
	{"POST", rLoginSlash, callerNone, "", "", jsonCT, "", `{"username": " ADMIN@example.com ", "password": "wrong"}`},
	{"POST", rLogin, callerNone, "", "", "text/plain", "", `{"username": "a", "password": "b"}`},
	{"POST", rLogin, callerNone, "", "", jsonCT, "",
		`{"username": "` + strings.Repeat("y", 300) + `@example.com", "password": 1e400}`},
	{"POST", rLogin, callerNone, "", "", jsonCT, "", "{\"username\": \"\xff\"}"},
	{"GET", rLogin, callerStaff, "", "", "", "", ""},
	// Users: staff create (201), refusals of fields, of the caller, of the body.
	{"POST", rUsers, callerStaff, "", "", jsonCT, "",
		`{"email": "fuzz@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "full_name": "Fu Zz"}`},
	{"POST", rUsersNoSlash, callerStaff, "", "", jsonCT, "",
		`{"email": "admin@EXAMPLE.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`},
	{"POST", rUsers, callerStaff, "", "", jsonCT, "",
		`{"email": "\u0000", "password": "123", "confirm_password": null, "first_name": {"a": [1]}}`},
	{"POST", rUsers, callerMember, "", "", jsonCT, "", `{"email": "fuzz@example.com"}`},
	{"POST", rUsers, callerStaff, "", "", "application/json; charset=utf-8", "", `[]`},
	{"POST", rUsers, callerNone, "", "", jsonCT, "Basic YWRtaW46eA==", `{}`},
	// Invitations: read by each caller, changes by staff and by the invitee, refusals.
	{"GET", rInvitation, callerStaff, "", "", "", "", ""},
	{"GET", rInvitation, callerMember, "", "", "", "", ""},
	{"GET", rInvitationFinal, callerInvitee, "", "", "", "", ""},
	{"GET", rInvitationOther, callerInvitee, "", "", "", "", ""},
	{"HEAD", rInvitation, callerStaff, "", "", "", "", ""},
	{"PATCH", rInvitation, callerStaff, "", "", jsonCT, "",
		`{"first_name": "Alan M.", "role": "2", "accessible_portfolio_ids": ["` + demoPortfolioAcme + `"]}`},
	{"PATCH", rInvitation, callerStaff, "", "", jsonCT, "",
		`{"organization_id": "` + demoOrganizationAcme + `", "accessible_portfolio_ids": ["` + demoPortfolioGlobex +
			`"], "email": "x"}`},
	{"PATCH", rInvitation, callerInvitee, "", "", jsonCT, "", `{"status": 1}`},
	{"PATCH", rInvitation, callerInvitee, "", "", jsonCT, "", `{"status": 1, "role": 2}`},
	{"PATCH", rInvitationFinal, callerInvitee, "", "", jsonCT, "", `{"status": "2"}`},
	{"PATCH", rInvitation, callerMember, "", "", jsonCT, "", `{"status": 4}`},
	{"PATCH", rInvUnknown, callerStaff, "", "", jsonCT, "", `{}`},
	{"DELETE", rInvitation, callerStaff, "", "", "", "", ""},
	{"PATCH", rStagedInvitation, callerStaff, "", "", jsonCT, "", `{"last_name": null, "email_sent": true}`},
	// Comments: lists with every query parameter, reads, writes by the commenter and by staff.
	{"GET", rComments, callerStaff, "", listQuery + "&page=2&page_size=5&tag=review&ordering=-created_at", "", "", ""},
	{"GET", rCommentsNoSlash, callerMember, "", listQuery + "&page=last", "", "", ""},
	{"GET", rComments, callerInvitee, "", "content_type=datasetconfiguration&object_id=" + demoDataset, "", "", ""},
	{"GET", rComments, callerStaff, "",
		"content_type=report&object_id=%7B" + strings.ToUpper(demoReport) + "%7D&tag=%00&page=0", "", "", ""},
	{"GET", rComments, callerStaff, "", "content_type=x&object_id=y&page_size=%F0%9D%9F%90", "", "", ""},
	{"GET", rStagedComments, callerStaff, "", listQuery + "&page=%&page_size=1;tag=x", "", "", ""},
	{"GET", rComments, callerStaff, "", listQuery + "&tag=" + strings.Repeat("t", 300), "", "", ""},
	{"HEAD", rComments, callerMember, "", listQuery, "", "", ""},
	{"GET", rComment, callerMember, "", "", "", "", ""},
	{"GET", rCommentOfGlobex, callerMember, "", "", "", "", ""},
	{"PATCH", rCommentOfMember, callerMember, "", "", jsonCT, "", `{"text": "edited", "tag": null}`},
	{"PUT", rReplyOfMember, callerMember, "", "", jsonCT, "",
		`{"content_type": "report", "object_id": "` + demoReport + `", "parent": null}`},
	{"PUT", rCommentOfMember, callerStaff, "", "", jsonCT, "",
		`{"content_type": "report_attitude", "object_id": "` + unknownID + `"}`},
	{"PATCH", rReplyOfMember, callerStaff, "", "", jsonCT, "", `{"parent": "` + demoReplyOfMember + `"}`},
	{"PATCH", rCommentOfMember, callerStaff, "", "", jsonCT, "", `{"parent": "` + demoReplyOfMember + `"}`},
	{"PATCH", rComment, callerMember, "", "", jsonCT, "", `{"text": "not mine"}`},
	{"PATCH", rCommentOfGlobex, callerStaff, "", "", jsonCT, "",
		`{"content_type": "report", "object_id": "` + demoReport + `"}`},
	{"PUT", rComment, callerStaff, "", "", jsonCT, "",
		`{"content_type": ["report"], "object_id": 1, "tag": " ", "text": "\ud800", "parent": "x"}`},
	{"PATCH", rCommentUnknown, callerStaff, "", "", jsonCT, "", `{}`},
	// Transport: methods, paths, content types and credentials of every kind.
	{"OPTIONS", rComments, callerStaff, "", "", "", "", ""},
	{"PROPFIND", rComment, callerNone, "", "", "", "", ""},
	{"get", rComment, callerStaff, "", "", "", "", ""},
	{"TRACE", rRoot, callerNone, "", "", "", "", ""},
	{"GET", rAPI, callerStaff, "comments/", "", "", "", ""},
	{"GET", rInvList, callerStaff, "", "", "", "", ""},
	{"GET", rComments, callerStaff, "%2F" + demoComment + "/", "", "", "", ""},
	{"GET", rComment, callerStaff, "/", "", "", "", ""},
	{"GET", rComments, callerStaff, demoComment + "%00/", "", "", "", ""},
	{"GET", rComments, callerStaff, "\xff\x00 ?#%zz", "a=%zz&&=;", "", "", ""},
	{"GET", rComment, callerNobody, "", "", "", "", ""},
	{"GET", rComment, callerStaff, "", "", "", "bearer  {token} ", ""},
	{"GET", rComment, callerStaff, "", "", "", "Bearer", ""},
	{"GET", rComment, callerStaff, "", "", "", "Bearer {token} x", ""},
	{"GET", rComment, callerStaff, "", "", "", "Token {token}", ""},
	{"GET", rComment, callerStaff, "", "", "", "Bearer {token}x", ""},
	{"PATCH", rComment, callerStaff, "", "", "", "", `{"text": "no content type"}`},
	{"PATCH", rComment, callerStaff, "", "", "text/plain", "", "  \n"},
	{"PATCH", rComment, callerStaff, "", "", jsonCT, "", "{\"text\": \"\xed\xa0\x80\"}"},
	{"PATCH", rComment, callerStaff, "", "", jsonCT, "", `{"text": "a"} {"text": "b"}`},
	{"POST", rComments, callerStaff, "", "", jsonCT, "",
		`{"content_type": "report", "object_id": "` + demoReport + `", "text": "new"}`},
}
