package dynamo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

var _ domain.LoginStore = (*Store)(nil)

// BeginLogin claims the attempt in the failure windows of the email and of the address (claimWindow)
// and reads the email's claim, which carries the credentials, all three at once: one round trip, and an
// unknown email costs exactly what a known one does. The attempt comes back with what it claimed also
// when a window is full or a call failed, for the caller to give back (ReleaseLogin).
func (s *Store) BeginLogin(ctx context.Context, email, sourceIP string, now time.Time) (domain.LoginAttempt, error) {
	id, err := newToken()
	if err != nil {
		return domain.LoginAttempt{}, err
	}
	att := domain.LoginAttempt{Claim: domain.LoginClaim{ID: id, Email: email, SourceIP: sourceIP}}
	type claim struct {
		k      key
		limit  int
		window *domain.FailureWindow
		wait   time.Duration
		err    error
	}
	var claims []*claim
	if email != "" {
		claims = append(claims,
			&claim{k: loginFailureEmailKey(email), limit: domain.LoginFailuresPerEmail, window: &att.Claim.EmailWindow})
	}
	if sourceIP != "" {
		claims = append(claims,
			&claim{k: loginFailureIPKey(sourceIP), limit: domain.LoginFailuresPerIP, window: &att.Claim.IPWindow})
	}
	var readErr error
	inParallel(len(claims)+1, func(i int) {
		if i == len(claims) {
			if email != "" {
				att.Account, readErr = s.credentials(ctx, email)
			}
			return
		}
		// A claim that met a transaction giving back another attempt's claim (ECONFLICT) is sent again.
		c := claims[i]
		c.err = domain.RetryOnConflict(ctx, conflictAttempts, func(int) (err error) {
			*c.window, c.wait, err = s.claimWindow(ctx, c.k, c.limit, id, now)
			return err
		})
	})
	errs := []error{readErr}
	for _, c := range claims {
		errs = append(errs, c.err)
		att.Wait = max(att.Wait, c.wait)
	}
	return att, errors.Join(errs...)
}

// Credentials reads the credentials of the user email names (case-insensitively) as login does; nil
// when no user has the email.
func (s *Store) Credentials(ctx context.Context, email string) (*domain.Credentials, error) {
	return s.credentials(ctx, email)
}

// credentials reads the email's claim, strongly consistent: the credentials it carries.
func (s *Store) credentials(ctx context.Context, email string) (*domain.Credentials, error) {
	item, found, err := s.getItem(ctx, "read email claim", emailKey(email), readOptions{})
	if err != nil || !found {
		return nil, err
	}
	var claim emailItem
	if err := attributevalue.UnmarshalMap(item, &claim); err != nil {
		return nil, fail("decode email claim", err)
	}
	return &domain.Credentials{UserID: claim.UserID, PasswordHash: claim.PasswordHash, IsActive: claim.IsActive}, nil
}

// RecordLogin stores the new token and the user's last_login (and an upgraded password hash, on the user
// and on its email claim) and gives back the login's claim in its failure windows (giveBack), in one
// transaction. Returns ENOTFOUND when the user or its claim no longer exists. A window that another
// attempt changed since the claim (its only attempt is no longer this one) is given back by the next
// rung, in a transaction sent again.
func (s *Store) RecordLogin(ctx context.Context, w domain.LoginWrite) error {
	login, err := loginItems(w)
	if err != nil {
		return err
	}
	windows := claimedWindows(w.Claim)
	rungs := make([]int, len(windows))
	for {
		items, at := slices.Clone(login), make([]int, len(windows))
		for i, cw := range windows {
			item, err := giveBack(cw.k, w.Claim.ID, cw.w, rungs[i])
			if err != nil {
				return err
			}
			at[i] = -1
			if item != nil {
				at[i] = len(items)
				items = append(items, *item)
			}
		}
		err = s.transact(ctx, "record login", items)
		if conditionFailed(err, 1) || (len(login) > 2 && conditionFailed(err, 2)) {
			return &domain.Error{Code: domain.ENOTFOUND, Err: err}
		}
		next := false
		for i := range windows {
			if at[i] >= 0 && conditionFailed(err, at[i]) {
				rungs[i], next = rungs[i]+1, true
			}
		}
		if !next {
			return err
		}
	}
}

// loginItems are a login's writes: the token, the user, and the email claim when its hash is upgraded,
// in that order.
func loginItems(w domain.LoginWrite) ([]types.TransactWriteItem, error) {
	u, t := w.User, w.Token
	tk := tokenKey(t.Hash)
	token, err := attributevalue.MarshalMap(tokenItem{
		PK: tk.PK, SK: tk.SK, UserID: t.UserID, CreatedAt: domain.FormatTime(t.CreatedAt),
		ExpiresAt: domain.FormatTime(t.ExpiresAt), TTL: t.ExpiresAt.Unix(),
	})
	if err != nil {
		return nil, fail("encode token", err)
	}
	user := &types.Update{
		Key: userKey(u.ID).av(), ConditionExpression: aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":login": &types.AttributeValueMemberS{Value: domain.FormatTime(*u.LastLogin)},
		},
	}
	userSets := []string{"last_login = :login"}
	items := []types.TransactWriteItem{
		{Put: &types.Put{Item: token, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		{Update: user},
	}
	if w.NewPasswordHash != "" {
		hash := &types.AttributeValueMemberS{Value: w.NewPasswordHash}
		userSets, user.ExpressionAttributeValues[":hash"] = append(userSets, "password_hash = :hash"), hash
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			Key: emailKey(u.Email).av(), ConditionExpression: aws.String("user_id = :user"),
			UpdateExpression: aws.String("SET password_hash = :hash"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":user": &types.AttributeValueMemberS{Value: u.ID}, ":hash": hash,
			},
		}})
	}
	user.UpdateExpression = aws.String("SET " + strings.Join(userSets, ", "))
	return items, nil
}

func conditionalCheckFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}
