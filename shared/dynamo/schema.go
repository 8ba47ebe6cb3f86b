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
	attrTTL    = "expires_at_epoch"

	indexGSI1 = "GSI1"
	indexGSI2 = "GSI2"
	indexGSI3 = "GSI3"
	indexGSI4 = "GSI4"
)

// The comment indexes carry commenter_id so that a page of comments and their commenters can be read
// in one BatchGetItem after the index query.
var indexProjectedAttributes = []string{"commenter_id"}

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
	include := &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: indexProjectedAttributes}
	attrs := []types.AttributeDefinition{}
	for _, a := range []string{attrPK, attrSK, attrGSI1PK, attrGSI1SK, attrGSI2PK, attrGSI2SK, attrGSI3PK, attrGSI3SK} {
		attrs = append(attrs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
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
			gsi(indexGSI1, attrGSI1PK, attrGSI1SK, include),
			gsi(indexGSI2, attrGSI2PK, attrGSI2SK, include),
			// Only invitations have GSI3 keys; whole, so an organization's list needs no item reads.
			gsi(indexGSI3, attrGSI3PK, attrGSI3SK, &types.Projection{ProjectionType: types.ProjectionTypeAll}),
			// The invitations to an address, whole: keyed by attributes invitations already carry (their
			// GSI2 partition, their GSI3 sort key), which only invitations have together, so it needs no
			// attribute of its own.
			gsi(indexGSI4, attrGSI2PK, attrGSI3SK, &types.Projection{ProjectionType: types.ProjectionTypeAll}),
		},
	}
}

// TTLAttribute is the attribute DynamoDB's time to live reads (epoch seconds); expired tokens vanish.
const TTLAttribute = attrTTL
