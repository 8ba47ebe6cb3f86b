package dynamo

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// Every key of the table is built here and nowhere else. ACCESS_PATTERNS.md explains the design.

type key struct{ PK, SK string }

// appendKeys appends to keys the key keyOf builds of each of vs.
func appendKeys[V any](keys []key, vs []V, keyOf func(V) key) []key {
	for _, v := range vs {
		keys = append(keys, keyOf(v))
	}
	return keys
}

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

// continuationKeyKey holds the key that signs list continuations (SPEC §6), one for the table.
func continuationKeyKey() key { return key{"SECRET#CONTINUATION", "KEY"} }

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

// Comments are also counted by when they were created (SPEC §11: a deep page finds where it starts
// from counts, not by reading the entries it skips). A time bucket is a prefix of the index sort key
// (commentSortKey): a month, "2026-11", and within it ten minutes, "2026-11-27T15:3". The object's
// COUNT item (a tag's COUNT#TAG item) holds a count per month; a month item holds that month's counts
// per ten minutes.
const (
	monthBucketLen = len("2006-01")
	slotBucketLen  = len("2006-01-02T15:0")
)

// commentBuckets are the month and the ten minutes a comment created at created falls in.
func commentBuckets(created time.Time) (month, slot string) {
	sk := commentSortKey(created, "")
	return sk[:monthBucketLen], sk[:slotBucketLen]
}

// objectMonthKey holds the counts per ten minutes of month of an object's comments or, with a tag, of
// its comments with that tag. The month is fixed-width, so no tag makes two keys meet.
func objectMonthKey(contentType, objectID string, tag *string, month string) key {
	sk := "MONTH#" + month
	if tag != nil {
		sk += "#TAG#" + *tag
	}
	return key{objectPartition(contentType, objectID), sk}
}

// The attributes that hold the counts by time: "M#2026-11" on a COUNT item, "S#27T15:3" on a month
// item (the ten minutes without their month).
const (
	monthCountPrefix = "M#"
	slotCountPrefix  = "S#"
)

func monthCountAttr(month string) string { return monthCountPrefix + month }
func slotCountAttr(slot string) string   { return slotCountPrefix + slot[monthBucketLen+1:] }

// slotOfAttr is the ten minutes a month item's attribute counts, "" for another attribute.
func slotOfAttr(month, attr string) string {
	rest, ok := strings.CutPrefix(attr, slotCountPrefix)
	if !ok || len(month)+1+len(rest) != slotBucketLen {
		return ""
	}
	return month + "-" + rest
}

// monthOfAttr is the month a COUNT item's attribute counts, "" for another attribute.
func monthOfAttr(attr string) string {
	month, ok := strings.CutPrefix(attr, monthCountPrefix)
	if !ok || len(month) != monthBucketLen {
		return ""
	}
	return month
}

// bucketEnd is the least sort key after every one in bucket: its last character, a digit, plus one.
func bucketEnd(bucket string) string {
	return bucket[:len(bucket)-1] + string(bucket[len(bucket)-1]+1)
}

const (
	memberSKPrefix    = "MEMBER#"
	portfolioSKPrefix = "PORTFOLIO#"
)

// GSI1 keys: a member and a portfolio by their own id (for the fixture loader), every invitation (the
// staff's list), and an object's comments in creation order.
func memberIndexKey(memberID string) key       { return key{"MEMBER#" + memberID, "MEMBER"} }
func portfolioIndexKey(portfolioID string) key { return key{"PORTFOLIO#" + portfolioID, "PORTFOLIO"} }

// An invitation is listed under four partitions, each ordered by its stored status, then creation time
// and id (invitationSortKey): so every list, filtered by status or not, is a merge of Queries that read
// entries in the order they are shown, and a page reads no more of them than the pages it skips.
//   - GSI1: everyone's (the staff's list);
//   - GSI3: an organization's;
//   - GSI4 (GSI2's partition, GSI3's sort key): the invitations to an address;
//   - GSI2: the invitations to an address from one organization (its sort key leads with the
//     organization), which is also what a create checks for a pending one.
func allInvitationsIndexKey(status domain.InvitationStatus, created time.Time, invitationID string) key {
	return key{allInvitationsPartition, invitationSortKey(status, created, invitationID)}
}

func orgInvitationsIndexKey(orgID string, status domain.InvitationStatus, created time.Time, invitationID string) key {
	return key{orgInvitationsPartition(orgID), invitationSortKey(status, created, invitationID)}
}

func inviteeIndexKey(email, orgID string, status domain.InvitationStatus, created time.Time, invitationID string) key {
	return key{inviteePartition(email), orgID + "#" + invitationSortKey(status, created, invitationID)}
}

const allInvitationsPartition = "INVITATIONS"

func orgInvitationsPartition(orgID string) string { return "INVITATIONS#ORG#" + orgID }
func inviteePartition(email string) string        { return "INVITEE#" + domain.EmailKey(email) }

