package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

var _ domain.LoginStore = (*Store)(nil)

// failureItem counts the failed logins of one email or one source address in the window that started
// with the first of them (keys.go: loginFailureEmailKey, loginFailureIPKey). DynamoDB's TTL removes it
// some time after the window ends; until then window_ends tells that it is over.
type failureItem struct {
	Failures   int   `dynamodbav:"failures"`
	WindowEnds int64 `dynamodbav:"window_ends"` // Unix milliseconds
}

// LoginState reads the email's claim (which carries the credentials) and both failure windows in one
// strongly consistent BatchGetItem: an unknown email costs exactly what a known one does.
func (s *Store) LoginState(ctx context.Context, email, sourceIP string) (domain.LoginState, error) {
	var keys []key
	var ek, fek, fik key
	if email != "" {
		ek, fek = emailKey(email), loginFailureEmailKey(email)
		keys = append(keys, ek, fek)
	}
	if sourceIP != "" {
		fik = loginFailureIPKey(sourceIP)
		keys = append(keys, fik)
	}
	var state domain.LoginState
	if len(keys) == 0 {
		return state, nil
	}
	items, err := s.batchGet(ctx, "read login state", keys)
	if err != nil {
		return state, err
	}
	if state.EmailFailures, err = decodeFailures(items[fek]); err != nil {
		return state, err
	}
	if state.IPFailures, err = decodeFailures(items[fik]); err != nil {
		return state, err
	}
	if item := items[ek]; item != nil {
		var claim emailItem
		if err := attributevalue.UnmarshalMap(item, &claim); err != nil {
			return state, fail("decode email claim", err)
		}
		state.Account = &domain.Credentials{UserID: claim.UserID, PasswordHash: claim.PasswordHash, IsActive: claim.IsActive}
		if claim.Profile != nil && claim.Profile.ID == claim.UserID {
			u, err := claim.Profile.domain()
			if err != nil {
				return state, err
			}
			state.Account.Profile = &u
		}
		if claim.PasswordHash == "" {
			// A claim written before claims carried the credentials: read them from the user (one
			// more round trip, until the user's next write copies them over).
			u, err := s.User(ctx, claim.UserID)
			if err != nil {
				return state, err
			}
			state.Account = &domain.Credentials{UserID: u.ID, PasswordHash: u.PasswordHash, IsActive: u.IsActive}
		}
	}
	return state, nil
}

func decodeFailures(item map[string]types.AttributeValue) (domain.FailureWindow, error) {
	if item == nil {
		return domain.FailureWindow{}, nil
	}
	var it failureItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return domain.FailureWindow{}, fail("decode login failures", err)
	}
	return domain.FailureWindow{Failures: it.Failures, Ends: time.UnixMilli(it.WindowEnds).UTC()}, nil
}

