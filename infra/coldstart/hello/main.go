// Command hello is the cold-start baseline: the smallest aws-lambda-go function that takes the same API
// Gateway event as the real ones, built with the same flags. Whatever a real function takes longer than
// this to start is its own doing.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(_ context.Context, _ events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		return events.APIGatewayProxyResponse{
			StatusCode: 200,
			Headers:    map[string]string{"Content-Type": "application/json"},
			Body:       `{"hello": "world"}`,
		}, nil
	})
}
