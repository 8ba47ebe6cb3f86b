package dynamo

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// Every key of the table is built here and nowhere else. ACCESS_PATTERNS.md explains the design.

type key struct{ PK, SK string }

func (k key) av() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		attrPK: &types.AttributeValueMemberS{Value: k.PK},
		attrSK: &types.AttributeValueMemberS{Value: k.SK},
	}
}

func userKey(id string) key     { return key{"USER#" + id, "PROFILE"} }
func emailKey(email string) key { return key{"EMAIL#" + domain.EmailKey(email), "EMAIL"} }
func tokenKey(hash string) key  { return key{"TOKEN#" + hash, "TOKEN"} }

// Failed-login windows (SPEC §9) of an email and of a source address.
func loginFailureEmailKey(email string) key {
	return key{"LOGINFAIL#EMAIL#" + domain.EmailKey(email), "WINDOW"}
}
func loginFailureIPKey(ip string) key    { return key{"LOGINFAIL#IP#" + ip, "WINDOW"} }
func orgKey(id string) key               { return key{"ORG#" + id, "ORG"} }
func memberKey(orgID, userID string) key { return key{"ORG#" + orgID, "MEMBER#" + userID} }
func portfolioKey(orgID, id string) key  { return key{"ORG#" + orgID, "PORTFOLIO#" + id} }
func invitationKey(id string) key        { return key{"INVITATION#" + id, "INVITATION"} }
func commentKey(id string) key           { return key{"COMMENT#" + id, "COMMENT"} }

// idempotencyKey holds the record of one caller's Idempotency-Key (SPEC §9). The user id is a UUID, so
// the key the client chose, whatever it holds, cannot make two callers' partitions meet.
func idempotencyKey(userID, clientKey string) key {
	return key{"IDEMPOTENCY#" + userID + "#" + clientKey, "KEY"}
}

// objectPartition holds the counters of one commented object (content type + object id).
func objectPartition(contentType, objectID string) string {
	return "OBJECT#" + contentType + "#" + objectID
}

// objectCountKey counts all comments of an object and names the organization that owns it.
func objectCountKey(contentType, objectID string) key {
	return key{objectPartition(contentType, objectID), "COUNT"}
}

// objectTagCountKey counts the comments of an object with one tag.
func objectTagCountKey(contentType, objectID, tag string) key {
	return key{objectPartition(contentType, objectID), "COUNT#TAG#" + tag}
}

const (
	memberSKPrefix    = "MEMBER#"
	portfolioSKPrefix = "PORTFOLIO#"
)

// GSI1 keys: a member and a portfolio by their own id (for the fixture loader), every invitation (the
// staff's list), and an object's comments in creation order.
func memberIndexKey(memberID string) key       { return key{"MEMBER#" + memberID, "MEMBER"} }
func portfolioIndexKey(portfolioID string) key { return key{"PORTFOLIO#" + portfolioID, "PORTFOLIO"} }
func allInvitationsIndexKey(created time.Time, invitationID string) key {
	return key{"INVITATIONS", commentSortKey(created, invitationID)}
}

// GSI2 key of an invitation: the invitations to one address (the invitee's list, and the check for a
// pending one before another is created). GSI2 holds its entries keys only; GSI4, keyed by this
// partition and the invitation's GSI3 sort key, holds the same invitations whole.
func inviteeIndexKey(email string, created time.Time, invitationID string) key {
	return key{"INVITEE#" + domain.EmailKey(email), commentSortKey(created, invitationID)}
}

// GSI3 key of an invitation: an organization's invitations, whole (the index projects every attribute),
// so a member's list reads them without reading the items.
func orgInvitationsIndexKey(orgID string, created time.Time, invitationID string) key {
	return key{"INVITATIONS#ORG#" + orgID, commentSortKey(created, invitationID)}
}

// pendingClaimKey is held by the newest invitation created for an address in an organization through
// the API, so that two concurrent creates cannot both find none pending.
func pendingClaimKey(orgID, email string) key {
	return key{"ORG#" + orgID, "PENDING#" + domain.EmailKey(email)}
}

// invitationQuotaKey counts the invitations a user created in the current window (SPEC §9).
func invitationQuotaKey(userID string) key {
	return key{"QUOTA#INVITATIONS#USER#" + userID, "WINDOW"}
}

func commentIndexKey(contentType, objectID string, created time.Time, id string) key {
	return key{objectPartition(contentType, objectID), commentSortKey(created, id)}
}

// GSI2 key: an object's comments with one tag, in creation order.
func commentTagIndexKey(contentType, objectID, tag string, created time.Time, id string) key {
	return key{objectPartition(contentType, objectID) + "#TAG#" + tag, commentSortKey(created, id)}
}

// commentSortKey orders by creation time, ties by id: fixed-width timestamps sort as strings. Invitation
// index keys sort the same way.
func commentSortKey(created time.Time, id string) string {
	return domain.FormatTime(created) + "#" + id
}

// parseSortKey reads what commentSortKey wrote.
func parseSortKey(sk string) (created time.Time, id string, err error) {
	at, id, ok := strings.Cut(sk, "#")
	if !ok {
		return time.Time{}, "", fmt.Errorf("bad sort key %q", sk)
	}
	created, err = domain.ParseTime(at)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("bad sort key %q: %w", sk, err)
	}
	return created, id, nil
}

// idAfter returns what follows prefix in a key ("USER#42" → "42").
func idAfter(s, prefix string) string { return strings.TrimPrefix(s, prefix) }
