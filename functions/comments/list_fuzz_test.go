package comments

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reportingplatform/api/shared/domain"
)

// FuzzCommentListQuery reads any query string with readListQuery, as the list handler gets it
// (r.URL.Query(): bad pairs dropped). A refusal is a 400 with django-filter's messages under the
// filters that failed; an accepted query names one object of a known content type, and its filters,
// ordering and page, written back as a query string, are read as the same query.
func FuzzCommentListQuery(f *testing.F) {
	const id = "8ae83b59-9621-58f7-ae8c-5a712269c424"
	ok := "content_type=report&object_id=" + id
	for _, q := range []string{
		"", ok, "content_type=report", "object_id=" + id, "content_type=Report&object_id=" + id,
		"content_type=report&object_id=x",
		ok + "&tag=%20review%20", ok + "&tag=%00", ok + "&tag=" + strings.Repeat("t", 300), ok + "&tag=",
		ok + "&tag=%ED%A0%80",
		ok + "&ordering=-created_at", ok + "&ordering=text,-created_at,created_at",
		ok + "&ordering=%20-created_at%20&ordering=x",
		ok + "&page=last&page_size=5", ok + "&page=0", ok + "&page_size=1000",
		"content_type=report&object_id=%7B" + strings.ToUpper(id) + "%7D",
		"content_type=report&content_type=dataset&object_id=" + id, "content_type=%FF&object_id=%FF",
		"content_type=%&object_id=%zz",
		ok + "&object_id=urn:uuid:" + id, ok + ";tag=x", "content_type=report_attitude&object_id=+" + id + "+",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, rawQuery string) {
		q, _ := url.ParseQuery(rawQuery)
		lq, err := readListQuery(q)
		if err != nil {
			checkListRefusal(t, rawQuery, q, err)
			return
		}
		tag := domain.Deref(lq.tag)
		if !domain.ValidContentType(lq.object.ContentType) || !canonical(&lq.object.ObjectID) ||
			(lq.tag != nil && (tag == "" || strings.TrimSpace(tag) != tag || strings.ContainsRune(tag, 0))) {
			t.Fatalf("%q accepted as %+v", rawQuery, lq)
		}
		echo := url.Values{"content_type": {lq.object.ContentType}, "object_id": {lq.object.ObjectID},
			"page_size": {strconv.Itoa(lq.page.Size)}}
		if lq.tag != nil {
			echo.Set("tag", *lq.tag)
		}
		if lq.descending {
			echo.Set("ordering", "-created_at")
		}
		switch n, ok := lq.page.Number(); {
		case lq.page.Last():
			echo.Set("page", "last")
		case ok:
			echo.Set("page", strconv.Itoa(n))
		default:
			echo.Set("page", "0")
		}
		again, err := readListQuery(echo)
		if err != nil || again.object != lq.object || again.descending != lq.descending || again.page != lq.page ||
			domain.Deref(again.tag) != tag || (again.tag == nil) != (lq.tag == nil) {
			t.Fatalf("%q gave %+v; written back as %q it gave %+v, %v", rawQuery, lq, echo.Encode(), again, err)
		}
	})
}

// checkListRefusal holds a refusal to SPEC §6's filter messages, under exactly the filters that fail.
func checkListRefusal(t *testing.T, rawQuery string, q url.Values, err error) {
	t.Helper()
	var e *domain.Error
	if !errors.As(err, &e) || e.Code != domain.EINVALID || e.Detail != "" || len(e.Fields) == 0 {
		t.Fatalf("%q: %v is not a field error", rawQuery, err)
	}
	for field, msgs := range e.Fields {
		if len(msgs) != 1 {
			t.Fatalf("%q: %s: %q", rawQuery, field, msgs)
		}
		last := ""
		if vs := q[field]; len(vs) > 0 {
			last = vs[len(vs)-1]
		}
		want := map[string][]string{
			"content_type": {domain.MsgRequired,
				fmt.Sprintf("Select a valid choice. %s is not one of the available choices.", last)},
			"object_id": {domain.MsgRequired, "Enter a valid UUID."},
			"tag":       {"Null characters are not allowed."},
		}[field]
		if !slices.Contains(want, msgs[0]) ||
			(msgs[0] == domain.MsgRequired) != (strings.TrimSpace(last) == "" && (field != "content_type" || last == "")) {
			t.Fatalf("%q: %s: %q", rawQuery, field, msgs)
		}
	}
}
