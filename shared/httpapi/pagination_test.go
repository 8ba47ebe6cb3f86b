package httpapi

import (
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/reportingplatform/api/shared/domain"
)

var drf = PageNumberPagination{PageSize: 20, MaxPageSize: 100}

func TestReadPageSize(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"", 20}, {"page_size=5", 5}, {"page_size=100", 100}, {"page_size=101", 100}, {"page_size=99999999999999999999", 100},
		{"page_size=0", 20}, {"page_size=-5", 20}, {"page_size=abc", 20}, {"page_size=", 20}, {"page_size=2.5", 20},
		{"page_size=+7", 7}, {"page_size=%207%20", 7}, {"page_size=5&page_size=9", 9}, {"page_size=9&page_size=x", 20},
	} {
		q, _ := url.ParseQuery(tc.query)
		if got := drf.Read(q).Size; got != tc.want {
			t.Errorf("%q: size %d, want %d", tc.query, got, tc.want)
		}
	}
}

func TestResolvePage(t *testing.T) {
	for _, tc := range []struct {
		query       string
		count       int
		wantNumber  int // 0: Invalid page.
		wantOffset  int
		wantLen     int
		wantPages   int
		wantNeeded  int
		neededKnown bool
	}{
		{"", 0, 1, 0, 0, 1, 20, true},
		{"page=1", 45, 1, 0, 20, 3, 20, true},
		{"page=", 45, 1, 0, 20, 3, 20, true},
		{"page=3", 45, 3, 40, 5, 3, 60, true},
		{"page=4", 45, 0, 0, 0, 0, 80, true},
		{"page=2", 0, 0, 0, 0, 0, 40, true},
		{"page=last", 45, 3, 40, 5, 3, 0, false},
		{"page=last", 40, 2, 20, 20, 2, 0, false},
		{"page=last", 0, 1, 0, 0, 1, 0, false},
		{"page=Last", 45, 0, 0, 0, 0, 0, false},
		{"page=0", 45, 0, 0, 0, 0, 0, false},
		{"page=-1", 45, 0, 0, 0, 0, 0, false},
		{"page=abc", 45, 0, 0, 0, 0, 0, false},
		{"page=1.0", 45, 0, 0, 0, 0, 0, false},
		{"page=%202%20", 45, 2, 20, 20, 3, 40, true},
		{"page=9&page=2", 45, 2, 20, 20, 3, 40, true},
		{"page=99999999999999999999", 45, 0, 0, 0, 0, math.MaxInt, true},
		{"page=2&page_size=10", 45, 2, 10, 10, 5, 20, true},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			req := drf.Read(q)
			needed, known := req.Needed()
			if known != tc.neededKnown || (known && needed != tc.wantNeeded) {
				t.Errorf("Needed() = %d, %v; want %d, %v", needed, known, tc.wantNeeded, tc.neededKnown)
			}
			p, err := req.Resolve(tc.count)
			if tc.wantNumber == 0 {
				var e *domain.Error
				if !errors.As(err, &e) || e.Code != domain.ENOTFOUND || e.Detail != "Invalid page." {
					t.Fatalf("Resolve = %+v, %v; want Invalid page.", p, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Number != tc.wantNumber || p.Offset() != tc.wantOffset || p.Len() != tc.wantLen || p.Pages() != tc.wantPages {
				t.Errorf("page %+v: number %d offset %d len %d pages %d", p, p.Number, p.Offset(), p.Len(), p.Pages())
			}
		})
	}
}

func TestLinks(t *testing.T) {
	const oid = "0b7c6f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f"
	for _, tc := range []struct {
		name, base, proto, host, target string
		count                           int
		next, previous                  string // "" = null
	}{
		{"localhost first page", "", "", "127.0.0.1:3000",
			"/api/v1/comments/?object_id=" + oid + "&content_type=report", 45,
			"http://127.0.0.1:3000/api/v1/comments/?content_type=report&object_id=" + oid + "&page=2", ""},
		{"localhost page 2 drops page in previous", "", "", "127.0.0.1:3000",
			"/api/v1/comments/?page=2&object_id=" + oid + "&content_type=report", 45,
			"http://127.0.0.1:3000/api/v1/comments/?content_type=report&object_id=" + oid + "&page=3",
			"http://127.0.0.1:3000/api/v1/comments/?content_type=report&object_id=" + oid},
		{"stage, https, last page", "/Prod", "https", "abc.execute-api.eu-west-1.amazonaws.com",
			"/api/v1/comments/?page=3&content_type=report&object_id=" + oid + "&page_size=20", 45,
			"",
			"https://abc.execute-api.eu-west-1.amazonaws.com/Prod/api/v1/comments/?content_type=report&object_id=" +
				oid + "&page=2&page_size=20"},
		{"first proto of a list", "", "https, http", "example.com",
			"/api/v1/comments?content_type=report&page=last", 45,
			"", "https://example.com/api/v1/comments?content_type=report&page=2"},
		{"other proto is http", "", "ftp", "example.com", "/api/v1/comments/?page=1", 21,
			"http://example.com/api/v1/comments/?page=2", ""},
		{"repeated values keep their order, blanks and escapes kept", "", "", "h",
			"/api/v1/comments/?tag=b&tag=a&z=&ordering=-created_at&q=a+b%2Fc%26&page=2", 45,
			"http://h/api/v1/comments/?ordering=-created_at&page=3&q=a+b%2Fc%26&tag=b&tag=a&z=",
			"http://h/api/v1/comments/?ordering=-created_at&q=a+b%2Fc%26&tag=b&tag=a&z="},
		{"one page", "", "", "h", "/api/v1/comments/?page=1", 20, "", ""},
		{"empty", "", "", "h", "/api/v1/comments/", 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", tc.target, nil)
			r.Host = tc.host
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, requestInfo{basePath: tc.base}))
			p, err := drf.Read(r.URL.Query()).Resolve(tc.count)
			if err != nil {
				t.Fatal(err)
			}
			next, previous := p.Links(r)
			if got := linkText(next); got != tc.next {
				t.Errorf("next\n  %s\nwant\n  %s", got, tc.next)
			}
			if got := linkText(previous); got != tc.previous {
				t.Errorf("previous\n  %s\nwant\n  %s", got, tc.previous)
			}
		})
	}
}

func TestRequestURLPrefersTheHostHeader(t *testing.T) {
	r := httptest.NewRequest("GET", "https://internal.example/api/v1/comments/?a=1", nil)
	r.Header.Set("Host", "public.example")
	if got := RequestURL(r).String(); got != "http://public.example/api/v1/comments/?a=1" {
		t.Fatalf("got %s", got)
	}
}

func linkText(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
