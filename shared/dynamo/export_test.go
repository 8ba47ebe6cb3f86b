package dynamo

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// LoginWindowKey is the key of an email's failure window, for tests that put windows as an earlier
// writer (or none of ours) left them.
func LoginWindowKey(email string) map[string]types.AttributeValue {
	return loginFailureEmailKey(email).av()
}
