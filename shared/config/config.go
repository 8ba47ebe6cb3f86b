// Package config reads the service's settings from the environment, once, in main.
package config

import (
	"fmt"
	"os"
	"time"
)

// Config holds every setting SPEC §8 names.
type Config struct {
	TableName        string        // TABLE_NAME: the single DynamoDB table
	DynamoDBEndpoint string        // DYNAMODB_ENDPOINT: empty means AWS; set for DynamoDB Local
	TokenTTL         time.Duration // TOKEN_TTL: login token lifetime, default 24h
	InvitationTTL    time.Duration // INVITATION_TTL: invitation validity from its last save, default 7 days
	APIAddr          string        // API_ADDR: where the local server listens, default 127.0.0.1:3000
	LogFormat        string        // LOG_FORMAT: "json" (the default in Lambda) or "text"
}

// Defaults of SPEC §8.
const (
	DefaultTableName     = "reporting-platform"
	DefaultTokenTTL      = 24 * time.Hour
	DefaultInvitationTTL = 7 * 24 * time.Hour
	DefaultAPIAddr       = "127.0.0.1:3000"
)

// FromEnv reads the environment. An unparsable duration is an error, not a silent default: a typo in
// a deployment should stop the function at cold start, not change token lifetimes.
func FromEnv() (Config, error) {
	c := Config{
		TableName:        getenv("TABLE_NAME", DefaultTableName),
		DynamoDBEndpoint: os.Getenv("DYNAMODB_ENDPOINT"),
		APIAddr:          getenv("API_ADDR", DefaultAPIAddr),
		LogFormat:        getenv("LOG_FORMAT", "json"),
	}
	var err error
	if c.TokenTTL, err = duration("TOKEN_TTL", DefaultTokenTTL); err != nil {
		return Config{}, err
	}
	if c.InvitationTTL, err = duration("INVITATION_TTL", DefaultInvitationTTL); err != nil {
		return Config{}, err
	}
	return c, nil
}

func getenv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func duration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("config: %s=%q is not a positive Go duration such as 24h", name, v)
	}
	return d, nil
}