// invitationSortKey orders an index partition's invitations by status, then as lists show them: newest
// first, ties by id (SPEC §10). A Query in descending key order reads creation times newest first, so
// the id is stored with its characters' order reversed (reverseOrder) for ties to come in id order.
func invitationSortKey(status domain.InvitationStatus, created time.Time, invitationID string) string {
	return statusPrefix(status) + domain.FormatTime(created) + "#" + reverseOrder(invitationID)
}

// reverseOrder maps every printable ASCII character c to 158-c, so that of two ids of the same length
// (invitation ids are UUIDs) the one that sorts first sorts last.
func reverseOrder(id string) string {
	b := []byte(id)
	for i, c := range b {
		if c >= ' ' && c <= '~' {
			b[i] = 158 - c
		}
	}
	return string(b)
}

// invitationPositionKey is the sort key an invitation created at created with id id has, or would
// have, in the stream whose keys begin with prefix (a status prefix, or GSI2's organization and status):
// the bound of a Query that reads a stream from a position in its list.
func invitationPositionKey(prefix string, created time.Time, id string) string {
	return prefix + domain.FormatTime(created) + "#" + reverseOrder(id)
}

// statusPrefix begins the sort keys of the invitations with that stored status.
func statusPrefix(status domain.InvitationStatus) string { return fmt.Sprintf("%d#", status) }

// invitationCreated reads the creation time an invitation's index sort key holds, second from its end.
func invitationCreated(sk string) (time.Time, error) {
	parts := strings.Split(sk, "#")
	if len(parts) < 2 {
		return time.Time{}, fmt.Errorf("bad invitation sort key %q", sk)
	}
	return domain.ParseTime(parts[len(parts)-2])
}

// GSI5 key of a pending invitation (only those carry one): all of them in one partition, by expiry, so
// that the expiries no write has recorded yet are one Query's first entries.
func pendingIndexKey(expiry time.Time, invitationID string) key {
	return key{"PENDING", commentSortKey(expiry, invitationID)}
}

// pendingBefore is the GSI5 sort key below which every invitation has expired at now (SPEC §5: at its
// expiry_date, not after it).
func pendingBefore(now time.Time) string { return domain.FormatTime(now) + "$" }

// invitationCountKey holds a list scope's counts of invitations, one attribute per stored status
// (countAttr): an organization's, an address's, an address's from one organization. The writes that
// change what they count change them in the same transaction.
func invitationCountKey(orgID, email string) key {
	scope := "ORG#" + orgID
	switch {
	case orgID != "" && email != "":
		scope = "INVITEE#" + domain.EmailKey(email) + "#ORG#" + orgID
	case email != "":
		scope = "INVITEE#" + domain.EmailKey(email)
	}
	return key{"INVITATIONCOUNT#" + scope, "COUNT"}
}

// Everyone's invitations are counted in allCountShards items, each invitation in the one its id
// hashes to: every invitation write changes that count, and DynamoDB cancels transactions that meet on
// an item, so one item would make all of them, across the table, wait on each other.
const allCountShards = 8

func allInvitationsCountKey(shard int) key {
	return key{fmt.Sprintf("INVITATIONCOUNT#ALL#%d", shard), "COUNT"}
}

// allCountShard is the shard of everyone's count that counts the invitation.
func allCountShard(invitationID string) int {
	h := fnv.New32a()
	h.Write([]byte(invitationID))
	return int(h.Sum32() % allCountShards)
}

// countAttr is the attribute of a count item that counts invitations of that stored status.
func countAttr(status domain.InvitationStatus) string { return fmt.Sprintf("n%d", status) }

// Invitations are also counted by when they were created, as comments are (SPEC §11: a deep page finds
// where it starts from counts): each count item counts, per stored status, its invitations of each
// month ("M#<status>#2026-11"), and a month item of its own per status and month counts them per ten
// minutes ("S#27T15:3", as comments' month items). The buckets are prefixes of the creation time that
// follows the status in every invitation index sort key, so a bucket is a key range of each stream. One
// month item per status keeps each item to one month's ten minutes, whatever the statuses.
func invitationBuckets(created time.Time) (month, slot string) { return commentBuckets(created) }

// invitationMonthKey holds the counts per ten minutes of month of the invitations with that stored
// status that count item counts.
func invitationMonthKey(count key, status domain.InvitationStatus, month string) key {
	return key{count.PK, fmt.Sprintf("MONTH#%s#%d", month, status)}
}

// invitationMonthAttr is the attribute of a count item that counts its invitations of that stored
// status created in month.
func invitationMonthAttr(status domain.InvitationStatus, month string) string {
	return fmt.Sprintf("%s%d#%s", monthCountPrefix, status, month)
}

// invitationMonthOfAttr is the month a count item's attribute counts invitations of status in, "" for
// another attribute.
func invitationMonthOfAttr(status domain.InvitationStatus, attr string) string {
	month, ok := strings.CutPrefix(attr, fmt.Sprintf("%s%d#", monthCountPrefix, status))
	if !ok || len(month) != monthBucketLen {
		return ""
	}
	return month
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

// commentShownPartition is an object's partition of GSI6, whose sort key is GSI1's: its id alone, an
// attribute only comments have (the object's content type is checked on what a Query returns).
func commentShownPartition(objectID string) string { return objectID }

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
