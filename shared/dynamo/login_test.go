package dynamo_test

import (
	"context"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// A window that ended, has no end (a count that outlived its item's removal by TTL) or holds no attempt
// is restarted by the next claim, which is then its first attempt; an open window at its limit claims
// nothing and says how long it runs.
func TestLoginClaimRestartsWindowsThatEndedOrHoldNothing(t *testing.T) {
	db := testkit.NewDB(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	n := func(v int64) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
	}
	ms := func(d time.Duration) types.AttributeValue { return n(now.Add(d).UnixMilli()) }
	for _, tc := range []struct {
		name  string
		attrs map[string]types.AttributeValue
		want  domain.FailureWindow
		wait  time.Duration
	}{
		{"no window", nil, domain.FailureWindow{Failures: 1, Ends: now.Add(domain.LoginWindow)}, 0},
		{"no end", map[string]types.AttributeValue{"failures": n(-1)},
			domain.FailureWindow{Failures: 1, Ends: now.Add(domain.LoginWindow)}, 0},
		{"ended full", map[string]types.AttributeValue{"failures": n(10), "window_ends": ms(-time.Millisecond)},
			domain.FailureWindow{Failures: 1, Ends: now.Add(domain.LoginWindow)}, 0},
		{"open, holding nothing",
			map[string]types.AttributeValue{"failures": n(0), "window_ends": ms(5 * time.Minute)},
			domain.FailureWindow{Failures: 1, Ends: now.Add(domain.LoginWindow)}, 0},
		{"open", map[string]types.AttributeValue{"failures": n(4), "window_ends": ms(5 * time.Minute)},
			domain.FailureWindow{Failures: 5, Ends: now.Add(5 * time.Minute)}, 0},
		{"open, full", map[string]types.AttributeValue{"failures": n(10), "window_ends": ms(5 * time.Minute)},
			domain.FailureWindow{}, 5 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			email := uuid.NewString() + "@example.com"
			if tc.attrs != nil {
				item := maps.Clone(tc.attrs)
				maps.Copy(item, dynamo.LoginWindowKey(email))
				if _, err := db.Client.PutItem(ctx,
					&dynamodb.PutItemInput{TableName: aws.String(db.Table), Item: item}); err != nil {
					t.Fatal(err)
				}
			}
			att, err := db.Store.BeginLogin(ctx, email, "", now)
			if err != nil {
				t.Fatal(err)
			}
			if got := att.Claim.EmailWindow; got.Failures != tc.want.Failures || !got.Ends.Equal(tc.want.Ends) ||
				att.Wait != tc.wait {
				t.Fatalf("claimed %+v, wait %v; want %+v, wait %v", got, att.Wait, tc.want, tc.wait)
			}
			// Given back, the window is as the claim found it: none when it was the first attempt.
			if err := db.Store.ReleaseLogin(ctx, att.Claim); err != nil {
				t.Fatal(err)
			}
			again, err := db.Store.BeginLogin(ctx, email, "", now)
			if err != nil || again.Claim.EmailWindow != att.Claim.EmailWindow || again.Wait != tc.wait {
				t.Fatalf("after giving back, the next claim got %+v, wait %v (%v); want the same as the first",
					again.Claim.EmailWindow, again.Wait, err)
			}
		})
	}
}
