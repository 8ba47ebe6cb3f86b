// Package consistency holds the tests that keep the project's declarations in step: template.yaml's
// table against the store's, template.yaml's routes against the handlers and openapi.yaml, and the SAM
// build set-up against the Makefile. It has no code of its own.
package consistency
