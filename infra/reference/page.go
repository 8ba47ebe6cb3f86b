package main

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Page is what the run compares of a list's answer: DRF's envelope's count and the results' ids, in
// order. The rest of a comment differs between the two in form only (the API writes timestamps with
// microseconds, DRF without when they are zero), and is the API's own tests' business.
type Page struct {
	Count int
	IDs   []string
}

// ParsePage reads a page-number envelope, {"count": …, "results": [{"id": …}, …]}, refusing one without
// a count or whose results lack an id: a side that answered something else must fail the run, not match.
func ParsePage(body []byte) (Page, error) {
	var env struct {
		Count   *int `json:"count"`
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return Page{}, fmt.Errorf("not a list envelope: %w", err)
	}
	if env.Count == nil || env.Results == nil {
		return Page{}, fmt.Errorf("not a list envelope: no count or no results in %.200s", body)
	}
	p := Page{Count: *env.Count, IDs: make([]string, len(env.Results))}
	for i, r := range env.Results {
		if r.ID == "" {
			return Page{}, fmt.Errorf("result %d has no id", i)
		}
		p.IDs[i] = r.ID
	}
	return p, nil
}

// Compare reports how ours differs from the reference's page, or nil when they have the same count and
// the same ids in the same order.
func Compare(ours, ref Page) error {
	if ours.Count != ref.Count {
		return fmt.Errorf("count %d, the reference's %d", ours.Count, ref.Count)
	}
	if slices.Equal(ours.IDs, ref.IDs) {
		return nil
	}
	if len(ours.IDs) != len(ref.IDs) {
		return fmt.Errorf("%d results, the reference's %d", len(ours.IDs), len(ref.IDs))
	}
	for i := range ours.IDs {
		if ours.IDs[i] != ref.IDs[i] {
			return fmt.Errorf("result %d is %s, the reference's %s", i+1, ours.IDs[i], ref.IDs[i])
		}
	}
	return nil
}
