package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// PutNewInvitations creates invitations none of which exists yet, each as PutInvitation creates it (the
// same item, the same copy of what it shows, the same counts), but several to a transaction with their
// counts summed per count item: a data set of tens of thousands is written in a few hundred
// transactions rather than one each (DynamoDB Local runs transactions one at a time). What they refer
// to is read once for all of them. Each transaction puts its invitations only if absent and moves the
// counts by exactly them, so the counts match the stored invitations after every one, even when a write
// stops half-way; a write that finds one of its invitations stored already is ECONFLICT.
func (s *Store) PutNewInvitations(ctx context.Context, invs []domain.Invitation) error {
	refs, err := s.invitationPageRefs(ctx, invs)
	if err != nil {
		return err
	}
	// Invitations of one organization to one address share all their count items but a shard of
	// everyone's: side by side, a transaction holds many of them.
	sorted := slices.Clone(invs)
	slices.SortStableFunc(sorted, func(a, b domain.Invitation) int {
		return cmp.Or(cmp.Compare(a.OrganizationID, b.OrganizationID),
			cmp.Compare(domain.EmailKey(a.Email), domain.EmailKey(b.Email)))
	})
	var batch []*domain.Invitation
	touched := map[key]bool{}
	for i := range sorted {
		inv := &sorted[i]
		inv.Shown = nil // as PutInvitation: a reference that is not there is a fault a read reports
		if shown, err := inv.ShownFrom(refs); err == nil {
			inv.Shown = &shown
		}
		// The items its write touches: its own and those of the counts it is counted in.
		keys := map[key]bool{invitationKey(inv.ID): true}
		for _, c := range countersOf(*inv) {
			keys[c.item] = true
		}
		extra := 0
		for k := range keys {
			if !touched[k] {
				extra++
			}
		}
		if len(touched)+extra > fixtureMaxTransactItems {
			if err := s.putNewInvitationsTx(ctx, batch); err != nil {
				return err
			}
			batch, touched = nil, map[key]bool{}
		}
		batch = append(batch, inv)
		maps.Copy(touched, keys)
	}
	return s.putNewInvitationsTx(ctx, batch)
}

// putNewInvitationsTx writes invs and their summed counts in one transaction.
func (s *Store) putNewInvitationsTx(ctx context.Context, invs []*domain.Invitation) error {
	if len(invs) == 0 {
		return nil
	}
	var items []types.TransactWriteItem
	for _, inv := range invs {
		put, err := putNew("invitation", toInvitationItem(*inv))
		if err != nil {
			return err
		}
		items = append(items, put)
	}
	counts, err := countsChangedBy(nil, invs)
	if err != nil {
		return err
	}
	err = s.transact(ctx, fmt.Sprintf("write %d invitations from %s", len(invs), invs[0].ID), append(items, counts...))
	for i := range invs {
		if conditionFailed(err, i) {
			return &domain.Error{Code: domain.ECONFLICT, Detail: "invitation " + invs[i].ID + " exists already", Err: err}
		}
	}
	return err
}