// RecordLogin stores the new token and the user's last_login (and an upgraded password hash, on the user
// and on its email claim) in one transaction. From the claim's copy, the user's write is conditional on
// the copy's profile version (ErrStaleCopy when it moved on); otherwise w.User was just read, and the
// claim's copy is refreshed from it. Returns ENOTFOUND when the user or its claim no longer exists.
func (s *Store) RecordLogin(ctx context.Context, w domain.LoginWrite) error {
	u, t := w.User, w.Token
	tk := tokenKey(t.Hash)
	token, err := attributevalue.MarshalMap(tokenItem{
		PK: tk.PK, SK: tk.SK, UserID: t.UserID, CreatedAt: domain.FormatTime(t.CreatedAt),
		ExpiresAt: domain.FormatTime(t.ExpiresAt), TTL: t.ExpiresAt.Unix(),
	})
	if err != nil {
		return fail("encode token", err)
	}
	// The user: last_login, conditional on the copy's version when the answer comes from the copy.
	user := &types.Update{
		Key: userKey(u.ID).av(), ConditionExpression: aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":login": &types.AttributeValueMemberS{Value: domain.FormatTime(*u.LastLogin)},
		},
	}
	userSets := []string{"last_login = :login"}
	if w.FromCopy {
		same := nameVersion + " = :copy_version"
		if u.ProfileVersion == 0 { // a user written before versions were kept is at version 0
			same = "(" + same + " OR attribute_not_exists(" + nameVersion + "))"
		}
		*user.ConditionExpression += " AND " + same
		user.ExpressionAttributeNames = map[string]string{nameVersion: attrVersion}
		user.ExpressionAttributeValues[":copy_version"] = number(u.ProfileVersion)
	}
	// The claim, when something of it changes: an upgraded hash, a refreshed copy.
	claim := &types.Update{
		Key: emailKey(u.Email).av(), ConditionExpression: aws.String("user_id = :user"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":user": &types.AttributeValueMemberS{Value: u.ID}},
	}
	var claimSets []string
	if w.NewPasswordHash != "" {
		hash := &types.AttributeValueMemberS{Value: w.NewPasswordHash}
		userSets, user.ExpressionAttributeValues[":hash"] = append(userSets, "password_hash = :hash"), hash
		claimSets, claim.ExpressionAttributeValues[":hash"] = append(claimSets, "password_hash = :hash"), hash
	}
	if !w.FromCopy {
		profile, err := attributevalue.Marshal(toProfileAttrs(u))
		if err != nil {
			return fail("encode profile copy", err)
		}
		claimSets, claim.ExpressionAttributeValues[":profile"] = append(claimSets, "profile = :profile"), profile
	}
	user.UpdateExpression = aws.String("SET " + strings.Join(userSets, ", "))
	items := []types.TransactWriteItem{
		{Put: &types.Put{Item: token, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		{Update: user},
	}
	if len(claimSets) > 0 {
		claim.UpdateExpression = aws.String("SET " + strings.Join(claimSets, ", "))
		items = append(items, types.TransactWriteItem{Update: claim})
	}
	err = s.transact(ctx, "record login", items)
	switch {
	case w.FromCopy && conditionFailed(err, 1):
		return fmt.Errorf("record login of user %s: %w", u.ID, domain.ErrStaleCopy)
	case conditionFailed(err, 1) || conditionFailed(err, 2):
		return &domain.Error{Code: domain.ENOTFOUND, Err: err}
	}
	return err
}

// RecordLoginFailure counts the failure against the email and the address at once (two items, two
// parallel writes: each count stands on its own, so no transaction is needed).
func (s *Store) RecordLoginFailure(ctx context.Context, email, sourceIP string, seen domain.LoginState, now time.Time) error {
	type count struct {
		k    key
		open bool
	}
	var counts []count
	if email != "" {
		counts = append(counts, count{loginFailureEmailKey(email), seen.EmailFailures.Open(now)})
	}
	if sourceIP != "" {
		counts = append(counts, count{loginFailureIPKey(sourceIP), seen.IPFailures.Open(now)})
	}
	errs := make([]error, len(counts))
	inParallel(len(counts), func(i int) { errs[i] = s.countFailure(ctx, counts[i].k, counts[i].open, now) })
	return errors.Join(errs...)
}

// countFailure adds one to the window open at now, or starts a window when none is; open says which
// to try first. Each write is conditional on the case it handles, so concurrent failures never lose a
// count nor start two windows: a write whose condition failed means the other case holds, and the
// other write follows.
func (s *Store) countFailure(ctx context.Context, k key, open bool, now time.Time) error {
	nowMs := number(now.UnixMilli())
	end := now.Add(domain.LoginWindow)
	add := &types.Update{
		Key: k.av(), UpdateExpression: aws.String("ADD failures :one"),
		ConditionExpression:       aws.String("window_ends > :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": number(1), ":now": nowMs},
	}
	start := &types.Update{
		Key: k.av(), UpdateExpression: aws.String("SET failures = :one, window_ends = :end, expires_at_epoch = :ttl"),
		ConditionExpression: aws.String("attribute_not_exists(PK) OR window_ends <= :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": number(1), ":now": nowMs, ":end": number(end.UnixMilli()), ":ttl": number(end.Unix()),
		},
	}
	writes := []*types.Update{start, add}
	if open {
		writes = []*types.Update{add, start}
	}
	// Through transact, so that a count whose answer is lost is read back rather than counted twice.
	for range 2 {
		for _, u := range writes {
			err := s.transact(ctx, "count login failure", []types.TransactWriteItem{{Update: u}})
			if !conditionFailed(err, 0) {
				return err
			}
		}
	}
	return &domain.Error{Code: domain.ECONFLICT, Detail: "login failure window kept changing"}
}

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func conditionalCheckFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}
