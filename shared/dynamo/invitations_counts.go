package dynamo

import (
	"maps"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// The counts of the invitation lists (SPEC §11): each invitation is counted, under its stored status, by four
// count items: everyone's (one of its shards, allInvitationsCountKey), its organization's, its address's and
// its address's from its organization (invitationCountKey). Every write that creates, deletes or moves an
// invitation between them changes them in its own transaction, so a count is never read from the invitations.

// invitationCountKeys are the count items that count inv.
func invitationCountKeys(inv domain.Invitation) []key {
	return []key{
		allInvitationsCountKey(allCountShard(inv.ID)),
		invitationCountKey(inv.OrganizationID, ""),
		invitationCountKey("", inv.Email),
		invitationCountKey(inv.OrganizationID, inv.Email),
	}
}

// counter is one count an invitation is counted in: an attribute of an item.
type counter struct {
	item key
	attr string
}

// countersOf are the counts inv adds one to: on each of its count items, its stored status's and that
// status's of its creation month; on each one's month item, its ten minutes'.
func countersOf(inv domain.Invitation) []counter {
	month, slot := invitationBuckets(inv.CreatedAt)
	var out []counter
	for _, k := range invitationCountKeys(inv) {
		out = append(out, counter{k, countAttr(inv.Status)}, counter{k, invitationMonthAttr(inv.Status, month)},
			counter{invitationMonthKey(k, inv.Status, month), slotCountAttr(slot)})
	}
	return out
}

// countChanges are the updates of the count items and their month items when before (nil: none)
// becomes after (nil: none): one update per item whose counts change, none when the invitation stays
// where it is counted. A count item's n<status> and M#<status>#<month> change together, and so does
// the month item's count of the invitation's ten minutes: the counts by time always add up to the
// count of every invitation written since they were kept.
func countChanges(before, after *domain.Invitation) ([]types.TransactWriteItem, error) {
	return countsChangedBy([]*domain.Invitation{before}, []*domain.Invitation{after})
}

// countsChangedBy are the updates of the count items and their month items when the invitations gone
// leave them and those come arrive (nil entries: none), summed per item: what the writes of each, one
// after another, add up to.
func countsChangedBy(gone, come []*domain.Invitation) ([]types.TransactWriteItem, error) {
	deltas := map[key]map[string]int{}
	var order []key
	change := func(k key, attr string, d int) {
		if deltas[k] == nil {
			deltas[k] = map[string]int{}
			order = append(order, k)
		}
		deltas[k][attr] += d
	}
	add := func(inv *domain.Invitation, d int) {
		if inv == nil {
			return
		}
		for _, c := range countersOf(*inv) {
			change(c.item, c.attr, d)
		}
	}
	for _, inv := range gone {
		add(inv, -1)
	}
	for _, inv := range come {
		add(inv, +1)
	}
	var items []types.TransactWriteItem
	for _, k := range order {
		var u expression.UpdateBuilder
		changed := false
		for _, attr := range slices.Sorted(maps.Keys(deltas[k])) {
			if d := deltas[k][attr]; d != 0 {
				u, changed = u.Add(expression.Name(attr), expression.Value(d)), true
			}
		}
		if !changed {
			continue
		}
		item, err := updateItem(k, u, nil)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// decodeStatusCounts reads a count item (nil: nothing counted yet).
func decodeStatusCounts(item map[string]types.AttributeValue) (domain.StatusCounts, error) {
	var c domain.StatusCounts
	for st := range c {
		n, ok := item[countAttr(domain.InvitationStatus(st))].(*types.AttributeValueMemberN)
		if !ok {
			continue
		}
		v, err := strconv.Atoi(n.Value)
		if err != nil {
			return c, fail("decode invitation counts", err)
		}
		c[st] = v
	}
	return c, nil
}

// sourceCountKeys are the count items whose sum counts the invitations of an organization, an address,
// both, or (neither) everyone's.
func sourceCountKeys(orgID, email string) []key {
	if orgID != "" || email != "" {
		return []key{invitationCountKey(orgID, email)}
	}
	keys := make([]key, allCountShards)
	for i := range keys {
		keys[i] = allInvitationsCountKey(i)
	}
	return keys
}

// sumCounts adds up the count items keys name, as read into items.
func sumCounts(items map[key]map[string]types.AttributeValue, keys []key) (domain.StatusCounts, error) {
	var sum domain.StatusCounts
	for _, k := range keys {
		c, err := decodeStatusCounts(items[k])
		if err != nil {
			return sum, err
		}
		for st := range c {
			sum[st] += c[st]
		}
	}
	return sum, nil
}
