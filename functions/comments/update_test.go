package comments_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

func itemPath(id string) string { return "/api/v1/comments/" + id + "/" }

// written is the write shape the API must answer with.
func written(t testing.TB, id, contentType, objectID string, tag *string, text string, parent *string) string {
	t.Helper()
	return testkit.MustJSON(t,
		map[string]any{"id": id, "content_type": contentType, "object_id": objectID, "tag": tag, "text": text,
			"parent": parent})
}

func TestWriteValidation(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	c := th.add("review", "")
	th.load(t)
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name, method, body, want string
	}{
		{"PUT requires content_type and object_id", "PUT", `{}`,
			`{"content_type": ["This field is required."], "object_id": ["This field is required."]}`},
		{"PUT without a body", "PUT", ``,
			`{"content_type": ["This field is required."], "object_id": ["This field is required."]}`},
		{"PUT requires object_id", "PUT", `{"content_type": "report", "text": "x"}`,
			`{"object_id": ["This field is required."]}`},
		{"unknown content_type", "PATCH", `{"content_type": "blog"}`,
			`{"content_type": ["\"blog\" is not a valid choice."]}`},
		{"content_type compared as sent", "PATCH", `{"content_type": " report"}`,
			`{"content_type": ["\" report\" is not a valid choice."]}`},
		{"blank content_type", "PATCH", `{"content_type": ""}`, `{"content_type": ["\"\" is not a valid choice."]}`},
		{"number content_type", "PATCH", `{"content_type": 5}`, `{"content_type": ["\"5\" is not a valid choice."]}`},
		{"content_type too long", "PATCH", `{"content_type": "` + long(26) + `"}`,
			`{"content_type": ["Ensure this field has no more than 25 characters."]}`},
		{"null content_type", "PUT", `{"content_type": null, "object_id": "` + c.ObjectID + `"}`,
			`{"content_type": ["This field may not be null."]}`},
		{"list content_type", "PATCH", `{"content_type": ["report"]}`,
			`{"content_type": ["\"['report']\" is not a valid choice."]}`},
		{"boolean content_type", "PATCH", `{"content_type": true}`, `{"content_type": ["\"True\" is not a valid choice."]}`},
		{"bad object_id", "PATCH", `{"object_id": "nope"}`, `{"object_id": ["Must be a valid UUID."]}`},
		{"null object_id", "PATCH", `{"object_id": null}`, `{"object_id": ["This field may not be null."]}`},
		{"tag too long", "PATCH", `{"tag": "` + long(51) + `"}`,
			`{"tag": ["Ensure this field has no more than 50 characters."]}`},
		{"blank tag", "PATCH", `{"tag": "  "}`, `{"tag": ["This field may not be blank."]}`},
		{"tag not a string", "PATCH", `{"tag": {"a": 1}}`, `{"tag": ["Not a valid string."]}`},
		{"text too long", "PATCH", `{"text": "` + long(100_001) + `"}`,
			`{"text": ["Ensure this field has no more than 100000 characters."]}`},
		{"null text", "PATCH", `{"text": null}`, `{"text": ["This field may not be null."]}`},
		{"blank text", "PATCH", `{"text": ""}`, `{"text": ["This field may not be blank."]}`},
		{"bad parent", "PATCH", `{"parent": "nope"}`, `{"parent": ["Must be a valid UUID."]}`},
		{"every failing field at once", "PUT", `{"content_type": "x", "tag": "", "text": true, "parent": 7}`,
			`{"content_type": ["\"x\" is not a valid choice."], "object_id": ["This field is required."], "parent": ` +
				`["Must be a valid UUID."], "tag": ["This field may not be blank."], "text": ["Not a valid string."]}`},
		{"malformed JSON", "PATCH", `{"text": `, `{"detail": "JSON parse error - unexpected end of JSON input"}`},
		{"not an object", "PATCH", `["text"]`,
			`{"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.do(t, tc.method, itemPath(c.ID), "alice", tc.body).Expect(t, 400, tc.want)
		})
	}
	t.Run("limits are inclusive", func(t *testing.T) {
		tag, text := long(50), long(100_000)
		e.do(t, "PATCH", itemPath(c.ID), "alice", `{"tag": "`+tag+`", "text": "`+text+`"}`).
			Expect(t, 200, written(t, c.ID, "report", c.ObjectID, &tag, text, nil))
	})
	t.Run("nothing was saved by the refused writes", func(t *testing.T) {
		stored, err := e.db.Store.Comment(t.Context(), c.ID)
		if err != nil || stored.Version != 2 {
			t.Fatalf("version %d after one successful save: %v", stored.Version, err)
		}
	})
	t.Run("limits count characters: the longest text in 4-byte ones fits a DynamoDB item", func(t *testing.T) {
		// 100,000 characters outside the BMP are 400,000 bytes of the item's 400 KiB: stored, not a 500.
		tag, text := strings.Repeat("😀", 50), strings.Repeat("😀", 100_000)
		e.do(t, "PATCH", itemPath(c.ID), "alice", `{"tag": "`+tag+`", "text": "`+text+`"}`).
			Expect(t, 200, written(t, c.ID, "report", c.ObjectID, &tag, text, nil))
	})
}

func TestWriteSuccess(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	root := th.add("review", "")
	c := th.add("review", root.ID)
	th.load(t)

	resp := e.do(t, "PATCH", itemPath(c.ID), "alice",
		`{"text": "  Edited  ", "id": "`+uuid.NewString()+`", "commenter": {"id": "x"},
		"created_at": "2020-01-01T00:00:00Z", "updated_at": "2020-01-01T00:00:00Z", "unknown": 1}`)
	resp.Expect(t, 200, written(t, c.ID, "report", th.objectID, str("review"), "Edited", &root.ID))
	if got := strings.Join(keysInOrder(t, resp.Body), ","); got != "id,content_type,object_id,tag,text,parent" {
		t.Fatalf("write shape keys %s", got)
	}
	read := e.readJSON(t, c)
	read["text"], read["updated_at"] = "Edited", domain.FormatTime(e.now)
	e.do(t, "GET", itemPath(c.ID), "alice", "").Expect(t, 200, testkit.MustJSON(t, read))

	for _, tc := range []struct {
		name, method, body, role, want string
	}{
		{"PUT keeps the fields it does not send", "PUT",
			`{"content_type": "report", "object_id": "` + th.objectID + `"}`, "alice",
			written(t, c.ID, "report", th.objectID, str("review"), "Edited", &root.ID)},
		{"tag trimmed", "PATCH", `{"tag": "  todo "}`, "alice",
			written(t, c.ID, "report", th.objectID, str("todo"), "Edited", &root.ID)},
		{"tag cleared", "PATCH", `{"tag": null}`, "alice", written(t, c.ID, "report", th.objectID, nil, "Edited", &root.ID)},
		{"parent cleared", "PATCH", `{"parent": null}`, "alice", written(t, c.ID, "report", th.objectID, nil, "Edited", nil)},
		{"parent set by staff, id in any case", "PATCH", `{"parent": "` + strings.ToUpper(root.ID) + `"}`, "staff",
			written(t, c.ID, "report", th.objectID, nil, "Edited", &root.ID)},
		{"empty PATCH still saves", "PATCH", `{}`, "alice", written(t, c.ID, "report", th.objectID, nil, "Edited", &root.ID)},
		{"without the trailing slash", "PATCH", `{"text": "again"}`, "alice",
			written(t, c.ID, "report", th.objectID, nil, "again", &root.ID)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := itemPath(c.ID)
			if strings.Contains(tc.name, "trailing slash") {
				path = strings.TrimSuffix(path, "/")
			}
			e.do(t, tc.method, path, tc.role, tc.body).Expect(t, 200, tc.want)
		})
	}
	t.Run("created_at kept, updated_at renewed", func(t *testing.T) {
		got := e.do(t, "GET", itemPath(c.ID), "alice", "").Object(t)
		want := e.readJSON(t, c)
		if got["created_at"] != want["created_at"] || got["updated_at"] != domain.FormatTime(e.now) {
			t.Fatalf("created_at %v (want %v), updated_at %v (want %v)", got["created_at"], want["created_at"],
				got["updated_at"], domain.FormatTime(e.now))
		}
	})
}

func TestWritePermissionsAndOrderOfChecks(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	mine := th.add("", "")
	// olga wrote this one while she was a member of A; she has left, and may still edit it.
	hers := th.add("", "")
	hers.CommenterID = e.users["olga"].ID
	th.comments[1] = hers
	th.load(t)
	notFound, forbidden := `{"detail": "Not found."}`, `{"detail": "You do not have permission to perform this action."}`
	for _, tc := range []struct {
		name, method, id, role, body, contentType string
		status                                    int
		want                                      string
	}{
		{"the commenter", "PATCH", mine.ID, "alice", `{"text": "a"}`, "", 200,
			written(t, mine.ID, "report", th.objectID, nil, "a", nil)},
		{"staff", "PUT", mine.ID, "staff",
			`{"content_type": "report", "object_id": "` + th.objectID + `", "text": "s"}`, "", 200,
			written(t, mine.ID, "report", th.objectID, nil, "s", nil)},
		{"a commenter who left the organization", "PATCH", hers.ID, "olga", `{"text": "o"}`, "", 200,
			written(t, hers.ID, "report", th.objectID, nil, "o", nil)},
		{"a member who is not the commenter", "PATCH", mine.ID, "amy", `{"text": "x"}`, "", 403, forbidden},
		{"a member of another organization", "PATCH", mine.ID, "bob", `{"text": "x"}`, "", 404, notFound},
		{"no membership", "PUT", mine.ID, "olga", `{}`, "", 404, notFound},
		{"unknown comment", "PATCH", uuid.NewString(), "staff", `{}`, "", 404, notFound},
		{"id not a UUID", "PATCH", "not-a-uuid", "staff", `{}`, "", 404, notFound},
		{"401 before 404", "PATCH", "not-a-uuid", "", `{}`, "", 401,
			`{"detail": "Authentication credentials were not provided."}`},
		{"401 before 400", "PATCH", mine.ID, "", `{"text": null}`, "", 401,
			`{"detail": "Authentication credentials were not provided."}`},
		{"403 before 415", "PATCH", mine.ID, "amy", `text`, "text/plain", 403, forbidden},
		{"404 before 400", "PATCH", mine.ID, "bob", `{"text": null}`, "", 404, notFound},
		{"415 for the writer", "PATCH", mine.ID, "alice", `text`, "text/plain", 415,
			`{"detail": "Unsupported media type \"text/plain\" in request."}`},
		{"JSON with a charset", "PATCH", mine.ID, "alice", `{"text": "c"}`, "application/json; charset=utf-8", 200,
			written(t, mine.ID, "report", th.objectID, nil, "c", nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := testkit.Request{Method: tc.method, Path: itemPath(tc.id), Token: e.tokens[tc.role], Body: tc.body}
			if tc.contentType != "" {
				req.Header = map[string]string{"Content-Type": tc.contentType}
			}
			testkit.Do(t, e.gw, req).Expect(t, tc.status, tc.want)
		})
	}
	t.Run("the commenter who left cannot read it", func(t *testing.T) {
		e.do(t, "GET", itemPath(hers.ID), "olga", "").Expect(t, 404, notFound)
	})
}
