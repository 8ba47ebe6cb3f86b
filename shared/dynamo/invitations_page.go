package dynamo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// An invitation list (SPEC §10, §11) is counted from count items and paged by merging Queries of
// index partitions, one per source and stored status, each ordered by creation time: a page costs the
// entries before it (from the nearer end) and its own items, whatever the size of the list.

// CountInvitations reads the count items of list's sources in one BatchGetItem and, for a list
// filtered by status 0 or 3, beside it the pending invitations past their expiry (GSI5).
func (s *Store) CountInvitations(ctx context.Context, list domain.InvitationList,
	now time.Time) (domain.InvitationCount, error) {
	var keys []key
	for _, src := range list.Sources {
		keys = append(keys, sourceCountKeys(src.OrganizationID, src.Email)...)
		for _, org := range src.Except {
			keys = append(keys, sourceCountKeys(org, src.Email)...)
		}
	}
	var (
		items             map[key]map[string]types.AttributeValue
		expired           []domain.InvitationEntry
		errCounts, errExp error
	)
	expiries := list.Status != nil && (*list.Status == domain.StatusPending || *list.Status == domain.StatusExpired)
	inParallel(2, func(i int) {
		if i == 0 {
			items, errCounts = s.batchGet(ctx, "read invitation counts", keys)
		} else if expiries {
			expired, errExp = s.unrecordedExpiries(ctx, now, 0)
		}
	})
	if err := errors.Join(errCounts, errExp); err != nil {
		return domain.InvitationCount{}, err
	}
	c := domain.InvitationCount{List: list}
	for _, src := range list.Sources {
		listed, err := sumCounts(items, sourceCountKeys(src.OrganizationID, src.Email))
		if err != nil {
			return domain.InvitationCount{}, err
		}
		var hidden domain.StatusCounts
		for _, org := range src.Except {
			h, err := sumCounts(items, sourceCountKeys(org, src.Email))
			if err != nil {
				return domain.InvitationCount{}, err
			}
			for st := range h {
				hidden[st] += h[st]
				listed[st] -= h[st]
			}
		}
		c.Listed, c.Hidden = append(c.Listed, listed), append(c.Hidden, hidden)
		if list.Status == nil {
			c.Total += listed.Sum()
		}
	}
	if list.Status != nil {
		for _, listed := range c.Listed {
			c.Total += listed[*list.Status]
		}
	}
	for _, e := range expired {
		if inSources(list.Sources, e) {
			c.Expired = append(c.Expired, e)
		}
	}
	switch {
	case list.Status == nil:
	case *list.Status == domain.StatusPending:
		c.Total -= len(c.Expired)
	case *list.Status == domain.StatusExpired:
		c.Total += len(c.Expired)
	}
	c.Total = max(c.Total, 0)
	return c, nil
}

// inSources reports whether one of sources holds e.
func inSources(sources []domain.InvitationSource, e domain.InvitationEntry) bool {
	for _, src := range sources {
		if (src.OrganizationID == "" || src.OrganizationID == e.OrganizationID) &&
			(src.Email == "" || domain.EmailKey(src.Email) == domain.EmailKey(e.Email)) &&
			!slices.Contains(src.Except, e.OrganizationID) {
			return true
		}
	}
	return false
}

// unrecordedExpiries reads, keys only, the pending invitations whose expiry has passed at now (at most
// limit, oldest expiry first; 0: all): those the scheduled expiries function has not recorded yet.
func (s *Store) unrecordedExpiries(ctx context.Context, now time.Time, limit int) ([]domain.InvitationEntry, error) {
	k := pendingIndexKey(now, "")
	q := partitionQuery{index: indexGSI5, pkAttr: attrGSI5PK, skAttr: attrGSI5SK, partition: k.PK,
		before: pendingBefore(now), limit: limit}
	var out []domain.InvitationEntry
	_, err := s.queryPartition(ctx, q, func(item map[string]types.AttributeValue) error {
		created, errCreated := domain.ParseTime(stringAttr(item, "created_at"))
		expiry, _, errExpiry := parseSortKey(stringAttr(item, attrGSI5SK))
		if err := errors.Join(errCreated, errExpiry); err != nil {
			return fail("decode pending invitation entry", err)
		}
		out = append(out, domain.InvitationEntry{
			ID: idAfter(stringAttr(item, attrPK), "INVITATION#"), OrganizationID: stringAttr(item, "org_id"),
			Email: stringAttr(item, "email"), CreatedAt: created, ExpiryDate: expiry,
		})
		return nil
	})
	return out, err
}

