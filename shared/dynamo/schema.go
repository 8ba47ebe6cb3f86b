package dynamo

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attribute and index names of the single table. template.yaml declares the same table; a test holds
// the two together.
const (
	attrPK     = "PK"
	attrSK     = "SK"
	attrGSI1PK = "GSI1PK"
	attrGSI1SK = "GSI1SK"
	attrGSI2PK = "GSI2PK"
	attrGSI2SK = "GSI2SK"
	attrGSI3PK = "GSI3PK"
	attrGSI3SK = "GSI3SK"
	attrGSI5PK = "GSI5PK"
	attrGSI5SK = "GSI5SK"
	// attrObjectID is a comment's object id, GSI6's partition key: only comments have it.
	attrObjectID = "object_id"
	attrTTL      = "expires_at_epoch"

	indexGSI1 = "GSI1"
	indexGSI2 = "GSI2"
	indexGSI3 = "GSI3"
	indexGSI4 = "GSI4"
	indexGSI5 = "GSI5"
	indexGSI6 = "GSI6"
)

// What each index carries beyond the keys: as little as its readers need, since a list's deeper page
// reads the entries it skips. GSI1 and GSI2 carry commenter_id, so that a page's commenters are read in
// the same round trip as its comments, after the index query; GSI2 also carries an invitation's
// expiry (a create checks whether the address's invitation from that organization is still pending);
// GSI4 an invitation's organization (a member's list takes those of their own organizations from the
// organization's partition); GSI5 what decides which lists an expired invitation belongs to. GSI6
// holds an object's comments in GSI1's order with what a comment's read shape shows: a page the
// keys-only GSI1 listed is then read in one Query of its range, beside its commenters, instead of a
// BatchGetItem of every comment; it is read only for entries GSI1 listed first, so a deeper page's
// skipped entries cost their keys alone. Its partition is the object id alone (content_type is
// projected and checked), the one key attribute only comments have: invitations, members and
// portfolios, which have GSI1's keys too, stay out of it and write nothing more.
var (
	gsi1Projected = []string{"commenter_id"}
	gsi2Projected = []string{"commenter_id", "expiry_date"}
	gsi4Projected = []string{"org_id"}
	gsi5Projected = []string{"org_id", "email", "created_at"}
	gsi6Projected = []string{"id", "commenter_id", "content_type", "tag", "text", "parent_id", "created_at",
		"updated_at"}
)

// TableDefinition is the table as CreateTable wants it: what `make run` and the tests create in
// DynamoDB Local, and what template.yaml must declare for AWS.
func TableDefinition(name string) *dynamodb.CreateTableInput {
	gsi := func(index, pk, sk string, projection *types.Projection) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{
			IndexName: aws.String(index),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
			},
			Projection: projection,
		}
	}
	include := func(attrs []string) *types.Projection {
		return &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: attrs}
	}
	attrs := []types.AttributeDefinition{}
	for _, a := range []string{attrPK, attrSK, attrGSI1PK, attrGSI1SK, attrGSI2PK, attrGSI2SK, attrGSI3PK, attrGSI3SK,
		attrGSI5PK, attrGSI5SK, attrObjectID} {
		attrs = append(attrs,
			types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: attrs,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			gsi(indexGSI1, attrGSI1PK, attrGSI1SK, include(gsi1Projected)),
			gsi(indexGSI2, attrGSI2PK, attrGSI2SK, include(gsi2Projected)),
			// Only invitations have GSI3 keys: an organization's invitations.
			gsi(indexGSI3, attrGSI3PK, attrGSI3SK, &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}),
			// The invitations to an address: keyed by attributes invitations already carry (their GSI2
			// partition, their GSI3 sort key), which only invitations have together.
			gsi(indexGSI4, attrGSI2PK, attrGSI3SK, include(gsi4Projected)),
			// Pending invitations by expiry (SPEC §11's scheduled work).
			gsi(indexGSI5, attrGSI5PK, attrGSI5SK, include(gsi5Projected)),
			// An object's comments as they are shown, keyed on attributes every comment has always
			// had (InPlaceIndexes).
			gsi(indexGSI6, attrObjectID, attrGSI1SK, include(gsi6Projected)),
		},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: StreamView},
	}
}

// InPlaceIndexes are the indexes a table made without them may gain in place (UpdateTable), its items
// kept: they are keyed on attributes that the items they hold have carried since the table's first
// design, so DynamoDB fills them with every item they would have held from the start.
var InPlaceIndexes = []string{indexGSI6}

// StreamView is what the table's stream carries of each change: the item as written, which is all the
// invitation e-mail's delivery (MailFunction, SPEC §9) reads to decide whether a save still needs its
// e-mail. The old image would double each record's size for nothing it reads.
const StreamView = types.StreamViewTypeNewImage

// TTLAttribute is the attribute DynamoDB's time to live reads (epoch seconds); expired tokens vanish.
const TTLAttribute = attrTTL
