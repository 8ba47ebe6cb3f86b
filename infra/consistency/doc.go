// Package consistency holds the tests that keep the project's declarations in step: template.yaml's
// table against the store's, template.yaml's routes against the handlers and openapi.yaml, the SAM
// build set-up against the Makefile, and the packages' imports against ARCHITECTURE.md's arrows. It has
// no code of its own.
package consistency