// InvitationPage reads, in parallel, the entries of every source and status the list shows up to the
// page, from the nearer end of the list, merges them, and reads the page's invitations in one
// BatchGetItem.
func (s *Store) InvitationPage(ctx context.Context, c domain.InvitationCount, offset,
	n int) ([]domain.Invitation, error) {
	n = min(n, c.Total-offset)
	if n <= 0 || offset < 0 {
		return nil, nil
	}
	// From the oldest end, the page is the entries at [c.Total-offset-n, c.Total-offset).
	backward := c.Total-offset < offset+n
	want := offset + n
	if backward {
		want = c.Total - offset
	}
	dropped := map[string]bool{}
	var added []domain.InvitationEntry
	switch {
	case c.List.Status == nil:
	case *c.List.Status == domain.StatusPending:
		for _, e := range c.Expired {
			dropped[e.ID] = true
		}
	case *c.List.Status == domain.StatusExpired:
		added = c.Expired
	}
	queries := listStreams(c, want, len(dropped), backward)
	parts := make([][]domain.InvitationEntry, len(queries))
	errs := make([]error, len(queries))
	inParallel(len(queries), func(i int) { parts[i], errs[i] = s.streamEntries(ctx, queries[i]) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	entries := slices.Concat(append(parts, added)...)
	entries = slices.DeleteFunc(entries, func(e domain.InvitationEntry) bool { return dropped[e.ID] })
	slices.SortFunc(entries, newestEntryFirst)
	entries = slices.CompactFunc(entries, func(a, b domain.InvitationEntry) bool { return a.ID == b.ID })
	from := offset
	if backward {
		from = len(entries) - (c.Total - offset)
	}
	from = max(from, 0)
	ids := make([]string, 0, n)
	for _, e := range entries[min(from, len(entries)):min(from+n, len(entries))] {
		ids = append(ids, e.ID)
	}
	return s.InvitationsByID(ctx, ids)
}

// stream is the Query of one source's invitations of one stored status, and the organizations whose
// entries it reads but the list does not show.
type stream struct {
	q      partitionQuery
	except []string
}

// listStreams are the Queries that read the first want entries (from the oldest end when backward) of
// each source and stored status c's list shows; each also reads the entries the list leaves out (its
// source's Except organizations', and the dropped expired ones among the pending). A stream with
// nothing to show is not read.
func listStreams(c domain.InvitationCount, want, dropped int, backward bool) []stream {
	statuses := []domain.InvitationStatus{0, 1, 2, 3, 4}
	if c.List.Status != nil {
		statuses = []domain.InvitationStatus{*c.List.Status}
	}
	var out []stream
	for i, src := range c.List.Sources {
		for _, st := range statuses {
			count := c.Listed[i][st]
			if count <= 0 {
				continue
			}
			q := sourceQuery(src, st)
			q.descending = !backward
			q.limit = min(want, count) + c.Hidden[i][st]
			if st == domain.StatusPending {
				q.limit += dropped
			}
			out = append(out, stream{q: q, except: src.Except})
		}
	}
	return out
}

// sourceQuery is the Query of src's invitations with stored status st.
func sourceQuery(src domain.InvitationSource, st domain.InvitationStatus) partitionQuery {
	switch {
	case src.OrganizationID != "" && src.Email != "":
		return partitionQuery{index: indexGSI2, pkAttr: attrGSI2PK, skAttr: attrGSI2SK,
			partition: inviteePartition(src.Email), prefix: src.OrganizationID + "#" + statusPrefix(st)}
	case src.OrganizationID != "":
		return partitionQuery{index: indexGSI3, pkAttr: attrGSI3PK, skAttr: attrGSI3SK,
			partition: orgInvitationsPartition(src.OrganizationID), prefix: statusPrefix(st)}
	case src.Email != "":
		return partitionQuery{index: indexGSI4, pkAttr: attrGSI2PK, skAttr: attrGSI3SK,
			partition: inviteePartition(src.Email), prefix: statusPrefix(st)}
	default:
		return partitionQuery{index: indexGSI1, pkAttr: attrGSI1PK, skAttr: attrGSI1SK,
			partition: allInvitationsPartition, prefix: statusPrefix(st)}
	}
}

// streamEntries reads the entries of st, but those of its except organizations.
func (s *Store) streamEntries(ctx context.Context, st stream) ([]domain.InvitationEntry, error) {
	var out []domain.InvitationEntry
	_, err := s.queryPartition(ctx, st.q, func(item map[string]types.AttributeValue) error {
		org := stringAttr(item, "org_id")
		if slices.Contains(st.except, org) {
			return nil
		}
		created, err := invitationCreated(stringAttr(item, st.q.skAttr))
		if err != nil {
			return fail("decode invitation index entry", err)
		}
		id := idAfter(stringAttr(item, attrPK), "INVITATION#")
		out = append(out, domain.InvitationEntry{ID: id, OrganizationID: org, CreatedAt: created})
		return nil
	})
	return out, err
}

// newestEntryFirst orders as lists do: creation time, newest first, ties by id.
func newestEntryFirst(a, b domain.InvitationEntry) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}
